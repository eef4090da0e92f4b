/* The layers over kernels (src/kernel and the kernels extension), through
 * the public API with the tests' kernel library on vcpu:
 * - validation: exactly one line, naming the call, for each kernel misuse
 *   (a function of an unloaded module, arguments over BP_LAUNCH_MAX_ARGS, a
 *   notify waited on a stream of another device, a module unloaded with
 *   launches pending), none for correct use; the first three are refused
 *   with or without the layer;
 * - fault: BACKPLANE_FAULT's launch and module_load rules fail exactly the
 *   chosen calls;
 * - trace: each launch is a "kernel <function>" slice with its blocks and
 *   op on the host and on the stream's device track, and a notify's record
 *   and wait are joined by a flow. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance_kernels.h"
#include "support/file_lines.h"
#include "support/runtime_fixture.h"
#include "trace_checks.h"

typedef struct layered {
  char file[40]; /* the validation log or the trace */
  bp_runtime_t *runtime;
  bp_device_t *dev0, *dev1;
  bp_module_t *module;
  bp_stream_t *stream;
} layered_t;

/* A runtime with `layers` (and fault rules `fault`) over vcpu, the test
 * kernels loaded on vcpu:0 and a stream of it; `file` receives the
 * validation log or the trace. */
static void open_layered(layered_t *r, const char *layers, const char *fault) {
  strcpy(r->file, "/tmp/bp-kernel-layers-XXXXXX");
  int fd = mkstemp(r->file);
  assert_true(fd >= 0);
  close(fd);
  bp_layer_options_t options = fixture_layer_options(layers, fault);
  options.validation_log = r->file;
  options.trace_file = r->file;
  r->runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  assert_int_equal(bp_device_at(r->runtime, 0, &r->dev0), BP_OK);
  assert_int_equal(bp_device_at(r->runtime, 1, &r->dev1), BP_OK);
  r->module = NULL;
  if (!fault || !strstr(fault, "module_load"))
    assert_int_equal(bp_module_load(r->dev0, BP_TEST_KERNELS, &r->module),
                     BP_OK);
  assert_int_equal(bp_stream_create(r->dev0, &r->stream), BP_OK);
}

/* Destroys the runtime (which writes the trace); the file stays. */
static void destroy_layered(layered_t *r) {
  assert_int_equal(bp_stream_destroy(r->stream), BP_OK);
  assert_int_equal(bp_module_unload(r->module), BP_OK);
  bp_runtime_destroy(r->runtime);
}

/* The same, and removes the file. */
static void close_layered(layered_t *r) {
  destroy_layered(r);
  unlink(r->file);
}

static bp_function_t *function_of(bp_module_t *module, const char *name) {
  bp_function_t *function = NULL;
  assert_int_equal(bp_module_function(module, name, &function), BP_OK);
  return function;
}

/* Lines of the validation log holding `fragment`. */
static size_t log_lines(const layered_t *r, const char *fragment) {
  return file_lines_with(r->file, fragment);
}

static size_t all_lines(const layered_t *r) {
  return log_lines(r, "backplane validation:");
}

/* ---- validation ---- */

/* Loads the test kernels as `*module`, unloads them and checks that a launch
 * of their empty_kernel is refused; returns that function. */
static bp_function_t *launch_of_unloaded(layered_t *r, bp_module_t **module) {
  assert_int_equal(bp_module_load(r->dev0, BP_TEST_KERNELS, module), BP_OK);
  bp_function_t *empty = function_of(*module, "empty_kernel");
  assert_int_equal(bp_module_unload(*module), BP_OK);
  assert_int_equal(bp_launch(empty, 1, NULL, 0, NULL, r->stream),
                   BP_ERR_INVALID_ARGUMENT);
  return empty;
}

