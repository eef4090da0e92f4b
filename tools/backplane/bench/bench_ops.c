/* ops: the reference op library (libbackplane_ops_ref.so) on the bench's
 * device, each case timed as call + stream synchronize (median of
 * repetitions), against baselines measured in the same run: GEMM against
 * OpenBLAS cblas_sgemm called directly on the same buffers (budget >= 90 %),
 * elementwise ops against two-thread memcpy bandwidth (>= 70 %), and every
 * case against PyTorch on the CPU with the same thread count, when
 * /usr/bin/python3 can import torch (scripts/bench_ops_torch.py; the aim:
 * at or above PyTorch). The library needs host-addressable device memory:
 * the bench runs on vcpu only. It prints the CPU model and the instruction
 * sets in use: the library's (BACKPLANE_OPS_ISA caps it), OpenBLAS's core
 * (OPENBLAS_CORETYPE) and PyTorch's. Under a cap of avx2 or sse2 PyTorch
 * gets the same cap (oneDNN's DNNL_MAX_CPU_ISA, ATen's ATEN_CPU_CAPABILITY
 * and OpenBLAS's core, unless set), so that an AVX-512 machine runs both
 * sides as a machine without AVX-512 would. */
#include <cblas.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "bench.h"
#include "bench_cuda.h"
#include "bench_memcpy.h"
#include "cli/cli_paths.h"
#include "cli/cli_timing.h"

enum { FULL_REPS = 9, MAX_TENSORS = 3, MAX_CASES = 16 };

typedef enum baseline { VS_NONE, VS_SGEMM, VS_MEMCPY } baseline_t;

typedef struct op_case {
  char name[32];  /* no spaces: the PyTorch script reads it as one word */
  const char *op; /* the script's op name */
  int ninputs;
  int ndim[MAX_TENSORS];         /* inputs, then out */
  int64_t shape[MAX_TENSORS][4]; /* inputs, then out */
  double flops, bytes;           /* per run; flops 0: rated in GB/s */
  baseline_t vs;
} op_case_t;

typedef struct ops_bench {
  bench_ctx_t *ctx;
  bp_stream_t *stream;
  diopiContextHandle_t dctx;
  bp_ops_library_t *library;
  int threads;
} ops_bench_t;

typedef struct staged_case {
  const op_case_t *c;
  void *fn;
  diopiTensorHandle_t t[MAX_TENSORS]; /* inputs, then out */
  float *data[MAX_TENSORS];
} staged_case_t;

static int64_t numel(const op_case_t *c, int k) {
  int64_t n = 1;
  for (int d = 0; d < c->ndim[k]; d++)
    n *= c->shape[k][d];
  return n;
}

