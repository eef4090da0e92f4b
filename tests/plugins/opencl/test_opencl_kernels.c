/* The opencl plugin's kernels through the framework face: OpenCL C source
 * loads from a *.cl file and lists its kernels; blocks become work-groups;
 * the param block is copied at launch; a failed build returns its log; a
 * launch past its timeout is BP_ERR_TIMEOUT naming the kernel. CTest runs
 * this once per memory path: on the buffer path a param block holding a
 * device pointer is refused (the documented limit). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

/* The param blocks, laid out as the OpenCL C structs below. */
typedef struct block_param {
  uint64_t out; /* int[blocks] of device memory */
} block_param;
typedef struct append_param {
  uint64_t log; /* int[1 + n]: log[0] counts, log[1 + i] the values */
  int32_t value;
  int32_t pad;
} append_param;
typedef struct spin_param {
  uint64_t iterations;
} spin_param;

static const char kernels_source[] =
    "struct block_param { ulong out; };\n"
    "struct append_param { ulong log; int value; int pad; };\n"
    "struct spin_param { ulong iterations; };\n"
    "kernel void block_kernel(struct block_param p) {\n"
    "  global int *out = (global int *)p.out;\n"
    "  if (get_local_id(0) == 0)\n"
    "    out[get_group_id(0)] = (int)(get_num_groups(0) * 1000 +\n"
    "                                 get_group_id(0));\n"
    "}\n"
    "kernel void append_kernel(struct append_param p) {\n"
    "  global int *log = (global int *)p.log;\n"
    "  if (get_global_id(0) == 0)\n"
    "    log[1 + log[0]++] = p.value;\n"
    "}\n"
    "kernel void spin_kernel(struct spin_param p) {\n"
    "  volatile ulong sink = 0;\n"
    "  if (get_global_id(0) == 0)\n"
    "    for (ulong i = 0; i < p.iterations; ++i)\n"
    "      sink += i;\n"
    "}\n";

static const char broken_source[] =
    "kernel void broken(void) { not_declared_anywhere = 1; }\n";

typedef struct kernels_fixture {
  bp_runtime_t *runtime;
  bp_device_t *device;
  bp_stream_t *stream;
  char folder[64];
  char path[96];
} kernels_fixture_t;

static int buffer_path(void) {
  const char *memory = getenv("BACKPLANE_OPENCL_MEMORY");
  return memory && strcmp(memory, "buffer") == 0;
}

/* Writes `source` to <folder>/<name> (mode 0600, as modules must be). */
static void write_module(kernels_fixture_t *f, const char *name,
                         const char *source) {
  snprintf(f->path, sizeof f->path, "%s/%s", f->folder, name);
  FILE *file = fopen(f->path, "w");
  assert_non_null(file);
  assert_int_equal(fputs(source, file) >= 0, 1);
  assert_int_equal(fclose(file), 0);
  assert_int_equal(chmod(f->path, 0600), 0);
}

static int setup(void **state) {
  kernels_fixture_t *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->runtime = fixture_runtime(OPENCL_PLUGIN_PATH);
  const char *reason = fixture_rejection(f->runtime, OPENCL_PLUGIN_PATH);
  if (reason)
    fail_msg("the opencl plugin was rejected: %s", reason);
  assert_int_equal(bp_device_get(f->runtime, "opencl", 0, &f->device), BP_OK);
  assert_int_equal(bp_stream_create(f->device, &f->stream), BP_OK);
  snprintf(f->folder, sizeof f->folder, "/tmp/bp_ocl_kernels_XXXXXX");
  assert_non_null(mkdtemp(f->folder));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  kernels_fixture_t *f = *state;
  bp_stream_destroy(f->stream);
  bp_runtime_destroy(f->runtime);
  snprintf(f->path, sizeof f->path, "%s/kernels.cl", f->folder);
  unlink(f->path);
  snprintf(f->path, sizeof f->path, "%s/broken.cl", f->folder);
  unlink(f->path);
  rmdir(f->folder);
  free(f);
  return 0;
}

static bp_module_t *load_kernels(kernels_fixture_t *f) {
  write_module(f, "kernels.cl", kernels_source);
  bp_module_t *module = NULL;
  bp_status_t status = bp_module_load(f->device, f->path, &module);
  if (status != BP_OK)
    fail_msg("bp_module_load: %s", bp_last_error());
  return module;
}

static bp_function_t *function(bp_module_t *module, const char *name) {
  bp_function_t *fn = NULL;
  assert_int_equal(bp_module_function(module, name, &fn), BP_OK);
  return fn;
}

