/* Writing trace records as Chrome trace-event JSON (internal), the format
 * Perfetto and chrome://tracing open. Timestamps are in microseconds.
 *
 * Tracks: device records go to one process per device ("<device_type>:<id>")
 * with one thread per stream ("stream N"); runtime records to a "host"
 * process (pid 0) with one thread per host thread ("thread <os tid>").
 * Records' args_json is embedded when it parses as a JSON object.
 *
 * Record conventions, beyond a complete ("X") event per record:
 * - category "counter": a counter ("C") event on the device's process named
 *   after the record, whose args (numbers) are the series.
 * - runtime records with args {"flow_out": N} and {"flow_in": N} (N per
 *   source): one flow arrow (ph "s" then "f") from the flow_out slice to
 *   each flow_in slice, as an event record to the waits on it.
 * - device records of category "event" named "event_record" and
 *   "event_wait" with args {"event": E, "generation": G}: one flow arrow
 *   from the record of (E, G) to each wait on it.
 * A flow is written only when both its ends exist. */
#ifndef BACKPLANE_PROFILER_CHROME_TRACE_H_
#define BACKPLANE_PROFILER_CHROME_TRACE_H_

#include <stddef.h>

#include "backplane/status.h"
#include "profiler/trace_buffer.h"

/* The records of one plugin. */
typedef struct bp_trace_source {
  const char *device_type; /* names the processes: "vcpu:0" */
  const bp_trace_record_t *records;
  size_t count;
} bp_trace_source_t;

/* Writes every source's records into one file (device processes of source k
 * get pids 1000 * k + device_id + 1). BP_ERR_INVALID_ARGUMENT if `path`
 * cannot be written, with the reason; BP_ERR_OUT_OF_MEMORY. */
bp_status_t bp_chrome_trace_write(const char *path,
                                  const bp_trace_source_t *sources,
                                  size_t source_count);

#endif /* BACKPLANE_PROFILER_CHROME_TRACE_H_ */
