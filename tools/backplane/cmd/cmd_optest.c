/* `backplane optest [--ops LIB.so] [--device D] [--filter TEXT]
 * [--exclude TEXT] [--data DIR] [--quick] [--json]`: runs every op case of
 * tests/data/ops through an op library on a device (default: the reference
 * library on vcpu:0), judged DIOPI-TEST's way: a case passes when the elements
 * failing isclose(atol, rtol; NaN equals NaN) are at most 1e-3 of the total and
 * no input changed. Outputs without expected data (random ops) are checked by
 * the case's rule instead (optest_judge_rule). One line per case (PASS, FAIL
 * with the error, XFAIL and XPASS for a case the set's known-failures list
 * names (optest_known.h), NOIMPL, SKIP with the reason), timed (median of
 * repeats; --quick: the one checked call), GFLOP/s or GB/s, a summary per op
 * and in total (`--data tests/data/ops_diopi` runs the cases generated from
 * DIOPI's own configurations). Exit 1 on any FAIL or XPASS. A DIOPI-IMPL
 * library (one bringing its own device runtime) runs on its adapter device by
 * default. */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/backplane.h"
#include "backplane/ops.h"
#include "cli/cli_json.h"
#include "cli/cli_options.h"
#include "cli/cli_output.h"
#include "cli/cli_paths.h"
#include "cli/cli_timing.h"
#include "commands.h"
#include "optest/optest_calls.h"
#include "optest/optest_cases.h"
#include "optest/optest_compare.h"
#include "optest/optest_known.h"

static const double kMismatchRatio = 1e-3;

typedef struct optest_request {
  const char *ops, *device, *filter, *exclude, *data;
} optest_request_t;

/* Takes the options of this command out of argv (the rest go to
 * cli_options_parse). Returns 0, or 2 on a missing value. */
static int take_own_options(int *argc, char **argv, optest_request_t *req) {
  int kept = 0;
  for (int i = 0; i < *argc; i++) {
    const char **slot = !strcmp(argv[i], "--ops")       ? &req->ops
                        : !strcmp(argv[i], "--device")  ? &req->device
                        : !strcmp(argv[i], "--filter")  ? &req->filter
                        : !strcmp(argv[i], "--exclude") ? &req->exclude
                        : !strcmp(argv[i], "--data")    ? &req->data
                                                        : NULL;
    if (!slot) {
      argv[kept++] = argv[i];
      continue;
    }
    if (i + 1 >= *argc) {
      fprintf(stderr, "backplane optest: missing value after '%s'\n", argv[i]);
      return 2;
    }
    *slot = argv[++i];
  }
  *argc = kept;
  return 0;
}

typedef struct case_result {
  const char *verdict; /* PASS FAIL NOIMPL SKIP, then XFAIL XPASS */
  char detail[512];
  double ms, rate;
  const char *rate_unit;
} case_result_t;

typedef struct run_env {
  bp_device_t *device;
  bp_stream_t *stream;
  diopiContextHandle_t ctx;
  bp_ops_library_t *library;
  int reps; /* timed calls after the checked one; 0: time the checked one */
  optest_known_t known;
} run_env_t;

static size_t numel(const optest_tensor_t *t) {
  size_t n = 1;
  for (int i = 0; i < t->ndim; i++)
    n *= (size_t)t->shape[i];
  return n;
}

/* Device copies of a case's tensors. */
typedef struct staged {
  void *mem[OPTEST_MAX_TENSORS];
  size_t bytes[OPTEST_MAX_TENSORS];
  diopiTensorHandle_t handles[OPTEST_MAX_TENSORS];
  unsigned char
      *seeded[OPTEST_MAX_TENSORS]; /* the storage made for a seeded tensor */
} staged_t;

static void unstage(run_env_t *env, const optest_case_t *c, staged_t *s) {
  for (size_t i = 0; i < c->tensor_count; i++) {
    bp_ops_tensor_destroy(s->handles[i]);
    bp_device_free(env->device, s->mem[i]);
    free(s->seeded[i]);
  }
}

/* The host data a tensor starts from: its stored storage, or the one its
 * seed makes (kept in s). NULL if that cannot be made. */
