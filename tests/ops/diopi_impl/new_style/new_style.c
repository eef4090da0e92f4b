/* The toy accelerator as a new-style DIOPI-IMPL library: it defines the
 * device_* functions itself. Built with TOY_WITHOUT_MALLOC, device_malloc is
 * left out (a broken library the adapter must refuse). */
#include <conform_test.h>

#include "../toy_device.h"

#define EXPORT __attribute__((visibility("default")))

#ifndef TOY_WITHOUT_MALLOC
EXPORT void *device_malloc(uint64_t bytes) {
  return toy_malloc(bytes);
}
#endif
EXPORT void device_free(void *ptr) {
  toy_free(ptr);
}

EXPORT diopiError_t device_make_stream(diopiStreamHandle_t *stream) {
  return (diopiError_t)toy_stream_create(stream);
}

EXPORT diopiError_t device_destroy_stream(diopiStreamHandle_t stream) {
  return (diopiError_t)toy_stream_destroy(stream);
}

EXPORT diopiError_t device_synchronize_stream(diopiStreamHandle_t stream) {
  return (diopiError_t)toy_stream_synchronize(stream);
}

EXPORT diopiError_t device_memcpy_h2d_async(diopiStreamHandle_t stream,
                                            void *dst, const void *src,
                                            uint64_t bytes) {
  return (diopiError_t)toy_memcpy_async(stream, dst, src, bytes);
}

EXPORT diopiError_t device_memcpy_d2h_async(diopiStreamHandle_t stream,
                                            void *dst, const void *src,
                                            uint64_t bytes) {
  return (diopiError_t)toy_memcpy_async(stream, dst, src, bytes);
}

EXPORT diopiError_t device_memcpy_d2d_async(diopiStreamHandle_t stream,
                                            void *dst, const void *src,
                                            uint64_t bytes) {
  return (diopiError_t)toy_memcpy_async(stream, dst, src, bytes);
}

EXPORT const char *diopiGetVendorName(void) {
  return "toy (new style)";
}
