/* The profiler: collects the trace events plugins report about their own
 * work (their profiler_* functions plus profiler_add_*_trace_event with
 * BP_TraceEvent records), and exports them as Chrome trace-event JSON that
 * Perfetto and chrome://tracing open.
 *
 * Each plugin is driven in Paddle's order: profiler_initialize at create,
 * prepare_tracing + start_tracing at start, stop_tracing +
 * collect_trace_data(start_ns) at stop, profiler_finalize at destroy. A
 * plugin without these functions is skipped, and bp_profile_plugin_note says
 * so. A profile belongs to one runtime and must be destroyed before it; calls
 * on one profile are not thread-safe against each other. */
#ifndef BACKPLANE_PROFILER_H_
#define BACKPLANE_PROFILER_H_

#include <stddef.h>

#include "backplane/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bp_profile bp_profile_t;

/* Initializes every plugin's profiler. Writes *out_profile only on success;
 * a plugin whose profiler_initialize fails is skipped (see the note). */
BP_API bp_status_t bp_profile_create(bp_runtime_t *runtime,
                                     bp_profile_t **out_profile);
/* Prepares and starts tracing. BP_ERR_INVALID_ARGUMENT if already started. */
BP_API bp_status_t bp_profile_start(bp_profile_t *profile);
/* Stops tracing and collects what the plugins reported since start. */
BP_API bp_status_t bp_profile_stop(bp_profile_t *profile);
/* Events collected so far (over every start/stop). */
BP_API size_t bp_profile_event_count(const bp_profile_t *profile);
/* Writes the collected events to `path` as Chrome trace-event JSON: one
 * process per device, one thread (track) per stream. */
BP_API bp_status_t bp_profile_export_chrome(const bp_profile_t *profile,
                                            const char *path);
/* "traced", or why plugin `index` is skipped; NULL if out of range. */
BP_API const char *bp_profile_plugin_note(const bp_profile_t *profile,
                                          size_t index);
/* Stops if needed, finalizes the plugins' profilers, frees. NULL: no-op. */
BP_API void bp_profile_destroy(bp_profile_t *profile);

/* Ranges of user code, like NVTX's push/pop: push opens a range named
 * `name` (copied) on the calling thread, pop closes the innermost one. In a
 * traced runtime's trace (the trace layer) each closed range is a slice on
 * its thread's host track, category "range", nested ranges inside their
 * outer one; untraced they cost a clock reading. Ranges belong to threads:
 * pop on the thread that pushed. Push returns the new range's depth (0 for
 * the outermost), or -1 for a NULL name; pop returns the depth of the range
 * it closed, or -1 when the thread has none open. Thread-safe. */
BP_API int bp_profiler_range_push(const char *name);
BP_API int bp_profiler_range_pop(void);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_PROFILER_H_ */
