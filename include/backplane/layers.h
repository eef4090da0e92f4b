/* Layers: validation, trace and fault injection, spliced into each plugin's
 * dispatch table (Level Zero style) when the runtime loads it.
 *
 * Enabled by BACKPLANE_LAYERS=validation,trace,fault (any subset, any order;
 * empty or unset: none) or by bp_runtime_create_layered. With no layer enabled
 * the dispatch table is exactly the plugin's functions plus fallbacks, so a
 * call costs nothing extra. Layers intercept the functions that take a
 * C_Device (streams, events, memory, copies, size hints, blas); the
 * device-less ones (initialize, device counts, versions, xccl_*, profiler_*)
 * are passed through untouched.
 *
 * fault:      BACKPLANE_FAULT="FN:N[=STATUS],FN:p=P[=STATUS],seed=S": the Nth
 *             call of plugin function FN (1-based) fails, or each call fails
 *             with probability P, deterministically under seed S (default
 *             0). STATUS is C_FAILED (default), C_ERROR or C_INTERNAL_ERROR.
 *             Each injected fault prints one line on stderr.
 * validation: reports misuse of the plugin ABI (destroyed or foreign streams
 *             and events, bad frees, size mismatches, copies out of range,
 *             work pending at destroy, leaks at unload, a host callback that
 *             synchronizes or destroys its own stream or device), one line
 *             each, to stderr or BACKPLANE_VALIDATION_LOG (appended);
 *             BACKPLANE_VALIDATION_ABORT=1 aborts on the first.
 * trace:      every intercepted call with its duration, the framework face's
 *             collectives (communicator, op, bytes, sequence number), plus
 *             the device timeline, written as Chrome trace-event JSON to
 *             BACKPLANE_TRACE_FILE (default backplane-trace.json) when the
 *             runtime is destroyed. */
#ifndef BACKPLANE_LAYERS_H_
#define BACKPLANE_LAYERS_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each string field: NULL means "take the environment variable"; "" means
 * none/default regardless of the environment. */
typedef struct bp_layer_options {
  size_t struct_size;         /* sizeof(bp_layer_options_t) */
  const char *layers;         /* like BACKPLANE_LAYERS */
  const char *fault;          /* like BACKPLANE_FAULT */
  const char *validation_log; /* like BACKPLANE_VALIDATION_LOG; "" stderr */
  int validation_abort;       /* <0: BACKPLANE_VALIDATION_ABORT; 0 no; >0 */
  const char *trace_file;     /* like BACKPLANE_TRACE_FILE */
} bp_layer_options_t;

/* bp_runtime_create with layer settings that override the environment
 * (`layers` may be NULL: environment only), read once. An unknown layer name
 * or a bad fault spec fails with BP_ERR_INVALID_ARGUMENT and a message
 * naming it; bp_runtime_create does the same with the environment. */
BP_API bp_status_t bp_runtime_create_layered(
    const bp_runtime_options_t *options, const bp_layer_options_t *layers,
    bp_runtime_t **out_runtime);

/* What the layers of all plugins of a runtime have done so far. */
typedef struct bp_layer_stats {
  size_t struct_size;          /* sizeof(bp_layer_stats_t) */
  uint64_t faults_injected;    /* by the fault layer */
  uint64_t validation_reports; /* by the validation layer */
  uint64_t trace_events;       /* recorded by the trace layer */
} bp_layer_stats_t;

/* Fills the fields `out_stats->struct_size` covers. BP_ERR_INVALID_ARGUMENT
 * for NULL arguments. Thread-safe. */
BP_API bp_status_t bp_runtime_layer_stats(const bp_runtime_t *runtime,
                                          bp_layer_stats_t *out_stats);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_LAYERS_H_ */