static void source_loads_and_lists_its_kernels(void **state) {
  kernels_fixture_t *f = *state;
  bp_module_t *module = load_kernels(f);
  assert_int_equal(bp_module_function_count(module), 3);
  int seen = 0;
  for (size_t i = 0; i < 3; ++i) {
    const char *name = bp_function_name(bp_module_function_at(module, i));
    seen |= strcmp(name, "block_kernel") == 0    ? 1
            : strcmp(name, "append_kernel") == 0 ? 2
            : strcmp(name, "spin_kernel") == 0   ? 4
                                                 : 8;
  }
  assert_int_equal(seen, 7);
  bp_function_t *missing = NULL;
  assert_int_equal(bp_module_function(module, "no_such_kernel", &missing),
                   BP_ERR_NOT_FOUND);
  assert_null(missing);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void blocks_are_work_groups(void **state) {
  kernels_fixture_t *f = *state;
  if (buffer_path())
    skip(); /* device pointers in arguments need SVM (see below) */
  bp_module_t *module = load_kernels(f);
  enum { BLOCKS = 5 };
  int *out = NULL;
  assert_int_equal(
      bp_device_malloc(f->device, BLOCKS * sizeof(int), (void **)&out), BP_OK);
  assert_int_equal(bp_memset(f->device, out, 0xff, BLOCKS * sizeof(int), NULL),
                   BP_OK);
  block_param p = {(uint64_t)(uintptr_t)out};
  assert_int_equal(bp_launch(function(module, "block_kernel"), BLOCKS, &p,
                             sizeof p, NULL, f->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  int seen[BLOCKS];
  assert_int_equal(bp_copy(NULL, seen, f->device, out, sizeof seen, NULL),
                   BP_OK);
  for (int b = 0; b < BLOCKS; ++b)
    assert_int_equal(seen[b], BLOCKS * 1000 + b);
  assert_int_equal(bp_device_free(f->device, out), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void arguments_are_copied_at_launch(void **state) {
  kernels_fixture_t *f = *state;
  if (buffer_path())
    skip();
  bp_module_t *module = load_kernels(f);
  int *log = NULL;
  assert_int_equal(bp_device_malloc(f->device, 4 * sizeof(int), (void **)&log),
                   BP_OK);
  assert_int_equal(bp_memset(f->device, log, 0, 4 * sizeof(int), NULL), BP_OK);
  /* A spin first, so the appends are still queued when the host changes
   * the block it passed. */
  spin_param spin = {20u * 1000u * 1000u};
  assert_int_equal(bp_launch(function(module, "spin_kernel"), 1, &spin,
                             sizeof spin, NULL, f->stream),
                   BP_OK);
  append_param p = {(uint64_t)(uintptr_t)log, 7, 0};
  bp_function_t *append = function(module, "append_kernel");
  assert_int_equal(bp_launch(append, 1, &p, sizeof p, NULL, f->stream), BP_OK);
  p.value = 8;
  assert_int_equal(bp_launch(append, 1, &p, sizeof p, NULL, f->stream), BP_OK);
  p.value = 9; /* never launched */
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  int seen[4];
  assert_int_equal(bp_copy(NULL, seen, f->device, log, sizeof seen, NULL),
                   BP_OK);
  assert_int_equal(seen[0], 2);
  assert_int_equal(seen[1], 7);
  assert_int_equal(seen[2], 8);
  assert_int_equal(bp_device_free(f->device, log), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void device_pointers_need_svm(void **state) {
  kernels_fixture_t *f = *state;
  if (!buffer_path())
    skip();
  bp_module_t *module = load_kernels(f);
  int *out = NULL;
  assert_int_equal(bp_device_malloc(f->device, 64, (void **)&out), BP_OK);
  block_param p = {(uint64_t)(uintptr_t)(out + 2)};
  assert_int_equal(bp_launch(function(module, "block_kernel"), 1, &p, sizeof p,
                             NULL, f->stream),
                   BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(bp_last_error(), "buffer memory path"));
  assert_int_equal(bp_device_free(f->device, out), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void a_failed_build_returns_its_log(void **state) {
  kernels_fixture_t *f = *state;
  write_module(f, "broken.cl", broken_source);
  bp_module_t *module = NULL;
  assert_int_not_equal(bp_module_load(f->device, f->path, &module), BP_OK);
  assert_null(module);
  const char *message = bp_last_error();
  assert_non_null(strstr(message, "broken.cl"));
  assert_non_null(strstr(message, "log"));
  assert_non_null(strstr(message, "not_declared_anywhere"));
}

static void spirv_is_refused_without_il(void **state) {
  kernels_fixture_t *f = *state;
  write_module(f, "kernels.spv", "\x03\x02\x23\x07 not really SPIR-V");
  bp_module_t *module = NULL;
  bp_status_t status = bp_module_load(f->device, f->path, &module);
  unlink(f->path);
  /* POCL's CPU device lists no IL version; a device that does would reject
   * these bytes as malformed instead. Either way: an error, no module. */
  assert_int_not_equal(status, BP_OK);
  assert_null(module);
  assert_non_null(strstr(bp_last_error(), "kernels.spv"));
}

static void a_late_kernel_times_out_naming_itself(void **state) {
  kernels_fixture_t *f = *state;
  bp_module_t *module = load_kernels(f);
  /* Far more than the 50 ms timeout (a volatile store per iteration). */
  spin_param spin = {500u * 1000u * 1000u};
  bp_launch_config_t config = {.timeout_ms = 50};
  assert_int_equal(bp_launch(function(module, "spin_kernel"), 1, &spin,
                             sizeof spin, &config, f->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_ERR_TIMEOUT);
  assert_non_null(strstr(bp_last_error(), "spin_kernel"));
  assert_int_equal(bp_stream_query(f->stream), BP_ERR_TIMEOUT);
  assert_int_equal(bp_stream_reset(f->stream), BP_OK);
  /* The kernel cannot be cancelled: the stream drains when it ends. */
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(source_loads_and_lists_its_kernels, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(blocks_are_work_groups, setup, teardown),
      cmocka_unit_test_setup_teardown(arguments_are_copied_at_launch, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(device_pointers_need_svm, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(a_failed_build_returns_its_log, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(spirv_is_refused_without_il, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(a_late_kernel_times_out_naming_itself,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
