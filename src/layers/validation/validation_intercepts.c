/* The validation layer's intercepts: each checks its arguments against the
 * tracked objects under the layer's lock, then calls the next table. Host
 * callbacks run inside a trampoline of the layer that marks the thread as
 * running a callback of its stream, so the calls that would wait for that
 * callback to finish (synchronizing or destroying its stream, synchronizing
 * its device) are refused instead of deadlocking. */
#include <inttypes.h>
#include <stdlib.h>

#include "core/plugin_slots.h"
#include "layers/validation/validation_internal.h"

#define LAYER(device)                                                          \
  (((bp_validation_layer_t *)bp_layer_context(device, BP_LAYER_VALIDATION)))

static bool is_memory(bp_object_kind_t kind) {
  return kind != BP_OBJECT_STREAM && kind != BP_OBJECT_EVENT;
}

static void track_created(bp_validation_layer_t *v, bp_object_kind_t kind,
                          C_Device device, const void *address, size_t size) {
  if (!address)
    return;
  pthread_mutex_lock(&v->lock);
  bp_object_t object = {.address = (uintptr_t)address,
                        .size = size,
                        .seq = ++v->created[kind],
                        .device = device,
                        .kind = kind};
  bp_object_set_take(&v->dead, object.address, NULL);
  if (!bp_object_set_put(&v->live, &object))
    bp_validation_report(v, "validation", device,
                         "out of memory: %s %p is not tracked",
                         bp_object_kind_names[kind], address);
  pthread_mutex_unlock(&v->lock);
}

/* Moves a live object to the dead set. Lock held. */
static void track_destroyed(bp_validation_layer_t *v, uintptr_t address) {
  bp_object_t object;
  if (!bp_object_set_take(&v->live, address, &object))
    return;
  v->destroyed[object.kind]++;
  if (v->dead.count < BP_VALIDATION_MAX_DEAD)
    bp_object_set_put(&v->dead, &object);
}

/* Whether `handle` is a live `kind` of `device` (any device when NULL);
 * reports otherwise. NULL handles pass (plugins may have none). Lock held. */
static bool handle_ok(bp_validation_layer_t *v, const char *fn, C_Device device,
                      C_Device owner, bp_object_kind_t kind,
                      const void *handle) {
  if (!handle)
    return true;
  const char *what = bp_object_kind_names[kind];
  const bp_object_t *live = bp_object_set_find(&v->live, (uintptr_t)handle);
  if (live && live->kind == kind) {
    if (!owner || live->device == owner)
      return true;
    bp_validation_report(v, fn, device, "%s %p belongs to %s", what, handle,
                         bp_validation_device_name(live->device));
    return false;
  }
  const bp_object_t *dead = bp_object_set_find(&v->dead, (uintptr_t)handle);
  if (dead && dead->kind == kind)
    bp_validation_report(v, fn, device,
                         "%s %p (#%" PRIu64 ") was already destroyed", what,
                         handle, dead->seq);
  else
    bp_validation_report(v, fn, device, "%s %p was never created", what,
                         handle);
  return false;
}

static bool check_handle(C_Device device, const char *fn, bp_object_kind_t kind,
                         const void *handle, bool any_device) {
  bp_validation_layer_t *v = LAYER(device);
  pthread_mutex_lock(&v->lock);
  bool ok = handle_ok(v, fn, device, any_device ? NULL : device, kind, handle);
  pthread_mutex_unlock(&v->lock);
  return ok;
}

/* A device-side range: inside one live device or unified allocation (of
 * `device` for device memory). Lock held. */
