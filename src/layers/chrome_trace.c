#include "layers/chrome_trace.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

/* Tracks seen so far: (process, stream or thread) -> small thread id. The
 * number of distinct tracks is small, so a linear search is enough. */
typedef struct track {
  json_int_t pid;
  uint64_t key;
  json_int_t tid;
} track_t;

typedef struct tracks {
  track_t items[4096];
  size_t count;
} tracks_t;

/* The track of (pid, key); *out_new says whether it was just created. When
 * the table is full every further track shares the last id. */
static json_int_t track_of(tracks_t *tracks, json_int_t pid, uint64_t key,
                           int *out_new, int *out_new_process) {
  json_int_t in_process = 0;
  *out_new_process = 1;
  for (size_t i = 0; i < tracks->count; ++i) {
    if (tracks->items[i].pid != pid)
      continue;
    *out_new_process = 0;
    ++in_process;
    if (tracks->items[i].key == key) {
      *out_new = 0;
      return tracks->items[i].tid;
    }
  }
  *out_new = tracks->count < sizeof tracks->items / sizeof tracks->items[0];
  if (*out_new)
    tracks->items[tracks->count++] = (track_t){pid, key, in_process + 1};
  return in_process + 1;
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

bp_status_t bp_chrome_trace_write(const char *path,
                                  const bp_trace_source_t *sources,
                                  size_t source_count) {
  tracks_t *tracks = calloc(1, sizeof *tracks);
  json_t *events = json_array();
  json_t *root =
      json_pack("{s:o, s:s}", "traceEvents", events, "displayTimeUnit", "ns");
  if (!root || !tracks) {
    free(tracks);
    json_decref(root);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "trace export: out of memory");
  }
  for (size_t k = 0; k < source_count; ++k)
    for (size_t i = 0; i < sources[k].count; ++i) {
      const char *device_type = sources[k].device_type;
      const bp_trace_record_t *r = &sources[k].records[i];
      json_int_t pid = pid_of(k, r);
      int new_track, new_process;
      json_int_t tid = track_of(
          tracks, pid, r->kind == BP_TRACE_DEVICE ? r->stream_id : r->thread_id,
          &new_track, &new_process);
      char name[96];
      if (new_process) {
        if (pid == 0)
          snprintf(name, sizeof name, "host");
        else
          snprintf(name, sizeof name, "%s:%d", device_type, r->device_id);
        json_array_append_new(events, metadata("process_name", pid, 0, name));
      }
      if (new_track) {
        if (pid == 0)
          snprintf(name, sizeof name, "thread %lld", (long long)tid);
        else
          snprintf(name, sizeof name, "stream %lld", (long long)tid);
        json_array_append_new(events, metadata("thread_name", pid, tid, name));
      }
      json_t *args = r->args_json ? json_loads(r->args_json, 0, NULL) : NULL;
      if (!json_is_object(args)) {
        json_decref(args);
        args = json_object();
      }
      uint64_t end = r->end_ns >= r->start_ns ? r->end_ns : r->start_ns;
      json_array_append_new(
          events, json_pack("{s:s, s:s, s:s, s:f, s:f, s:I, s:I, s:o}", "name",
                            r->name, "cat", r->category ? r->category : "",
                            "ph", "X", "ts", (double)r->start_ns / 1000.0,
                            "dur", (double)(end - r->start_ns) / 1000.0, "pid",
                            pid, "tid", tid, "args", args));
    }
  int failed = json_dump_file(root, path, JSON_COMPACT);
  int error = errno;
  json_decref(root);
  free(tracks);
  if (failed)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "trace export: cannot write \"%s\": %s", path,
                    strerror(error));
  return BP_OK;
}
