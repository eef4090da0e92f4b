/* Allocator history: what a running program allocated and freed, and when,
 * like PyTorch's torch.cuda.memory._record_memory_history and
 * _dump_snapshot. While a runtime records, each device allocation and free
 * made through bp_device_malloc(_async) and bp_device_free(_async), each
 * chunk its allocators take from or give back to a plugin, and each
 * allocation that fails for memory is kept in a ring of the last
 * `max_events` events: action, device, address, size, stream, time, thread
 * and caller (the thread's label, else the function that called the
 * entry point). `backplane memory SNAPSHOT` summarizes a dump and
 * `--svg FILE` draws it; docs/allocator.md gives the format.
 *
 * BACKPLANE_MEMORY_HISTORY=FILE records from bp_runtime_create (ring of
 * BACKPLANE_MEMORY_HISTORY_EVENTS, default 65536) and dumps to FILE at
 * bp_runtime_destroy. All calls are thread-safe. */
#ifndef BACKPLANE_MEMORY_HISTORY_H_
#define BACKPLANE_MEMORY_HISTORY_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records the next events of `runtime`'s devices in a ring of the last
 * `max_events` (the events so far are discarded); 0 stops recording and
 * discards them. */
BP_API bp_status_t bp_memory_history_record(bp_runtime_t *runtime,
                                            size_t max_events);
/* Whether `runtime` records (false for NULL). */
BP_API bool bp_memory_history_recording(const bp_runtime_t *runtime);
/* The recorded events as JSON, oldest first; the caller free()s it. */
BP_API bp_status_t bp_memory_history_snapshot(bp_runtime_t *runtime,
                                              char **out_json);
/* Writes bp_memory_history_snapshot to `path`. */
BP_API bp_status_t bp_memory_history_dump(bp_runtime_t *runtime,
                                          const char *path);
/* Names what the calling thread does in the caller field of its next
 * events (copied, at most 63 bytes kept), e.g. a Python file:line; NULL or
 * "" goes back to the calling function. Thread-local. */
BP_API void bp_memory_history_set_label(const char *label);

/* A summary of a history snapshot as JSON: per device the events by
 * action, the live bytes' peak (bytes, time, event index), what is live at
 * the end, and per stream its peak and live bytes (docs/allocator.md).
 * BP_ERR_INVALID_ARGUMENT if `snapshot_json` is not a history snapshot. */
BP_API bp_status_t bp_memory_history_summary(const char *snapshot_json,
                                             char **out_json);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_MEMORY_HISTORY_H_ */
