/* The trace layer on a multi-device, multi-stream workload: the file it
 * writes at runtime destroy is well-formed trace-event JSON with one track
 * per stream, host calls with their copies' sizes, the device timeline from
 * vcpu, flow arrows from event records to the waits on them, and allocator
 * counters; with fault injection below it, injected failures show as the
 * calls' results. Collectives over the two devices show as host slices
 * with their communicator, op, sizes, root and sequence number. The
 * framework's calls are slices holding the plugin calls they made, also an
 * allocation the cache serves without any; and two traced runtimes sharing
 * the loaded vcpu each get the device timeline of their own streams. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/runtime_fixture.h"
#include "trace_checks.h"
#include "trace_demo_work.h"

/* A fresh path for a trace file (not created). */
static void temp_path(char *path) {
  strcpy(path, "/tmp/bp-trace-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  unlink(path);
}

/* Runs the demo under `layers` (+ `fault`), returns the checked trace. */
static json_t *traced_demo(const char *layers, const char *fault,
                           bp_status_t expected) {
  char path[32];
  temp_path(path);
  bp_layer_options_t options = fixture_layer_options(layers, fault);
  options.trace_file = path;
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  if (expected == BP_OK)
    assert_int_equal(trace_demo_run(runtime), BP_OK);
  else
    assert_int_not_equal(trace_demo_run(runtime), BP_OK);
  assert_true(fixture_layer_stats(runtime).trace_events > 0);
  assert_int_not_equal(access(path, F_OK), 0); /* written at destroy */
  bp_runtime_destroy(runtime);
  json_t *root = trace_check_file(path);
  if (getenv("BP_KEEP_TRACE") == NULL)
    unlink(path);
  return root;
}

static json_int_t pid_named(json_t *root, const char *process) {
  size_t i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    json_t *args = json_object_get(event, "args");
    if (strcmp(json_string_value(json_object_get(event, "name")),
               "process_name") == 0 &&
        strcmp(json_string_value(json_object_get(args, "name")), process) == 0)
      return json_integer_value(json_object_get(event, "pid"));
  }
  fail_msg("no process %s", process);
  return -1;
}

/* The largest "allocated" of the memory counters of `process`, checking
 * that reserved >= allocated in each. */
static json_int_t peak_allocated(json_t *root, const char *process) {
  json_int_t pid = pid_named(root, process), peak = -1;
  size_t i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    if (strcmp(json_string_value(json_object_get(event, "ph")), "C") != 0 ||
        json_integer_value(json_object_get(event, "pid")) != pid)
      continue;
    json_t *args = json_object_get(event, "args");
    json_int_t allocated =
        json_integer_value(json_object_get(args, "allocated"));
    assert_true(json_integer_value(json_object_get(args, "reserved")) >=
                allocated);
    if (allocated > peak)
      peak = allocated;
  }
  return peak;
}

/* Host calls named `name` whose result is `result`. */
static size_t calls_with_result(json_t *root, const char *name,
                                const char *result) {
  size_t n = 0, i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    const char *r = json_string_value(
        json_object_get(json_object_get(event, "args"), "result"));
    if (strcmp(json_string_value(json_object_get(event, "name")), name) == 0 &&
        r && strcmp(r, result) == 0)
      ++n;
  }
  return n;
}