static const unsigned char *initial_data(const optest_tensor_t *t, size_t i,
                                         staged_t *s) {
  if (!t->seeded)
    return t->storage;
  size_t elem = bp_ops_dtype_size(t->dtype);
  s->seeded[i] = malloc(t->storage_bytes + 1);
  if (!s->seeded[i] ||
      optest_seeded_fill(&t->seed, t->dtype, t->storage_bytes / elem,
                         s->seeded[i]))
    return NULL;
  return s->seeded[i];
}

/* A sampled output: its values at the sample's positions, and its sum and
 * sum of magnitudes within atol * numel + rtol * the expected magnitudes
 * (what the elementwise tolerance allows in total). 0 if they hold, else
 * -1 with the reason in detail. */
static int judge_sample(const optest_case_t *c, const optest_tensor_t *t,
                        const unsigned char *got, char *detail, size_t size) {
  size_t n = numel(t), elem = bp_ops_dtype_size(t->dtype);
  const optest_sample_t *smp = &t->sample;
  unsigned char *picked = malloc(smp->count * elem + 1);
  if (!picked) {
    snprintf(detail, size, "%s: out of memory", t->role);
    return -1;
  }
  for (uint64_t k = 0; k < smp->count && n; k++)
    memcpy(picked + k * elem,
           got + optest_sample_position(smp->seed, k, n) * elem, elem);
  optest_mismatch_t m;
  optest_compare(t->dtype, t->expected, picked, n ? (size_t)smp->count : 0,
                 c->atol, c->rtol, &m);
  free(picked);
  if (m.count) {
    snprintf(detail, size,
             "%s: %zu/%llu sampled mismatches, first (sample %zu): expected "
             "%.6g, got %.6g",
             t->role, m.count, (unsigned long long)smp->count, m.first,
             m.expected, m.actual);
    return -1;
  }
  double sum, abs_sum;
  optest_sums(t->dtype, got, n, &sum, &abs_sum);
  double allowed = c->atol * (double)n + c->rtol * smp->abs_sum;
  bool sum_ok = (isnan(sum) && isnan(smp->sum)) ||
                fabs(sum - smp->sum) <= allowed || sum == smp->sum;
  bool abs_ok = (isnan(abs_sum) && isnan(smp->abs_sum)) ||
                fabs(abs_sum - smp->abs_sum) <= allowed ||
                abs_sum == smp->abs_sum;
  if (!sum_ok || !abs_ok) {
    snprintf(detail, size,
             "%s: sum %.9g (expected %.9g), sum of magnitudes %.9g "
             "(expected %.9g), allowed difference %.3g",
             t->role, sum, smp->sum, abs_sum, smp->abs_sum, allowed);
    return -1;
  }
  return 0;
}

/* Puts every tensor on the device: inputs and in-place tensors with their
 * data, outputs filled with 0xff bytes (NaN for floats). */
static int stage(run_env_t *env, const optest_case_t *c, staged_t *s) {
  memset(s, 0, sizeof *s);
  for (size_t i = 0; i < c->tensor_count; i++) {
    const optest_tensor_t *t = &c->tensors[i];
    size_t elem = bp_ops_dtype_size(t->dtype);
    size_t bytes =
        t->kind == OPTEST_OUTPUT ? numel(t) * elem : t->storage_bytes;
    s->bytes[i] = bytes;
    if (bp_device_malloc(env->device, bytes, &s->mem[i]) != BP_OK)
      return -1;
    const unsigned char *data0 =
        t->kind == OPTEST_OUTPUT ? NULL : initial_data(t, i, s);
    if (t->kind == OPTEST_OUTPUT)
      bp_memset(env->device, s->mem[i], 0xff, bytes, NULL);
    else if (bytes && (!data0 || bp_copy(env->device, s->mem[i], NULL, data0,
                                         bytes, NULL)))
      return -1;
    const int64_t *strides = t->kind == OPTEST_INPUT ? t->stride : NULL;
    char *data = (char *)s->mem[i] +
                 (t->kind == OPTEST_INPUT ? t->offset * (int64_t)elem : 0);
    if (bp_ops_tensor_wrap(env->device, data, t->dtype, (size_t)t->ndim,
                           t->shape, strides, &s->handles[i]) != BP_OK)
      return -1;
  }
  return 0;
}

