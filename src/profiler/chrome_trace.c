#include "profiler/chrome_trace.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

/* Where one record goes, worked out in the first pass. */
typedef struct placed {
  const bp_trace_record_t *record;
  size_t source;
  json_int_t pid;
  json_int_t tid;
  json_t *args; /* owned; always an object */
} placed_t;

typedef struct writer {
  json_t *events;
  json_t *tracks;     /* "pid" -> tracks so far; "pid/key" -> tid */
  json_t *anchors;    /* flow key -> index into `placed` */
  json_int_t flow_id; /* last flow id handed out */
  placed_t *placed;
} writer_t;

static int is_counter(const bp_trace_record_t *r) {
  return r->category && strcmp(r->category, "counter") == 0;
}

static int is_device_event(const bp_trace_record_t *r, const char *name) {
  return r->kind == BP_TRACE_DEVICE && r->category &&
         strcmp(r->category, "event") == 0 && strcmp(r->name, name) == 0;
}

static json_t *metadata(const char *what, json_int_t pid, json_int_t tid,
                        const char *name) {
  return json_pack("{s:s, s:s, s:I, s:I, s:{s:s}}", "name", what, "ph", "M",
                   "pid", pid, "tid", tid, "args", "name", name);
}

static json_int_t pid_of(size_t source, const bp_trace_record_t *r) {
  return r->kind == BP_TRACE_DEVICE && r->device_id >= 0
             ? (json_int_t)source * 1000 + r->device_id + 1
             : 0;
}

/* Names the process of `p` the first time it is seen. */
static void open_process(writer_t *w, const placed_t *p,
                         const char *device_type) {
  char key[32], name[96];
  snprintf(key, sizeof key, "%lld", (long long)p->pid);
  if (json_object_get(w->tracks, key))
    return;
  json_object_set_new(w->tracks, key, json_integer(0));
  if (p->pid == 0)
    snprintf(name, sizeof name, "host");
  else
    snprintf(name, sizeof name, "%s:%d", device_type, p->record->device_id);
  json_array_append_new(w->events, metadata("process_name", p->pid, 0, name));
}

/* The track of a record: its stream on a device (one "no stream" track for
 * work ordered after none), its thread on the host; named the first time it
 * is seen. */
static json_int_t track_of(writer_t *w, const placed_t *p) {
  const bp_trace_record_t *r = p->record;
  uint64_t id = r->kind == BP_TRACE_DEVICE ? r->stream_id : r->thread_id;
  char key[64], name[96];
  snprintf(key, sizeof key, "%lld/%llu", (long long)p->pid,
           (unsigned long long)id);
  json_t *tid = json_object_get(w->tracks, key);
  if (tid)
    return json_integer_value(tid);
  snprintf(name, sizeof name, "%lld", (long long)p->pid);
  json_int_t n = json_integer_value(json_object_get(w->tracks, name)) + 1;
  json_object_set_new(w->tracks, name, json_integer(n));
  json_object_set_new(w->tracks, key, json_integer(n));
  if (p->pid == 0)
    snprintf(name, sizeof name, "thread %llu", (unsigned long long)id);
  else if (id == 0) /* copies run on the caller for no stream */
    snprintf(name, sizeof name, "no stream");
  else
    snprintf(name, sizeof name, "stream %lld", (long long)n);
  json_array_append_new(w->events, metadata("thread_name", p->pid, n, name));
  return n;
}

/* The flow key of a record's "flow_out"/"flow_in" (runtime records) or of
 * its (event, generation) (device event records); 0 when it has none. */
static int flow_key(const placed_t *p, const char *host_arg,
                    const char *device_name, char *key, size_t size) {
  const bp_trace_record_t *r = p->record;
  if (r->kind == BP_TRACE_RUNTIME) {
    json_t *n = json_object_get(p->args, host_arg);
    if (!json_is_integer(n))
      return 0;
    snprintf(key, size, "h%zu:%lld", p->source,
             (long long)json_integer_value(n));
    return 1;
  }
  if (!is_device_event(r, device_name))
    return 0;
  const char *event = json_string_value(json_object_get(p->args, "event"));
  json_t *generation = json_object_get(p->args, "generation");
  if (!event || !json_is_integer(generation))
    return 0;
  snprintf(key, size, "d%zu:%s:%lld", p->source, event,
           (long long)json_integer_value(generation));
  return 1;
}

static double micros(uint64_t ns) {
  return (double)ns / 1000.0;
}

/* A flow starts where its record slice starts (before the event can
 * complete) and finishes 1 ns before its wait slice ends (after it did), so
 * each end lies inside its slice and the start never follows the finish. */