static const char *diopi_name(const char *op) {
  static const char *const names[][2] = {{"mm", "diopiMm"},
                                         {"add", "diopiAdd"},
                                         {"mul", "diopiMul"},
                                         {"relu", "diopiRelu"},
                                         {"copy", "diopiCopyInp"},
                                         {"softmax", "diopiSoftmax"},
                                         {"sum", "diopiSum"},
                                         {"conv2d", "diopiConvolution2d"},
                                         {"layer_norm", "diopiLayerNorm"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(names[i][0], op))
      return names[i][1];
  return op;
}

/* One call of the case's op (enqueued; the caller synchronizes). */
static diopiError_t call(ops_bench_t *b, const staged_case_t *s) {
  typedef diopiTensorHandle_t T;
  typedef diopiConstTensorHandle_t CT;
  typedef diopiContextHandle_t CTX;
  const char *op = s->c->op;
  T out = s->t[s->c->ninputs], a = s->t[0], x = s->t[1];
  static const int64_t one[2] = {1, 1}, zero_dim[1] = {0};
  diopiScalar_t alpha = {.stype = diopi_dtype_float64, .fval = 1.0};
  if (!strcmp(op, "mm"))
    return ((diopiError_t(*)(CTX, T, CT, CT))s->fn)(b->dctx, out, a, x);
  if (!strcmp(op, "add"))
    return ((diopiError_t(*)(CTX, T, CT, CT, const diopiScalar_t *))s->fn)(
        b->dctx, out, a, x, &alpha);
  if (!strcmp(op, "mul"))
    return ((diopiError_t(*)(CTX, T, CT, CT))s->fn)(b->dctx, out, a, x);
  if (!strcmp(op, "relu"))
    return ((diopiError_t(*)(CTX, T, CT))s->fn)(b->dctx, out, a);
  if (!strcmp(op, "copy"))
    return ((diopiError_t(*)(CTX, CT, T))s->fn)(b->dctx, a, out);
  if (!strcmp(op, "softmax"))
    return ((diopiError_t(*)(CTX, T, CT, int64_t))s->fn)(b->dctx, out, a, -1);
  if (!strcmp(op, "sum"))
    return ((diopiError_t(*)(CTX, T, CT, diopiSize_t))s->fn)(
        b->dctx, out, a, (diopiSize_t){zero_dim, 1});
  if (!strcmp(op, "conv2d"))
    return ((diopiError_t(*)(CTX, T, CT, CT, CT, diopiSize_t, diopiSize_t,
                             diopiSize_t, int64_t))s->fn)(
        b->dctx, out, a, x, NULL, (diopiSize_t){one, 2}, (diopiSize_t){one, 2},
        (diopiSize_t){one, 2}, 1);
  if (!strcmp(op, "layer_norm")) {
    const op_case_t *c = s->c;
    diopiSize_t normalized = {&c->shape[0][c->ndim[0] - 1], 1};
    return (
        (diopiError_t(*)(CTX, T, T, T, CT, CT, CT, diopiSize_t, double))s->fn)(
        b->dctx, out, NULL, NULL, a, NULL, NULL, normalized, 1e-5);
  }
  return diopiNoImplement;
}

static void unstage(staged_case_t *s) {
  for (int k = 0; k < MAX_TENSORS; k++)
    bp_ops_tensor_destroy(s->t[k]);
}

/* Device tensors for the case, inputs filled with values in [-1, 1). */
static bp_status_t stage(ops_bench_t *b, const op_case_t *c, staged_case_t *s) {
  memset(s, 0, sizeof *s);
  s->c = c;
  bp_status_t status =
      bp_ops_library_find(b->library, diopi_name(c->op), &s->fn);
  for (int k = 0; status == BP_OK && k <= c->ninputs; k++) {
    status =
        bp_ops_tensor_create(b->ctx->device, b->stream, diopi_dtype_float32,
                             (size_t)c->ndim[k], c->shape[k], &s->t[k]);
    if (status != BP_OK)
      break;
    diopiGetTensorData(s->t[k], (void **)&s->data[k]);
    int64_t n = numel(c, k);
    uint32_t seed = 12345u + (uint32_t)k;
    for (int64_t i = 0; i < n; i++) {
      seed = seed * 1664525u + 1013904223u;
      s->data[k][i] = (float)(seed >> 8) * 0x1.0p-23f - 1.0f;
    }
  }
  return status;
}

/* Seconds of one op run (call + synchronize); < 0 on error (reported). */
static double time_op(ops_bench_t *b, const staged_case_t *s) {
  uint64_t start = cli_now_ns();
  diopiError_t err = call(b, s);
  bp_status_t status = bp_stream_synchronize(b->stream);
  uint64_t elapsed = cli_now_ns() - start;
  bp_ops_context_clear(b->dctx);
  if (err != diopiSuccess || status != BP_OK) {
    fprintf(stderr, "bench ops: %s: %s\n", s->c->name,
            err ? bp_ops_library_last_error(b->library) : bp_last_error());
    return -1;
  }
  return (double)elapsed * 1e-9;
}

/* Seconds of the case's baseline, on the case's own buffers. */
static double time_baseline(ops_bench_t *b, const staged_case_t *s) {
  const op_case_t *c = s->c;
  uint64_t start = cli_now_ns();
  if (c->vs == VS_SGEMM) {
    int m = (int)c->shape[0][0], k = (int)c->shape[0][1],
        n = (int)c->shape[1][1];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                s->data[0], k, s->data[1], n, 0.0f, s->data[2], n);
  } else {
    size_t bytes = (size_t)numel(c, 0) * sizeof(float);
    if (b->threads < 2 ||
        !bench_memcpy_two_threads(s->data[c->ninputs], s->data[0], bytes))
      memcpy(s->data[c->ninputs], s->data[0], bytes);
  }
  return (double)(cli_now_ns() - start) * 1e-9;
}

