/* Test fixture: the vcpu plugin loaded the way any Paddle-style host loads it
 * (dlopen, InitPlugin into a zeroed 912-byte table with both sizes set), and
 * small helpers shared by the vcpu tests. Single-threaded set-up only. */
#ifndef BACKPLANE_TESTS_VCPU_FIXTURE_H_
#define BACKPLANE_TESTS_VCPU_FIXTURE_H_

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"

typedef struct vcpu_plugin {
  void *handle;
  CustomRuntimeParams params;
  C_DeviceInterface table;
  const BP_DeviceAttributesExtension *attributes;
  const BP_EventTimingExtension *timing;
  const BP_StreamInlineExtension *stream_inline;
} vcpu_plugin;

/* The loaded plugin (opened by vcpu_open, not yet initialised). */
extern vcpu_plugin vcpu;

/* dlopen + InitPlugin + extension lookup; fails the test on any problem. */
void vcpu_open(void);
void vcpu_close(void);

/* cmocka group set-up/tear-down: open + initialize, finalize + close. */
int vcpu_setup(void **state);
int vcpu_teardown(void **state);

/* A C_Device for `id` (a stable handle per id, like a host's device pool). */
C_Device vcpu_dev(int id);

/* A gate a stream callback can block on until the test opens it. */
typedef struct vcpu_gate {
  atomic_int open;
  atomic_int reached; /* set once the callback is blocking */
} vcpu_gate;

void vcpu_gate_callback(C_Device device, C_Stream stream, void *gate,
                        C_Status *status);
void vcpu_gate_open(vcpu_gate *gate);
/* Waits (yielding) until the gate's callback is running. */
void vcpu_gate_wait_reached(vcpu_gate *gate);

/* Fills `size` bytes with a pattern derived from `seed`; checks it. */
void vcpu_fill(void *buffer, size_t size, uint32_t seed);
int vcpu_matches(const void *buffer, size_t size, uint32_t seed);

#endif /* BACKPLANE_TESTS_VCPU_FIXTURE_H_ */
