/* The trace layer's host events: recorded raw on the calling thread's
 * buffer, turned into trace records when the layer detaches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "layers/trace/trace_internal.h"

void bp_trace_record_v(bp_trace_layer_t *t, bp_trace_category_t category,
                       const char *name, C_Device device, uint64_t start_ns,
                       int32_t result, const char *detail_format,
                       va_list detail_args) {
  bp_trace_event_t event = {.start_ns = start_ns,
                            .end_ns = bp_clock_now_ns(),
                            .name = name,
                            .detail_format = detail_format,
                            .device = (const bp_device_t *)device,
                            .result = result,
                            .category = (uint8_t)category};
  bp_trace_thread_record(&t->threads, &event, detail_args);
}

void bp_trace_record(bp_trace_layer_t *t, bp_trace_category_t category,
                     const char *name, C_Device device, uint64_t start_ns,
                     int32_t result, const char *detail_format, ...) {
  va_list args;
  va_start(args, detail_format);
  bp_trace_record_v(t, category, name, device, start_ns, result, detail_format,
                    args);
  va_end(args);
}

static const char *const category_names[] = {
    [BP_TRACE_CATEGORY_API] = "api",
    [BP_TRACE_CATEGORY_PLUGIN] = "plugin",
    [BP_TRACE_CATEGORY_COLLECTIVE] = "collective",
    [BP_TRACE_CATEGORY_COUNTER] = "counter",
};

/* The records being built from the host events. */
typedef struct export {
  bp_clock_anchor_t start, end; /* map host times onto CLOCK_MONOTONIC */
  bp_trace_record_t *records;
  size_t count, capacity;
  bool failed; /* out of memory: records past `count` lost */
}
export_t;

/* A counter's args are its series; a call's, its device and result then
 * its detail. */
static char *args_json(const bp_trace_event_t *event) {
  char detail[512], args[768];
  bp_trace_event_detail(event, detail, sizeof detail);
  if (event->category == BP_TRACE_CATEGORY_COUNTER)
    snprintf(args, sizeof args, "{%s}", detail);
  else
    snprintf(args, sizeof args, "{\"device\":\"%s\",\"result\":\"%s\"%s}",
             event->device->name,
             event->category == BP_TRACE_CATEGORY_API
                 ? bp_status_name((bp_status_t)event->result)
                 : bp_c_status_name((C_Status)event->result),
             detail);
  return strdup(args);
}

static void export_event(void *context, uint64_t thread_id,
                         const bp_trace_event_t *event) {
  export_t *x = context;
  if (x->failed || x->count == x->capacity)
    return;
  bool counter = event->category == BP_TRACE_CATEGORY_COUNTER;
  bp_trace_record_t record = {
      .kind = counter ? BP_TRACE_DEVICE : BP_TRACE_RUNTIME,
      .name = strdup(event->name),
      .category = strdup(category_names[event->category]),
      .args_json = args_json(event),
      .start_ns = bp_clock_fast_to_monotonic(event->start_ns, x->start, x->end),
      .end_ns = bp_clock_fast_to_monotonic(event->end_ns, x->start, x->end),
      .device_id = counter ? event->device->c_device.id : -1,
      .thread_id = counter ? 0 : thread_id};
  if (!record.name || !record.category || !record.args_json) {
    free(record.name);
    free(record.category);
    free(record.args_json);
    x->failed = true;
    return;
  }
  x->records[x->count++] = record;
}

bool bp_trace_export_host(bp_trace_layer_t *t, bp_trace_record_t **records,
                          size_t *count) {
  uint64_t recorded, dropped;
  bp_trace_thread_counts(&t->threads, &recorded, &dropped);
  bp_trace_record_t *all =
      realloc(*records, (*count + recorded + 1) * sizeof *all);
  if (!all)
    return false;
  export_t x = {.start = t->start,
                .end = bp_clock_anchor_now(),
                .records = all,
                .count = *count,
                .capacity = *count + recorded};
  bp_trace_thread_buffers_visit(&t->threads, export_event, &x);
  *records = x.records;
  *count = x.count;
  return !x.failed;
}