/* Runs the op once; waits for its stream. */
static diopiError_t call_once(run_env_t *env, optest_call_t call, void *fn,
                              const optest_case_t *c, staged_t *s) {
  optest_args_t args = {c, s->handles};
  diopiError_t err = call(fn, env->ctx, &args);
  bp_stream_synchronize(env->stream);
  bp_ops_context_clear(env->ctx);
  return err;
}

static void judge(run_env_t *env, const optest_case_t *c, staged_t *s,
                  case_result_t *r) {
  unsigned char *got[OPTEST_MAX_TENSORS] = {NULL};
  for (size_t i = 0; i < c->tensor_count; i++) {
    const optest_tensor_t *t = &c->tensors[i];
    got[i] = malloc(s->bytes[i] + 1);
    if (!got[i] || (s->bytes[i] && bp_copy(NULL, got[i], env->device, s->mem[i],
                                           s->bytes[i], NULL))) {
      r->verdict = "FAIL";
      snprintf(r->detail, sizeof r->detail, "%s: cannot read back: %s", t->role,
               bp_last_error());
      goto done;
    }
    if (t->kind == OPTEST_INPUT) {
      if (memcmp(got[i], t->seeded ? s->seeded[i] : t->storage, s->bytes[i])) {
        r->verdict = "FAIL";
        snprintf(r->detail, sizeof r->detail, "input %s changed", t->role);
        goto done;
      }
    } else if (t->sampled) {
      if (judge_sample(c, t, got[i], r->detail, sizeof r->detail)) {
        r->verdict = "FAIL";
        goto done;
      }
    } else if (t->expected_bytes || !numel(t)) {
      optest_mismatch_t m;
      optest_compare(t->dtype, t->expected, got[i], numel(t), c->atol, c->rtol,
                     &m);
      if ((double)m.count > kMismatchRatio * (double)numel(t)) {
        r->verdict = "FAIL";
        snprintf(r->detail, sizeof r->detail,
                 "%s: %zu/%zu mismatches, max abs err %.3g, max rel err %.3g, "
                 "first at %zu: expected %.6g, got %.6g",
                 t->role, m.count, numel(t), m.max_abs, m.max_rel, m.first,
                 m.expected, m.actual);
        goto done;
      }
    }
  }
  if (optest_attr(c, "judge") &&
      optest_judge_rule(c, (const unsigned char *const *)got, r->detail,
                        sizeof r->detail))
    r->verdict = "FAIL";
done:
  for (size_t i = 0; i < c->tensor_count; i++)
    free(got[i]);
}

static void run_case(run_env_t *env, const optest_case_t *c, case_result_t *r) {
  memset(r, 0, sizeof *r);
  r->verdict = "PASS";
  void *fn;
  if (bp_ops_library_find(env->library, c->op, &fn) != BP_OK) {
    r->verdict = "NOIMPL";
    snprintf(r->detail, sizeof r->detail, "%s: diopiNoImplement", c->op);
    return;
  }
  optest_call_t call = optest_caller(c->op);
  if (!call) {
    r->verdict = "SKIP";
    snprintf(r->detail, sizeof r->detail, "the runner cannot call %s", c->op);
    return;
  }
  staged_t s;
  if (stage(env, c, &s)) {
    r->verdict = "SKIP";
    snprintf(r->detail, sizeof r->detail, "staging failed: %s",
             bp_last_error());
    unstage(env, c, &s);
    return;
  }
  uint64_t start = cli_now_ns();
  diopiError_t err = call_once(env, call, fn, c, &s);
  double checked_ms = (double)(cli_now_ns() - start) / 1e6;
  if (err == diopiNoImplement) {
    r->verdict = "NOIMPL";
    snprintf(r->detail, sizeof r->detail, "%s returned diopiNoImplement",
             c->op);
  } else if (err != diopiSuccess) {
    r->verdict = "FAIL";
    snprintf(r->detail, sizeof r->detail, "%s returned %s: %s", c->op,
             bp_ops_error_name(err), bp_ops_library_last_error(env->library));
  } else {
    judge(env, c, &s, r);
  }
  if (!strcmp(r->verdict, "PASS")) {
    double times[32];
    for (int k = 0; k < env->reps; k++) {
      uint64_t t0 = cli_now_ns();
      call_once(env, call, fn, c, &s);
      times[k] = (double)(cli_now_ns() - t0) / 1e6;
    }
    r->ms = env->reps ? cli_median(times, (size_t)env->reps) : checked_ms;
    if (c->flops) {
      r->rate = (double)c->flops / (r->ms * 1e6);
      r->rate_unit = "GFLOP/s";
    } else if (c->bytes) {
      r->rate = (double)c->bytes / (r->ms * 1e6);
      r->rate_unit = "GB/s";
    }
  }
  unstage(env, c, &s);
}

