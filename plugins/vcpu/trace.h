/* vcpu's profiler: the six profiler_* functions of the plugin table, and the
 * stream workers reporting each command they run (copies with size and
 * direction, callbacks, host functions, event records and waits) as a
 * BP_TraceEvent through the host's profiler_add_device_trace_event, found
 * with dlsym when the profiler is initialised (a host without it: C_ERROR).
 *
 * Several profilers may trace at once (up to VCPU_TRACE_MAX_PROFILERS): the
 * plugin is one instance per process, shared by every runtime that loaded
 * it, and each traced runtime starts its own. start makes a profiler active,
 * stop and finalize make it inactive (a fresh start past the limit:
 * C_FAILED). Each command is reported to every active profiler with its
 * device and stream; telling one runtime's streams from another's is the
 * host's business. Workers read the number of active profilers with one
 * relaxed load, so with none a command costs a load and a branch. */
#ifndef BACKPLANE_VCPU_TRACE_H_
#define BACKPLANE_VCPU_TRACE_H_

#include <stdint.h>

#include "backplane/device_ext.h"
#include "queue.h"

enum { VCPU_TRACE_MAX_PROFILERS = 8 };

C_Status vcpu_profiler_initialize(C_Profiler prof, void **user_data);
C_Status vcpu_profiler_finalize(C_Profiler prof, void *user_data);
C_Status vcpu_profiler_prepare_tracing(C_Profiler prof, void *user_data);
C_Status vcpu_profiler_start_tracing(C_Profiler prof, void *user_data);
C_Status vcpu_profiler_stop_tracing(C_Profiler prof, void *user_data);
C_Status vcpu_profiler_collect_trace_data(C_Profiler prof, uint64_t start_ns,
                                          void *user_data);

/* Worker side: the start time of a command when tracing (else 0), and its
 * report once it has run. `command` and its `slot` (queue.h) must still be
 * the command that ran. A kernel is reported as "kernel <function>" with
 * its blocks and op. */
uint64_t vcpu_trace_begin(void);
void vcpu_trace_command(int device_id, const void *stream,
                        const vcpu_command *command, const unsigned char *slot,
                        uint64_t start_ns);

#endif /* BACKPLANE_VCPU_TRACE_H_ */