static void test_demo_trace(void **state) {
  (void)state;
  json_t *root = traced_demo("trace", "", BP_OK);
  /* One track per stream: A and B on vcpu:0, C on vcpu:1. */
  assert_int_equal(trace_tracks_of(root, "vcpu:0"), 2);
  assert_int_equal(trace_tracks_of(root, "vcpu:1"), 1);
  assert_true(trace_tracks_of(root, "host") >= 1);
  /* Host calls, copies labelled with their size. */
  const char *copies[] = {"async_memory_copy_h2d", "async_memory_copy_d2d",
                          "async_memory_copy_p2p", "async_memory_copy_d2h"};
  for (size_t i = 0; i < 4; ++i)
    assert_int_equal(
        trace_count(root, "X", copies[i], "bytes", TRACE_DEMO_BYTES),
        TRACE_DEMO_ROUNDS);
  assert_int_equal(trace_count(root, "X", "record_event", NULL, 0),
                   TRACE_DEMO_ROUNDS);
  /* The framework's calls, each holding the plugin calls it made. */
  assert_int_equal(trace_count(root, "X", "bp_copy", "size", TRACE_DEMO_BYTES),
                   2 * TRACE_DEMO_ROUNDS);
  assert_int_equal(
      trace_count(root, "X", "bp_copy_async_unsafe", "size", TRACE_DEMO_BYTES),
      2 * TRACE_DEMO_ROUNDS);
  /* h2d and d2h come from bp_copy_async_unsafe (trace_demo_work.c). */
  for (size_t i = 0; i < 4; ++i)
    assert_int_equal(trace_count_inside(
                         root, copies[i],
                         i == 0 || i == 3 ? "bp_copy_async_unsafe" : "bp_copy"),
                     TRACE_DEMO_ROUNDS);
  assert_int_equal(trace_count_inside(root, "record_event", "bp_event_record"),
                   TRACE_DEMO_ROUNDS);
  assert_int_equal(
      trace_count_inside(root, "stream_wait_event", "bp_stream_wait_event"),
      2 * TRACE_DEMO_ROUNDS);
  assert_int_equal(calls_with_result(root, "stream_wait_event", "C_SUCCESS"),
                   2 * TRACE_DEMO_ROUNDS);
  /* The device timeline, from vcpu itself. */
  const char *commands[] = {"h2d", "d2d", "p2p", "d2h"};
  for (size_t i = 0; i < 4; ++i)
    assert_int_equal(
        trace_count(root, "X", commands[i], "bytes", TRACE_DEMO_BYTES),
        TRACE_DEMO_ROUNDS);
  assert_int_equal(trace_count(root, "X", "callback", NULL, 0),
                   TRACE_DEMO_ROUNDS);
  /* A flow from each record to each of its two host-side waits (plus any
   * device-side waits vcpu enqueued). */
  assert_true(trace_count(root, "s", NULL, NULL, 0) >= 2 * TRACE_DEMO_ROUNDS);
  /* Two buffers on vcpu:0, one on vcpu:1, seen by the counters. */
  assert_true(peak_allocated(root, "vcpu:0") >= 2 * TRACE_DEMO_BYTES);
  assert_true(peak_allocated(root, "vcpu:1") >= TRACE_DEMO_BYTES);
  json_decref(root);
}

static void test_injected_failure_is_traced(void **state) {
  (void)state;
  json_t *root =
      traced_demo("validation,trace,fault", "async_memory_copy_h2d:1", 1);
  assert_int_equal(calls_with_result(root, "async_memory_copy_h2d", "C_FAILED"),
                   1);
  assert_int_equal(trace_count(root, "X", "h2d", NULL, 0), 0);
  json_decref(root);
}

enum { COLLECTIVE_COUNT = 1000 };

/* The args of the one host slice named `name` made on `device` with
 * sequence number `seq`; fails unless there is exactly one. */
static json_t *collective_args(json_t *root, const char *name,
                               const char *device, json_int_t seq) {
  json_t *found = NULL, *event;
  size_t i, n = 0;
  json_array_foreach(trace_events(root), i, event) {
    json_t *args = json_object_get(event, "args");
    const char *on = json_string_value(json_object_get(args, "device"));
    if (strcmp(json_string_value(json_object_get(event, "ph")), "X") == 0 &&
        strcmp(json_string_value(json_object_get(event, "name")), name) == 0 &&
        on && strcmp(on, device) == 0 &&
        json_integer_value(json_object_get(args, "seq")) == seq) {
      found = args;
      ++n;
      assert_int_equal(json_integer_value(json_object_get(event, "pid")), 0);
      assert_string_equal(json_string_value(json_object_get(event, "cat")),
                          "collective");
    }
  }
  if (n != 1)
    fail_msg("%zu slices %s on %s with seq %lld", n, name, device,
             (long long)seq);
  return found;
}

static void assert_arg_string(json_t *args, const char *key,
                              const char *expected) {
  const char *value = json_string_value(json_object_get(args, key));
  if (!value || strcmp(value, expected) != 0)
    fail_msg("args.%s is %s, expected %s", key, value ? value : "missing",
             expected);
}

static void assert_arg_int(json_t *args, const char *key, json_int_t expected) {
  json_t *value = json_object_get(args, key);
  if (!json_is_integer(value) || json_integer_value(value) != expected)
    fail_msg("args.%s is not %lld", key, (long long)expected);
}

/* Rank r holds r + 1 everywhere; all_reduce (sum) makes 3, rank 1 then
 * writes 7 and broadcasts it, all_reduce (max) keeps 7. */