static void test_function_of_unloaded_module(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "validation", "");
  bp_module_t *second = NULL;
  assert_non_null(launch_of_unloaded(&r, &second));
  assert_non_null(strstr(bp_last_error(), "already unloaded"));
  assert_int_equal(all_lines(&r), 1);
  assert_int_equal(log_lines(&r, "backplane validation: bp_launch on vcpu:0: "
                                 "kernel empty_kernel (op empty_kernel) of "
                                 "module " BP_TEST_KERNELS
                                 ", which was already unloaded (refused)"),
                   1);
  /* The stream is untouched. */
  assert_int_equal(bp_stream_synchronize(r.stream), BP_OK);
  close_layered(&r);
}

static void test_arguments_over_the_limit(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "validation", "");
  static unsigned char args[BP_LAUNCH_MAX_ARGS + 1];
  bp_function_t *empty = function_of(r.module, "empty_kernel");
  assert_int_equal(bp_launch(empty, 1, args, sizeof args, NULL, r.stream),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(
      bp_launch(empty, 1, args, BP_LAUNCH_MAX_ARGS, NULL, r.stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(r.stream), BP_OK);
  assert_int_equal(all_lines(&r), 1);
  assert_int_equal(log_lines(&r, "backplane validation: bp_launch on vcpu:0: "
                                 "kernel empty_kernel on vcpu:0: 4097 argument "
                                 "bytes at "),
                   1);
  assert_int_equal(log_lines(&r, "(at most 4096, non-NULL) (refused)"), 1);
  close_layered(&r);
}

static void test_notify_on_a_stream_of_another_device(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "validation", "");
  bp_notify_t *notify = NULL;
  assert_int_equal(bp_notify_create(r.dev0, &notify), BP_OK);
  uint32_t id = 0;
  assert_int_equal(bp_notify_id(notify, &id), BP_OK);
  bp_stream_t *other = NULL;
  assert_int_equal(bp_stream_create(r.dev1, &other), BP_OK);
  assert_int_equal(bp_notify_wait(notify, other, 100), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_synchronize(other), BP_OK);
  assert_int_equal(all_lines(&r), 1);
  char expected[160];
  snprintf(expected, sizeof expected,
           "backplane validation: bp_notify_wait on vcpu:1: notify %u "
           "belongs to vcpu:0, the stream to vcpu:1 (refused)",
           id);
  assert_int_equal(log_lines(&r, expected), 1);
  assert_int_equal(bp_stream_destroy(other), BP_OK);
  assert_int_equal(bp_notify_destroy(notify), BP_OK);
  close_layered(&r);
}

static void test_unload_with_launches_pending(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "validation", "");
  bp_module_t *second = NULL;
  assert_int_equal(bp_module_load(r.dev0, BP_TEST_KERNELS, &second), BP_OK);
  sleep_param nap = {.ms = 150};
  bp_function_t *sleeper = function_of(second, "sleep_kernel");
  assert_int_equal(bp_launch(sleeper, 1, &nap, sizeof nap, NULL, r.stream),
                   BP_OK);
  assert_int_equal(bp_launch(sleeper, 1, &nap, sizeof nap, NULL, r.stream),
                   BP_OK);
  /* Reported, then drained and unloaded as documented. */
  assert_int_equal(bp_module_unload(second), BP_OK);
  assert_int_equal(bp_stream_query(r.stream), BP_OK);
  assert_int_equal(all_lines(&r), 1);
  assert_int_equal(log_lines(&r, "backplane validation: bp_module_unload on "
                                 "vcpu:0: module " BP_TEST_KERNELS
                                 " unloaded with 2 launches pending (the "
                                 "unload drains the device first)"),
                   1);
  close_layered(&r);
}

/* Correct use: launches of both modules' functions, a notify round trip
 * through a kernel, unloads after the work completed: no line. */