/* A known failure's verdict: XFAIL when it fails as listed, XPASS when it
 * passes (the list is stale: a failure of the run). */
static void apply_known(const run_env_t *env, const optest_case_t *c,
                        case_result_t *r) {
  const char *reason = optest_known_reason(&env->known, c->name);
  if (!reason)
    return;
  if (!strcmp(r->verdict, "FAIL")) {
    char failure[sizeof r->detail];
    snprintf(failure, sizeof failure, "%s", r->detail);
    r->verdict = "XFAIL";
    snprintf(r->detail, sizeof r->detail, "known: %.160s (%.300s)", reason,
             failure);
  } else if (!strcmp(r->verdict, "PASS")) {
    r->verdict = "XPASS";
    snprintf(r->detail, sizeof r->detail,
             "passes, yet %s lists it as failing: %.400s",
             OPTEST_KNOWN_FAILURES_FILE, reason);
  }
}

typedef struct op_summary {
  const char *op;
  size_t pass, fail, xfail, xpass, noimpl, skip;
} op_summary_t;

static void count(op_summary_t *ops, size_t *n, const char *op,
                  const char *verdict) {
  size_t i = 0;
  while (i < *n && strcmp(ops[i].op, op))
    i++;
  if (i == *n)
    ops[(*n)++] = (op_summary_t){.op = op};
  ops[i].pass += !strcmp(verdict, "PASS");
  ops[i].fail += !strcmp(verdict, "FAIL");
  ops[i].xfail += !strcmp(verdict, "XFAIL");
  ops[i].xpass += !strcmp(verdict, "XPASS");
  ops[i].noimpl += !strcmp(verdict, "NOIMPL");
  ops[i].skip += !strcmp(verdict, "SKIP");
}

static size_t cases_of(const op_summary_t *s) {
  return s->pass + s->fail + s->xfail + s->xpass + s->noimpl + s->skip;
}

/* Whether --filter and --exclude keep case `c`. */
static bool selected(const optest_case_t *c, const optest_request_t *req) {
  return (!req->filter || strstr(c->name, req->filter) ||
          strstr(c->op, req->filter)) &&
         !(req->exclude && strstr(c->name, req->exclude));
}

/* How many cases --filter and --exclude keep. */
static size_t count_selected(const optest_suite_t *suite,
                             const optest_request_t *req) {
  size_t n = 0;
  for (size_t i = 0; i < suite->count; i++)
    n += selected(&suite->cases[i], req);
  return n;
}