static void run_collectives(bp_runtime_t *runtime) {
  bp_device_t *devices[2];
  bp_stream_t *streams[2];
  bp_comm_t *comms[2];
  float *buffers[2];
  float host[COLLECTIVE_COUNT];
  for (size_t r = 0; r < 2; ++r) {
    assert_int_equal(bp_device_at(runtime, r, &devices[r]), BP_OK);
    assert_int_equal(bp_stream_create(devices[r], &streams[r]), BP_OK);
    assert_int_equal(
        bp_device_malloc(devices[r], sizeof host, (void **)&buffers[r]), BP_OK);
    for (size_t i = 0; i < COLLECTIVE_COUNT; ++i)
      host[i] = (float)(r + 1);
    assert_int_equal(
        bp_copy(devices[r], buffers[r], NULL, host, sizeof host, NULL), BP_OK);
  }
  assert_int_equal(bp_comm_init_all(devices, 2, comms), BP_OK);
  for (size_t r = 0; r < 2; ++r)
    assert_int_equal(bp_comm_all_reduce(buffers[r], buffers[r],
                                        COLLECTIVE_COUNT, BP_DTYPE_FLOAT32,
                                        BP_REDUCE_SUM, comms[r], streams[r]),
                     BP_OK);
  for (size_t i = 0; i < COLLECTIVE_COUNT; ++i)
    host[i] = 7.0f;
  assert_int_equal(bp_stream_synchronize(streams[1]), BP_OK);
  assert_int_equal(
      bp_copy(devices[1], buffers[1], NULL, host, sizeof host, NULL), BP_OK);
  for (size_t r = 0; r < 2; ++r)
    assert_int_equal(bp_comm_broadcast(buffers[r], COLLECTIVE_COUNT,
                                       BP_DTYPE_FLOAT32, 1, comms[r],
                                       streams[r]),
                     BP_OK);
  for (size_t r = 0; r < 2; ++r)
    assert_int_equal(bp_comm_all_reduce(buffers[r], buffers[r],
                                        COLLECTIVE_COUNT, BP_DTYPE_FLOAT32,
                                        BP_REDUCE_MAX, comms[r], streams[r]),
                     BP_OK);
  for (size_t r = 0; r < 2; ++r) {
    assert_int_equal(bp_stream_synchronize(streams[r]), BP_OK);
    assert_int_equal(bp_comm_async_error(comms[r]), BP_OK);
    assert_int_equal(
        bp_copy(NULL, host, devices[r], buffers[r], sizeof host, NULL), BP_OK);
    assert_true(host[0] == 7.0f && host[COLLECTIVE_COUNT - 1] == 7.0f);
    assert_int_equal(bp_comm_destroy(comms[r]), BP_OK);
    assert_int_equal(bp_device_free(devices[r], buffers[r]), BP_OK);
    assert_int_equal(bp_stream_destroy(streams[r]), BP_OK);
  }
}

/* Runs the trace layer on a fresh runtime through `work`, returns the
 * checked trace. */
static json_t *traced(void (*work)(bp_runtime_t *runtime)) {
  char path[32];
  temp_path(path);
  bp_layer_options_t options = fixture_layer_options("trace", "");
  options.trace_file = path;
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  work(runtime);
  bp_runtime_destroy(runtime);
  json_t *root = trace_check_file(path);
  if (getenv("BP_KEEP_TRACE") == NULL)
    unlink(path);
  return root;
}

