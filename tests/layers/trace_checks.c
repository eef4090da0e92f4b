#include "trace_checks.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *text(json_t *event, const char *key) {
  return json_string_value(json_object_get(event, key));
}

static void track_key(json_t *event, char *key, size_t size) {
  snprintf(key, size, "%lld/%lld",
           (long long)json_integer_value(json_object_get(event, "pid")),
           (long long)json_integer_value(json_object_get(event, "tid")));
}

static void pid_key(json_t *event, char *key, size_t size) {
  snprintf(key, size, "%lld",
           (long long)json_integer_value(json_object_get(event, "pid")));
}

/* Increments counter `key` of `object`; returns the new value. */
static json_int_t bump(json_t *object, const char *key) {
  json_int_t n = json_integer_value(json_object_get(object, key)) + 1;
  json_object_set_new(object, key, json_integer(n));
  return n;
}

static void check_fields(json_t *event) {
  assert_true(json_is_object(event));
  const char *ph = text(event, "ph");
  assert_non_null(ph);
  assert_non_null(strchr("XBEMCsf", ph[0]));
  assert_int_equal(strlen(ph), 1);
  assert_non_null(text(event, "name"));
  assert_true(json_is_integer(json_object_get(event, "pid")));
  if (ph[0] != 'C')
    assert_true(json_is_integer(json_object_get(event, "tid")));
  if (ph[0] == 'M') {
    assert_non_null(text(json_object_get(event, "args"), "name"));
    return;
  }
  assert_true(json_is_number(json_object_get(event, "ts")));
  assert_true(json_number_value(json_object_get(event, "ts")) >= 0);
  if (ph[0] == 'X') {
    assert_true(json_is_number(json_object_get(event, "dur")));
    assert_true(json_number_value(json_object_get(event, "dur")) >= 0);
  }
  if (ph[0] == 's' || ph[0] == 'f')
    assert_true(json_is_integer(json_object_get(event, "id")));
  if (ph[0] == 'C') {
    json_t *args = json_object_get(event, "args");
    assert_true(json_is_object(args) && json_object_size(args) > 0);
    const char *series;
    json_t *value;
    json_object_foreach(args, series, value) assert_true(json_is_number(value));
  }
}

/* Whether a complete event on `flow`'s track contains its timestamp. */
static int inside_a_slice(json_t *events, json_t *flow) {
  char want[64], key[64];
  track_key(flow, want, sizeof want);
  double ts = json_number_value(json_object_get(flow, "ts"));
  size_t i;
  json_t *event;
  json_array_foreach(events, i, event) {
    if (strcmp(text(event, "ph"), "X") != 0)
      continue;
    track_key(event, key, sizeof key);
    double start = json_number_value(json_object_get(event, "ts"));
    double dur = json_number_value(json_object_get(event, "dur"));
    if (strcmp(key, want) == 0 && start <= ts + 1e-6 &&
        ts <= start + dur + 1e-6)
      return 1;
  }
  return 0;
}

static void check_flows(json_t *events) {
  json_t *starts = json_object(), *finishes = json_object();
  size_t i;
  json_t *event;
  char id[32];
  json_array_foreach(events, i, event) {
    const char *ph = text(event, "ph");
    if (strcmp(ph, "s") != 0 && strcmp(ph, "f") != 0)
      continue;
    assert_true(inside_a_slice(events, event));
    snprintf(id, sizeof id, "%lld",
             (long long)json_integer_value(json_object_get(event, "id")));
    json_t *ends = ph[0] == 's' ? starts : finishes;
    assert_null(json_object_get(ends, id)); /* one start, one finish */
    json_object_set(ends, id, event);
  }
  assert_int_equal(json_object_size(starts), json_object_size(finishes));
  const char *key;
  json_t *start;
  json_object_foreach(starts, key, start) {
    json_t *finish = json_object_get(finishes, key);
    assert_non_null(finish);
    assert_true(json_number_value(json_object_get(start, "ts")) <=
                json_number_value(json_object_get(finish, "ts")) + 1e-6);
  }
  json_decref(starts);
  json_decref(finishes);
}

static void check_tracks(json_t *events) {
  json_t *named = json_object(), *open = json_object();
  size_t i;
  json_t *event;
  char key[64];
  json_array_foreach(events, i, event) {
    const char *ph = text(event, "ph"), *name = text(event, "name");
    if (ph[0] != 'M')
      continue;
    if (strcmp(name, "process_name") == 0)
      pid_key(event, key, sizeof key);
    else
      track_key(event, key, sizeof key);
    assert_int_equal(bump(named, key), 1);
  }
  json_array_foreach(events, i, event) {
    const char *ph = text(event, "ph");
    if (ph[0] == 'M')
      continue;
    pid_key(event, key, sizeof key);
    assert_non_null(json_object_get(named, key));
    if (ph[0] == 'C')
      continue;
    track_key(event, key, sizeof key);
    assert_non_null(json_object_get(named, key));
    /* In file order, every E closes a B still open on its track. */
    json_int_t depth = json_integer_value(json_object_get(open, key));
    if (ph[0] == 'B')
      json_object_set_new(open, key, json_integer(depth + 1));
    if (ph[0] == 'E') {
      assert_true(depth > 0);
      json_object_set_new(open, key, json_integer(depth - 1));
    }
  }
  const char *track;
  json_t *depth;
  json_object_foreach(open, track, depth)
      assert_int_equal(json_integer_value(depth), 0);
  json_decref(named);
  json_decref(open);
}

