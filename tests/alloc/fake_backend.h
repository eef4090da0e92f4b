/* An in-memory device for caching-allocator tests: fake addresses (never
 * dereferenced) from a bump pointer, a capacity for out-of-memory, and fake
 * streams whose completion the test controls, for events. Thread-safe. */
#ifndef BACKPLANE_TESTS_ALLOC_FAKE_BACKEND_H_
#define BACKPLANE_TESTS_ALLOC_FAKE_BACKEND_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "alloc/caching_allocator.h"

#define FAKE_MAX_LIVE 4096

/* A stream: work is "enqueued" when an event is recorded on it and done when
 * the test says so (fake_stream_complete). */
typedef struct fake_stream {
  size_t recorded;  /* events recorded so far */
  size_t completed; /* how many of them have completed */
  bool immediate;   /* every event completes at once */
} fake_stream_t;

typedef struct fake_device {
  pthread_mutex_t mu;
  size_t capacity;
  size_t used;
  bool report_memory_info; /* false: memory_info fails (unknown) */
  size_t next_address;
  size_t allocate_calls, free_calls;
  size_t last_allocate_size;
  size_t events_created, events_destroyed;
  struct {
    size_t addr, size;
  } live[FAKE_MAX_LIVE];
  size_t live_count;
} fake_device_t;

void fake_device_init(fake_device_t *device, size_t capacity);
/* A backend over `device`; with `events` false it has no event functions. */
bp_alloc_backend_t fake_backend(fake_device_t *device, bool events);
/* Marks every event recorded on `stream` so far as complete. */
void fake_stream_complete(fake_device_t *device, fake_stream_t *stream);
/* The size of the live raw allocation at `ptr`, 0 if none. */
size_t fake_live_size(fake_device_t *device, const void *ptr);

#endif /* BACKPLANE_TESTS_ALLOC_FAKE_BACKEND_H_ */