static void test_collectives_traced(void **state) {
  (void)state;
  json_t *root = traced(run_collectives);
  const char *devices[] = {"vcpu:0", "vcpu:1"};
  const char *comm_of[2];
  for (size_t r = 0; r < 2; ++r) {
    json_t *sum = collective_args(root, "xccl_all_reduce", devices[r], 1);
    json_t *bcast = collective_args(root, "xccl_broadcast", devices[r], 2);
    json_t *max = collective_args(root, "xccl_all_reduce", devices[r], 3);
    json_t *each[] = {sum, bcast, max};
    comm_of[r] = json_string_value(json_object_get(sum, "comm"));
    assert_non_null(comm_of[r]);
    for (size_t k = 0; k < 3; ++k) {
      assert_arg_string(each[k], "comm", comm_of[r]);
      assert_arg_string(each[k], "result", "C_SUCCESS");
      assert_arg_string(each[k], "dtype", "float32");
      assert_arg_int(each[k], "rank", (json_int_t)r);
      assert_arg_int(each[k], "nranks", 2);
      assert_arg_int(each[k], "count", COLLECTIVE_COUNT);
      assert_arg_int(each[k], "bytes", 4 * COLLECTIVE_COUNT);
    }
    assert_arg_string(sum, "reduce_op", "sum");
    assert_arg_string(max, "reduce_op", "max");
    assert_arg_int(bcast, "root", 1);
    assert_null(json_object_get(sum, "root"));
    assert_null(json_object_get(bcast, "reduce_op"));
  }
  assert_string_not_equal(comm_of[0], comm_of[1]);
  /* Nothing beyond the six calls. */
  assert_int_equal(trace_count(root, "X", "xccl_all_reduce", NULL, 0), 4);
  assert_int_equal(trace_count(root, "X", "xccl_broadcast", NULL, 0), 2);
  /* vcpu's device tracks show the work each call enqueued, by its name and
   * size (1000 floats: 4000 bytes, 3.9 KiB). */
  assert_int_equal(trace_count(root, "X", "all_reduce 3.9 KiB", NULL, 0), 4);
  assert_int_equal(trace_count(root, "X", "broadcast 3.9 KiB", NULL, 0), 2);
  json_decref(root);
}

/* Spins for about `us` microseconds (the ranges need some length). */
static void spin_us(long us) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do
    clock_gettime(CLOCK_MONOTONIC, &now);
  while ((now.tv_sec - start.tv_sec) * 1000000L +
             (now.tv_nsec - start.tv_nsec) / 1000 <
         us);
}

/* Nested user ranges on a thread of their own: "outer" holds two "inner".
 * (On a thread that also makes traced calls, a range and a call timed by
 * different clocks may cross by the fast clock's error.) */
static void *ranges_thread(void *unused) {
  (void)unused;
  assert_int_equal(bp_profiler_range_push("outer"), 0);
  for (int i = 0; i < 2; i++) {
    spin_us(50);
    assert_int_equal(bp_profiler_range_push("inner"), 1);
    spin_us(100);
    assert_int_equal(bp_profiler_range_pop(), 1);
  }
  spin_us(50);
  assert_int_equal(bp_profiler_range_pop(), 0);
  assert_int_equal(bp_profiler_range_pop(), -1); /* none open */
  assert_int_equal(bp_profiler_range_push(NULL), -1);
  return NULL;
}

static void ranged_work(bp_runtime_t *runtime) {
  bp_device_t *device;
  assert_int_equal(bp_device_get(runtime, "vcpu", 0, &device), BP_OK);
  assert_int_equal(bp_device_synchronize(device), BP_OK);
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, ranges_thread, NULL), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
}

static void test_ranges_are_nested_slices(void **state) {
  (void)state;
  json_t *root = traced(ranged_work);
  assert_int_equal(trace_count(root, "X", "outer", NULL, 0), 1);
  assert_int_equal(trace_count(root, "X", "inner", NULL, 0), 2);
  assert_int_equal(trace_inside(root, trace_slice(root, "outer", 0), "inner"),
                   2);
  json_decref(root);
}

enum { CACHED_BYTES = 1 << 20 };

/* One miss (the plugin allocates), then one hit (the cache serves); both
 * freed into the cache; then a pointer the allocator never gave out. */
static void alloc_twice(bp_runtime_t *runtime) {
  bp_device_t *device;
  void *first, *second;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  assert_int_equal(bp_device_malloc(device, CACHED_BYTES, &first), BP_OK);
  assert_int_equal(bp_device_free(device, first), BP_OK);
  assert_int_equal(bp_device_malloc(device, CACHED_BYTES, &second), BP_OK);
  assert_int_equal(bp_device_free(device, second), BP_OK);
  int not_allocated;
  assert_int_equal(bp_device_free(device, &not_allocated),
                   BP_ERR_INVALID_ARGUMENT);
}