static bool device_range_ok(bp_validation_layer_t *v, const char *fn,
                            C_Device device, const char *role, const void *ptr,
                            size_t size) {
  if (size == 0)
    return true;
  uintptr_t start = (uintptr_t)ptr;
  const bp_object_t *o = bp_object_set_containing(&v->live, start);
  if (!o || !is_memory(o->kind)) {
    const bp_object_t *dead = bp_object_set_containing(&v->dead, start);
    if (dead && is_memory(dead->kind))
      bp_validation_report(
          v, fn, device,
          "%s %p is inside freed %s #%" PRIu64 " (use after free)", role, ptr,
          bp_object_kind_names[dead->kind], dead->seq);
    else
      bp_validation_report(v, fn, device,
                           "%s %p is not inside any live device allocation",
                           role, ptr);
    return false;
  }
  if (o->kind == BP_OBJECT_HOST_MEMORY) {
    bp_validation_report(v, fn, device,
                         "%s %p is pinned host memory #%" PRIu64
                         ", not device memory",
                         role, ptr, o->seq);
    return false;
  }
  if (o->kind == BP_OBJECT_DEVICE_MEMORY && o->device != device) {
    bp_validation_report(v, fn, device,
                         "%s %p is device memory #%" PRIu64 " of %s", role, ptr,
                         o->seq, bp_validation_device_name(o->device));
    return false;
  }
  size_t offset = start - o->address;
  if (size > o->size - offset) {
    bp_validation_report(
        v, fn, device,
        "%s range [%p, +%zu) runs %zu bytes past the end of %s #%" PRIu64
        " (%zu bytes at %p)",
        role, ptr, size, size - (o->size - offset),
        bp_object_kind_names[o->kind], o->seq, o->size, (void *)o->address);
    return false;
  }
  return true;
}

/* A host-side pointer must not be device memory. Lock held. */
static bool host_range_ok(bp_validation_layer_t *v, const char *fn,
                          C_Device device, const char *role, const void *ptr,
                          size_t size) {
  if (size == 0)
    return true;
  const bp_object_t *o = bp_object_set_containing(&v->live, (uintptr_t)ptr);
  if (!o || o->kind != BP_OBJECT_DEVICE_MEMORY)
    return true;
  bp_validation_report(v, fn, device,
                       "%s %p is device memory #%" PRIu64
                       " of %s, passed as host memory",
                       role, ptr, o->seq, bp_validation_device_name(o->device));
  return false;
}

typedef enum side { HOST, DEVICE, PEER } side_t;

/* A copy's stream: of `device`, or for a peer copy of either device (the
 * copy may be ordered on a stream of the source or the destination). Lock
 * held. */
static bool copy_stream_ok(bp_validation_layer_t *v, const char *fn,
                           C_Device device, C_Device peer, C_Stream stream) {
  if (!peer || peer == device)
    return handle_ok(v, fn, device, device, BP_OBJECT_STREAM, stream);
  if (!handle_ok(v, fn, device, NULL, BP_OBJECT_STREAM, stream))
    return false;
  const bp_object_t *s =
      stream ? bp_object_set_find(&v->live, (uintptr_t)stream) : NULL;
  if (!s || s->device == device || s->device == peer)
    return true;
  bp_validation_report(v, fn, device,
                       "stream %p belongs to %s, neither the destination nor "
                       "the source (%s)",
                       (void *)stream, bp_validation_device_name(s->device),
                       bp_validation_device_name(peer));
  return false;
}

/* Checks a copy's stream, destination and source. `peer` is the source
 * device of a p2p copy. */
static bool copy_ok(C_Device device, C_Device peer, const char *fn,
                    C_Stream stream, side_t dst_side, void *dst,
                    side_t src_side, const void *src, size_t size) {
  bp_validation_layer_t *v = LAYER(device);
  pthread_mutex_lock(&v->lock);
  bool ok =
      copy_stream_ok(v, fn, device, src_side == PEER ? peer : NULL, stream);
  if (ok)
    ok = dst_side == HOST
             ? host_range_ok(v, fn, device, "destination", dst, size)
             : device_range_ok(v, fn, device, "destination", dst, size);
  if (ok)
    ok = src_side == HOST
             ? host_range_ok(v, fn, device, "source", src, size)
             : device_range_ok(v, fn, src_side == PEER ? peer : device,
                               "source", src, size);
  pthread_mutex_unlock(&v->lock);
  return ok;
}

/* Frees: the pointer must be the start of a live allocation of `kind` on
 * `device`; a different size is reported but the call proceeds. When it
 * does, the allocation is moved to the dead set under the same hold of the
 * lock, before the plugin frees it: once the plugin may hand the address out
 * again, nothing of the old allocation is left to confuse a new one (a free
 * the plugin then refuses still counts as done, as before). */
