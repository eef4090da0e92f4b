/* A correct, synchronous, malloc-backed device for the deliberately wrong
 * test plugins of this directory: each plugin fills its table with
 * host_test_device_fill() and then overrides the one function it gets wrong.
 * Every plugin .so links its own copy (no state is shared between them). */
#ifndef BACKPLANE_TESTS_TOOLS_HOST_TEST_DEVICE_H_
#define BACKPLANE_TESTS_TOOLS_HOST_TEST_DEVICE_H_

#include "backplane/device_ext.h"

/* Sets the device and memory functions for `device_count` devices of
 * 256 MiB each (allocations beyond that fail with C_FAILED). */
void host_test_device_fill(C_DeviceInterface *table, int device_count);

/* C_SUCCESS for a device in range, else C_ERROR. */
C_Status host_test_device_check(const C_Device device);

#endif /* BACKPLANE_TESTS_TOOLS_HOST_TEST_DEVICE_H_ */
