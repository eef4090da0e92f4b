/* Copies the core runs on the caller's thread, reported to the active
 * profiles (internal; backplane/profiler.h).
 *
 * A plugin's profiler reports the work its streams run, so a copy that
 * reaches the plugin as an asynchronous copy is in the profile already.
 * The other copies (no stream, a stream without a plugin queue, pageable
 * host memory copied on the caller or waited for: core/staging.h, between
 * plugins) run through the plugin's synchronous copy functions, which no
 * profiler sees: the core reports each as one device event, named and
 * shaped as vcpu names its own ("h2d", "d2h", "d2d", "p2p"; category
 * "copy"; args bytes and direction, plus "synchronous":true).
 *
 * Thread-safety: profiles attach and detach while copies run on other
 * threads; a copy reports to those attached when it ends, and detach waits
 * for reports in progress. With none attached a copy pays one relaxed
 * load. All fields start zeroed. */
#ifndef BACKPLANE_CORE_COPY_PROFILING_H_
#define BACKPLANE_CORE_COPY_PROFILING_H_

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "backplane/status.h"

typedef struct bp_device bp_device_t;
typedef struct bp_stream bp_stream_t;
typedef struct bp_plugin bp_plugin_t;

/* Profiles of one plugin at once (a runtime's profiles: rarely more than
 * one). */
#define BP_COPY_PROFILES_MAX 8

typedef void (*bp_trace_add_fn)(C_Profiler profiler, void *event);

typedef struct bp_copy_profiles {
  _Atomic(C_Profiler) buffers[BP_COPY_PROFILES_MAX];
  _Atomic(bp_trace_add_fn) add; /* profiler_add_device_trace_event */
  atomic_size_t count;
  atomic_size_t reporting; /* reports in progress */
} bp_copy_profiles_t;

/* Between a profile's start and stop: `buffer` gets the plugin's copies
 * through `add`. BP_ERR_UNSUPPORTED when BP_COPY_PROFILES_MAX are
 * attached. */
bp_status_t bp_copy_profiles_attach(bp_plugin_t *plugin, C_Profiler buffer,
                                    bp_trace_add_fn add);
/* Returns once no report can reach `buffer` any more. */
void bp_copy_profiles_detach(bp_plugin_t *plugin, C_Profiler buffer);

/* The start of a copy on `device`: a CLOCK_MONOTONIC time while profiled,
 * else 0 (and bp_copy_profile_end does nothing). */
uint64_t bp_copy_profile_begin(const bp_device_t *device);
/* Reports a copy of `bytes` run on the caller for `stream` (NULL: none)
 * that began at `start_ns`; `direction` is "h2d", "d2h", "d2d" or "p2p". */
void bp_copy_profile_end(const bp_device_t *device, const bp_stream_t *stream,
                         const char *direction, size_t bytes,
                         uint64_t start_ns);

#endif /* BACKPLANE_CORE_COPY_PROFILING_H_ */
