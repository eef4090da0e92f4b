/* Host callbacks in stream order. The plugin gets a trampoline and a
 * closure (core/callback_closures.h); the trampoline runs the caller's
 * function and gives the closure back,
 * so the plugin must call it exactly once (or not at all when
 * stream_add_callback fails). An inline callback is first offered to the
 * plugin's stream_inline extension, which runs it on the calling thread if
 * the stream is idle, or declines, and then it is enqueued as usual. While the
 * function runs, the thread is marked as inside a callback of its stream, and
 * the waits that would wait for the callback itself are refused
 * (bp_check_wait_*: core/stream_internal.h). A slice of the trace when traced
 * (core/observer.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/status.h"
#include "core/active.h"
#include "core/callback_closures.h"
#include "core/callback_label.h"
#include "core/observer.h"
#include "core/stream_internal.h"

/* `ticket`: the stream's submission ticket of the callback (work recorded
 * on the stream with a later ticket runs after it). */
typedef struct callback_closure {
  bp_closure_link_t link; /* while given back */
  bp_host_fn_t fn;
  void *user_data;
  bp_stream_t *stream;
  uint64_t ticket;
  const char *label;                    /* for traces, or NULL */
  const struct callback_closure *outer; /* running on this thread before */
} callback_closure_t;

/* The innermost callback this thread runs (NULL: none). Callbacks nest when
 * a plugin without stream_add_callback runs one on the caller's thread from
 * inside another. */
static _Thread_local __attribute__((tls_model("initial-exec")))
const callback_closure_t *running_callback;

/* The label of the callback this thread ran last (it stays after the
 * callback returned: the plugin reports the callback's trace event then). */
static _Thread_local __attribute__((tls_model("initial-exec")))
const char *last_label;

const char *bp_callback_last_label(void) {
  return last_label;
}

static void callback_trampoline(C_Device device, C_Stream stream,
                                void *user_data, C_Status *status) {
  (void)device;
  (void)stream;
  callback_closure_t closure = *(callback_closure_t *)user_data;
  bp_callback_closure_give(user_data);
  closure.outer = running_callback;
  running_callback = &closure;
  last_label = closure.label;
  /* The allocator must not wait for streams while the callback runs. */
  void *previous = bp_caching_allocator_enter_callback(closure.stream);
  closure.fn(closure.user_data);
  bp_caching_allocator_leave_callback(previous);
  running_callback = closure.outer;
  if (status)
    *status = C_SUCCESS;
}

/* Refuses a wait from inside the callback of `running` (see
 * core/stream_internal.h); `what` says what the call would wait for. */
static __attribute__((noinline, cold, format(printf, 4, 5))) bp_status_t
refuse_wait(const char *function, bp_device_t *device,
            const callback_closure_t *running, const char *what_format, ...) {
  char what[160];
  va_list args;
  va_start(args, what_format);
  vsnprintf(what, sizeof what, what_format, args);
  va_end(args);
  const bp_stream_t *stream = running->stream;
  bp_status_t status = bp_error(
      BP_ERR_INVALID_ARGUMENT,
      "%s: called from a host callback of stream %s/s%u: waiting for %s "
      "would deadlock (it cannot finish before the callback returns)",
      function ? function : "the caching allocator", stream->device->name,
      (unsigned)stream->id, what);
  if (function)
    bp_api_refused(device, function);
  return status;
}

bp_status_t bp_check_wait_stream(const char *function, bp_stream_t *stream) {
  if (__builtin_expect(running_callback == NULL, 1))
    return BP_OK;
  if (!stream->native)
    return bp_check_wait_device(function, stream->device);
  for (const callback_closure_t *c = running_callback; c; c = c->outer)
    if (c->stream == stream)
      return refuse_wait(function, stream->device, c, "that stream");
  return BP_OK;
}

bp_status_t bp_check_wait_device(const char *function, bp_device_t *device) {
  for (const callback_closure_t *c = running_callback; c; c = c->outer)
    if (c->stream->device == device)
      return refuse_wait(function, device, c, "all of %s", device->name);
  return BP_OK;
}

bp_status_t bp_check_wait_event(const char *function, bp_event_t *event) {
  if (__builtin_expect(running_callback == NULL, 1))
    return BP_OK;
  uint32_t stream_id =
      atomic_load_explicit(&event->recorded_stream_id, memory_order_relaxed);
  uint64_t ticket =
      atomic_load_explicit(&event->recorded_ticket, memory_order_relaxed);
  for (const callback_closure_t *c = running_callback; c; c = c->outer)
    if (c->stream->device == event->device && c->stream->id == stream_id &&
        ticket > c->ticket)
      return refuse_wait(function, event->device, c,
                         "event %p, recorded on that stream after the "
                         "callback",
                         (void *)event);
  return BP_OK;
}

