/* What tests can observe of the stub plugin (tests/plugins/corpus). */
#ifndef BACKPLANE_TESTS_STUB_PLUGIN_H_
#define BACKPLANE_TESTS_STUB_PLUGIN_H_

#include <stdatomic.h>
#include <stddef.h>

#define STUB_DEVICE_COUNT 2
#define STUB_MEMORY_LIMIT ((size_t)64 << 20) /* largest single allocation */
#define STUB_RUNTIME_VERSION 4242

typedef struct stub_counters {
  atomic_size_t initialize;
  atomic_size_t finalize;
  atomic_size_t init_device;
  atomic_size_t deinit_device;
  atomic_size_t set_device;
  atomic_size_t synchronize_device;
  atomic_size_t sync_copies;
  atomic_size_t host_free_bytes;
} stub_counters_t;

/* Exported by the stub; find it with dlsym on the loaded plugin. */
typedef stub_counters_t *(*stub_counters_fn)(void);

#endif /* BACKPLANE_TESTS_STUB_PLUGIN_H_ */