static void test_cached_alloc_is_a_slice(void **state) {
  (void)state;
  json_t *root = traced(alloc_twice);
  assert_int_equal(
      trace_count(root, "X", "bp_device_malloc", "size", CACHED_BYTES), 2);
  json_t *miss = trace_slice(root, "bp_device_malloc", 0);
  json_t *hit = trace_slice(root, "bp_device_malloc", 1);
  for (json_t *slice = miss; slice; slice = slice == miss ? hit : NULL) {
    json_t *args = json_object_get(slice, "args");
    assert_string_equal(json_string_value(json_object_get(slice, "cat")),
                        "api");
    assert_int_equal(json_integer_value(json_object_get(slice, "pid")), 0);
    assert_arg_string(args, "device", "vcpu:0");
    assert_arg_string(args, "result", "BP_OK");
    assert_non_null(json_string_value(json_object_get(args, "ptr")));
  }
  /* The miss holds the plugin's allocation; the hit holds no plugin call. */
  assert_true(trace_inside(root, miss, "device_memory_allocate") >= 1);
  assert_int_equal(trace_inside(root, hit, NULL), 0);
  /* Frees into the cache, and the refused one, are slices too. */
  assert_int_equal(trace_count(root, "X", "bp_device_free", NULL, 0), 3);
  for (size_t i = 0; i < 3; ++i)
    assert_int_equal(
        trace_inside(root, trace_slice(root, "bp_device_free", i), NULL), 0);
  assert_arg_string(
      json_object_get(trace_slice(root, "bp_device_free", 2), "args"), "result",
      "BP_ERR_INVALID_ARGUMENT");
  assert_int_equal(trace_count(root, "X", "device_memory_deallocate", NULL, 0),
                   trace_count(root, "X", "device_memory_allocate", NULL, 0));
  json_decref(root);
}

/* The allocator's own entry points on a stream: an async allocation and a
 * workspace, each taken and given back. */
static void stream_scratch(bp_runtime_t *runtime) {
  bp_device_t *device;
  bp_stream_t *stream;
  void *data, *scratch;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_device_malloc_async(device, CACHED_BYTES, stream, &data),
                   BP_OK);
  assert_int_equal(
      bp_device_workspace_alloc(device, CACHED_BYTES, stream, &scratch), BP_OK);
  assert_int_equal(bp_device_workspace_free(device, stream, scratch), BP_OK);
  assert_int_equal(bp_device_free_async(device, data, stream), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

static void test_allocator_calls_are_slices(void **state) {
  (void)state;
  json_t *root = traced(stream_scratch);
  static const char *const calls[] = {
      "bp_device_malloc_async", "bp_device_workspace_alloc",
      "bp_device_workspace_free", "bp_device_free_async"};
  for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
    assert_int_equal(trace_count(root, "X", calls[i], NULL, 0), 1);
    json_t *args = json_object_get(trace_slice(root, calls[i], 0), "args");
    assert_arg_string(args, "device", "vcpu:0");
    assert_arg_string(args, "result", "BP_OK");
    assert_non_null(json_string_value(json_object_get(args, "stream")));
  }
  json_decref(root);
}

static void count_run(void *ran) {
  ++*(int *)ran;
}

/* The three ways to add a host function to a stream, one each. */
static void add_callbacks(bp_runtime_t *runtime) {
  bp_device_t *device;
  bp_stream_t *stream;
  int ran = 0;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_stream_add_callback(stream, count_run, &ran), BP_OK);
  assert_int_equal(
      bp_stream_add_labeled_callback(stream, count_run, &ran, "labeled"),
      BP_OK);
  assert_int_equal(
      bp_stream_add_inline_callback(stream, count_run, &ran, "inline"), BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(ran, 3);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

/* Each callback entry point is a slice under its own name. */
static void test_callback_calls_are_named_by_their_entry_point(void **state) {
  (void)state;
  json_t *root = traced(add_callbacks);
  static const char *const calls[] = {"bp_stream_add_callback",
                                      "bp_stream_add_labeled_callback",
                                      "bp_stream_add_inline_callback"};
  for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
    assert_int_equal(trace_count(root, "X", calls[i], NULL, 0), 1);
    json_t *args = json_object_get(trace_slice(root, calls[i], 0), "args");
    assert_arg_string(args, "result", "BP_OK");
    assert_non_null(json_string_value(json_object_get(args, "stream")));
  }
  json_decref(root);
}

/* One runtime's share of the two-runtime test: two streams on the devices
 * of ordinals `ordinals`, each given `rounds` host->device copies of
 * `bytes` (a size only this runtime uses). */
typedef struct copier {
  bp_runtime_t *runtime;
  size_t ordinals[2];
  size_t bytes;
  size_t rounds;
  bp_device_t *devices[2];
  bp_stream_t *streams[2];
  void *buffers[2];
} copier_t;

