/* The cuda plugin on a GPU, through the framework face: the attributes
 * agree with cudaGetDeviceProperties, memory and copies in every direction
 * round-trip (pageable ones without waiting for a held stream), events time,
 * callbacks run in stream order, and kernels built from CUDA C source run
 * with blocks as the grid and parameters copied at launch, reporting codes
 * through a status word; a manifest picks its cuda variant; a build failure
 * returns NVRTC's log. Tensor expressions built by the cuda builder run:
 * every codegen cross-check case against its hand-written reference, a
 * four-stage softmax against the host's, on any grid and on two streams at
 * once, and as a manifest's cuda variant. Without a GPU the program exits 77
 * (CTest: skipped) printing the plugin's rejection reason. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backplane/build.h"
#include "backplane/comm.h"
#include "backplane/target.h"
#include "support/runtime_fixture.h"

#include "codegen_cases.h"

typedef struct gpu {
  bp_runtime_t *runtime;
  bp_device_t *device;
  bp_stream_t *stream;
  char folder[64];
  char path[128];
} gpu_t;

typedef struct block_param {
  int *out;
} block_param;
typedef struct append_param {
  int *log;
  int value;
} append_param;

static const char kernels_source[] =
    "struct block_param { int *out; };\n"
    "struct append_param { int *log; int value; };\n"
    "extern \"C\" __global__ void block_kernel(block_param p) {\n"
    "  if (threadIdx.x == 0)\n"
    "    p.out[blockIdx.x] = (int)(gridDim.x * 1000 + blockIdx.x);\n"
    "}\n"
    "extern \"C\" __global__ void append_kernel(append_param p) {\n"
    "  if (blockIdx.x == 0 && threadIdx.x == 0)\n"
    "    p.log[1 + p.log[0]++] = p.value;\n"
    "}\n"
    "extern \"C\" __global__ void code_kernel(unsigned code, unsigned *status) "
    "{\n"
    "  if (threadIdx.x == 0) atomicCAS(status, 0u, code);\n"
    "}\n"
    "extern \"C\" __global__ void spin_kernel(unsigned long long cycles) {\n"
    "  unsigned long long start = clock64();\n"
    "  while (clock64() - start < cycles) {}\n"
    "}\n";

static int setup(void **state) {
  gpu_t *g = calloc(1, sizeof *g);
  assert_non_null(g);
  g->runtime = fixture_runtime(CUDA_PLUGIN_PATH);
  assert_int_equal(bp_device_get(g->runtime, "cuda", 0, &g->device), BP_OK);
  assert_int_equal(bp_stream_create(g->device, &g->stream), BP_OK);
  snprintf(g->folder, sizeof g->folder, "/tmp/bp_cuda_XXXXXX");
  assert_non_null(mkdtemp(g->folder));
  *state = g;
  return 0;
}

static int teardown(void **state) {
  gpu_t *g = *state;
  bp_stream_destroy(g->stream);
  bp_runtime_destroy(g->runtime);
  snprintf(g->path, sizeof g->path, "%s/kernels.cu", g->folder);
  unlink(g->path);
  snprintf(g->path, sizeof g->path, "%s/broken.cu", g->folder);
  unlink(g->path);
  rmdir(g->folder);
  free(g);
  return 0;
}

static void write_module(gpu_t *g, const char *name, const char *source) {
  snprintf(g->path, sizeof g->path, "%s/%s", g->folder, name);
  FILE *file = fopen(g->path, "w");
  assert_non_null(file);
  assert_true(fputs(source, file) >= 0);
  assert_int_equal(fclose(file), 0);
  assert_int_equal(chmod(g->path, 0600), 0);
}

static void attributes_match_cuda(void **state) {
  gpu_t *g = *state;
  struct cudaDeviceProp p;
  assert_int_equal(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  bp_device_attr_value_t value;
  assert_int_equal(bp_device_attribute(
                       g->device, BP_DEVICE_ATTR_MULTI_PROCESSOR_COUNT, &value),
                   BP_OK);
  assert_int_equal(value.i64, p.multiProcessorCount);
  assert_int_equal(
      bp_device_attribute(g->device, BP_DEVICE_ATTR_COMPUTE_VERSION, &value),
      BP_OK);
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d", p.major, p.minor);
  assert_string_equal(value.str, expected);
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_from_device(g->device, &target), BP_OK);
  const char *arch = NULL;
  assert_int_equal(bp_target_get_string(target, "arch", &arch), BP_OK);
  snprintf(expected, sizeof expected, "sm_%d%d", p.major, p.minor);
  assert_string_equal(arch, expected);
  bp_target_destroy(target);
}

static void copies_round_trip_in_every_direction(void **state) {
  gpu_t *g = *state;
  enum { N = 1 << 20 };
  int *host = NULL, *a = NULL, *b = NULL;
  int *back = malloc(N * sizeof *back);
  assert_non_null(back);
  assert_int_equal(bp_host_malloc(g->device, N * sizeof *host, (void **)&host),
                   BP_OK);
  assert_int_equal(bp_device_malloc(g->device, N * sizeof *a, (void **)&a),
                   BP_OK);
  assert_int_equal(bp_device_malloc(g->device, N * sizeof *b, (void **)&b),
                   BP_OK);
  for (int i = 0; i < N; ++i)
    host[i] = i * 7 + 3;
  assert_int_equal(bp_copy(g->device, a, NULL, host, N * sizeof *a, g->stream),
                   BP_OK);
  assert_int_equal(
      bp_copy(g->device, b, g->device, a, N * sizeof *a, g->stream), BP_OK);
  assert_int_equal(bp_copy(NULL, back, g->device, b, N * sizeof *b, g->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  for (int i = 0; i < N; ++i)
    if (back[i] != i * 7 + 3)
      fail_msg("element %d: %d", i, back[i]);
  assert_int_equal(bp_device_free(g->device, a), BP_OK);
  assert_int_equal(bp_device_free(g->device, b), BP_OK);
  assert_int_equal(bp_host_free(g->device, host), BP_OK);
  free(back);
}

/* One GPU is one rank: NCCL's unique id, init, all-reduce, broadcast and
 * all-gather run on the hardware (with one rank each is a copy, so the
 * values come back unchanged). Two ranks need two GPUs. */