/* The rate of one run taking `seconds`: GFLOP/s, or GB/s of `bytes`. */
static double rate(const op_case_t *c, double bytes, double seconds) {
  return (c->flops ? c->flops : bytes) / seconds * 1e-9;
}

static void record(bench_ctx_t *ctx, const op_case_t *c, double value,
                   const char *baseline, double baseline_value, double limit,
                   const char *budget_text) {
  bench_record(ctx, &(bench_result_t){
                        .bench_case = c->name,
                        .value = value,
                        .unit = c->flops ? "GFLOP/s" : "GB/s",
                        .baseline = baseline,
                        .baseline_value = baseline_value,
                        .budget = BENCH_BUDGET_MIN_RATIO,
                        .limit = limit,
                        .budget_text = budget_text,
                    });
}

/* Measures the case and its baseline, interleaved; *ours = median s. */
static bp_status_t measure(ops_bench_t *b, const op_case_t *c, double *ours) {
  staged_case_t s;
  bp_status_t status = stage(b, c, &s);
  if (status != BP_OK) {
    unstage(&s);
    return bench_error(b->ctx, c->name, status);
  }
  size_t reps = bench_reps(b->ctx, FULL_REPS);
  double op_s[FULL_REPS], base_s[FULL_REPS];
  if (time_op(b, &s) < 0) { /* warm-up */
    unstage(&s);
    return BP_ERR_PLUGIN;
  }
  for (size_t r = 0; r < reps; r++) {
    if ((op_s[r] = time_op(b, &s)) < 0) {
      unstage(&s);
      return BP_ERR_PLUGIN;
    }
    base_s[r] = c->vs != VS_NONE ? time_baseline(b, &s) : 0;
  }
  unstage(&s);
  *ours = cli_median(op_s, reps);
  if (c->vs == VS_SGEMM)
    record(b->ctx, c, rate(c, c->bytes, *ours), "OpenBLAS cblas_sgemm",
           rate(c, c->bytes, cli_median(base_s, reps)), 0.9, ">= 90% of sgemm");
  else if (c->vs == VS_MEMCPY) {
    /* memcpy moves 2 x the tensor: one read, one write. */
    double copied = 2.0 * (double)numel(c, 0) * sizeof(float);
    record(b->ctx, c, rate(c, c->bytes, *ours),
           b->threads < 2 ? "memcpy 1 thread" : "memcpy 2 threads",
           rate(c, copied, cli_median(base_s, reps)), 0.7, ">= 70% of memcpy");
  }
  return BP_OK;
}

static int add_case(op_case_t *cases, int n, const char *name, const char *op,
                    int ninputs, const int64_t *const *shapes, const int *ndims,
                    double flops, baseline_t vs) {
  op_case_t *c = &cases[n];
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->op = op;
  c->ninputs = ninputs;
  c->vs = vs;
  c->flops = flops;
  for (int k = 0; k <= ninputs; k++) {
    c->ndim[k] = ndims[k];
    memcpy(c->shape[k], shapes[k], sizeof(int64_t) * (size_t)ndims[k]);
    c->bytes += (double)numel(c, k) * sizeof(float);
  }
  return n + 1;
}

