/* User ranges (bp_profiler_range_push/pop, profiler.h), internal side: while
 * at least one trace session listens, each closed range becomes a runtime
 * trace record (category "range") on its thread's host track; a session
 * takes them when it writes its file. Ranges nest per thread; a thread
 * keeps at most BP_PROFILER_RANGE_DEPTH open (deeper ones are counted but
 * not recorded). Thread-safe. */
#ifndef BACKPLANE_PROFILER_RANGES_H_
#define BACKPLANE_PROFILER_RANGES_H_

#include <stddef.h>

#include "profiler/trace_buffer.h"

enum { BP_PROFILER_RANGE_DEPTH = 64 };

/* A trace session starts and stops listening (balanced calls). */
void bp_profiler_ranges_listen(void);
void bp_profiler_ranges_unlisten(void);
/* Moves the recorded ranges out (oldest first; free with
 * bp_trace_records_free). None: NULL and 0. */
void bp_profiler_ranges_take(bp_trace_record_t **out_records,
                             size_t *out_count);

#endif /* BACKPLANE_PROFILER_RANGES_H_ */