/* A complete event's track and extent, for the nesting check. */
typedef struct span {
  json_int_t pid, tid;
  double start, end;
} span_t;

static span_t span_of(json_t *event) {
  double start = json_number_value(json_object_get(event, "ts"));
  return (span_t){json_integer_value(json_object_get(event, "pid")),
                  json_integer_value(json_object_get(event, "tid")), start,
                  start + json_number_value(json_object_get(event, "dur"))};
}

/* Timestamps are microseconds with nanosecond digits: within 1 ns is equal. */
#define NS_SLACK 1e-3

/* By track, then start; of two slices starting together the longer first. */
static int by_track_then_start(const void *a, const void *b) {
  const span_t *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end;
}

/* On every track, two complete events are disjoint or one holds the other
 * (a call and the calls it made), as a timeline view stacks them. */
static void check_nesting(json_t *events) {
  size_t count = 0, i;
  json_t *event;
  span_t *spans = calloc(json_array_size(events), sizeof *spans);
  assert_non_null(spans);
  json_array_foreach(events, i, event) {
    if (strcmp(text(event, "ph"), "X") == 0)
      spans[count++] = span_of(event);
  }
  qsort(spans, count, sizeof *spans, by_track_then_start);
  size_t *open = calloc(count ? count : 1, sizeof *open), depth = 0;
  assert_non_null(open);
  for (i = 0; i < count; ++i) {
    if (i > 0 &&
        (spans[i].pid != spans[i - 1].pid || spans[i].tid != spans[i - 1].tid))
      depth = 0;
    while (depth > 0 && spans[open[depth - 1]].end <= spans[i].start + NS_SLACK)
      --depth;
    if (depth > 0 && spans[i].end > spans[open[depth - 1]].end + NS_SLACK)
      fail_msg("slices overlap on track %lld/%lld: [%f, %f] and [%f, %f]",
               (long long)spans[i].pid, (long long)spans[i].tid,
               spans[open[depth - 1]].start, spans[open[depth - 1]].end,
               spans[i].start, spans[i].end);
    open[depth++] = i;
  }
  free(open);
  free(spans);
}

json_t *trace_check_file(const char *path) {
  json_error_t error;
  json_t *root = json_load_file(path, 0, &error);
  if (!root)
    fail_msg("%s is not JSON: %s (line %d)", path, error.text, error.line);
  json_t *events = json_object_get(root, "traceEvents");
  assert_true(json_is_array(events));
  assert_true(json_array_size(events) > 0);
  size_t i;
  json_t *event;
  json_array_foreach(events, i, event) check_fields(event);
  check_tracks(events);
  check_flows(events);
  check_nesting(events);
  return root;
}

json_t *trace_events(json_t *root) {
  return json_object_get(root, "traceEvents");
}

size_t trace_count(json_t *root, const char *ph, const char *name,
                   const char *arg, json_int_t value) {
  size_t n = 0, i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    if (strcmp(text(event, "ph"), ph) != 0 ||
        (name && strcmp(text(event, "name"), name) != 0))
      continue;
    json_t *v = json_object_get(json_object_get(event, "args"), arg ? arg : "");
    if (arg && (!json_is_integer(v) || json_integer_value(v) != value))
      continue;
    ++n;
  }
  return n;
}

size_t trace_tracks_of(json_t *root, const char *process) {
  json_int_t pid = -1;
  size_t n = 0, i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    const char *name = text(json_object_get(event, "args"), "name");
    if (strcmp(text(event, "name"), "process_name") == 0 && name &&
        strcmp(name, process) == 0)
      pid = json_integer_value(json_object_get(event, "pid"));
  }
  json_array_foreach(trace_events(root), i, event) {
    if (strcmp(text(event, "name"), "thread_name") == 0 &&
        json_integer_value(json_object_get(event, "pid")) == pid)
      ++n;
  }
  return n;
}

json_t *trace_slice(json_t *root, const char *name, size_t nth) {
  size_t i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    if (strcmp(text(event, "ph"), "X") == 0 &&
        strcmp(text(event, "name"), name) == 0 && nth-- == 0)
      return event;
  }
  fail_msg("too few slices %s", name);
  return NULL;
}

/* Whether slice `inner` lies within slice `outer` on the same track. */
static int holds(json_t *outer, json_t *inner) {
  span_t o = span_of(outer), n = span_of(inner);
  return o.pid == n.pid && o.tid == n.tid && o.start <= n.start + NS_SLACK &&
         n.end <= o.end + NS_SLACK;
}

size_t trace_inside(json_t *root, json_t *outer, const char *name) {
  size_t n = 0, i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    if (event != outer && strcmp(text(event, "ph"), "X") == 0 &&
        (!name || strcmp(text(event, "name"), name) == 0) &&
        holds(outer, event))
      ++n;
  }
  return n;
}

size_t trace_count_inside(json_t *root, const char *name,
                          const char *outer_name) {
  size_t n = 0, i, k;
  json_t *event, *outer;
  json_array_foreach(trace_events(root), i, event) {
    if (strcmp(text(event, "ph"), "X") != 0 ||
        strcmp(text(event, "name"), name) != 0)
      continue;
    json_array_foreach(trace_events(root), k, outer) {
      if (strcmp(text(outer, "ph"), "X") == 0 &&
          strcmp(text(outer, "name"), outer_name) == 0 && holds(outer, event)) {
        ++n;
        break;
      }
    }
  }
  return n;
}