/* The case list: full sizes, or tiny ones for --quick. */
static int make_cases(const bench_ctx_t *ctx, op_case_t *cases) {
  int n = 0, q = ctx->quick;
  char name[32];
  const int64_t mm_sizes[3] = {256, 512, 1024};
  for (int i = 0; i < (q ? 1 : 3); i++) {
    int64_t s = q ? 32 : mm_sizes[i];
    int64_t sq[2] = {s, s};
    const int64_t *shapes[3] = {sq, sq, sq};
    snprintf(name, sizeof name, "mm/%lld", (long long)s);
    n = add_case(cases, n, name, "mm", 2, shapes, (int[]){2, 2, 2},
                 2.0 * (double)s * (double)s * (double)s, VS_SGEMM);
  }
  int64_t flat[1] = {q ? 4096 : (int64_t)8 << 20};
  const int64_t *three[3] = {flat, flat, flat};
  const char *binary[] = {"add", "mul"}, *unary[] = {"relu", "copy"};
  for (int i = 0; i < 2; i++) {
    snprintf(name, sizeof name, "%s/%lld", binary[i], (long long)flat[0]);
    n = add_case(cases, n, name, binary[i], 2, three, (int[]){1, 1, 1}, 0,
                 VS_MEMCPY);
  }
  for (int i = 0; i < 2; i++) {
    snprintf(name, sizeof name, "%s/%lld", unary[i], (long long)flat[0]);
    n = add_case(cases, n, name, unary[i], 1, three, (int[]){1, 1}, 0,
                 VS_MEMCPY);
  }
  int64_t rows[2] = {q ? 16 : 2048, q ? 64 : 1024}, cols[1] = {rows[1]};
  const int64_t *rr[2] = {rows, rows}, *rc[2] = {rows, cols};
  const char *row_ops[3] = {"softmax", "sum", "layer_norm"};
  for (int i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "%s/%lldx%lld", row_ops[i], (long long)rows[0],
             (long long)rows[1]);
    n = add_case(cases, n, name, row_ops[i], 1, i == 1 ? rc : rr,
                 (int[]){2, i == 1 ? 1 : 2}, 0, VS_NONE);
  }
  /* conv2d 3x3, padding 1: (N, C, H, W) images, C -> C channels. */
  static const int64_t convs[2][4] = {{8, 64, 28, 28}, {32, 32, 56, 56}};
  for (int i = 0; i < (q ? 1 : 2); i++) {
    int64_t img[4] = {q ? 1 : convs[i][0], q ? 4 : convs[i][1],
                      q ? 8 : convs[i][2], q ? 8 : convs[i][3]};
    int64_t w[4] = {img[1], img[1], 3, 3};
    const int64_t *conv[3] = {img, w, img};
    snprintf(name, sizeof name, "conv2d/%lldx%lldx%lldx%lld_k3",
             (long long)img[0], (long long)img[1], (long long)img[2],
             (long long)img[3]);
    n = add_case(cases, n, name, "conv2d", 2, conv, (int[]){4, 4, 4},
                 2.0 * (double)(img[0] * img[1] * img[2] * img[3]) *
                     (double)(img[1] * 9),
                 VS_NONE);
  }
  return n;
}

/* The environment that gives PyTorch's process the cap of ours: "" when
 * BACKPLANE_OPS_ISA sets none; the variables already set are kept. */
static void torch_isa_env(char *out, size_t size) {
  const char *cap = getenv("BACKPLANE_OPS_ISA");
  bool avx2 = cap && !strcmp(cap, "avx2"), sse2 = cap && !strcmp(cap, "sse2");
  out[0] = '\0';
  if (!avx2 && !sse2)
    return;
  snprintf(out, size, "%s%s%s%s%s%s ",
           getenv("DNNL_MAX_CPU_ISA") ? "" : " DNNL_MAX_CPU_ISA=",
           getenv("DNNL_MAX_CPU_ISA") ? ""
           : avx2                     ? "AVX2"
                                      : "SSE41",
           getenv("ATEN_CPU_CAPABILITY") ? "" : " ATEN_CPU_CAPABILITY=",
           getenv("ATEN_CPU_CAPABILITY") ? ""
           : avx2                        ? "avx2"
                                         : "default",
           getenv("OPENBLAS_CORETYPE") ? "" : " OPENBLAS_CORETYPE=",
           getenv("OPENBLAS_CORETYPE") ? ""
           : avx2                      ? "Haswell"
                                       : "Core2");
}

/* Prints the CPU model and the instruction sets our side runs with. */
static void print_isa(const ops_bench_t *b) {
  char model[256] = "unknown", line[512];
  FILE *info = fopen("/proc/cpuinfo", "r");
  while (info && fgets(line, sizeof line, info))
    if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
      snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
      model[strcspn(model, "\n")] = '\0';
      break;
    }
  if (info)
    fclose(info);
  void *fn = NULL;
  const char *ours =
      bp_ops_library_find(b->library, "bpRefOpsInstructionSet", &fn) == BP_OK
          ? ((const char *(*)(void))fn)()
          : "unknown";
  const char *cap = getenv("BACKPLANE_OPS_ISA");
  fprintf(stderr,
          "bench ops: CPU %s; reference ops: %s (BACKPLANE_OPS_ISA=%s), "
          "OpenBLAS core %s\n",
          model, ours, cap ? cap : "native", openblas_get_corename());
}

