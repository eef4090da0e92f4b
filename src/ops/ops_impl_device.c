/* The DIOPI-IMPL adapter: a Backplane plugin, linked into libbackplane and
 * loaded in process (bp_runtime_options_t.in_process_plugins), whose one
 * device runs on the active DIOPI-IMPL library's device functions.
 *
 * - Memory: the library's malloc/free.
 * - Streams: a plugin stream (C_Stream) IS the library's native stream, so
 *   the library's ops, given it by diopiGetStream, order their work with
 *   Backplane's copies on it.
 * - Copies: async ones on the given stream; blocking ones on a stream of the
 *   adapter's own, then synchronized.
 * - Events: DIOPI has none, so an event completes when it is recorded:
 *   record_event waits for the stream (or, without one, for every stream).
 * - synchronize_device waits for every stream the adapter created.
 *
 * Thread-safety: the hooks are immutable while active (ops_impl_activate to
 * ops_impl_deactivate); the stream list has its own lock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/device_ext.h"
#include "base/status.h"
#include "ops/ops_impl.h"

static struct {
  /* Set and cleared under the open lock (ops_impl_lock). */
  bool active; /* the hooks are set */
  ops_impl_hooks_t hooks;
  bp_ops_impl_style_t style;
  char owner[512]; /* the claiming library's path; "" when free */

  pthread_mutex_t streams_lock;
  diopiStreamHandle_t *streams; /* live streams made through the adapter */
  size_t stream_count, stream_capacity;
  diopiStreamHandle_t copy_stream; /* for blocking copies, made on demand */
  bool has_copy_stream;
} adapter = {.streams_lock = PTHREAD_MUTEX_INITIALIZER};

static char device_type[] = BP_OPS_IMPL_DEVICE_TYPE;
static char old_style[] = "old style", new_style[] = "new style";

/* ---- Which hooks a library lacks ----------------------------------------- */

static const struct {
  size_t offset;
  const char *registration, *symbol;
} required_hooks[] = {
#define HOOK(field, registration, symbol)                                      \
  { offsetof(ops_impl_hooks_t, field), registration, symbol }
    HOOK(malloc, "diopiRegisterDeviceMallocFunc", "device_malloc"),
    HOOK(free, "diopiRegisterDevMemFreeFunc", "device_free"),
    HOOK(create_stream, "diopiRegisterStreamCreateFunc", "device_make_stream"),
    HOOK(destroy_stream, "diopiRegisterStreamDestroyFunc",
         "device_destroy_stream"),
    HOOK(sync_stream, "diopiRegisterSynchronizeStreamFunc",
         "device_synchronize_stream"),
    HOOK(h2d, "diopiRegisterMemcpyH2DAsyncFunc", "device_memcpy_h2d_async"),
    HOOK(d2h, "diopiRegisterMemcpyD2HAsyncFunc", "device_memcpy_d2h_async"),
    HOOK(d2d, "diopiRegisterMemcpyD2DAsyncFunc", "device_memcpy_d2d_async"),
#undef HOOK
};

void ops_impl_missing(const ops_impl_hooks_t *hooks, bp_ops_impl_style_t style,
                      char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof required_hooks / sizeof required_hooks[0];
       i++) {
    void (*const *slot)(void) =
        (void (*const *)(void))((const char *)hooks + required_hooks[i].offset);
    if (*slot)
      continue;
    const char *name = style == BP_OPS_IMPL_OLD ? required_hooks[i].registration
                                                : required_hooks[i].symbol;
    int n = snprintf(out + used, size - used, "%s%s", used ? ", " : "", name);
    if (n < 0 || (size_t)n >= size - used)
      return;
    used += (size_t)n;
  }
}

bp_status_t ops_impl_claim(const char *path) {
  if (adapter.owner[0])
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_ops_library_open: %s: another DIOPI-IMPL library (%s) "
                    "is open; one at a time per process",
                    path, adapter.owner);
  snprintf(adapter.owner, sizeof adapter.owner, "%s", path);
  return BP_OK;
}