static void test_correct_use_has_no_line(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "validation", "");
  bp_notify_t *go = NULL, *done = NULL;
  assert_int_equal(bp_notify_create(r.dev0, &go), BP_OK);
  assert_int_equal(bp_notify_create(r.dev0, &done), BP_OK);
  notify_param p = {.timeout_ms = 5000};
  assert_int_equal(bp_notify_id(go, &p.wait_id), BP_OK);
  assert_int_equal(bp_notify_id(done, &p.record_id), BP_OK);
  assert_int_equal(bp_notify_record(go, r.stream), BP_OK);
  assert_int_equal(bp_launch(function_of(r.module, "notify_kernel"), 1, &p,
                             sizeof p, NULL, r.stream),
                   BP_OK);
  assert_int_equal(bp_notify_wait(done, r.stream, 5000), BP_OK);
  for (int i = 0; i < 100; ++i)
    assert_int_equal(bp_launch(function_of(r.module, "empty_kernel"), 2, NULL,
                               0, NULL, r.stream),
                     BP_OK);
  assert_int_equal(bp_stream_synchronize(r.stream), BP_OK);
  assert_int_equal(bp_notify_destroy(done), BP_OK);
  assert_int_equal(bp_notify_destroy(go), BP_OK);
  destroy_layered(&r);
  assert_int_equal(all_lines(&r), 0);
  unlink(r.file);
}

/* Without the layer the misuses are refused all the same. */
static void test_refused_without_layers(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "", "");
  bp_module_t *second = NULL;
  bp_function_t *empty = launch_of_unloaded(&r, &second);
  assert_int_equal(bp_module_function(second, "empty_kernel", &empty),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_module_unload(second), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "already unloaded"));
  close_layered(&r);
}

/* ---- fault ---- */

static void test_fault_fails_the_chosen_launch(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "fault", "launch:2");
  bp_function_t *empty = function_of(r.module, "empty_kernel");
  assert_int_equal(bp_launch(empty, 1, NULL, 0, NULL, r.stream), BP_OK);
  assert_int_equal(bp_launch(empty, 1, NULL, 0, NULL, r.stream), BP_ERR_PLUGIN);
  assert_non_null(strstr(bp_last_error(), "launch on vcpu:0 returned "
                                          "C_FAILED"));
  assert_int_equal(bp_launch(empty, 1, NULL, 0, NULL, r.stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(r.stream), BP_OK);
  assert_int_equal(fixture_layer_stats(r.runtime).faults_injected, 1);
  close_layered(&r);
}

static void test_fault_fails_every_launch_with_its_status(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "fault", "launch:p=1=C_ERROR");
  bp_function_t *empty = function_of(r.module, "empty_kernel");
  for (int i = 0; i < 3; ++i)
    assert_int_equal(bp_launch(empty, 1, NULL, 0, NULL, r.stream),
                     BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(fixture_layer_stats(r.runtime).faults_injected, 3);
  close_layered(&r);
}

static void test_fault_fails_the_chosen_module_load(void **state) {
  (void)state;
  layered_t r;
  open_layered(&r, "fault", "module_load:1");
  assert_int_equal(bp_module_load(r.dev0, BP_TEST_KERNELS, &r.module),
                   BP_ERR_NOT_FOUND);
  assert_null(r.module);
  assert_int_equal(bp_module_load(r.dev0, BP_TEST_KERNELS, &r.module), BP_OK);
  assert_int_equal(bp_launch(function_of(r.module, "empty_kernel"), 1, NULL, 0,
                             NULL, r.stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(r.stream), BP_OK);
  assert_int_equal(fixture_layer_stats(r.runtime).faults_injected, 1);
  close_layered(&r);
}

/* ---- trace ---- */

/* The first complete event named `name` whose args.`key` is the string
 * `value`, or NULL. */
static json_t *slice_with(json_t *root, const char *name, const char *key,
                          const char *value) {
  size_t i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    const char *ph = json_string_value(json_object_get(event, "ph"));
    const char *n = json_string_value(json_object_get(event, "name"));
    const char *v =
        json_string_value(json_object_get(json_object_get(event, "args"), key));
    if (ph && !strcmp(ph, "X") && n && !strcmp(n, name) && v &&
        !strcmp(v, value))
      return event;
  }
  return NULL;
}