/* Runs the PyTorch script over `cases`; fills torch_s (seconds, 0 where
 * missing). Returns 0, or -1 if PyTorch is not available. */
static int time_torch(ops_bench_t *b, const op_case_t *cases, int n,
                      double *torch_s) {
  if (access("/usr/bin/python3", X_OK) != 0)
    return -1;
  char input_path[] = "/tmp/backplane-bench-ops-XXXXXX";
  int fd = mkstemp(input_path);
  FILE *in = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!in)
    return -1;
  for (int i = 0; i < n; i++) {
    fprintf(in, "%s %s", cases[i].name, cases[i].op);
    for (int k = 0; k < cases[i].ninputs; k++)
      for (int d = 0; d < cases[i].ndim[k]; d++)
        fprintf(in, "%c%lld", d ? ',' : ' ', (long long)cases[i].shape[k][d]);
    fputc('\n', in);
  }
  fclose(in);
  char command[1024], env[160];
  torch_isa_env(env, sizeof env);
  snprintf(command, sizeof command,
           "%s/usr/bin/python3 %s/scripts/bench_ops_torch.py %d %zu < %s",
           env[0] ? env + 1 : "", BP_SOURCE_DIR, b->threads,
           bench_reps(b->ctx, FULL_REPS), input_path);
  FILE *out = popen(command, "r");
  int found = 0;
  char line[256], name[64];
  double seconds;
  while (out && fgets(line, sizeof line, out))
    if (sscanf(line, "%63s %lf", name, &seconds) == 2)
      for (int i = 0; i < n; i++)
        if (!strcmp(name, cases[i].name)) {
          torch_s[i] = seconds;
          found++;
        }
  int status = out ? pclose(out) : -1;
  unlink(input_path);
  return status == 0 && found ? 0 : -1;
}

bp_status_t bench_ops(bench_ctx_t *ctx) {
  if (bench_cuda_wanted(ctx)) /* the plugin's op library against cuBLAS */
    return bench_cuda_ops(ctx);
  if (strcmp(ctx->plugin_name, "vcpu") != 0) {
    fprintf(stderr,
            "bench ops: the reference op library needs vcpu, not "
            "%s: skipped\n",
            ctx->plugin_name);
    return BP_OK;
  }
  ops_bench_t b = {.ctx = ctx};
  const char *env = getenv("BACKPLANE_OPS_THREADS");
  long cores = env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);
  b.threads = cores < 1 ? 1 : (int)cores;
  char path[4096];
  cli_path_reference_ops(path, sizeof path);
  bp_status_t status = bp_ops_library_open(path, &b.library);
  if (status != BP_OK)
    return bench_error(ctx, "bp_ops_library_open", status);
  if ((status = bp_stream_create(ctx->device, &b.stream)) != BP_OK ||
      (status = bp_ops_context_create(ctx->device, b.stream, &b.dctx)) !=
          BP_OK) {
    bench_error(ctx, "creating the op context", status);
    goto done;
  }
  print_isa(&b);
  op_case_t cases[MAX_CASES];
  double ours[MAX_CASES] = {0}, torch_s[MAX_CASES] = {0};
  int n = make_cases(ctx, cases);
  for (int i = 0; i < n && status == BP_OK; i++)
    status = measure(&b, &cases[i], &ours[i]);
  if (status != BP_OK)
    goto done;
  char baseline[48];
  snprintf(baseline, sizeof baseline, "PyTorch CPU %d thread%s", b.threads,
           b.threads == 1 ? "" : "s");
  if (time_torch(&b, cases, n, torch_s) != 0) {
    fprintf(stderr, "bench ops: /usr/bin/python3 cannot import torch: no "
                    "PyTorch baseline\n");
    goto done;
  }
  for (int i = 0; i < n; i++)
    if (torch_s[i] > 0)
      record(ctx, &cases[i], rate(&cases[i], cases[i].bytes, ours[i]), baseline,
             rate(&cases[i], cases[i].bytes, torch_s[i]), 1.0, ">= PyTorch");
done:
  bp_ops_context_destroy(b.dctx);
  bp_stream_destroy(b.stream);
  bp_ops_library_close(b.library);
  return status;
}
