/* Replaying a history snapshot into timelines (history_timeline.h). */
#include "alloc/history_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

static const char *const action_names[] = {"alloc", "free", "segment_alloc",
                                           "segment_free", "oom"};

bool bp_timeline_is_history(json_t *root) {
  const char *format = json_string_value(json_object_get(root, "format"));
  return format && !strcmp(format, "backplane-memory-history");
}

static bool add_point(bp_timeline_series_t *s, uint64_t time_ns, size_t event) {
  if (s->count == s->capacity) {
    size_t capacity = s->capacity ? s->capacity * 2 : 16;
    bp_timeline_point_t *points = realloc(s->points, capacity * sizeof *points);
    if (!points)
      return false;
    s->points = points;
    s->capacity = capacity;
  }
  s->points[s->count++] = (bp_timeline_point_t){time_ns, s->value};
  if (s->value > s->peak) {
    s->peak = s->value;
    s->peak_time_ns = time_ns;
    s->peak_event = event;
  }
  return true;
}

static void name_series(bp_timeline_series_t *s, const char *name) {
  snprintf(s->name, sizeof s->name, "%s", name);
}

static bp_timeline_device_t *device_named(bp_timeline_t *t, const char *name) {
  for (size_t i = 0; i < t->device_count; i++)
    if (!strcmp(t->devices[i].name, name))
      return &t->devices[i];
  bp_timeline_device_t *devices =
      realloc(t->devices, (t->device_count + 1) * sizeof *devices);
  if (!devices)
    return NULL;
  t->devices = devices;
  bp_timeline_device_t *d = &devices[t->device_count++];
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", name);
  name_series(&d->live, "live");
  name_series(&d->reserved, "reserved");
  return d;
}

static bp_timeline_series_t *stream_named(bp_timeline_device_t *d,
                                          const char *name) {
  for (size_t i = 0; i < d->stream_count; i++)
    if (!strcmp(d->streams[i].name, name))
      return &d->streams[i];
  bp_timeline_series_t *streams =
      realloc(d->streams, (d->stream_count + 1) * sizeof *streams);
  if (!streams)
    return NULL;
  d->streams = streams;
  bp_timeline_series_t *s = &streams[d->stream_count++];
  memset(s, 0, sizeof *s);
  name_series(s, name);
  return s;
}

static const char *stream_of(json_t *event) {
  const char *stream = json_string_value(json_object_get(event, "stream"));
  return stream ? stream : "none";
}

/* Applies one block event (alloc or free) of `d`. */
static bool apply_block(bp_timeline_device_t *d, json_t *events, size_t i,
                        bool alloc, uintptr_t address, uint64_t size,
                        uint64_t time_ns) {
  json_t *owner = json_array_get(events, i);
  if (!alloc) {
    uint64_t index;
    if (!bp_pointer_map_take(&d->blocks, (void *)address, &index)) {
      d->unmatched_frees++;
      return true;
    }
    owner = json_array_get(events, index - 1);
    size = (uint64_t)json_integer_value(json_object_get(owner, "size"));
  } else if (!bp_pointer_map_set(&d->blocks, (void *)address, i + 1)) {
    return false;
  }
  bp_timeline_series_t *s = stream_named(d, stream_of(owner));
  if (!s)
    return false;
  s->value = alloc ? s->value + size : s->value - size;
  d->live.value = alloc ? d->live.value + size : d->live.value - size;
  s->allocs += alloc;
  d->live.allocs += alloc;
  return add_point(s, time_ns, i) && add_point(&d->live, time_ns, i);
}

static bp_status_t bad_event(const char *function, size_t i) {
  return bp_error(BP_ERR_INVALID_ARGUMENT,
                  "%s: event %zu of the history is not an event (needs "
                  "action, device, address, size and time_ns)",
                  function, i);
}

static int action_of(const char *name) {
  for (int a = 0; name && a <= BP_HISTORY_OOM; a++)
    if (!strcmp(action_names[a], name))
      return a;
  return -1;
}

bp_status_t bp_timeline_build(json_t *root, const char *function,
                              bp_timeline_t *out) {
  memset(out, 0, sizeof *out);
  json_t *events = json_object_get(root, "events");
  if (!bp_timeline_is_history(root) || !json_is_array(events))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: not a memory history snapshot (needs format "
                    "\"backplane-memory-history\" and events)",
                    function);
  out->events = json_array_size(events);
  out->max_events = json_integer_value(json_object_get(root, "max_events"));
  out->dropped = json_integer_value(json_object_get(root, "dropped"));
  size_t i;
  json_t *e;
  json_array_foreach(events, i, e) {
    int action = action_of(json_string_value(json_object_get(e, "action")));
    const char *device = json_string_value(json_object_get(e, "device"));
    const char *address = json_string_value(json_object_get(e, "address"));
    json_t *size = json_object_get(e, "size");
    json_t *time = json_object_get(e, "time_ns");
    if (action < 0 || !device || !address || !json_is_integer(size) ||
        !json_is_integer(time) || json_integer_value(size) < 0) {
      bp_timeline_release(out);
      return bad_event(function, i);
    }
    uint64_t bytes = (uint64_t)json_integer_value(size);
    uint64_t time_ns = (uint64_t)json_integer_value(time);
    if (time_ns > out->duration_ns)
      out->duration_ns = time_ns;
    bp_timeline_device_t *d = device_named(out, device);
    bool ok = d != NULL;
    if (ok) {
      d->actions[action]++;
      uintptr_t at = (uintptr_t)strtoull(address, NULL, 16);
      if (action == BP_HISTORY_ALLOC || action == BP_HISTORY_FREE) {
        ok = apply_block(d, events, i, action == BP_HISTORY_ALLOC, at, bytes,
                         time_ns);
      } else if (action != BP_HISTORY_OOM) {
        bool grow = action == BP_HISTORY_SEGMENT_ALLOC;
        /* A chunk taken before the ring's first event frees from 0. */
        uint64_t *v = &d->reserved.value;
        *v = grow ? *v + bytes : *v - (bytes < *v ? bytes : *v);
        ok = add_point(&d->reserved, time_ns, i);
      }
    }
    if (!ok) {
      bp_timeline_release(out);
      return bp_error(BP_ERR_OUT_OF_MEMORY,
                      "%s: no host memory for the timeline", function);
    }
  }
  return BP_OK;
}

void bp_timeline_release(bp_timeline_t *t) {
  for (size_t i = 0; i < t->device_count; i++) {
    bp_timeline_device_t *d = &t->devices[i];
    for (size_t s = 0; s < d->stream_count; s++)
      free(d->streams[s].points);
    free(d->streams);
    free(d->live.points);
    free(d->reserved.points);
    bp_pointer_map_release(&d->blocks);
  }
  free(t->devices);
  memset(t, 0, sizeof *t);
}