static int run_suite(run_env_t *env, const optest_suite_t *suite,
                     const optest_request_t *req, int json) {
  op_summary_t *ops = calloc(suite->count + 1, sizeof *ops);
  json_t *cases = json ? json_array() : NULL;
  size_t n_ops = 0, failed = 0;
  for (size_t i = 0; i < suite->count; i++) {
    const optest_case_t *c = &suite->cases[i];
    if (!selected(c, req))
      continue;
    case_result_t r;
    run_case(env, c, &r);
    apply_known(env, c, &r);
    count(ops, &n_ops, c->op, r.verdict);
    failed += !strcmp(r.verdict, "FAIL") || !strcmp(r.verdict, "XPASS");
    if (json) {
      json_array_append_new(
          cases, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:s}", "case",
                           c->name, "op", c->op, "result", r.verdict, "detail",
                           r.detail, "median_ms", r.ms, "rate", r.rate,
                           "rate_unit", r.rate_unit ? r.rate_unit : ""));
    } else if (r.rate_unit) {
      fprintf(cli_out(), "%-6s %-44s %9.4f ms %9.2f %s\n", r.verdict, c->name,
              r.ms, r.rate, r.rate_unit);
    } else if (!strcmp(r.verdict, "PASS")) {
      fprintf(cli_out(), "%-6s %-44s %9.4f ms\n", r.verdict, c->name, r.ms);
    } else {
      fprintf(cli_out(), "%-6s %-44s %s\n", r.verdict, c->name, r.detail);
    }
  }
  op_summary_t total = {.op = "total"};
  for (size_t i = 0; i < n_ops; i++) {
    total.pass += ops[i].pass;
    total.fail += ops[i].fail;
    total.xfail += ops[i].xfail;
    total.xpass += ops[i].xpass;
    total.noimpl += ops[i].noimpl;
    total.skip += ops[i].skip;
  }
  if (json) {
    json_t *summary = json_array();
    for (size_t i = 0; i < n_ops; i++)
      json_array_append_new(
          summary,
          json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "op", ops[i].op,
                    "pass", (json_int_t)ops[i].pass, "fail",
                    (json_int_t)ops[i].fail, "xfail", (json_int_t)ops[i].xfail,
                    "xpass", (json_int_t)ops[i].xpass, "noimpl",
                    (json_int_t)ops[i].noimpl, "skip",
                    (json_int_t)ops[i].skip));
    cli_json_print(json_pack(
        "{s:s, s:s, s:s, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}}",
        "library", bp_ops_library_path(env->library), "library_style",
        bp_ops_impl_style_name(bp_ops_library_impl_style(env->library)),
        "device", bp_device_name(env->device), "cases", cases, "summary",
        summary, "total", "pass", (json_int_t)total.pass, "fail",
        (json_int_t)total.fail, "xfail", (json_int_t)total.xfail, "xpass",
        (json_int_t)total.xpass, "noimpl", (json_int_t)total.noimpl, "skip",
        (json_int_t)total.skip));
  } else {
    fprintf(cli_out(), "\n%-32s %6s %6s %6s %6s %6s %6s\n", "op", "pass",
            "fail", "xfail", "xpass", "noimpl", "skip");
    for (size_t i = 0; i <= n_ops; i++) {
      const op_summary_t *o = i < n_ops ? &ops[i] : &total;
      fprintf(cli_out(), "%-32s %6zu %6zu %6zu %6zu %6zu %6zu\n", o->op,
              o->pass, o->fail, o->xfail, o->xpass, o->noimpl, o->skip);
    }
    fprintf(cli_out(), "%zu of %zu cases pass\n", total.pass, cases_of(&total));
    if (total.xfail)
      fprintf(cli_out(), "%zu known failures (XFAIL, listed in %s)\n",
              total.xfail, OPTEST_KNOWN_FAILURES_FILE);
  }
  free(ops);
  return failed ? 1 : 0;
}

/* "TYPE:N" (":N" optional) into type and *index. */
static void parse_device(const char *device, char *type, size_t size,
                         size_t *index) {
  const char *colon = strchr(device, ':');
  snprintf(type, size, "%.*s",
           (int)(colon ? (size_t)(colon - device) : strlen(device)), device);
  *index = colon ? strtoul(colon + 1, NULL, 10) : 0;
}