static bool free_ok(C_Device device, const char *fn, bp_object_kind_t kind,
                    void *ptr, size_t size) {
  if (!ptr)
    return true;
  bp_validation_layer_t *v = LAYER(device);
  const char *what = bp_object_kind_names[kind];
  bool ok = false;
  pthread_mutex_lock(&v->lock);
  const bp_object_t *live = bp_object_set_find(&v->live, (uintptr_t)ptr);
  const bp_object_t *dead = bp_object_set_find(&v->dead, (uintptr_t)ptr);
  const bp_object_t *inside =
      bp_object_set_containing(&v->live, (uintptr_t)ptr);
  if (live && live->kind == kind && live->device == device) {
    if (live->size != size)
      bp_validation_report(v, fn, device,
                           "size %zu differs from the %zu bytes of %s #%" PRIu64
                           " at %p",
                           size, live->size, what, live->seq, ptr);
    track_destroyed(v, (uintptr_t)ptr);
    ok = true;
  } else if (live && live->kind == kind) {
    bp_validation_report(v, fn, device, "%p is %s #%" PRIu64 " of %s", ptr,
                         what, live->seq,
                         bp_validation_device_name(live->device));
  } else if (dead && dead->kind == kind) {
    bp_validation_report(v, fn, device,
                         "double free of %p (%s #%" PRIu64
                         ", %zu bytes, already freed)",
                         ptr, what, dead->seq, dead->size);
  } else if (inside && is_memory(inside->kind)) {
    bp_validation_report(v, fn, device,
                         "%p is inside %s #%" PRIu64
                         " but is not what the allocation returned (%p)",
                         ptr, bp_object_kind_names[inside->kind], inside->seq,
                         (void *)inside->address);
  } else {
    bp_validation_report(v, fn, device, "%p was never allocated as %s", ptr,
                         what);
  }
  pthread_mutex_unlock(&v->lock);
  return ok;
}

/* Checks a handle about to be destroyed and, when it is live, moves it to
 * the dead set under the same hold of the lock (see free_ok). */
static bool take_handle(C_Device device, const char *fn, bp_object_kind_t kind,
                        const void *handle) {
  bp_validation_layer_t *v = LAYER(device);
  pthread_mutex_lock(&v->lock);
  bool ok = handle_ok(v, fn, device, device, kind, handle);
  if (ok && handle)
    track_destroyed(v, (uintptr_t)handle);
  pthread_mutex_unlock(&v->lock);
  return ok;
}

/* ---- streams and events ---- */

static C_Status v_create_stream(const C_Device device, C_Stream *stream) {
  C_Status result = LAYER(device)->next.create_stream(device, stream);
  if (result == C_SUCCESS || result == C_WARNING)
    track_created(LAYER(device), BP_OBJECT_STREAM, device, *stream, 0);
  return result;
}

/* ---- host callbacks ---- */

/* The host callback the calling thread is running, if any (device NULL
 * otherwise). Callbacks do not nest on one thread through this layer, but
 * the previous value is restored anyway. */
typedef struct callback_scope {
  C_Device device;
  C_Stream stream;
} callback_scope_t;

static _Thread_local callback_scope_t running_callback;

/* `device` is the one the callback was added with: the plugin calls the
 * trampoline with its own handle, which the layers cannot resolve. */
typedef struct callback_closure {
  C_Callback callback;
  void *user_data;
  C_Device device;
} callback_closure_t;

static void callback_trampoline(C_Device plugin_device, C_Stream stream,
                                void *user_data, C_Status *status) {
  (void)plugin_device;
  callback_closure_t closure = *(callback_closure_t *)user_data;
  free(user_data);
  callback_scope_t outer = running_callback;
  running_callback = (callback_scope_t){closure.device, stream};
  closure.callback(closure.device, stream, closure.user_data, status);
  running_callback = outer;
}

static C_Status v_stream_add_callback(const C_Device device, C_Stream stream,
                                      C_Callback callback, void *user_data) {
  bp_validation_layer_t *v = LAYER(device);
  if (!check_handle(device, "stream_add_callback", BP_OBJECT_STREAM, stream,
                    false))
    return C_ERROR;
  callback_closure_t *closure = malloc(sizeof *closure);
  if (!closure)
    return v->next.stream_add_callback(device, stream, callback, user_data);
  *closure = (callback_closure_t){callback, user_data, device};
  C_Status result =
      v->next.stream_add_callback(device, stream, callback_trampoline, closure);
  if (result != C_SUCCESS && result != C_WARNING)
    free(closure);
  return result;
}

/* Whether the calling thread is not inside a host callback that `fn` on
 * (`device`, `stream`) would wait for; reports otherwise. `stream` NULL:
 * the whole device. */
