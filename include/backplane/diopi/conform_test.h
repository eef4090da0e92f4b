/* DIOPI-IMPL's device runtime, new style: instead of registering functions,
 * the library defines these symbols itself (and diopiGetLastErrorString,
 * functions.h). Names and types follow DIOPI's conformance-test headers, so
 * such a library builds against this header unchanged (add
 * include/backplane/diopi to its include path: `<conform_test.h>`).
 *
 * bp_ops_library_open finds them by name, calls initLibrary if the library
 * has one, and builds a Backplane device from them (the DIOPI-IMPL adapter,
 * backplane/ops.h); finalizeLibrary runs when the library is closed. */
#ifndef BACKPLANE_DIOPI_CONFORM_TEST_H_
#define BACKPLANE_DIOPI_CONFORM_TEST_H_

#include "diopirt.h"

#if defined(__cplusplus)
extern "C" {
#endif

void *device_malloc(uint64_t bytes);
void device_free(void *ptr);
diopiError_t device_memcpy_h2d_async(diopiStreamHandle_t stream, void *dst,
                                     const void *src, uint64_t bytes);
diopiError_t device_memcpy_d2h_async(diopiStreamHandle_t stream, void *dst,
                                     const void *src, uint64_t bytes);
diopiError_t device_memcpy_d2d_async(diopiStreamHandle_t stream, void *dst,
                                     const void *src, uint64_t bytes);
diopiError_t device_make_stream(diopiStreamHandle_t *stream);
diopiError_t device_destroy_stream(diopiStreamHandle_t stream);
diopiError_t device_synchronize_stream(diopiStreamHandle_t stream);

diopiError_t initLibrary(void);
diopiError_t finalizeLibrary(void);

#if defined(__cplusplus)
}
#endif

#endif /* BACKPLANE_DIOPI_CONFORM_TEST_H_ */