int cmd_optest(int argc, char **argv) {
  optest_request_t req = {0};
  if (take_own_options(&argc, argv, &req))
    return 2;
  cli_options_t options;
  if (cli_options_parse("optest", argc, argv, CLI_OPT_QUICK, &options))
    return 2;
  char default_ops[PATH_MAX], default_data[PATH_MAX], type[64];
  size_t index = 0;
  cli_path_reference_ops(default_ops, sizeof default_ops);
  snprintf(default_data, sizeof default_data, "%s", BP_OPS_DATA_DIR);
  run_env_t env = {.reps = options.quick ? 0 : 5};
  bp_runtime_t *runtime = NULL;
  optest_suite_t suite = {0};
  int code = 1;
  /* Without --ops, the library follows the device: the one its plugin
   * names, else the reference library. */
  if (!req.ops && req.device) {
    bp_runtime_options_t plain = {.struct_size = sizeof plain,
                                  .plugin_path = options.plugin_path};
    if (bp_runtime_create(&plain, &runtime) != BP_OK) {
      fprintf(stderr, "backplane optest: cannot create the runtime: %s\n",
              bp_last_error());
      goto done;
    }
    parse_device(req.device, type, sizeof type, &index);
    bp_device_t *device;
    const char *named = bp_device_get(runtime, type, index, &device) == BP_OK
                            ? bp_ops_library_for_device(device)
                            : NULL;
    if (named)
      snprintf(default_ops, sizeof default_ops, "%s", named);
  }
  if (bp_ops_library_open(req.ops ? req.ops : default_ops, &env.library)) {
    fprintf(stderr, "backplane optest: %s\n", bp_last_error());
    goto done;
  }
  const char *data = req.data ? req.data : default_data;
  if (optest_suite_load(data, &suite) || optest_known_load(data, &env.known))
    goto done;
  /* A filter that keeps nothing is a mistyped op, not a pass. */
  if (count_selected(&suite, &req) == 0) {
    fprintf(
        stderr,
        "backplane optest: none of the %zu cases in %s is left by%s%s%s%s%s%s "
        "(--filter matches a case's name or op, e.g. 'add' or "
        "'diopi/conv2d/')\n",
        suite.count, data, req.filter ? " --filter '" : "",
        req.filter ? req.filter : "", req.filter ? "'" : "",
        req.exclude ? " --exclude '" : "", req.exclude ? req.exclude : "",
        req.exclude ? "'" : "");
    code = 2;
    goto done;
  }
  /* A DIOPI-IMPL library brings its own device: the adapter, loaded in
   * process beside the plugin files, and the default device. */
  bp_in_process_plugin_t adapter;
  bp_ops_impl_style_t style = bp_ops_library_impl_style(env.library);
  bool has_adapter = bp_ops_library_adapter(env.library, &adapter) == BP_OK;
  bp_runtime_options_t runtime_options = {
      .struct_size = sizeof runtime_options,
      .plugin_path = options.plugin_path,
      .in_process_plugins = has_adapter ? &adapter : NULL,
      .in_process_plugin_count = has_adapter ? 1 : 0,
  };
  if (!runtime && bp_runtime_create(&runtime_options, &runtime) != BP_OK) {
    fprintf(stderr, "backplane optest: cannot create the runtime: %s\n",
            bp_last_error());
    goto done;
  }
  const char *device =
      req.device ? req.device
                 : (has_adapter ? BP_OPS_IMPL_DEVICE_TYPE ":0" : "vcpu:0");
  parse_device(device, type, sizeof type, &index);
  if (bp_device_get(runtime, type, index, &env.device) != BP_OK ||
      bp_stream_create(env.device, &env.stream) != BP_OK ||
      bp_ops_context_create(env.device, env.stream, &env.ctx) != BP_OK) {
    fprintf(stderr, "backplane optest: device %s: %s\n", device,
            bp_last_error());
    goto done;
  }
  if (!options.json) {
    fprintf(cli_out(), "op library %s (%s) on %s\n",
            bp_ops_library_path(env.library),
            bp_ops_library_vendor(env.library), device);
    if (!strcmp(bp_device_type(env.device), BP_OPS_IMPL_DEVICE_TYPE))
      fprintf(cli_out(), "device: diopi-impl adapter (%s)\n",
              bp_ops_impl_style_name(style));
  }
  code = run_suite(&env, &suite, &req, options.json);
done:
  bp_ops_context_destroy(env.ctx);
  bp_stream_destroy(env.stream);
  bp_runtime_destroy(runtime);
  bp_ops_library_close(env.library);
  optest_suite_release(&suite);
  optest_known_release(&env.known);
  cli_options_release(&options);
  return code;
}
