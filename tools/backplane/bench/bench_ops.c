/* ops: the reference op library (libbackplane_ops_ref.so) on the bench's
 * device, each case (bench_ops_cases.c: the original GEMM, elementwise, row
 * and convolution rows, then a row per op family of issue 25) timed as call
 * + stream synchronize (the median of 9 repetitions, 3 in each of 3 rounds
 * that alternate with PyTorch's), against baselines measured in the same
 * run: GEMM against OpenBLAS cblas_sgemm called directly on the
 * same buffers (budget >= 90 %), the 8 Mi-element elementwise rows against
 * two-thread memcpy bandwidth (>= 70 %), and every case against PyTorch on
 * the CPU with the same thread count, when the bench's interpreter
 * (BACKPLANE_PYTHON, bench_scripts.h) can import torch (the package's
 * _bench_ops_torch.py; the aim: at or above PyTorch for the
 * original rows, 0.8x for the others). A case that fails is reported and
 * the others still run. The library needs host-addressable device memory:
 * the bench runs on vcpu only. It prints the CPU model and the instruction
 * sets in use: the library's (BACKPLANE_OPS_ISA caps it), OpenBLAS's core
 * (OPENBLAS_CORETYPE) and PyTorch's. Under a cap of avx2 or sse2 PyTorch
 * gets the same cap (oneDNN's DNNL_MAX_CPU_ISA, ATen's ATEN_CPU_CAPABILITY
 * and OpenBLAS's core, unless set), so that an AVX-512 machine runs both
 * sides as a machine without AVX-512 would. */
#include <cblas.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "bench.h"
#include "bench_cuda.h"
#include "bench_memcpy.h"
#include "bench_ops_cases.h"
#include "bench_scripts.h"
#include "cli/cli_paths.h"
#include "cli/cli_timing.h"

enum { FULL_REPS = 9, ROUNDS = 3, WARM_UP_CALLS = 200 };
#define WARM_UP_NS 20000000u /* 20 ms */

typedef struct ops_bench {
  bench_ctx_t *ctx;
  bp_stream_t *stream;
  diopiContextHandle_t dctx;
  bp_ops_library_t *library;
  int threads;
} ops_bench_t;

typedef struct staged_case {
  const op_case_t *c;
  diopiTensorHandle_t t[OPS_MAX_TENSORS]; /* inputs, then outputs */
  ops_call_t call;
} staged_case_t;

/* One call of the case's op (enqueued; the caller synchronizes). */
static diopiError_t call(const staged_case_t *s) {
  return s->c->call(&s->call);
}

static void unstage(staged_case_t *s) {
  for (int k = 0; k < OPS_MAX_TENSORS; k++)
    bp_ops_tensor_destroy(s->t[k]);
}

/* Fills tensor k with the values its spec's kind names (bench_ops_cases.h),
 * from a fixed pseudo-random sequence. */
static void fill(const op_case_t *c, int k, void *data) {
  const ops_tensor_spec_t *spec = &c->t[k];
  int64_t n = ops_numel(c, k);
  uint32_t seed = 12345u + (uint32_t)k;
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    float u = (float)(seed >> 8) * 0x1.0p-24f; /* [0, 1) */
    switch (spec->kind) {
    case 'b':
      ((bool *)data)[i] = u < 0.5f;
      break;
    case 'i':
      ((int64_t *)data)[i] = (int64_t)(u * (float)spec->range) % spec->range;
      break;
    case 'n':
      ((int32_t *)data)[i] = (int32_t)(seed >> 22);
      break;
    case 'p':
      ((float *)data)[i] = 0.5f + u;
      break;
    case 'h':
      ((float *)data)[i] = 0.001f + 0.998f * u;
      break;
    default:
      ((float *)data)[i] = 2.0f * u - 1.0f;
    }
  }
}

/* Device tensors for the case, filled as their specs say. */
static bp_status_t stage(ops_bench_t *b, const op_case_t *c, staged_case_t *s) {
  memset(s, 0, sizeof *s);
  s->c = c;
  s->call.ctx = b->dctx;
  s->call.t = s->t;
  bp_status_t status = bp_ops_library_find(b->library, c->diopi, &s->call.fn);
  for (int k = 0; status == BP_OK && k < c->ntensors; k++) {
    status = bp_ops_tensor_create(
        b->ctx->device, b->stream, ops_spec_dtype(&c->t[k]),
        (size_t)c->t[k].ndim, c->t[k].shape, &s->t[k]);
    if (status != BP_OK)
      break;
    void *data;
    diopiGetTensorData(s->t[k], &data);
    fill(c, k, data);
  }
  return status;
}

