/* Old-style DIOPI-IMPL registration: the diopiRegister*Func functions a
 * library's initLibrary calls, collecting its device functions. */
#include <pthread.h>

#include "ops/ops_impl.h"

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
/* Guarded by open_lock: written by initLibrary on the opening thread. */
static ops_impl_hooks_t registered;

void ops_impl_lock(void) {
  pthread_mutex_lock(&open_lock);
}
void ops_impl_unlock(void) {
  pthread_mutex_unlock(&open_lock);
}

void ops_impl_registration_begin(void) {
  registered = (ops_impl_hooks_t){0};
}

ops_impl_hooks_t ops_impl_registered(void) {
  return registered;
}

#define REGISTER(function, type, field)                                        \
  DIOPI_RT_API diopiError_t function(type f) {                                 \
    if (!f)                                                                    \
      return diopiErrorOccurred;                                               \
    registered.field = f;                                                      \
    return diopiSuccess;                                                       \
  }

REGISTER(diopiRegisterStreamCreateFunc, create_stream_func_t, create_stream)
REGISTER(diopiRegisterStreamDestroyFunc, destroy_stream_func_t, destroy_stream)
REGISTER(diopiRegisterSynchronizeStreamFunc, sync_stream_func_t, sync_stream)
REGISTER(diopiRegisterDeviceMallocFunc, malloc_func_t, malloc)
REGISTER(diopiRegisterDevMemFreeFunc, free_func_t, free)
REGISTER(diopiRegisterMemcpyH2DAsyncFunc, memcpy_h2d_async_func_t, h2d)
REGISTER(diopiRegisterMemcpyD2HAsyncFunc, memcpy_d2h_async_func_t, d2h)
REGISTER(diopiRegisterMemcpyD2DAsyncFunc, memcpy_d2d_async_func_t, d2d)
REGISTER(diopiRegisterGetLastErrorFunc, get_last_error_string_func_t,
         last_error)
#undef REGISTER