static void nccl_runs_a_single_rank_communicator(void **state) {
  gpu_t *g = *state;
  enum { N = 4099 };
  float *host = malloc(N * sizeof *host), *back = malloc(N * sizeof *back);
  assert_non_null(host);
  assert_non_null(back);
  for (int i = 0; i < N; ++i)
    host[i] = (float)i * 0.5f - 7.0f;
  float *send = NULL, *recv = NULL;
  assert_int_equal(
      bp_device_malloc(g->device, N * sizeof *send, (void **)&send), BP_OK);
  assert_int_equal(
      bp_device_malloc(g->device, N * sizeof *recv, (void **)&recv), BP_OK);
  assert_int_equal(
      bp_copy(g->device, send, NULL, host, N * sizeof *send, g->stream), BP_OK);
  bp_comm_t *comm = NULL;
  bp_status_t status = bp_comm_init_all(&g->device, 1, &comm);
  if (status != BP_OK)
    fail_msg("bp_comm_init_all on one cuda device: %s", bp_last_error());
  assert_int_equal(bp_comm_size(comm), 1);
  assert_int_equal(bp_comm_all_reduce(send, recv, N, BP_DTYPE_FLOAT32,
                                      BP_REDUCE_SUM, comm, g->stream),
                   BP_OK);
  assert_int_equal(
      bp_comm_broadcast(recv, N, BP_DTYPE_FLOAT32, 0, comm, g->stream), BP_OK);
  assert_int_equal(
      bp_comm_all_gather(recv, send, N, BP_DTYPE_FLOAT32, comm, g->stream),
      BP_OK);
  assert_int_equal(
      bp_copy(NULL, back, g->device, send, N * sizeof *back, g->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  assert_int_equal(bp_comm_async_error(comm), BP_OK);
  for (int i = 0; i < N; ++i)
    if (back[i] != host[i])
      fail_msg("element %d: %g, expected %g", i, back[i], host[i]);
  printf("nccl: one rank: all_reduce, broadcast, all_gather of %d floats\n", N);
  assert_int_equal(bp_comm_destroy(comm), BP_OK);
  assert_int_equal(bp_device_free(g->device, send), BP_OK);
  assert_int_equal(bp_device_free(g->device, recv), BP_OK);
  free(host);
  free(back);
}

/* A stream callback that holds its stream until opened, or for 10 s at
 * most (then `timed_out`: something waited for the stream to drain). */
typedef struct gate {
  atomic_int open, timed_out;
} gate_t;

static void hold_until_open(void *user_data) {
  gate_t *gate = user_data;
  struct timespec tick = {0, 1000000};
  for (int ms = 0; !atomic_load(&gate->open); ++ms) {
    if (ms == 10000) {
      atomic_store(&gate->timed_out, 1);
      return;
    }
    nanosleep(&tick, NULL);
  }
}

/* Copies between the device and ordinary malloc'd memory, queued behind a
 * held stream, return at once (check's streams.order); the source is
 * captured at enqueue; more bytes than one staging block arrive whole. */
static void pageable_copies_return_while_the_stream_is_held(void **state) {
  gpu_t *g = *state;
  enum { N = (9 << 20) + 3 }; /* three staging blocks, the last partial */
  unsigned char *src = malloc(N), *back = malloc(N);
  void *d = NULL;
  assert_non_null(src);
  assert_non_null(back);
  assert_int_equal(bp_device_malloc(g->device, N, &d), BP_OK);
  for (size_t i = 0; i < N; ++i)
    src[i] = (unsigned char)(i * 131 + 7);
  memset(back, 0, N);
  gate_t gate = {0};
  assert_int_equal(bp_stream_add_callback(g->stream, hold_until_open, &gate),
                   BP_OK);
  assert_int_equal(bp_copy_async_unsafe(g->device, d, NULL, src, N, g->stream),
                   BP_OK);
  unsigned char first = src[0];
  memset(src, 0, N); /* the caller reuses its buffer */
  assert_int_equal(bp_copy_async_unsafe(NULL, back, g->device, d, N, g->stream),
                   BP_OK);
  int held_throughout = !atomic_load(&gate.timed_out);
  atomic_store(&gate.open, 1);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  assert_true(held_throughout);
  assert_int_equal(back[0], first);
  for (size_t i = 0; i < N; ++i)
    if (back[i] != (unsigned char)(i * 131 + 7))
      fail_msg("byte %zu: %u", i, back[i]);
  assert_int_equal(bp_device_free(g->device, d), BP_OK);
  free(src);
  free(back);
}

/* A synchronous copy from ordinary memory of several megabytes lands whole,
 * from an odd address and of an odd length, and is complete when the call
 * returns. */
static void pageable_synchronous_copies_land_whole(void **state) {
  gpu_t *g = *state;
  enum { N = (10 << 20) + 5 };
  unsigned char *buffer = malloc(N + 1), *back = malloc(N);
  void *d = NULL;
  assert_non_null(buffer);
  assert_non_null(back);
  unsigned char *src = buffer + 1;
  assert_int_equal(bp_device_malloc(g->device, N, &d), BP_OK);
  for (size_t i = 0; i < N; ++i)
    src[i] = (unsigned char)(i * 151 + 11);
  memset(back, 0, N);
  assert_int_equal(bp_copy(g->device, d, NULL, src, N, NULL), BP_OK);
  memset(src, 0, N); /* complete: the device keeps the bytes */
  assert_int_equal(bp_copy(NULL, back, g->device, d, N, NULL), BP_OK);
  for (size_t i = 0; i < N; ++i)
    if (back[i] != (unsigned char)(i * 151 + 11))
      fail_msg("byte %zu: %u", i, back[i]);
  assert_int_equal(bp_device_free(g->device, d), BP_OK);
  free(buffer);
  free(back);
}

static void count_call(void *user_data) {
  ++*(int *)user_data;
}

static void events_time_and_callbacks_run(void **state) {
  gpu_t *g = *state;
  bp_event_t *start = NULL, *end = NULL;
  assert_int_equal(bp_event_create(g->device, &start), BP_OK);
  assert_int_equal(bp_event_create(g->device, &end), BP_OK);
  int calls = 0;
  assert_int_equal(bp_event_record(start, g->stream), BP_OK);
  assert_int_equal(bp_stream_add_callback(g->stream, count_call, &calls),
                   BP_OK);
  assert_int_equal(bp_event_record(end, g->stream), BP_OK);
  assert_int_equal(bp_event_synchronize(end), BP_OK);
  assert_int_equal(calls, 1);
  float ms = -1;
  assert_int_equal(bp_event_elapsed_time(start, end, &ms), BP_OK);
  assert_true(ms >= 0);
  bp_event_destroy(start);
  bp_event_destroy(end);
}

static bp_function_t *function(bp_module_t *module, const char *name) {
  bp_function_t *fn = NULL;
  assert_int_equal(bp_module_function(module, name, &fn), BP_OK);
  return fn;
}

/* kernels_source, written as kernels.cu and loaded. */
static bp_module_t *load_source_kernels(gpu_t *g) {
  write_module(g, "kernels.cu", kernels_source);
  bp_module_t *module = NULL;
  if (bp_module_load(g->device, g->path, &module) != BP_OK)
    fail_msg("bp_module_load: %s", bp_last_error());
  return module;
}

static void source_kernels_run_with_blocks_as_the_grid(void **state) {
  gpu_t *g = *state;
  bp_module_t *module = load_source_kernels(g);
  enum { BLOCKS = 5 };
  int *out = NULL;
  assert_int_equal(
      bp_device_malloc(g->device, sizeof(int) * BLOCKS, (void **)&out), BP_OK);
  block_param p = {out};
  assert_int_equal(bp_launch(function(module, "block_kernel"), BLOCKS, &p,
                             sizeof p, NULL, g->stream),
                   BP_OK);
  int seen[BLOCKS];
  assert_int_equal(bp_copy(NULL, seen, g->device, out, sizeof seen, g->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  for (int b = 0; b < BLOCKS; ++b)
    assert_int_equal(seen[b], BLOCKS * 1000 + b);

  /* Parameters are copied at launch: a spin keeps both appends queued
   * while the host changes its block. */
  int *log = NULL;
  assert_int_equal(bp_device_malloc(g->device, 4 * sizeof(int), (void **)&log),
                   BP_OK);
  assert_int_equal(bp_memset(g->device, log, 0, 4 * sizeof(int), NULL), BP_OK);
  unsigned long long cycles = 20u * 1000u * 1000u;
  assert_int_equal(bp_launch(function(module, "spin_kernel"), 1, &cycles,
                             sizeof cycles, NULL, g->stream),
                   BP_OK);
  append_param a = {log, 7};
  bp_function_t *append = function(module, "append_kernel");
  assert_int_equal(bp_launch(append, 1, &a, sizeof a, NULL, g->stream), BP_OK);
  a.value = 8;
  assert_int_equal(bp_launch(append, 1, &a, sizeof a, NULL, g->stream), BP_OK);
  a.value = 9;
  int logged[4];
  assert_int_equal(
      bp_copy(NULL, logged, g->device, log, sizeof logged, g->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  assert_int_equal(logged[0], 2);
  assert_int_equal(logged[1], 7);
  assert_int_equal(logged[2], 8);
  assert_int_equal(bp_device_free(g->device, out), BP_OK);
  assert_int_equal(bp_device_free(g->device, log), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

/* A kernel whose last parameter is past its param block gets a status
 * word; a non-zero code becomes the stream's sticky error naming the
 * kernel and the code, until reset; zero leaves the stream healthy. */
static void kernels_report_codes_through_a_status_word(void **state) {
  gpu_t *g = *state;
  bp_module_t *module = load_source_kernels(g);
  bp_function_t *code_kernel = function(module, "code_kernel");
  unsigned code = 42;
  assert_int_equal(
      bp_launch(code_kernel, 3, &code, sizeof code, NULL, g->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_ERR_PLUGIN);
  assert_non_null(strstr(bp_last_error(), "code_kernel"));
  assert_non_null(strstr(bp_last_error(), "returned 42"));
  assert_int_equal(bp_stream_query(g->stream), BP_ERR_PLUGIN);
  assert_int_equal(bp_stream_reset(g->stream), BP_OK);
  code = 0;
  for (int i = 0; i < 3; ++i) /* words are reused */
    assert_int_equal(
        bp_launch(code_kernel, 1, &code, sizeof code, NULL, g->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

/* A manifest picks the variant for the cuda target: only the chosen
 * variant's file is loaded (the default names a file that does not exist),
 * and the plugin reads the file's format from its bytes. */
static void manifest_picks_the_cuda_variant(void **state) {
  gpu_t *g = *state;
  write_module(g, "kernels.cu", kernels_source);
  write_module(
      g, "ops.json",
      "{\"BlockOp\": {\"variants\": [\n"
      "  {\"target\": {\"kind\": \"cuda\", \"min_warp_size\": 32},\n"
      "   \"kernelSo\": \"kernels.cu\", \"functionName\": "
      "\"block_kernel\"},\n"
      "  {\"kernelSo\": \"missing.so\", \"functionName\": \"x\"}]}}\n");
  bp_module_t *module = NULL;
  if (bp_module_load(g->device, g->path, &module) != BP_OK)
    fail_msg("bp_module_load(ops.json): %s", bp_last_error());
  int *out = NULL;
  assert_int_equal(bp_device_malloc(g->device, 2 * sizeof(int), (void **)&out),
                   BP_OK);
  block_param p = {out};
  assert_int_equal(
      bp_launch(function(module, "BlockOp"), 2, &p, sizeof p, NULL, g->stream),
      BP_OK);
  int seen[2];
  assert_int_equal(bp_copy(NULL, seen, g->device, out, sizeof seen, g->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  assert_int_equal(seen[0], 2000);
  assert_int_equal(seen[1], 2001);
  assert_int_equal(bp_device_free(g->device, out), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
  unlink(g->path);
}

static void build_failure_returns_the_log(void **state) {
  gpu_t *g = *state;
  write_module(g, "broken.cu",
               "extern \"C\" __global__ void broken() { not_declared = 1; }\n");
  bp_module_t *module = NULL;
  assert_int_not_equal(bp_module_load(g->device, g->path, &module), BP_OK);
  assert_null(module);
  assert_non_null(strstr(bp_last_error(), "not_declared"));
}

static bp_built_module_t *build_for(const char *ir, const bp_target_t *target) {
  bp_ir_module_t *module = NULL;
  if (bp_ir_module_parse(ir, &module) != BP_OK)
    fail_msg("bp_ir_module_parse: %s", bp_last_error());
  bp_build_options_t options = {sizeof options, NULL, 1};
  bp_built_module_t *built = NULL;
  if (bp_build(module, target, &options, &built) != BP_OK)
    fail_msg("bp_build: %s", bp_last_error());
  bp_ir_module_destroy(module);
  return built;
}

static bp_module_t *load_built(gpu_t *g, const bp_built_module_t *built) {
  bp_module_t *module = NULL;
  if (bp_built_module_load(built, g->device, &module) != BP_OK)
    fail_msg("bp_built_module_load: %s", bp_last_error());
  return module;
}

static void *device_buffer(gpu_t *g, size_t bytes) {
  void *buffer = NULL;
  assert_int_equal(bp_device_malloc(g->device, bytes, &buffer), BP_OK);
  return buffer;
}

/* CUDA's expf, logf, tanhf and erff are within 2 ulp, not correctly
 * rounded: those cases get 1e-5 instead of 1e-6. */
static double case_tolerance(const cross_case_t *c) {
  static const char *const names[] = {"exp", "log", "tanh", "erf"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(c->name, names[i]))
      return 1e-5;
  return c->tolerance;
}

/* Every cross-check case (one module of them all), built for the device's
 * own target (a cubin for its sm_XY, blocks for its multiprocessors) and
 * for sm_80 on two cores (PTX the driver compiles; a smaller grid), on two
 * sets of inputs, against the hand-written references. */
static void generated_cases_match_the_host(void **state) {
  gpu_t *g = *state;
  bp_target_t *targets[2] = {NULL, NULL};
  const char *target_names[2] = {"the device's target",
                                 "cuda -arch=sm_80 -num_cores=2"};
  assert_int_equal(bp_target_from_device(g->device, &targets[0]), BP_OK);
  assert_int_equal(bp_target_parse(target_names[1], &targets[1]), BP_OK);
  char *ir = cases_module_ir();
  bp_built_module_t *built[2];
  bp_module_t *modules[2];
  for (int t = 0; t < 2; t++) {
    built[t] = build_for(ir, targets[t]);
    modules[t] = load_built(g, built[t]);
  }
  free(ir);
  void *x = device_buffer(g, sizeof X), *z = device_buffer(g, sizeof Z);
  void *w = device_buffer(g, sizeof W), *h = device_buffer(g, sizeof H);
  void *y = device_buffer(g, sizeof(float) * R * C);
  bp_generated_params_t params = {{x, z, w, h, y}};
  for (unsigned seed = 1; seed <= 2; seed++) {
    fill_inputs(seed);
    assert_int_equal(bp_copy(g->device, x, NULL, X, sizeof X, NULL), BP_OK);
    assert_int_equal(bp_copy(g->device, z, NULL, Z, sizeof Z, NULL), BP_OK);
    assert_int_equal(bp_copy(g->device, w, NULL, W, sizeof W, NULL), BP_OK);
    assert_int_equal(bp_copy(g->device, h, NULL, H, sizeof H, NULL), BP_OK);
    for (int t = 0; t < 2; t++)
      for (size_t c = 0; c < case_count; c++) {
        float out[R * C];
        memset(out, 0xff, sizeof out);
        assert_int_equal(bp_copy(g->device, y, NULL, out, sizeof out, NULL),
                         BP_OK);
        uint32_t blocks = bp_built_module_blocks(built[t], cases[c].name);
        assert_true(blocks >= 1);
        if (bp_launch(function(modules[t], cases[c].name), blocks, &params,
                      sizeof params, NULL, g->stream) != BP_OK ||
            bp_stream_synchronize(g->stream) != BP_OK)
          fail_msg("%s on %s: %s", cases[c].name, target_names[t],
                   bp_last_error());
        assert_int_equal(bp_copy(NULL, out, g->device, y, sizeof out, NULL),
                         BP_OK);
        cross_case_t relaxed = cases[c];
        relaxed.tolerance = case_tolerance(&cases[c]);
        check_output(&relaxed, target_names[t], "launched on CUDA", out);
      }
  }
  print_message("generated: %zu cases x 2 inputs x 2 targets match the "
                "host\n",
                case_count);
  for (int t = 0; t < 2; t++) {
    assert_int_equal(bp_module_unload(modules[t]), BP_OK);
    bp_built_module_destroy(built[t]);
    bp_target_destroy(targets[t]);
  }
  void *buffers[] = {x, z, w, h, y};
  for (size_t b = 0; b < sizeof buffers / sizeof *buffers; b++)
    assert_int_equal(bp_device_free(g->device, buffers[b]), BP_OK);
}

enum { SM_ROWS = 512, SM_COLS = 384, SM_N = SM_ROWS * SM_COLS };

/* y = softmax(x) by rows in four stages (row max, exp, row sum, divide),
 * three of them intermediate (scratch). */
static const char softmax_ir[] =
    "{\"functions\":[{\"name\":\"row_softmax\",\"inputs\":[{\"name\":"
    "\"x\",\"shape\":[512,384],\"dtype\":\"float32\"}],\"stages\":["
    "{\"name\":\"m\",\"shape\":[512],\"dtype\":\"float32\",\"axes\":"
    "[\"i\"],\"reduce_axes\":{\"k\":384},\"expr\":{\"reduce\":\"max\","
    "\"axes\":[\"k\"],\"arg\":{\"load\":\"x\",\"index\":[\"i\",\"k\"]}}},"
    "{\"name\":\"e\",\"shape\":[512,384],\"dtype\":\"float32\",\"axes\":"
    "[\"i\",\"j\"],\"expr\":{\"op\":\"exp\",\"args\":[{\"op\":\"sub\","
    "\"args\":[\"x\",{\"load\":\"m\",\"index\":[\"i\"]}]}]}},"
    "{\"name\":\"s\",\"shape\":[512],\"dtype\":\"float32\",\"axes\":"
    "[\"i\"],\"reduce_axes\":{\"k\":384},\"expr\":{\"reduce\":\"sum\","
    "\"axes\":[\"k\"],\"arg\":{\"load\":\"e\",\"index\":[\"i\",\"k\"]}}},"
    "{\"name\":\"y\",\"shape\":[512,384],\"dtype\":\"float32\",\"axes\":"
    "[\"i\",\"j\"],\"expr\":{\"op\":\"div\",\"args\":[\"e\",{\"load\":"
    "\"s\",\"index\":[\"i\"]}]}}],\"outputs\":[\"y\"]}]}";

static void fill_softmax_input(float *x, unsigned seed) {
  srand(seed);
  for (int i = 0; i < SM_N; i++)
    x[i] = (float)rand() / (float)RAND_MAX * 16.0f - 8.0f;
}

/* The host's softmax, in double, against the device's result. */
static void check_softmax(const float *x, const float *y, const char *how) {
  for (int i = 0; i < SM_ROWS; i++) {
    const float *row = x + (size_t)i * SM_COLS;
    double max = -INFINITY, sum = 0;
    for (int k = 0; k < SM_COLS; k++)
      max = row[k] > max ? row[k] : max;
    for (int k = 0; k < SM_COLS; k++)
      sum += exp(row[k] - max);
    for (int j = 0; j < SM_COLS; j++) {
      double expected = exp(row[j] - max) / sum;
      double actual = y[(size_t)i * SM_COLS + j];
      if (!(fabs(actual - expected) <= 1e-4 * expected + 1e-7))
        fail_msg("softmax (%s) at [%d, %d]: device %.9g, host %.9g", how, i, j,
                 actual, expected);
    }
  }
}

/* Launches row_softmax on `stream` (x and y device buffers). */
static void launch_softmax(bp_function_t *fn, uint32_t blocks, void *x, void *y,
                           bp_stream_t *stream) {
  bp_generated_params_t params = {{x, y}};
  if (bp_launch(fn, blocks, &params, sizeof params, NULL, stream) != BP_OK)
    fail_msg("launch row_softmax: %s", bp_last_error());
}

/* Four stages in order on the stream with scratch of their own: on the
 * suggested grid, on one block (each stage's grid-stride loop covers all),
 * and on two streams at once with different inputs. */
static void generated_softmax_runs_in_stages(void **state) {
  gpu_t *g = *state;
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_from_device(g->device, &target), BP_OK);
  bp_built_module_t *built = build_for(softmax_ir, target);
  bp_module_t *module = load_built(g, built);
  bp_function_t *fn = function(module, "row_softmax");
  size_t bytes = sizeof(float) * SM_N;
  float *x[2] = {malloc(bytes), malloc(bytes)};
  float *y = malloc(bytes);
  assert_non_null(x[0]);
  assert_non_null(x[1]);
  assert_non_null(y);
  void *dx[2] = {device_buffer(g, bytes), device_buffer(g, bytes)};
  void *dy[2] = {device_buffer(g, bytes), device_buffer(g, bytes)};
  for (int i = 0; i < 2; i++) {
    fill_softmax_input(x[i], 11 + (unsigned)i);
    assert_int_equal(bp_copy(g->device, dx[i], NULL, x[i], bytes, NULL), BP_OK);
  }
  const uint32_t grids[2] = {bp_built_module_blocks(built, "row_softmax"), 1};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(bp_memset(g->device, dy[0], 0, bytes, NULL), BP_OK);
    launch_softmax(fn, grids[k], dx[0], dy[0], g->stream);
    assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
    assert_int_equal(bp_copy(NULL, y, g->device, dy[0], bytes, NULL), BP_OK);
    check_softmax(x[0], y, k == 0 ? "suggested grid" : "one block");
  }
  bp_stream_t *second = NULL;
  assert_int_equal(bp_stream_create(g->device, &second), BP_OK);
  launch_softmax(fn, grids[0], dx[0], dy[0], g->stream);
  launch_softmax(fn, grids[0], dx[1], dy[1], second);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(second), BP_OK);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(bp_copy(NULL, y, g->device, dy[i], bytes, NULL), BP_OK);
    check_softmax(x[i], y, i == 0 ? "first stream" : "second stream");
  }
  print_message("generated: row_softmax [%d, %d] in 4 stages matches the "
                "host (grid %u, grid 1, two streams)\n",
                SM_ROWS, SM_COLS, grids[0]);
  bp_stream_destroy(second);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(bp_device_free(g->device, dx[i]), BP_OK);
    assert_int_equal(bp_device_free(g->device, dy[i]), BP_OK);
    free(x[i]);
  }
  free(y);
  assert_int_equal(bp_module_unload(module), BP_OK);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
}

/* A manifest whose cuda variant is the builder's output picks it, and
 * the launch by the op's name runs the generated stages. */
static void manifest_picks_the_generated_variant(void **state) {
  gpu_t *g = *state;
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_from_device(g->device, &target), BP_OK);
  bp_built_module_t *built = build_for(softmax_ir, target);
  write_module(g, "softmax.cu", bp_built_module_source(built));
  write_module(
      g, "softmax.json",
      "{\"RowSoftmax\": {\"variants\": [\n"
      "  {\"target\": {\"kind\": \"vcpu\"},\n"
      "   \"kernelSo\": \"missing_vcpu.so\", \"functionName\": "
      "\"row_softmax\"},\n"
      "  {\"target\": {\"kind\": \"cuda\", \"keys\": [\"gpu\"]},\n"
      "   \"kernelSo\": \"softmax.cu\", \"functionName\": "
      "\"row_softmax\"},\n"
      "  {\"kernelSo\": \"missing.so\", \"functionName\": \"x\"}]}}\n");
  bp_module_t *module = NULL;
  if (bp_module_load(g->device, g->path, &module) != BP_OK)
    fail_msg("bp_module_load(softmax.json): %s", bp_last_error());
  bp_function_t *fn = function(module, "RowSoftmax");
  assert_int_equal(bp_function_variant(fn), 1);
  size_t bytes = sizeof(float) * SM_N;
  float *x = malloc(bytes), *y = malloc(bytes);
  assert_non_null(x);
  assert_non_null(y);
  fill_softmax_input(x, 5);
  void *dx = device_buffer(g, bytes), *dy = device_buffer(g, bytes);
  assert_int_equal(bp_copy(g->device, dx, NULL, x, bytes, NULL), BP_OK);
  launch_softmax(fn, bp_built_module_blocks(built, "row_softmax"), dx, dy,
                 g->stream);
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);
  assert_int_equal(bp_copy(NULL, y, g->device, dy, bytes, NULL), BP_OK);
  check_softmax(x, y, "manifest variant");

  /* What a generated function refuses before it launches anything. */
  bp_generated_params_t params = {{dx, NULL}};
  assert_int_not_equal(
      bp_launch(fn, 1, &params, sizeof params, NULL, g->stream), BP_OK);
  assert_non_null(strstr(bp_last_error(), "tensor 1 of the param block"));
  params.tensors[1] = dy;
  assert_int_not_equal(bp_launch(fn, 1, &params, 8, NULL, g->stream), BP_OK);
  assert_non_null(strstr(bp_last_error(), "the param block has 8 bytes"));
  assert_int_equal(bp_stream_synchronize(g->stream), BP_OK);

  assert_int_equal(bp_module_unload(module), BP_OK);
  unlink(g->path);
  snprintf(g->path, sizeof g->path, "%s/softmax.cu", g->folder);
  unlink(g->path);
  assert_int_equal(bp_device_free(g->device, dx), BP_OK);
  assert_int_equal(bp_device_free(g->device, dy), BP_OK);
  free(x);
  free(y);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
}

/* A module built for an architecture newer than the device's does not
 * load, and says for which it was built. */
static void generated_for_a_newer_arch_is_refused(void **state) {
  gpu_t *g = *state;
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_parse("cuda -arch=sm_999", &target), BP_OK);
  bp_built_module_t *built = build_for(softmax_ir, target);
  bp_module_t *module = NULL;
  assert_int_not_equal(bp_built_module_load(built, g->device, &module), BP_OK);
  assert_null(module);
  assert_non_null(strstr(bp_last_error(), "built for sm_999"));
  bp_built_module_destroy(built);
  bp_target_destroy(target);
}

int main(void) {
  bp_runtime_t *probe = NULL;
  bp_runtime_options_t options = fixture_options(CUDA_PLUGIN_PATH);
  if (bp_runtime_create(&options, &probe) != BP_OK) {
    printf("SKIP: cannot create a runtime: %s\n", bp_last_error());
    return 77;
  }
  const char *reason = fixture_rejection(probe, CUDA_PLUGIN_PATH);
  if (reason) {
    printf("SKIP: the cuda plugin was rejected: %s\n", reason);
    bp_runtime_destroy(probe);
    return 77;
  }
  bp_runtime_destroy(probe);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(attributes_match_cuda),
      cmocka_unit_test(copies_round_trip_in_every_direction),
      cmocka_unit_test(nccl_runs_a_single_rank_communicator),
      cmocka_unit_test(pageable_copies_return_while_the_stream_is_held),
      cmocka_unit_test(pageable_synchronous_copies_land_whole),
      cmocka_unit_test(events_time_and_callbacks_run),
      cmocka_unit_test(source_kernels_run_with_blocks_as_the_grid),
      cmocka_unit_test(kernels_report_codes_through_a_status_word),
      cmocka_unit_test(manifest_picks_the_cuda_variant),
      cmocka_unit_test(build_failure_returns_the_log),
      cmocka_unit_test(generated_cases_match_the_host),
      cmocka_unit_test(generated_softmax_runs_in_stages),
      cmocka_unit_test(manifest_picks_the_generated_variant),
      cmocka_unit_test(generated_for_a_newer_arch_is_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
