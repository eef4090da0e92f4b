/* Random sampling from the context's generator: randperm (Fisher-Yates
 * over 0..n-1) and multinomial (indices drawn by each row's weights, with
 * or without replacement). Serial tasks: draw k of a call is the call's
 * reservation's k, so runs repeat exactly per generator state. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_rng.h"
#include "ref_scratch.h"
#include "ref_tensor.h"

typedef struct sample_task {
  ref_view_t out, in; /* in: multinomial's weights, rows x categories */
  int64_t n, samples, rows, categories;
  bool replacement, perm;
  uint64_t seed, offset;
  double *weights; /* scratch: one row's remaining weights */
} sample_task_t;

enum { SPAN = 256, AHEAD = 16 }; /* draws per block; swaps prefetched */

/* The same swaps into contiguous int64 out: each block's positions j drawn
 * first, so that the element of the swap AHEAD later is prefetched (they
 * land anywhere in a table larger than the caches). */
static void randperm_i64(const sample_task_t *t) {
  int64_t *out = (int64_t *)t->out.data;
  for (int64_t i = 0; i < t->n; i++)
    out[i] = i;
  double u[SPAN];
  int64_t j[SPAN];
  for (int64_t i = t->n - 1; i > 0;) {
    int64_t n = i < SPAN ? i : SPAN; /* swaps at i, i - 1, ..., i - n + 1 */
    ref_rng_uniforms(t->seed, t->offset + (uint64_t)(t->n - 1 - i), n, u);
    for (int64_t m = 0; m < n; m++)
      j[m] = (int64_t)(u[m] * (double)(i - m + 1));
    for (int64_t m = 0; m < n; m++, i--) {
      if (m + AHEAD < n)
        __builtin_prefetch(&out[j[m + AHEAD]], 1);
      int64_t a = out[i];
      out[i] = out[j[m]];
      out[j[m]] = a;
    }
  }
}

static void run_randperm(const sample_task_t *t) {
  if (ref_contiguous(&t->out) && t->out.dtype == diopi_dtype_int64) {
    randperm_i64(t);
    return;
  }
  for (int64_t i = 0; i < t->n; i++)
    ref_set(&t->out, i, (double)i);
  for (int64_t i = t->n - 1; i > 0; i--) {
    uint64_t k = t->offset + (uint64_t)(t->n - 1 - i);
    int64_t j = (int64_t)(ref_rng_uniform(t->seed, k) * (double)(i + 1));
    double a = ref_get(&t->out, i), b = ref_get(&t->out, j);
    ref_set(&t->out, i, b);
    ref_set(&t->out, j, a);
  }
}

/* Row r's sample s: the first category whose running weight passes
 * u * total. Without replacement, a drawn category's weight drops to 0. */
static void run_multinomial(const sample_task_t *t) {
  uint64_t k = t->offset;
  for (int64_t r = 0; r < t->rows; r++) {
    double total = 0;
    for (int64_t c = 0; c < t->categories; c++) {
      t->weights[c] = ref_get(&t->in, r * t->categories + c);
      total += t->weights[c];
    }
    for (int64_t s = 0; s < t->samples; s++) {
      double target = ref_rng_uniform(t->seed, k++) * total, run = 0;
      int64_t pick = -1;
      for (int64_t c = 0; c < t->categories; c++) {
        if (t->weights[c] <= 0)
          continue;
        pick = c; /* the last positive one, should rounding miss */
        run += t->weights[c];
        if (run > target)
          break;
      }
      ref_set(&t->out, r * t->samples + s, (double)pick);
      if (!t->replacement && pick >= 0) {
        total -= t->weights[pick];
        t->weights[pick] = 0;
      }
    }
  }
}

static void run(void *args) {
  sample_task_t *t = args;
  if (t->perm)
    run_randperm(t);
  else
    run_multinomial(t);
}

REF_EXPORT diopiError_t diopiRandperm(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out, int64_t n,
                                      diopiGeneratorHandle_t generator) {
  const char *op = "diopiRandperm";
  sample_task_t t;
  memset(&t, 0, sizeof t);
  t.perm = true;
  t.n = n;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err && n < 0)
    err = ref_fail(op, "n: expected >= 0, got %lld", (long long)n);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, &t.n, 1);
  if (!err)
    err = ref_rng_reserve(op, generator, (uint64_t)n, &t.seed, &t.offset);
  if (err || n == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

/* input: 1 or 2 dims of non-negative weights (rows need not sum to 1);
 * out: input's rows x num_samples, integer. Without replacement,
 * num_samples must not exceed the categories. The weights are device
 * data: a row without a positive weight yields -1. */
REF_EXPORT diopiError_t diopiMultinomial(diopiContextHandle_t ctx,
                                         diopiTensorHandle_t out,
                                         diopiConstTensorHandle_t input,
                                         int64_t num_samples, bool replacement,
                                         diopiGeneratorHandle_t generator) {
  const char *op = "diopiMultinomial";
  sample_task_t t;
  memset(&t, 0, sizeof t);
  t.samples = num_samples;
  t.replacement = replacement;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.in);
  if (!err && (t.in.ndim < 1 || t.in.ndim > 2))
    err = ref_fail(op, "input: expected 1 or 2 dims, got %d", t.in.ndim);
  if (err)
    return err;
  t.categories = t.in.shape[t.in.ndim - 1];
  t.rows = t.in.ndim == 2 ? t.in.shape[0] : 1;
  if (num_samples <= 0)
    return ref_fail(op, "num_samples: expected > 0, got %lld",
                    (long long)num_samples);
  if (!replacement && num_samples > t.categories)
    return ref_fail(op,
                    "num_samples: %lld without replacement from %lld "
                    "categories",
                    (long long)num_samples, (long long)t.categories);
  if (ref_is_floating(t.out.dtype))
    return ref_fail(op, "out: expected an integer dtype, got dtype %d",
                    (int)t.out.dtype);
  int64_t shape[2] = {t.rows, num_samples};
  err = t.in.ndim == 2 ? ref_expect_shape(op, "out", &t.out, shape, 2)
                       : ref_expect_shape(op, "out", &t.out, shape + 1, 1);
  if (!err)
    err = ref_scratch(ctx, op, (size_t)t.categories * sizeof(double),
                      (void **)&t.weights);
  if (!err)
    err = ref_rng_reserve(op, generator, (uint64_t)(t.rows * num_samples),
                          &t.seed, &t.offset);
  if (err || t.rows == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