/* Seconds of one op run (call + synchronize); < 0 on error (reported). */
static double time_op(ops_bench_t *b, const staged_case_t *s) {
  uint64_t start = cli_now_ns();
  diopiError_t err = call(s);
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
  void *data[3];
  for (int k = 0; k < 3 && k < c->ntensors; k++)
    diopiGetTensorData(s->t[k], &data[k]);
  uint64_t start = cli_now_ns();
  if (c->vs == VS_SGEMM) {
    int m = (int)c->t[0].shape[0], k = (int)c->t[0].shape[1],
        n = (int)c->t[1].shape[1];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                data[0], k, data[1], n, 0.0f, data[2], n);
  } else {
    void *out = data[c->ninputs == 2 ? 2 : 1];
    size_t bytes = (size_t)ops_numel(c, 0) * sizeof(float);
    if (b->threads < 2 || !bench_memcpy_two_threads(out, data[0], bytes))
      memcpy(out, data[0], bytes);
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

/* A case's samples over the rounds, in seconds: of its op and of its
 * GEMM/memcpy baseline (0 without one), `reps` of each; of PyTorch's op,
 * `torch_reps`. */
typedef struct case_samples {
  double op_s[FULL_REPS], base_s[FULL_REPS], torch_s[FULL_REPS];
  size_t reps, torch_reps;
  bool failed;
} case_samples_t;

/* Adds `reps` samples of the case and its baseline, interleaved, to `x`. */
static bp_status_t measure(ops_bench_t *b, const op_case_t *c, size_t reps,
                           case_samples_t *x) {
  staged_case_t s;
  bp_status_t status = stage(b, c, &s);
  if (status != BP_OK) {
    unstage(&s);
    return bench_error(b->ctx, c->name, status);
  }
  /* Warm-up: at least WARM_UP_NS of calls (up to WARM_UP_CALLS), so that
   * the first timed call does not pay for threads (the pool's, OpenBLAS's)
   * that went to sleep while the other side ran. */
  uint64_t warm = 0;
  for (int k = 0; k < WARM_UP_CALLS && warm < WARM_UP_NS; k++) {
    double seconds = time_op(b, &s);
    if (seconds < 0) {
      unstage(&s);
      return BP_ERR_PLUGIN;
    }
    warm += (uint64_t)(seconds * 1e9);
  }
  for (size_t r = 0; r < reps && x->reps < FULL_REPS; r++, x->reps++) {
    if ((x->op_s[x->reps] = time_op(b, &s)) < 0) {
      unstage(&s);
      return BP_ERR_PLUGIN;
    }
    x->base_s[x->reps] = c->vs != VS_NONE ? time_baseline(b, &s) : 0;
  }
  unstage(&s);
  return BP_OK;
}

/* Records the case's GEMM or memcpy row, if it has one; *ours = the
 * median seconds of its op. */
static void record_baseline_row(ops_bench_t *b, const op_case_t *c,
                                case_samples_t *x, double *ours) {
  *ours = cli_median(x->op_s, x->reps);
  if (c->vs == VS_SGEMM)
    record(b->ctx, c, rate(c, c->bytes, *ours), "OpenBLAS cblas_sgemm",
           rate(c, c->bytes, cli_median(x->base_s, x->reps)), 0.9,
           ">= 90% of sgemm");
  else if (c->vs == VS_MEMCPY) {
    /* memcpy moves 2 x the tensor: one read, one write. */
    double copied = 2.0 * (double)ops_numel(c, 0) * sizeof(float);
    record(b->ctx, c, rate(c, c->bytes, *ours),
           b->threads < 2 ? "memcpy 1 thread" : "memcpy 2 threads",
           rate(c, copied, cli_median(x->base_s, x->reps)), 0.7,
           ">= 70% of memcpy");
  }
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

/* Runs the PyTorch script over `cases`, `reps` timings each, adding them
 * to samples[i].torch_s (none where PyTorch lacks the case); `round` 0
 * prints PyTorch's instruction sets. Returns 0, or -1 (saying why) if
 * PyTorch is not available. */
static int time_torch(ops_bench_t *b, const op_case_t *cases, int n,
                      size_t reps, size_t round, case_samples_t *samples) {
  char script[PATH_MAX];
  const char *python = bench_python_interpreter();
  if (!bench_python_script("_bench_ops_torch.py", script, sizeof script)) {
    fprintf(stderr, "bench ops: no backplane package with "
                    "_bench_ops_torch.py beside this command: no PyTorch "
                    "baseline\n");
    return -1;
  }
  if (access(python, X_OK) != 0) {
    fprintf(stderr,
            "bench ops: no Python at %s (BACKPLANE_PYTHON): no PyTorch "
            "baseline\n",
            python);
    return -1;
  }
  char input_path[] = "/tmp/backplane-bench-ops-XXXXXX";
  int fd = mkstemp(input_path);
  FILE *in = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!in)
    return -1;
  for (int i = 0; i < n; i++)
    fprintf(in, "%s %s %d %s\n", cases[i].name, cases[i].op, cases[i].ninputs,
            cases[i].specs);
  fclose(in);
  char command[3 * PATH_MAX], env[160];
  torch_isa_env(env, sizeof env);
  snprintf(command, sizeof command, "%s'%s' '%s' %d %zu%s < %s",
           env[0] ? env + 1 : "", python, script, b->threads, reps,
           round ? " --no-isa" : "", input_path);
  FILE *out = popen(command, "r");
  int found = 0;
  char line[512], name[64];
  int used;
  while (out && fgets(line, sizeof line, out)) {
    if (sscanf(line, "%63s%n", name, &used) != 1)
      continue;
    for (int i = 0; i < n; i++)
      if (!strcmp(name, cases[i].name)) {
        case_samples_t *x = &samples[i];
        const char *at = line + used;
        double seconds;
        int width;
        while (x->torch_reps < FULL_REPS &&
               sscanf(at, "%lf%n", &seconds, &width) == 1) {
          x->torch_s[x->torch_reps++] = seconds;
          at += width;
        }
        found++;
      }
  }
  int status = out ? pclose(out) : -1;
  unlink(input_path);
  if (status == 0 && found)
    return 0;
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 3)
    fprintf(stderr, "bench ops: %s cannot import torch: no PyTorch baseline\n",
            python);
  else
    fprintf(stderr, "bench ops: %s failed (status %d): no PyTorch baseline\n",
            script, status);
  return -1;
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
  /* the library's count: BACKPLANE_OPS_THREADS, else the CPUs this
   * process may run on, at most 64 (plugins/vcpu/ops/ref_pool.h) */
  const char *env = getenv("BACKPLANE_OPS_THREADS");
  cpu_set_t allowed;
  long cores = env && *env ? atol(env)
               : sched_getaffinity(0, sizeof allowed, &allowed) == 0
                   ? CPU_COUNT(&allowed)
                   : sysconf(_SC_NPROCESSORS_ONLN);
  b.threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
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
  static op_case_t cases[OPS_MAX_CASES];
  static case_samples_t samples[OPS_MAX_CASES];
  memset(samples, 0, sizeof samples);
  int n = ops_make_cases(ctx, cases), failed = 0;
  if (n < 0) {
    status = bench_error(ctx, "the case table", BP_ERR_INTERNAL);
    goto done;
  }
  /* Rounds: every case of ours, then PyTorch's, and again, so that both
   * sides sample the same stretches of the run (a machine whose load
   * drifts moves both). A failing case is reported; the rest run. */
  size_t rounds = ctx->quick ? 1 : ROUNDS;
  size_t reps = bench_reps(ctx, FULL_REPS) / rounds;
  bool torch = true;
  for (size_t round = 0; round < rounds; round++) {
    for (int i = 0; i < n; i++)
      if (!samples[i].failed &&
          measure(&b, &cases[i], reps, &samples[i]) != BP_OK) {
        samples[i].failed = true;
        failed++;
      }
    /* none: rows without a baseline */
    torch = torch && time_torch(&b, cases, n, reps, round, samples) == 0;
  }
  char baseline[48];
  snprintf(baseline, sizeof baseline, "PyTorch CPU %d thread%s", b.threads,
           b.threads == 1 ? "" : "s");
  for (int i = 0; i < n; i++) {
    case_samples_t *x = &samples[i];
    if (x->failed)
      continue;
    double ours;
    record_baseline_row(&b, &cases[i], x, &ours);
    if (x->torch_reps) {
      char text[24];
      snprintf(text, sizeof text, ">= %.1fx PyTorch", cases[i].at_least);
      double theirs = cli_median(x->torch_s, x->torch_reps);
      record(ctx, &cases[i], rate(&cases[i], cases[i].bytes, ours), baseline,
             rate(&cases[i], cases[i].bytes, theirs), cases[i].at_least, text);
    }
  }
  if (failed)
    status = BP_ERR_PLUGIN;
done:
  bp_ops_context_destroy(b.dctx);
  bp_stream_destroy(b.stream);
  bp_ops_library_close(b.library);
  return status;
}