void ops_impl_activate(const ops_impl_hooks_t *hooks,
                       bp_ops_impl_style_t style) {
  adapter.hooks = *hooks;
  adapter.style = style;
  adapter.active = true;
}

void ops_impl_release(void) {
  pthread_mutex_lock(&adapter.streams_lock);
  if (adapter.active && adapter.has_copy_stream)
    adapter.hooks.destroy_stream(adapter.copy_stream);
  adapter.has_copy_stream = false;
  free(adapter.streams);
  adapter.streams = NULL;
  adapter.stream_count = adapter.stream_capacity = 0;
  pthread_mutex_unlock(&adapter.streams_lock);
  adapter.hooks = (ops_impl_hooks_t){0};
  adapter.active = false;
  adapter.owner[0] = '\0';
}

/* ---- The plugin functions ------------------------------------------------ */

static C_Status from_diopi(int32_t error) {
  return error == diopiSuccess ? C_SUCCESS : C_FAILED;
}

static C_Status no_op(const C_Device device) {
  (void)device;
  return C_SUCCESS;
}

static C_Status create_stream(const C_Device device, C_Stream *stream) {
  (void)device;
  diopiStreamHandle_t native = NULL;
  if (adapter.hooks.create_stream(&native) != diopiSuccess)
    return C_FAILED;
  pthread_mutex_lock(&adapter.streams_lock);
  if (adapter.stream_count == adapter.stream_capacity) {
    size_t capacity = adapter.stream_capacity ? 2 * adapter.stream_capacity : 8;
    diopiStreamHandle_t *grown =
        realloc(adapter.streams, capacity * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&adapter.streams_lock);
      adapter.hooks.destroy_stream(native);
      return C_FAILED;
    }
    adapter.streams = grown;
    adapter.stream_capacity = capacity;
  }
  adapter.streams[adapter.stream_count++] = native;
  pthread_mutex_unlock(&adapter.streams_lock);
  *stream = (C_Stream)native;
  return C_SUCCESS;
}

static C_Status destroy_stream(const C_Device device, C_Stream stream) {
  (void)device;
  pthread_mutex_lock(&adapter.streams_lock);
  for (size_t i = 0; i < adapter.stream_count; i++) {
    if (adapter.streams[i] == (diopiStreamHandle_t)stream) {
      adapter.streams[i] = adapter.streams[--adapter.stream_count];
      break;
    }
  }
  pthread_mutex_unlock(&adapter.streams_lock);
  return from_diopi(adapter.hooks.destroy_stream((diopiStreamHandle_t)stream));
}

static C_Status synchronize_stream(const C_Device device, C_Stream stream) {
  (void)device;
  return from_diopi(adapter.hooks.sync_stream((diopiStreamHandle_t)stream));
}

/* Every stream, the copy stream included. */
static C_Status synchronize_device(const C_Device device) {
  (void)device;
  C_Status status = C_SUCCESS;
  pthread_mutex_lock(&adapter.streams_lock);
  for (size_t i = 0; i < adapter.stream_count && status == C_SUCCESS; i++)
    status = from_diopi(adapter.hooks.sync_stream(adapter.streams[i]));
  if (status == C_SUCCESS && adapter.has_copy_stream)
    status = from_diopi(adapter.hooks.sync_stream(adapter.copy_stream));
  pthread_mutex_unlock(&adapter.streams_lock);
  return status;
}

/* An event is a unique token: it completes when recorded. */
static C_Status create_event(const C_Device device, C_Event *event) {
  (void)device;
  *event = malloc(1);
  return *event ? C_SUCCESS : C_FAILED;
}

static C_Status record_event(const C_Device device, C_Stream stream,
                             C_Event event) {
  (void)event;
  return stream ? synchronize_stream(device, stream)
                : synchronize_device(device);
}

static C_Status destroy_event(const C_Device device, C_Event event) {
  (void)device;
  free(event);
  return C_SUCCESS;
}

static C_Status synchronize_event(const C_Device device, C_Event event) {
  (void)device;
  (void)event;
  return C_SUCCESS;
}

