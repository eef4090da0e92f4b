/* Host callbacks in stream order. The plugin gets a trampoline and a heap
 * closure; the trampoline runs the caller's function and frees the closure,
 * so the plugin must call it exactly once (or not at all when
 * stream_add_callback fails). A slice of the trace when traced
 * (core/observer.h). */
#include <stdlib.h>

#include "base/status.h"
#include "core/observer.h"
#include "core/stream_internal.h"

typedef struct callback_closure {
  bp_host_fn_t fn;
  void *user_data;
  bp_stream_t *stream;
} callback_closure_t;

static void callback_trampoline(C_Device device, C_Stream stream,
                                void *user_data, C_Status *status) {
  (void)device;
  (void)stream;
  callback_closure_t closure = *(callback_closure_t *)user_data;
  free(user_data);
  /* The allocator must not wait for streams while the callback runs. */
  void *previous = bp_caching_allocator_enter_callback(closure.stream);
  closure.fn(closure.user_data);
  bp_caching_allocator_leave_callback(previous);
  if (status)
    *status = C_SUCCESS;
}

BP_API_BODY bp_status_t stream_add_callback(bp_stream_t *stream,
                                            bp_host_fn_t fn, void *user_data) {
  if (!stream || !fn)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_add_callback: stream or fn is NULL");
  bp_status_t checked = bp_stream_check("bp_stream_add_callback", stream);
  if (checked != BP_OK)
    return checked;
  if (!stream->native) {
    /* One queue: once it has drained, "in stream order" is now. */
    bp_status_t status = bp_stream_drain(stream);
    if (status == BP_OK)
      fn(user_data);
    return status;
  }
  bp_device_t *device = stream->device;
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  callback_closure_t *closure = malloc(sizeof *closure);
  if (!closure)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_stream_add_callback on %s: out of memory",
                    device->name);
  *closure = (callback_closure_t){fn, user_data, stream};
  C_Status result = device->plugin->dispatch.stream_add_callback(
      &device->c_device, stream->native, callback_trampoline, closure);
  if (!BP_C_OK(result)) {
    free(closure);
    return bp_plugin_call_error(device, "stream_add_callback", result);
  }
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_stream_add_callback(bp_stream_t *stream, bp_host_fn_t fn,
                           void *user_data) {
  bp_api_call_t call =
      bp_api_call_begin(stream->device, "bp_stream_add_callback");
  bp_status_t status = stream_add_callback(stream, fn, user_data);
  bp_api_call_end(&call, status, ",\"stream\":\"%p\"", (void *)stream);
  return status;
}

BP_API bp_status_t bp_stream_add_callback(bp_stream_t *stream, bp_host_fn_t fn,
                                          void *user_data) {
  if (stream != NULL && BP_OBSERVED(stream->device))
    return traced_stream_add_callback(stream, fn, user_data);
  return stream_add_callback(stream, fn, user_data);
}
