/* The toy accelerator as an old-style DIOPI-IMPL library: initLibrary hands
 * its device functions over through diopiRegister*Func. Built with
 * TOY_REGISTER_NOTHING, initLibrary registers nothing (a broken library the
 * adapter must refuse). */
#include <diopi_register.h>

#include "../toy_device.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int32_t initLibrary(void) {
#ifndef TOY_REGISTER_NOTHING
  if (diopiRegisterDeviceMallocFunc(toy_malloc) ||
      diopiRegisterDevMemFreeFunc(toy_free) ||
      diopiRegisterStreamCreateFunc(toy_stream_create) ||
      diopiRegisterStreamDestroyFunc(toy_stream_destroy) ||
      diopiRegisterSynchronizeStreamFunc(toy_stream_synchronize) ||
      diopiRegisterMemcpyH2DAsyncFunc(toy_memcpy_async) ||
      diopiRegisterMemcpyD2HAsyncFunc(toy_memcpy_async) ||
      diopiRegisterMemcpyD2DAsyncFunc(toy_memcpy_async) ||
      diopiRegisterGetLastErrorFunc(toy_last_error))
    return diopiErrorOccurred;
#endif
  return diopiSuccess;
}

EXPORT int32_t finalizeLibrary(void) {
  return diopiSuccess;
}

EXPORT const char *diopiGetVendorName(void) {
  return "toy (old style)";
}