static C_Status allocate(const C_Device device, void **ptr, size_t size) {
  (void)device;
  *ptr = adapter.hooks.malloc(size);
  return *ptr ? C_SUCCESS : C_FAILED;
}

static C_Status deallocate(const C_Device device, void *ptr, size_t size) {
  (void)device;
  (void)size;
  adapter.hooks.free(ptr);
  return C_SUCCESS;
}

static C_Status async_h2d(const C_Device device, C_Stream stream, void *dst,
                          const void *src, size_t size) {
  (void)device;
  return from_diopi(
      adapter.hooks.h2d((diopiStreamHandle_t)stream, dst, src, size));
}

static C_Status async_d2h(const C_Device device, C_Stream stream, void *dst,
                          const void *src, size_t size) {
  (void)device;
  return from_diopi(
      adapter.hooks.d2h((diopiStreamHandle_t)stream, dst, src, size));
}

static C_Status async_d2d(const C_Device device, C_Stream stream, void *dst,
                          const void *src, size_t size) {
  (void)device;
  return from_diopi(
      adapter.hooks.d2d((diopiStreamHandle_t)stream, dst, src, size));
}

typedef C_Status (*async_copy_fn)(const C_Device, C_Stream, void *,
                                  const void *, size_t);

/* A blocking copy: enqueued on the copy stream (made on first use), which is
 * then synchronized. Concurrent callers share it; each waits for all. */
static C_Status blocking_copy(const C_Device device, async_copy_fn copy,
                              void *dst, const void *src, size_t size) {
  pthread_mutex_lock(&adapter.streams_lock);
  if (!adapter.has_copy_stream)
    adapter.has_copy_stream =
        adapter.hooks.create_stream(&adapter.copy_stream) == diopiSuccess;
  diopiStreamHandle_t stream = adapter.copy_stream;
  bool ready = adapter.has_copy_stream;
  pthread_mutex_unlock(&adapter.streams_lock);
  if (!ready)
    return C_FAILED;
  C_Status status = copy(device, (C_Stream)stream, dst, src, size);
  return status == C_SUCCESS ? synchronize_stream(device, (C_Stream)stream)
                             : status;
}

static C_Status copy_h2d(const C_Device device, void *dst, const void *src,
                         size_t size) {
  return blocking_copy(device, async_h2d, dst, src, size);
}

static C_Status copy_d2h(const C_Device device, void *dst, const void *src,
                         size_t size) {
  return blocking_copy(device, async_d2h, dst, src, size);
}

static C_Status copy_d2d(const C_Device device, void *dst, const void *src,
                         size_t size) {
  return blocking_copy(device, async_d2d, dst, src, size);
}

static C_Status device_count(size_t *count) {
  *count = 1;
  return C_SUCCESS;
}

static C_Status device_list(size_t *devices) {
  devices[0] = 0;
  return C_SUCCESS;
}

/* Leaves device_type NULL (the loader refuses it) when no library is
 * active. */
void ops_impl_init_plugin(struct CustomRuntimeParams *params) {
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  if (!adapter.active)
    return;
  params->device_type = device_type;
  params->sub_device_type =
      adapter.style == BP_OPS_IMPL_OLD ? old_style : new_style;
  C_DeviceInterface *d = params->interface;
  d->set_device = no_op;
  d->get_device = no_op;
  d->create_stream = create_stream;
  d->destroy_stream = destroy_stream;
  d->synchronize_stream = synchronize_stream;
  d->synchronize_device = synchronize_device;
  d->create_event = create_event;
  d->record_event = record_event;
  d->destroy_event = destroy_event;
  d->synchronize_event = synchronize_event;
  d->device_memory_allocate = allocate;
  d->device_memory_deallocate = deallocate;
  d->memory_copy_h2d = copy_h2d;
  d->memory_copy_d2h = copy_d2h;
  d->memory_copy_d2d = copy_d2d;
  d->async_memory_copy_h2d = async_h2d;
  d->async_memory_copy_d2h = async_d2h;
  d->async_memory_copy_d2d = async_d2d;
  d->get_device_count = device_count;
  d->get_device_list = device_list;
}
