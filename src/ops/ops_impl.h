/* DIOPI-IMPL libraries: op libraries that bring their own device runtime
 * (internal to src/ops). Their nine device functions, gathered at open from
 * initLibrary's registrations (old style) or the library's own symbols (new
 * style), become a Backplane device: the adapter plugin (ops_impl_device.c).
 *
 * One DIOPI-IMPL library is open at a time per process: DIOPI's old-style
 * registration is process-wide by design, and the adapter's plugin functions
 * (which take no user data) reach the library's functions through it. */
#ifndef BACKPLANE_OPS_OPS_IMPL_H_
#define BACKPLANE_OPS_OPS_IMPL_H_

#include "backplane/diopi/diopi_register.h"
#include "backplane/ops.h"

/* The device runtime of a DIOPI-IMPL library. All but last_error are
 * required. */
typedef struct ops_impl_hooks {
  create_stream_func_t create_stream;
  destroy_stream_func_t destroy_stream;
  sync_stream_func_t sync_stream;
  malloc_func_t malloc;
  free_func_t free;
  memcpy_h2d_async_func_t h2d;
  memcpy_d2h_async_func_t d2h;
  memcpy_d2d_async_func_t d2d;
  get_last_error_string_func_t last_error; /* may be NULL */
} ops_impl_hooks_t;

/* Old style: clears the registrations, so that what initLibrary registers
 * next can be collected with ops_impl_registered. The caller holds the
 * adapter lock (ops_impl_lock) across both. */
void ops_impl_registration_begin(void);
ops_impl_hooks_t ops_impl_registered(void);

/* Serializes opening and closing DIOPI-IMPL libraries. */
void ops_impl_lock(void);
void ops_impl_unlock(void);

/* Names the required hooks `hooks` lacks into `out` ("" if none), each
 * spelled the way `style` asks for it: the diopiRegister*Func name (old) or
 * the symbol (new). */
void ops_impl_missing(const ops_impl_hooks_t *hooks, bp_ops_impl_style_t style,
                      char *out, size_t size);

/* The adapter serves one library: ops_impl_claim reserves it for `path`
 * (BP_ERR_UNSUPPORTED naming the holder if taken), ops_impl_activate makes
 * `hooks` its device runtime, ops_impl_release frees it (destroying the
 * adapter's own copy stream, if made). All under the open lock. */
bp_status_t ops_impl_claim(const char *path);
void ops_impl_activate(const ops_impl_hooks_t *hooks,
                       bp_ops_impl_style_t style);
void ops_impl_release(void);

/* The adapter's InitPlugin (ops_impl_device.c): device type
 * BP_OPS_IMPL_DEVICE_TYPE, one device, over the active hooks. */
void ops_impl_init_plugin(struct CustomRuntimeParams *params);

#endif /* BACKPLANE_OPS_OPS_IMPL_H_ */
