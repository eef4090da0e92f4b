/* Writing trace records as Chrome trace-event JSON (internal): complete
 * ("X") events with microsecond timestamps; device records go to one process
 * per device ("<device_type>:<id>") and one thread per stream, runtime
 * records to a "host" process with one thread per host thread. Records'
 * args_json is embedded when it parses as a JSON object. */
#ifndef BACKPLANE_LAYERS_CHROME_TRACE_H_
#define BACKPLANE_LAYERS_CHROME_TRACE_H_

#include <stddef.h>

#include "backplane/status.h"
#include "core/profiler.h"

/* The records of one plugin. */
typedef struct bp_trace_source {
  const char *device_type; /* names the processes: "vcpu:0" */
  const bp_trace_record_t *records;
  size_t count;
} bp_trace_source_t;

/* Writes every source's records into one file (device processes of source k
 * get pids 1000 * k + device_id + 1). BP_ERR_INVALID_ARGUMENT if `path`
 * cannot be written, with the reason. */
bp_status_t bp_chrome_trace_write(const char *path,
                                  const bp_trace_source_t *sources,
                                  size_t source_count);

#endif /* BACKPLANE_LAYERS_CHROME_TRACE_H_ */