static void copier_open(copier_t *c) {
  for (size_t i = 0; i < 2; ++i) {
    assert_int_equal(bp_device_at(c->runtime, c->ordinals[i], &c->devices[i]),
                     BP_OK);
    assert_int_equal(bp_stream_create(c->devices[i], &c->streams[i]), BP_OK);
    assert_int_equal(bp_device_malloc(c->devices[i], c->bytes, &c->buffers[i]),
                     BP_OK);
  }
}

static void copier_round(copier_t *c, const void *host) {
  for (size_t i = 0; i < 2; ++i)
    assert_int_equal(bp_copy_async_unsafe(c->devices[i], c->buffers[i], NULL,
                                          host, c->bytes, c->streams[i]),
                     BP_OK);
}

static void copier_close(copier_t *c) {
  for (size_t i = 0; i < 2; ++i) {
    assert_int_equal(bp_stream_synchronize(c->streams[i]), BP_OK);
    assert_int_equal(bp_device_free(c->devices[i], c->buffers[i]), BP_OK);
    assert_int_equal(bp_stream_destroy(c->streams[i]), BP_OK);
  }
}

/* Two traced runtimes share the one loaded vcpu: each trace has the
 * device timeline of its own streams, and none of the other's. */
static void test_two_runtimes_each_see_their_timeline(void **state) {
  (void)state;
  char paths[2][32];
  copier_t copiers[2] = {{.ordinals = {0, 0}, .bytes = 4096, .rounds = 3},
                         {.ordinals = {0, 1}, .bytes = 8192, .rounds = 2}};
  for (size_t r = 0; r < 2; ++r) {
    temp_path(paths[r]);
    bp_layer_options_t options = fixture_layer_options("trace", "");
    options.trace_file = paths[r];
    copiers[r].runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  }
  static unsigned char host[8192];
  for (size_t r = 0; r < 2; ++r)
    copier_open(&copiers[r]);
  for (size_t round = 0; round < 3; ++round)
    for (size_t r = 0; r < 2; ++r)
      if (round < copiers[r].rounds)
        copier_round(&copiers[r], host);
  for (size_t r = 0; r < 2; ++r) {
    copier_close(&copiers[r]);
    bp_runtime_destroy(copiers[r].runtime);
  }
  json_t *roots[2];
  for (size_t r = 0; r < 2; ++r) {
    roots[r] = trace_check_file(paths[r]);
    if (getenv("BP_KEEP_TRACE") == NULL)
      unlink(paths[r]);
  }
  /* The first runtime: two streams on vcpu:0; the second: one per device. */
  assert_int_equal(trace_tracks_of(roots[0], "vcpu:0"), 2);
  assert_int_equal(trace_tracks_of(roots[0], "vcpu:1"), 0);
  assert_int_equal(trace_tracks_of(roots[1], "vcpu:0"), 1);
  assert_int_equal(trace_tracks_of(roots[1], "vcpu:1"), 1);
  for (size_t r = 0; r < 2; ++r) {
    const copier_t *own = &copiers[r], *other = &copiers[1 - r];
    assert_int_equal(
        trace_count(roots[r], "X", "h2d", "bytes", (json_int_t)own->bytes),
        2 * own->rounds);
    assert_int_equal(
        trace_count(roots[r], "X", "h2d", "bytes", (json_int_t)other->bytes),
        0);
    json_decref(roots[r]);
  }
}

static void test_unwritable_file_is_reported_not_fatal(void **state) {
  (void)state;
  const char *path = "/nonexistent-bp-dir/trace.json";
  bp_layer_options_t options = fixture_layer_options("trace", "");
  options.trace_file = path;
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  assert_int_equal(trace_demo_run(runtime), BP_OK);
  bp_runtime_destroy(runtime);
  assert_int_not_equal(access(path, F_OK), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_demo_trace),
      cmocka_unit_test(test_injected_failure_is_traced),
      cmocka_unit_test(test_collectives_traced),
      cmocka_unit_test(test_ranges_are_nested_slices),
      cmocka_unit_test(test_cached_alloc_is_a_slice),
      cmocka_unit_test(test_allocator_calls_are_slices),
      cmocka_unit_test(test_callback_calls_are_named_by_their_entry_point),
      cmocka_unit_test(test_two_runtimes_each_see_their_timeline),
      cmocka_unit_test(test_unwritable_file_is_reported_not_fatal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