static bool outside_own_callback(const char *fn, C_Device device,
                                 C_Stream stream) {
  callback_scope_t scope = running_callback;
  if (!scope.device || scope.device != device ||
      (stream && scope.stream != stream))
    return true;
  bp_validation_layer_t *v = LAYER(device);
  pthread_mutex_lock(&v->lock);
  if (stream)
    bp_validation_report(v, fn, device,
                         "called on stream %p from a host callback of that "
                         "stream: it waits for the callback to return "
                         "(deadlock); refused",
                         (void *)stream);
  else
    bp_validation_report(v, fn, device,
                         "called from a host callback of stream %p of this "
                         "device: it waits for the callback to return "
                         "(deadlock); refused",
                         (void *)scope.stream);
  pthread_mutex_unlock(&v->lock);
  return false;
}

static C_Status v_synchronize_stream(const C_Device device, C_Stream stream) {
  if (!check_handle(device, "synchronize_stream", BP_OBJECT_STREAM, stream,
                    false) ||
      !outside_own_callback("synchronize_stream", device, stream))
    return C_ERROR;
  return LAYER(device)->next.synchronize_stream(device, stream);
}

static C_Status v_synchronize_device(const C_Device device) {
  if (!outside_own_callback("synchronize_device", device, NULL))
    return C_ERROR;
  return LAYER(device)->next.synchronize_device(device);
}

static C_Status v_destroy_stream(const C_Device device, C_Stream stream) {
  bp_validation_layer_t *v = LAYER(device);
  if (!outside_own_callback("destroy_stream", device, stream) ||
      !take_handle(device, "destroy_stream", BP_OBJECT_STREAM, stream))
    return C_ERROR;
  if (stream && v->next.query_stream &&
      v->next.query_stream(device, stream) == C_FAILED) {
    pthread_mutex_lock(&v->lock);
    bp_validation_report(v, "destroy_stream", device,
                         "stream %p destroyed with work pending", stream);
    pthread_mutex_unlock(&v->lock);
  }
  return v->next.destroy_stream(device, stream);
}