/* The pid of the process named `process`, or -1. */
static json_int_t pid_of(json_t *root, const char *process) {
  size_t i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    const char *n = json_string_value(json_object_get(event, "name"));
    const char *p = json_string_value(
        json_object_get(json_object_get(event, "args"), "name"));
    if (n && !strcmp(n, "process_name") && p && !strcmp(p, process))
      return json_integer_value(json_object_get(event, "pid"));
  }
  return -1;
}

static json_int_t int_arg(json_t *event, const char *key) {
  json_t *value = json_object_get(json_object_get(event, "args"), key);
  assert_true(json_is_integer(value));
  return json_integer_value(value);
}

/* A manifest naming op "BlockOp" for block_kernel of the test kernels, as
 * seed 004's opInfo or, with `variants`, as the second of two variants (the
 * first needs more cores than any vcpu device has). */
static void write_manifest(char *dir, char *path, size_t size, bool variants) {
  strcpy(dir, "/tmp/bp-kernel-trace-XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(path, size, "%s/ops.json", dir);
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  if (variants)
    fprintf(file,
            "{\"BlockOp\": {\"variants\": ["
            "{\"target\": {\"kind\": \"vcpu\", \"min_num_cores\": 100000}, "
            "\"kernelSo\": \"%s\", \"functionName\": \"empty_kernel\"}, "
            "{\"target\": {\"kind\": \"vcpu\"}, \"kernelSo\": \"%s\", "
            "\"functionName\": \"block_kernel\"}]}}\n",
            BP_TEST_KERNELS, BP_TEST_KERNELS);
  else
    fprintf(file,
            "{\"BlockOp\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
            "\"kernelSo\": \"%s\", \"functionName\": \"block_kernel\"}}}\n",
            BP_TEST_KERNELS);
  fclose(file);
  chmod(path, 0600);
}

/* A trace-layered runtime with BlockOp loaded from a manifest (see
 * write_manifest) and room for three blocks' marks. */
typedef struct block_op {
  layered_t r;
  char dir[40], manifest[80];
  bp_module_t *ops;
  bp_function_t *op;
  int *seen;
} block_op_t;

static void open_block_op(block_op_t *b, bool variants) {
  open_layered(&b->r, "trace", "");
  write_manifest(b->dir, b->manifest, sizeof b->manifest, variants);
  bp_module_options_t outside = {.allow_outside_manifest_folder = 1};
  b->ops = NULL;
  assert_int_equal(
      bp_module_load_with_options(b->r.dev0, b->manifest, &outside, &b->ops),
      BP_OK);
  b->op = function_of(b->ops, "BlockOp");
  b->seen = NULL;
  assert_int_equal(
      bp_device_malloc(b->r.dev0, 3 * sizeof *b->seen, (void **)&b->seen),
      BP_OK);
}

/* Frees, unloads and destroys the runtime; returns its trace. */
static json_t *close_block_op(block_op_t *b) {
  assert_int_equal(bp_device_free(b->r.dev0, b->seen), BP_OK);
  assert_int_equal(bp_module_unload(b->ops), BP_OK);
  destroy_layered(&b->r);
  return trace_check_file(b->r.file);
}

static void remove_block_op(block_op_t *b, json_t *root) {
  json_decref(root);
  unlink(b->r.file);
  unlink(b->manifest);
  rmdir(b->dir);
}

/* Events "kernel block_kernel" of `op` with `blocks` on vcpu:0's tracks. */
static size_t runs_on_device(json_t *root, const char *op, json_int_t blocks) {
  json_int_t device_pid = pid_of(root, "vcpu:0");
  assert_true(device_pid > 0);
  size_t on_device = 0, i;
  json_t *event;
  json_array_foreach(trace_events(root), i, event) {
    const char *n = json_string_value(json_object_get(event, "name"));
    const char *o = json_string_value(
        json_object_get(json_object_get(event, "args"), "op"));
    on_device +=
        n && !strcmp(n, "kernel block_kernel") && o && !strcmp(o, op) &&
        int_arg(event, "blocks") == blocks &&
        json_integer_value(json_object_get(event, "pid")) == device_pid;
  }
  return on_device;
}

static void test_trace_launches_and_notify_flows(void **state) {
  (void)state;
  block_op_t b;
  open_block_op(&b, false);
  block_param p = {b.seen};
  assert_int_equal(bp_launch(b.op, 3, &p, sizeof p, NULL, b.r.stream), BP_OK);
  /* A notify recorded on one stream and waited on by another. */
  bp_stream_t *second = NULL;
  assert_int_equal(bp_stream_create(b.r.dev0, &second), BP_OK);
  bp_notify_t *notify = NULL;
  assert_int_equal(bp_notify_create(b.r.dev0, &notify), BP_OK);
  uint32_t id = 0;
  assert_int_equal(bp_notify_id(notify, &id), BP_OK);
  assert_int_equal(bp_notify_record(notify, b.r.stream), BP_OK);
  assert_int_equal(bp_notify_wait(notify, second, 5000), BP_OK);
  assert_int_equal(bp_stream_synchronize(second), BP_OK);
  assert_int_equal(bp_stream_synchronize(b.r.stream), BP_OK);
  assert_int_equal(b.seen[2], 3002);
  assert_int_equal(bp_stream_destroy(second), BP_OK);
  assert_int_equal(bp_notify_destroy(notify), BP_OK);
  json_t *root = close_block_op(&b);

  /* The enqueue on the host's track, the run on vcpu:0's stream track. */
  json_t *host = slice_with(root, "kernel block_kernel", "op", "BlockOp");
  assert_non_null(host);
  assert_int_equal(int_arg(host, "blocks"), 3);
  assert_int_equal(int_arg(host, "args_bytes"), sizeof p);
  assert_int_equal(json_integer_value(json_object_get(host, "pid")), 0);
  assert_int_equal(runs_on_device(root, "BlockOp", 3), 1);
  /* The record's flow ends at the wait. */
  json_t *record = trace_slice(root, "notify_record", 0);
  json_t *wait = trace_slice(root, "notify_wait", 0);
  assert_int_equal(int_arg(record, "notify"), id);
  assert_int_equal(int_arg(wait, "flow_in"), int_arg(record, "flow_out"));
  assert_int_equal(trace_count(root, "s", NULL, NULL, 0),
                   trace_count(root, "f", NULL, NULL, 0));
  assert_true(trace_count(root, "f", NULL, NULL, 0) >= 1);
  remove_block_op(&b, root);
}

/* Launched by op name, a variant says which one ran, on both tracks. */
static void test_trace_names_the_chosen_variant(void **state) {
  (void)state;
  block_op_t b;
  open_block_op(&b, true);
  assert_int_equal(bp_function_variant(b.op), 1);
  block_param p = {b.seen};
  assert_int_equal(bp_launch(b.op, 2, &p, sizeof p, NULL, b.r.stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(b.r.stream), BP_OK);
  assert_int_equal(b.seen[1], 2001); /* block_kernel ran, not empty_kernel */
  json_t *root = close_block_op(&b);

  assert_non_null(
      slice_with(root, "kernel block_kernel", "op", "BlockOp [variant 1]"));
  assert_int_equal(runs_on_device(root, "BlockOp [variant 1]", 2), 1);
  remove_block_op(&b, root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_function_of_unloaded_module),
      cmocka_unit_test(test_arguments_over_the_limit),
      cmocka_unit_test(test_notify_on_a_stream_of_another_device),
      cmocka_unit_test(test_unload_with_launches_pending),
      cmocka_unit_test(test_correct_use_has_no_line),
      cmocka_unit_test(test_trace_names_the_chosen_variant),
      cmocka_unit_test(test_refused_without_layers),
      cmocka_unit_test(test_fault_fails_the_chosen_launch),
      cmocka_unit_test(test_fault_fails_every_launch_with_its_status),
      cmocka_unit_test(test_fault_fails_the_chosen_module_load),
      cmocka_unit_test(test_trace_launches_and_notify_flows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