static json_t *flow_end(const char *ph, json_int_t id, const placed_t *p) {
  const bp_trace_record_t *r = p->record;
  uint64_t ts =
      ph[0] == 's' || r->end_ns <= r->start_ns ? r->start_ns : r->end_ns - 1;
  json_t *event = json_pack("{s:s, s:s, s:s, s:I, s:f, s:I, s:I}", "name",
                            "event", "cat", "flow", "ph", ph, "id", id, "ts",
                            micros(ts), "pid", p->pid, "tid", p->tid);
  if (event && ph[0] == 'f')
    json_object_set_new(event, "bp", json_string("e"));
  return event;
}

/* By start; of two records starting together the longer first, so a call
 * comes before the calls it made (records are taken as calls end). */
static int by_start(const void *a, const void *b) {
  const bp_trace_record_t *x = ((const placed_t *)a)->record;
  const bp_trace_record_t *y = ((const placed_t *)b)->record;
  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  uint64_t x_end = x->end_ns > x->start_ns ? x->end_ns : x->start_ns;
  uint64_t y_end = y->end_ns > y->start_ns ? y->end_ns : y->start_ns;
  return x_end > y_end ? -1 : x_end < y_end;
}

/* First pass: the order of events (by start), tracks, metadata, parsed args
 * and flow sources. */
static void place(writer_t *w, const bp_trace_source_t *sources,
                  size_t source_count, size_t count) {
  size_t index = 0;
  for (size_t k = 0; k < source_count; ++k)
    for (size_t i = 0; i < sources[k].count; ++i, ++index)
      w->placed[index] =
          (placed_t){.record = &sources[k].records[i], .source = k};
  qsort(w->placed, count, sizeof *w->placed, by_start);
  for (index = 0; index < count; ++index) {
    placed_t *p = &w->placed[index];
    size_t k = p->source;
    p->pid = pid_of(k, p->record);
    p->args =
        p->record->args_json ? json_loads(p->record->args_json, 0, NULL) : NULL;
    if (!json_is_object(p->args)) {
      json_decref(p->args);
      p->args = json_object();
    }
    open_process(w, p, sources[k].device_type);
    if (!is_counter(p->record))
      p->tid = track_of(w, p);
    char key[160];
    if (flow_key(p, "flow_out", "event_record", key, sizeof key))
      json_object_set_new(w->anchors, key, json_integer((json_int_t)index));
  }
}

/* Second pass: the events themselves, and the flows ending at them. */
static void emit(writer_t *w, size_t count) {
  for (size_t index = 0; index < count; ++index) {
    placed_t *p = &w->placed[index];
    const bp_trace_record_t *r = p->record;
    if (is_counter(r)) {
      json_array_append_new(
          w->events,
          json_pack("{s:s, s:s, s:f, s:I, s:O}", "name", r->name, "ph", "C",
                    "ts", micros(r->start_ns), "pid", p->pid, "args", p->args));
      continue;
    }
    uint64_t end = r->end_ns >= r->start_ns ? r->end_ns : r->start_ns;
    json_array_append_new(
        w->events,
        json_pack("{s:s, s:s, s:s, s:f, s:f, s:I, s:I, s:O}", "name", r->name,
                  "cat", r->category ? r->category : "", "ph", "X", "ts",
                  micros(r->start_ns), "dur", micros(end - r->start_ns), "pid",
                  p->pid, "tid", p->tid, "args", p->args));
    char key[160];
    if (!flow_key(p, "flow_in", "event_wait", key, sizeof key))
      continue;
    json_t *anchor = json_object_get(w->anchors, key);
    if (!anchor)
      continue;
    ++w->flow_id;
    json_array_append_new(
        w->events,
        flow_end("s", w->flow_id, &w->placed[json_integer_value(anchor)]));
    json_array_append_new(w->events, flow_end("f", w->flow_id, p));
  }
}

bp_status_t bp_chrome_trace_write(const char *path,
                                  const bp_trace_source_t *sources,
                                  size_t source_count) {
  size_t count = 0;
  for (size_t k = 0; k < source_count; ++k)
    count += sources[k].count;
  writer_t w = {.events = json_array(),
                .tracks = json_object(),
                .anchors = json_object(),
                .placed = calloc(count ? count : 1, sizeof *w.placed)};
  json_t *root =
      json_pack("{s:O, s:s}", "traceEvents", w.events, "displayTimeUnit", "ns");
  bp_status_t status = BP_OK;
  if (!root || !w.events || !w.tracks || !w.anchors || !w.placed) {
    status = bp_error(BP_ERR_OUT_OF_MEMORY, "trace export: out of memory");
  } else {
    place(&w, sources, source_count, count);
    emit(&w, count);
    if (json_dump_file(root, path, JSON_COMPACT) != 0) {
      int error = errno;
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "trace export: cannot write \"%s\": %s", path,
                        strerror(error));
    }
  }
  for (size_t i = 0; w.placed && i < count; ++i)
    json_decref(w.placed[i].args);
  free(w.placed);
  json_decref(root);
  json_decref(w.events);
  json_decref(w.tracks);
  json_decref(w.anchors);
  return status;
}
