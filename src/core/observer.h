/* The core's observer hook (internal): how a layer sees what the core does
 * beyond the plugin calls it can wrap in the dispatch table.
 *
 * A plugin has at most one observer (the trace layer's, when it is on),
 * set by the layer when it attaches to the plugin (core/layer.h) and
 * copied into each of the plugin's devices; NULL otherwise. The core calls
 * it for:
 * - framework-face calls: each bp_* entry point that acts on a device,
 *   stream or event checks `device->observer` (one load, one predictable
 *   branch) and, when set, reports the call with bp_api_call_begin/_end, so
 *   a call that never reaches the plugin (an allocation served from the
 *   cache) still shows;
 * - collectives: the xccl_* functions take no C_Device, so a layer cannot
 *   wrap them in the dispatch table; src/comm describes each call in a
 *   bp_collective_note_t instead;
 * - for the validation layer (`refused`, `module_unloading`, with their own
 *   context): misuse the core refused itself, and a kernel module about to
 *   be unloaded (the plugin's module_unload comes only after the drain).
 * Calls of the kernels extension are wrapped like the table's slots
 * (core/layer.h, attach_kernels), not observed.
 * The observer's functions are called from any thread; they must be
 * thread-safe and leave bp_last_error() alone. */
#ifndef BACKPLANE_CORE_OBSERVER_H_
#define BACKPLANE_CORE_OBSERVER_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "backplane/dtype.h"
#include "backplane/kernel_ext.h"
#include "backplane/status.h"
#include "base/clock.h"

typedef struct bp_device bp_device_t;

/* bp_collective_note_t.reduce_op of a call that does not reduce. */
#define BP_NOTE_NO_REDUCE_OP (-1)

/* What bp_collective_note_t.rank is. */
typedef enum bp_collective_rank_role {
  BP_NOTE_NO_RANK,   /* nothing */
  BP_NOTE_ROOT,      /* broadcast, reduce */
  BP_NOTE_SEND_PEER, /* send */
  BP_NOTE_RECV_PEER, /* recv */
} bp_collective_rank_role_t;

/* One xccl_* call of a communicator, taken just before the call. */
typedef struct bp_collective_note {
  bp_device_t *device;      /* the communicator's */
  const void *comm;         /* the bp_comm_t: identity only */
  const void *native;       /* its plugin handle (C_CCLComm) */
  size_t comm_rank, nranks; /* of the communicator */
  const char *function;     /* "xccl_all_reduce": the slice's name */
  size_t count;             /* elements, as passed */
  bp_dtype_t dtype;
  size_t bytes;  /* of this rank's send buffer */
  int reduce_op; /* a bp_reduce_op_t, or BP_NOTE_NO_REDUCE_OP */
  bp_collective_rank_role_t rank_role;
  size_t rank;       /* the root or peer, as rank_role says */
  uint64_t start_ns; /* 0: the device has no observer */
} bp_collective_note_t;

typedef struct bp_observer {
  void *context; /* the observing layer's, per plugin */
  /* A framework-face call `name` on `device`, from `start_ns` to now, with
   * its result and its detail: extra JSON members (",\"size\":4096", ""
   * for none) as a printf format (a literal) and its arguments, left
   * unformatted so the observer may keep them raw. */
  void (*api_call)(void *context, bp_device_t *device, const char *name,
                   uint64_t start_ns, bp_status_t status,
                   const char *detail_format, va_list detail_args);
  /* One collective call and the plugin's result. */
  void (*collective)(void *context, const bp_collective_note_t *note,
                     C_Status result);
  /* A framework-face call `name` on `device` that the core refused as
   * misuse (BP_ERR_INVALID_ARGUMENT) before any plugin call, with its
   * message; set by the validation layer, with its own context. Does not
   * make the plugin observed (api_call does). */
  void (*refused)(void *refused_context, bp_device_t *device, const char *name,
                  const char *message);
  /* bp_module_unload of the module at `path` on `device`, made of the
   * plugin's `parts`, before it drains the device; set by the validation
   * layer with refused_context, which tells launches still pending. */
  void (*module_unloading)(void *refused_context, bp_device_t *device,
                           const char *path, const BP_KernelModule *parts,
                           size_t part_count);
  void *refused_context;
} bp_observer_t;

/* A framework-face call being observed (the slow path of an entry point). */
typedef struct bp_api_call {
  bp_device_t *device;
  const char *name; /* the entry point's */
  uint64_t start_ns;
} bp_api_call_t;

/* An entry point is an ordinary function that checks for an observer and
 * otherwise calls its body, declared BP_API_BODY so the untraced path is
 * the body's own code after one load and one predictable branch; its
 * traced path, a cold function, reports the call around the body:
 *
 *   BP_API_BODY bp_status_t x(bp_device_t *device) { ... }
 *   static __attribute__((noinline, cold)) bp_status_t
 *   traced_x(bp_device_t *device) {
 *     BP_TRACE_CALL(device, "bp_x", x(device), "%s", "");
 *   }
 *   BP_API bp_status_t bp_x(bp_device_t *device) {
 *     if (device != NULL && BP_OBSERVED(device))
 *       return traced_x(device);
 *     return x(device);
 *   }
 *
 * Core code calls the bodies (or the *_internal functions other files
 * need), not the entry points, so its own work is not taken for the
 * framework's. */
#define BP_API_BODY static inline __attribute__((always_inline))

/* Whether `device`'s plugin is observed. Inline: every entry point asks. */
#define BP_OBSERVED(device) __builtin_expect((device)->observer != NULL, 0)

static inline bp_api_call_t bp_api_call_begin(bp_device_t *device,
                                              const char *name) {
  return (bp_api_call_t){device, name, bp_clock_now_ns()};
}

/* Reports `call` with `status` and the JSON members `detail_format`
 * formats. */
void bp_api_call_end(const bp_api_call_t *call, bp_status_t status,
                     const char *detail_format, ...)
    __attribute__((format(printf, 3, 4)));

/* The statements of a traced path: reports `call_expr` (a bp_status_t
 * expression, the body's call) as entry point `entry` (a string) on device
 * `device_expr`, with the detail format and its values (...) evaluated after
 * the call (they may read `status`), and returns its status. */
#define BP_TRACE_CALL(device_expr, entry, call_expr, ...)                      \
  bp_api_call_t call = bp_api_call_begin(device_expr, entry);                  \
  bp_status_t status = call_expr;                                              \
  bp_api_call_end(&call, status, __VA_ARGS__);                                 \
  return status

/* Reports bp_last_error() as the refusal of framework-face call `name` on
 * `device` (NULL: nothing) to the layer watching refusals, if any. Call
 * only for misuse the core itself refused, so that no line repeats one a
 * layer wrote about a plugin call. Cold: errors only. */
__attribute__((cold)) void bp_api_refused(bp_device_t *device,
                                          const char *name);

/* Tells the validation layer, if any, that the module at `path` made of
 * `parts` is about to be unloaded (src/kernel, before draining). */
void bp_observer_module_unloading(bp_device_t *device, const char *path,
                                  const BP_KernelModule *parts,
                                  size_t part_count);

/* Reports a collective note (comm/collectives.c) with the call's result;
 * no-op when the note was not timed. */
void bp_observer_note_collective(const bp_collective_note_t *note,
                                 C_Status result);

#endif /* BACKPLANE_CORE_OBSERVER_H_ */
