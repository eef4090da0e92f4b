/* bp_memory_history_summary: a history snapshot's timeline as JSON
 * (format in docs/allocator.md, "History"). */
#include <jansson.h>
#include <stdlib.h>

#include "alloc/history_timeline.h"
#include "backplane/memory_history.h"
#include "base/status.h"

static json_t *series_json(const bp_timeline_series_t *s) {
  return json_pack("{s:s, s:I, s:I, s:I, s:I}", "stream", s->name, "allocs",
                   (json_int_t)s->allocs, "peak_bytes", (json_int_t)s->peak,
                   "peak_time_ns", (json_int_t)s->peak_time_ns, "live_bytes",
                   (json_int_t)s->value);
}

static json_t *device_json(const bp_timeline_device_t *d) {
  json_t *streams = json_array();
  for (size_t i = 0; i < d->stream_count; i++)
    json_array_append_new(streams, series_json(&d->streams[i]));
  return json_pack(
      "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
      "s:o}",
      "device", d->name, "allocs", (json_int_t)d->actions[BP_HISTORY_ALLOC],
      "frees", (json_int_t)d->actions[BP_HISTORY_FREE], "unmatched_frees",
      (json_int_t)d->unmatched_frees, "segment_allocs",
      (json_int_t)d->actions[BP_HISTORY_SEGMENT_ALLOC], "segment_frees",
      (json_int_t)d->actions[BP_HISTORY_SEGMENT_FREE], "ooms",
      (json_int_t)d->actions[BP_HISTORY_OOM], "peak_bytes",
      (json_int_t)d->live.peak, "peak_time_ns",
      (json_int_t)d->live.peak_time_ns, "peak_event",
      (json_int_t)d->live.peak_event, "live_bytes", (json_int_t)d->live.value,
      "live_blocks", (json_int_t)d->blocks.count, "peak_reserved_bytes",
      (json_int_t)d->reserved.peak, "streams", streams);
}

BP_API bp_status_t bp_memory_history_summary(const char *snapshot_json,
                                             char **out_json) {
  static const char function[] = "bp_memory_history_summary";
  if (!snapshot_json || !out_json)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: snapshot_json or out_json is NULL", function);
  json_error_t error;
  json_t *root = json_loads(snapshot_json, 0, &error);
  if (!root)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: not JSON (line %d: %s)",
                    function, error.line, error.text);
  bp_timeline_t t;
  bp_status_t status = bp_timeline_build(root, function, &t);
  json_decref(root);
  if (status != BP_OK)
    return status;
  json_t *devices = json_array();
  for (size_t i = 0; i < t.device_count; i++)
    json_array_append_new(devices, device_json(&t.devices[i]));
  json_t *summary = json_pack(
      "{s:I, s:I, s:I, s:I, s:o}", "events", (json_int_t)t.events, "max_events",
      (json_int_t)t.max_events, "dropped", (json_int_t)t.dropped, "duration_ns",
      (json_int_t)t.duration_ns, "devices", devices);
  bp_timeline_release(&t);
  char *text = summary ? json_dumps(summary, JSON_INDENT(2)) : NULL;
  json_decref(summary);
  if (!text)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: no host memory", function);
  *out_json = text;
  return BP_OK;
}
