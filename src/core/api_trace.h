/* Framework-face calls in the trace (internal).
 *
 * While the trace layer is on, every bp_* entry point of the core that acts
 * on a device, stream or event is one slice named after the entry point, on
 * the calling thread's track, with the arguments that matter (device, size,
 * pointers, stream, event); the plugin calls it makes are the trace layer's
 * own slices, nested inside it in time. So a call that never reaches the
 * plugin (an allocation served from the caching allocator's cache) still
 * shows. An entry point keeps its body in a BP_API_BODY function, and
 * BP_API_ENTRY defines the entry point around it:
 *
 *   BP_API_BODY bp_status_t x(bp_device_t *device, size_t size) { ... }
 *   BP_API_ENTRY(bp_x, x, (bp_device_t *device, size_t size), (device, size),
 *                device, device, ",\"size\":%zu", size)
 *
 * Untraced that costs one load and one predictable branch: the traced path
 * is a separate cold function reached by a tail call, so the entry point's
 * own code (the body, inlined) is what it was. Core code calls the bodies
 * (or the *_internal functions), not the entry points, so its own work is
 * not taken for the framework's. */
#ifndef BACKPLANE_CORE_API_TRACE_H_
#define BACKPLANE_CORE_API_TRACE_H_

#include <stdio.h>

#include "core/device_table.h"
#include "base/clock.h"
#include "layers/trace_layer.h"

#define BP_API_BODY static inline __attribute__((always_inline))

/* Defines bp_traced_<body>(params), the traced path: times body(args) and
 * records it as the slice `name` on `device` (an expression of the params,
 * evaluated first), with the JSON members the remaining arguments format
 * after the call (its result is in `bp_api_status`; outputs are written
 * only on success). */
#define BP_API_TRACED(body, params, args, device, name, ...)                   \
  static __attribute__((noinline, cold)) bp_status_t bp_traced_##body params { \
    bp_device_t *bp_api_device = (device);                                     \
    uint64_t bp_api_start = bp_clock_now_ns();                                 \
    bp_status_t bp_api_status = body args;                                     \
    bp_trace_api_call(bp_api_device->trace, bp_api_device, name, bp_api_start, \
                      bp_api_status, __VA_ARGS__);                             \
    return bp_api_status;                                                      \
  }

/* The same for a body that frees `handle` (a stream, an event): the slice
 * names it as the member `key`, formatted before the call. */
#define BP_API_TRACED_FREEING(body, params, args, device, name, key, handle)   \
  static __attribute__((noinline, cold)) bp_status_t bp_traced_##body params { \
    bp_device_t *bp_api_device = (device);                                     \
    char bp_api_handle[32];                                                    \
    snprintf(bp_api_handle, sizeof bp_api_handle, "%p",                        \
             (const void *)(handle));                                          \
    uint64_t bp_api_start = bp_clock_now_ns();                                 \
    bp_status_t bp_api_status = body args;                                     \
    bp_trace_api_call(bp_api_device->trace, bp_api_device, name, bp_api_start, \
                      bp_api_status, ",\"" key "\":\"%s\"", bp_api_handle);    \
    return bp_api_status;                                                      \
  }

/* The detail of a call whose only argument that matters is its device. */
#define BP_API_NO_DETAIL "%s", ""

/* First statement of an entry point: returns through bp_traced_<body>(args)
 * when `object` (the device, stream or event the call acts on; NULL is
 * never traced, the body reports it) is non-NULL and its `device` has the
 * trace layer on. */
#define BP_API_TRACE_IF(object, device, body, args)                            \
  do {                                                                         \
    if (__builtin_expect((object) != NULL && (device)->trace != NULL, 0))      \
      return bp_traced_##body args;                                            \
  } while (0)

/* Defines the entry point `entry` (params) around body(args), traced as the
 * slice "entry" when `object` is and its `device` has the trace layer on;
 * the remaining arguments are BP_API_TRACED's detail. */
#define BP_API_ENTRY(entry, body, params, args, object, device, ...)           \
  BP_API_TRACED(body, params, args, device, #entry, __VA_ARGS__)               \
  BP_API bp_status_t entry params {                                            \
    BP_API_TRACE_IF(object, device, body, args);                               \
    return body args;                                                          \
  }

/* The same for a body that frees `handle`, named as the member `key`. */
#define BP_API_ENTRY_FREEING(entry, body, params, args, object, device, key,   \
                             handle)                                           \
  BP_API_TRACED_FREEING(body, params, args, device, #entry, key, handle)       \
  BP_API bp_status_t entry params {                                            \
    BP_API_TRACE_IF(object, device, body, args);                               \
    return body args;                                                          \
  }

#endif /* BACKPLANE_CORE_API_TRACE_H_ */