#define STREAM_CALL(name, params, args, stream)                                \
  static C_Status v_##name params {                                            \
    if (!check_handle(device, #name, BP_OBJECT_STREAM, stream, false))         \
      return C_ERROR;                                                          \
    return LAYER(device)->next.name args;                                      \
  }
STREAM_CALL(query_stream, (const C_Device device, C_Stream stream),
            (device, stream), stream)
STREAM_CALL(blas_axpby,
            (const C_Device device, C_Stream stream, C_DataType dtype,
             size_t numel, float alpha, void *x, float beta, void *y),
            (device, stream, dtype, numel, alpha, x, beta, y), stream)

static C_Status v_create_event(const C_Device device, C_Event *event) {
  C_Status result = LAYER(device)->next.create_event(device, event);
  if (result == C_SUCCESS || result == C_WARNING)
    track_created(LAYER(device), BP_OBJECT_EVENT, device, *event, 0);
  return result;
}

static C_Status v_destroy_event(const C_Device device, C_Event event) {
  if (!take_handle(device, "destroy_event", BP_OBJECT_EVENT, event))
    return C_ERROR;
  return LAYER(device)->next.destroy_event(device, event);
}

#define EVENT_CALL(name)                                                       \
  static C_Status v_##name(const C_Device device, C_Event event) {             \
    if (!check_handle(device, #name, BP_OBJECT_EVENT, event, false))           \
      return C_ERROR;                                                          \
    return LAYER(device)->next.name(device, event);                            \
  }
EVENT_CALL(query_event)
EVENT_CALL(synchronize_event)

static C_Status v_record_event(const C_Device device, C_Stream stream,
                               C_Event event) {
  bp_validation_layer_t *v = LAYER(device);
  pthread_mutex_lock(&v->lock);
  const bp_object_t *s = bp_object_set_find(&v->live, (uintptr_t)stream);
  const bp_object_t *e = bp_object_set_find(&v->live, (uintptr_t)event);
  bool ok;
  if (s && e && s->kind == BP_OBJECT_STREAM && e->kind == BP_OBJECT_EVENT &&
      s->device != e->device) {
    bp_validation_report(v, "record_event", device,
                         "event %p of %s recorded on stream %p of %s", event,
                         bp_validation_device_name(e->device), stream,
                         bp_validation_device_name(s->device));
    ok = false;
  } else {
    ok = handle_ok(v, "record_event", device, device, BP_OBJECT_STREAM,
                   stream) &&
         handle_ok(v, "record_event", device, device, BP_OBJECT_EVENT, event);
  }
  pthread_mutex_unlock(&v->lock);
  return ok ? v->next.record_event(device, stream, event) : C_ERROR;
}

static C_Status v_stream_wait_event(const C_Device device, C_Stream stream,
                                    C_Event event) {
  if (!check_handle(device, "stream_wait_event", BP_OBJECT_STREAM, stream,
                    false) ||
      !check_handle(device, "stream_wait_event", BP_OBJECT_EVENT, event, true))
    return C_ERROR;
  return LAYER(device)->next.stream_wait_event(device, stream, event);
}

/* ---- memory ---- */

#define MEMORY_PAIR(kind_name, kind)                                           \
  static C_Status v_##kind_name##_allocate(const C_Device device, void **ptr,  \
                                           size_t size) {                      \
    C_Status result =                                                          \
        LAYER(device)->next.kind_name##_allocate(device, ptr, size);           \
    if (result == C_SUCCESS || result == C_WARNING)                            \
      track_created(LAYER(device), kind, device, *ptr, size);                  \
    return result;                                                             \
  }                                                                            \
  static C_Status v_##kind_name##_deallocate(const C_Device device, void *ptr, \
                                             size_t size) {                    \
    if (!free_ok(device, #kind_name "_deallocate", kind, ptr, size))           \
      return C_ERROR;                                                          \
    return LAYER(device)->next.kind_name##_deallocate(device, ptr, size);      \
  }
MEMORY_PAIR(device_memory, BP_OBJECT_DEVICE_MEMORY)
MEMORY_PAIR(host_memory, BP_OBJECT_HOST_MEMORY)
MEMORY_PAIR(unified_memory, BP_OBJECT_UNIFIED_MEMORY)

static C_Status v_device_memory_set(const C_Device device, void *ptr,
                                    unsigned char value, size_t size) {
  if (!copy_ok(device, NULL, "device_memory_set", NULL, DEVICE, ptr, HOST, NULL,
               size))
    return C_ERROR;
  return LAYER(device)->next.device_memory_set(device, ptr, value, size);
}

#define COPY_CALL(name, dst_side, src_side)                                    \
  static C_Status v_##name(const C_Device device, void *dst, const void *src,  \
                           size_t size) {                                      \
    if (!copy_ok(device, NULL, #name, NULL, dst_side, dst, src_side, src,      \
                 size))                                                        \
      return C_ERROR;                                                          \
    return LAYER(device)->next.name(device, dst, src, size);                   \
  }                                                                            \
  static C_Status v_async_##name(const C_Device device, C_Stream stream,       \
                                 void *dst, const void *src, size_t size) {    \
    if (!copy_ok(device, NULL, "async_" #name, stream, dst_side, dst,          \
                 src_side, src, size))                                         \
      return C_ERROR;                                                          \
    return LAYER(device)->next.async_##name(device, stream, dst, src, size);   \
  }
COPY_CALL(memory_copy_h2d, DEVICE, HOST)
COPY_CALL(memory_copy_d2h, HOST, DEVICE)
COPY_CALL(memory_copy_d2d, DEVICE, DEVICE)

static C_Status v_memory_copy_p2p(const C_Device device,
                                  const C_Device src_device, void *dst,
                                  const void *src, size_t size) {
  if (!copy_ok(device, src_device, "memory_copy_p2p", NULL, DEVICE, dst, PEER,
               src, size))
    return C_ERROR;
  return LAYER(device)->next.memory_copy_p2p(device, src_device, dst, src,
                                             size);
}

static C_Status v_async_memory_copy_p2p(const C_Device device,
                                        const C_Device src_device,
                                        C_Stream stream, void *dst,
                                        const void *src, size_t size) {
  if (!copy_ok(device, src_device, "async_memory_copy_p2p", stream, DEVICE, dst,
               PEER, src, size))
    return C_ERROR;
  return LAYER(device)->next.async_memory_copy_p2p(device, src_device, stream,
                                                   dst, src, size);
}

void bp_validation_layer_install(bp_validation_layer_t *layer,
                                 C_DeviceInterface *table) {
  layer->next = *table;
#define INTERCEPT(name, need, layers, params, args)                            \
  BP_SLOT_IF_CHECKED(layers)(if (table->name) table->name = v_##name;)
  BP_PLUGIN_SLOTS(INTERCEPT)
#undef INTERCEPT
}
