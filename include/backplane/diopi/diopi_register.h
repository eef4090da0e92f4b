/* DIOPI-IMPL's device runtime, old style: the library exports initLibrary(),
 * which hands Backplane its device functions by calling the diopiRegister*
 * functions below (supplied by libbackplane), and may export
 * finalizeLibrary(). Names and types follow DIOPI's conformance-test
 * headers, so such a library builds against this header unchanged (add
 * include/backplane/diopi to its include path: `<diopi_register.h>`).
 *
 * bp_ops_library_open calls initLibrary and builds a Backplane device from
 * what it registered (the DIOPI-IMPL adapter, backplane/ops.h). The int32_t
 * results are diopiError_t values: 0 is success. */
#ifndef BACKPLANE_DIOPI_DIOPI_REGISTER_H_
#define BACKPLANE_DIOPI_DIOPI_REGISTER_H_

#include "diopirt.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef int32_t (*create_stream_func_t)(diopiStreamHandle_t *);
typedef int32_t (*destroy_stream_func_t)(diopiStreamHandle_t);
typedef int32_t (*sync_stream_func_t)(diopiStreamHandle_t stream);
typedef void *(*malloc_func_t)(uint64_t);
typedef void (*free_func_t)(void *);
typedef int32_t (*memcpy_h2d_async_func_t)(diopiStreamHandle_t stream,
                                           void *dst, const void *src,
                                           uint64_t bytes);
typedef int32_t (*memcpy_d2h_async_func_t)(diopiStreamHandle_t stream,
                                           void *dst, const void *src,
                                           uint64_t bytes);
typedef int32_t (*memcpy_d2d_async_func_t)(diopiStreamHandle_t stream,
                                           void *dst, const void *src,
                                           uint64_t bytes);
typedef const char *(*get_last_error_string_func_t)(void);

/* Each records one function for the library being opened; a NULL argument
 * is diopiErrorOccurred. Only meaningful inside initLibrary (or while the
 * library is being opened). */
DIOPI_RT_API diopiError_t diopiRegisterStreamCreateFunc(create_stream_func_t f);
DIOPI_RT_API diopiError_t
diopiRegisterStreamDestroyFunc(destroy_stream_func_t f);
DIOPI_RT_API diopiError_t
diopiRegisterSynchronizeStreamFunc(sync_stream_func_t f);
DIOPI_RT_API diopiError_t diopiRegisterDeviceMallocFunc(malloc_func_t f);
DIOPI_RT_API diopiError_t diopiRegisterDevMemFreeFunc(free_func_t f);
DIOPI_RT_API diopiError_t
diopiRegisterMemcpyH2DAsyncFunc(memcpy_h2d_async_func_t f);
DIOPI_RT_API diopiError_t
diopiRegisterMemcpyD2HAsyncFunc(memcpy_d2h_async_func_t f);
DIOPI_RT_API diopiError_t
diopiRegisterMemcpyD2DAsyncFunc(memcpy_d2d_async_func_t f);
DIOPI_RT_API diopiError_t
diopiRegisterGetLastErrorFunc(get_last_error_string_func_t f);

/* Supplied by the library. */
int32_t initLibrary(void);
int32_t finalizeLibrary(void);

#if defined(__cplusplus)
}
#endif

#endif /* BACKPLANE_DIOPI_DIOPI_REGISTER_H_ */
