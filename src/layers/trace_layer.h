/* The trace layer (internal): records every intercepted plugin call on the
 * host (name, device, duration, result; copies with bytes and direction;
 * event records and the waits on them as flow arrows; the device's
 * allocated and reserved bytes as counters), and drives the plugin's own
 * profiler_* functions so its device-side timeline (one track per stream)
 * lands in the same buffer, keeping only this runtime's streams when the
 * plugin is shared with other traced runtimes. At unload the records go to the
 * runtime's trace session; when the last traced plugin of the runtime unloads,
 * the session writes one Chrome trace-event JSON file (chrome_trace.h).
 * Thread-safe: the buffer and the flow/counter state have their own locks. */
#ifndef BACKPLANE_LAYERS_TRACE_LAYER_H_
#define BACKPLANE_LAYERS_TRACE_LAYER_H_

#include <stdint.h>

#include "layers/layers.h"

/* Joins (or starts) the trace session of `plugin`'s runtime, which writes
 * `path`; starts the plugin's profiler when it has one (else the trace has
 * host calls only, and stderr says why). BP_ERR_OUT_OF_MEMORY. */
bp_status_t bp_trace_layer_create(bp_plugin_t *plugin, const char *path,
                                  bp_trace_layer_t **out_layer);
void bp_trace_layer_install(bp_trace_layer_t *layer, C_DeviceInterface *table);
/* Stops the plugin's profiler and hands every record to the session; the
 * last layer of the session writes the file (an error goes to stderr). */
void bp_trace_layer_finish(bp_trace_layer_t *layer);
/* Records one framework-face call (core/api_trace.h) on the calling
 * thread's track, from `start_ns` to now, category "api": `name`, the
 * device, the result (bp_status_name) and the JSON members `detail_format`
 * formats (",\"size\":%zu"; truncated past 256 bytes). Leaves
 * bp_last_error() alone. Thread-safe. */
void bp_trace_api_call(bp_trace_layer_t *layer, bp_device_t *device,
                       const char *name, uint64_t start_ns, bp_status_t status,
                       const char *detail_format, ...)
    __attribute__((format(printf, 6, 7)));
/* Host records made so far (calls and counter samples). */
uint64_t bp_trace_layer_events(const bp_trace_layer_t *layer);
void bp_trace_layer_destroy(bp_trace_layer_t *layer);

#endif /* BACKPLANE_LAYERS_TRACE_LAYER_H_ */
