/* The trace layer under many threads (label concurrency: run under TSan):
 * threads tracing at once each get a track holding every call they made,
 * each framework-face slice holding its plugin slice; a thread that exits
 * before the trace is written keeps its events; and a thread recording far
 * more events than one buffer chunk holds loses none. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/runtime_fixture.h"
#include "trace_checks.h"

enum { THREADS = 8, CALLS_PER_THREAD = 100 };

typedef struct traced_runtime {
  char path[32];
  bp_runtime_t *runtime;
  bp_device_t *device;
} traced_runtime_t;

static void open_traced(traced_runtime_t *t) {
  strcpy(t->path, "/tmp/bp-trace-XXXXXX");
  int fd = mkstemp(t->path);
  assert_true(fd >= 0);
  close(fd);
  unlink(t->path);
  bp_layer_options_t options = fixture_layer_options("trace", "");
  options.trace_file = t->path;
  t->runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  assert_int_equal(bp_device_at(t->runtime, 0, &t->device), BP_OK);
}

/* Destroys the runtime (writing the file) and returns the checked trace. */
static json_t *close_traced(traced_runtime_t *t) {
  bp_runtime_destroy(t->runtime);
  json_t *root = trace_check_file(t->path);
  unlink(t->path);
  return root;
}

/* Queries a stream of its own `calls` times. */
typedef struct worker {
  bp_device_t *device;
  size_t calls;
  bp_status_t status;
} worker_t;

static void *query_own_stream(void *arg) {
  worker_t *w = arg;
  bp_stream_t *stream = NULL;
  w->status = bp_stream_create(w->device, &stream);
  for (size_t i = 0; w->status == BP_OK && i < w->calls; ++i)
    w->status = bp_stream_query(stream);
  if (w->status == BP_OK)
    w->status = bp_stream_destroy(stream);
  return NULL;
}

/* Slices named `name` on each host track: tid -> count, as an object. */
static json_t *per_track(json_t *root, const char *name) {
  json_t *counts = json_object();
  size_t i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    if (strcmp(json_string_value(json_object_get(event, "ph")), "X") != 0 ||
        strcmp(json_string_value(json_object_get(event, "name")), name) != 0)
      continue;
    assert_int_equal(json_integer_value(json_object_get(event, "pid")), 0);
    char key[32];
    snprintf(key, sizeof key, "%lld",
             (long long)json_integer_value(json_object_get(event, "tid")));
    json_int_t n = json_integer_value(json_object_get(counts, key));
    json_object_set_new(counts, key, json_integer(n + 1));
  }
  return counts;
}

static void test_threads_trace_at_once(void **state) {
  (void)state;
  traced_runtime_t t;
  open_traced(&t);
  pthread_t threads[THREADS];
  worker_t workers[THREADS];
  for (size_t i = 0; i < THREADS; ++i) {
    workers[i] = (worker_t){t.device, CALLS_PER_THREAD, BP_OK};
    assert_int_equal(
        pthread_create(&threads[i], NULL, query_own_stream, &workers[i]), 0);
  }
  for (size_t i = 0; i < THREADS; ++i) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(workers[i].status, BP_OK);
  }
  json_t *root = close_traced(&t);
  /* Every call, on its thread's own track, holding its plugin call. */
  json_t *api = per_track(root, "bp_stream_query");
  json_t *plugin = per_track(root, "query_stream");
  assert_int_equal(json_object_size(api), THREADS);
  const char *tid;
  json_t *count;
  json_object_foreach(api, tid, count) {
    assert_int_equal(json_integer_value(count), CALLS_PER_THREAD);
    assert_int_equal(json_integer_value(json_object_get(plugin, tid)),
                     CALLS_PER_THREAD);
  }
  assert_int_equal(trace_count_inside(root, "query_stream", "bp_stream_query"),
                   THREADS * CALLS_PER_THREAD);
  json_t *slice = trace_slice(root, "bp_stream_query", 0);
  json_t *args = json_object_get(slice, "args");
  assert_string_equal(json_string_value(json_object_get(args, "device")),
                      "vcpu:0");
  assert_string_equal(json_string_value(json_object_get(args, "result")),
                      "BP_OK");
  assert_non_null(json_string_value(json_object_get(args, "stream")));
  assert_string_equal(json_string_value(json_object_get(slice, "cat")), "api");
  json_decref(api);
  json_decref(plugin);
  json_decref(root);
}

static void test_exited_thread_keeps_its_events(void **state) {
  (void)state;
  traced_runtime_t t;
  open_traced(&t);
  uint64_t before = fixture_layer_stats(t.runtime).trace_events;
  worker_t w = {t.device, 50, BP_OK};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, query_own_stream, &w), 0);
  assert_int_equal(pthread_join(thread, NULL), 0); /* gone before export */
  assert_int_equal(w.status, BP_OK);
  /* At least its 50 queries, each an API slice and a plugin slice. */
  assert_true(fixture_layer_stats(t.runtime).trace_events - before >= 2 * 50);
  json_t *root = close_traced(&t);
  assert_int_equal(trace_count(root, "X", "bp_stream_query", NULL, 0), 50);
  assert_int_equal(trace_count(root, "X", "query_stream", NULL, 0), 50);
  assert_int_equal(trace_count(root, "X", "bp_stream_create", NULL, 0), 1);
  assert_int_equal(trace_count(root, "X", "destroy_stream", NULL, 0), 1);
  json_decref(root);
}

/* More events than a thread's first chunk and its first big chunk hold. */
static void test_full_buffer_loses_nothing(void **state) {
  (void)state;
  enum { CALLS = 12000 }; /* 24000 events, past 256 + 2 MiB / 96 B */
  traced_runtime_t t;
  open_traced(&t);
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(t.device, &stream), BP_OK);
  for (size_t i = 0; i < CALLS; ++i)
    assert_int_equal(bp_stream_query(stream), BP_OK);
  assert_true(fixture_layer_stats(t.runtime).trace_events >= 2 * CALLS);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  json_t *root = close_traced(&t);
  assert_int_equal(trace_count(root, "X", "bp_stream_query", NULL, 0), CALLS);
  assert_int_equal(trace_count(root, "X", "query_stream", NULL, 0), CALLS);
  json_decref(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_trace_at_once),
      cmocka_unit_test(test_exited_thread_keeps_its_events),
      cmocka_unit_test(test_full_buffer_loses_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