/* Runs `closure` on this thread through the plugin's stream_inline
 * extension when the stream is idle (C_SUCCESS), else C_FAILED (enqueue it)
 * or the extension's C_ERROR. Only while the plugin's own
 * stream_add_callback is what the core calls: with a layer wrapping it (or a
 * fallback in its place) every callback takes that path, so the layers see
 * them all. */
static C_Status run_if_idle(bp_device_t *device, bp_stream_t *stream,
                            callback_closure_t *closure) {
  const bp_plugin_t *plugin = device->plugin;
  const BP_StreamInlineExtension *inline_ext = plugin->extensions.stream_inline;
  if (!inline_ext || plugin->dispatch.stream_add_callback !=
                         plugin->native.stream_add_callback)
    return C_FAILED;
  return inline_ext->run_callback_if_idle(&device->c_device, stream->native,
                                          callback_trampoline, closure);
}

/* `function`: the public entry point, for messages. */
BP_API_BODY bp_status_t stream_add_callback(const char *function,
                                            bp_stream_t *stream,
                                            bp_host_fn_t fn, void *user_data,
                                            const char *label,
                                            bool may_run_inline) {
  if (!stream || !fn)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: stream or fn is NULL",
                    function);
  bp_status_t checked = bp_stream_check(function, stream);
  if (checked != BP_OK)
    return checked;
  if (!stream->native) {
    /* One queue: once it has drained, "in stream order" is now. */
    bp_status_t status = bp_stream_drain(function, stream);
    if (status == BP_OK)
      fn(user_data);
    return status;
  }
  bp_device_t *device = stream->device;
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  callback_closure_t *closure = bp_callback_closure_take(sizeof *closure);
  if (!closure)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s on %s: out of memory", function,
                    device->name);
  *closure = (callback_closure_t){
      .fn = fn,
      .user_data = user_data,
      .stream = stream,
      .ticket = atomic_fetch_add(&stream->submitted, 1) + 1,
      .label = label,
  };
  C_Status result =
      may_run_inline ? run_if_idle(device, stream, closure) : C_FAILED;
  if (result == C_FAILED)
    result = device->plugin->dispatch.stream_add_callback(
        &device->c_device, stream->native, callback_trampoline, closure);
  if (!BP_C_OK(result)) {
    bp_callback_closure_give(closure);
    return bp_plugin_call_error(device, "stream_add_callback", result);
  }
  return BP_OK;
}

/* `function` names the entry point, and the trace slice: a string literal
 * (the trace keeps the pointer). */
static __attribute__((noinline, cold)) bp_status_t
traced_stream_add_callback(const char *function, bp_stream_t *stream,
                           bp_host_fn_t fn, void *user_data, const char *label,
                           bool may_run_inline) {
  BP_TRACE_CALL(stream->device, function,
                stream_add_callback(function, stream, fn, user_data, label,
                                    may_run_inline),
                ",\"stream\":\"%p\"", (void *)stream);
}

BP_API_BODY bp_status_t add_callback(const char *function, bp_stream_t *stream,
                                     bp_host_fn_t fn, void *user_data,
                                     const char *label, bool may_run_inline) {
  if (stream == BP_STREAM_ACTIVE)
    return bp_stream_active_refused(function);
  if (stream != NULL && BP_OBSERVED(stream->device))
    return traced_stream_add_callback(function, stream, fn, user_data, label,
                                      may_run_inline);
  return stream_add_callback(function, stream, fn, user_data, label,
                             may_run_inline);
}

BP_API bp_status_t bp_stream_add_labeled_callback(bp_stream_t *stream,
                                                  bp_host_fn_t fn,
                                                  void *user_data,
                                                  const char *label) {
  return add_callback("bp_stream_add_labeled_callback", stream, fn, user_data,
                      label, false);
}

BP_API bp_status_t bp_stream_add_inline_callback(bp_stream_t *stream,
                                                 bp_host_fn_t fn,
                                                 void *user_data,
                                                 const char *label) {
  return add_callback("bp_stream_add_inline_callback", stream, fn, user_data,
                      label, true);
}

BP_API bp_status_t bp_stream_add_callback(bp_stream_t *stream, bp_host_fn_t fn,
                                          void *user_data) {
  return add_callback("bp_stream_add_callback", stream, fn, user_data, NULL,
                      false);
}
