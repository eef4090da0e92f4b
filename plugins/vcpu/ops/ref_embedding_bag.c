/* embedding_bag and its dense backward, as PyTorch's _embedding_bag: bag
 * b gathers the rows weight[indices[i]] for i in [offsets[b], offsets[b +
 * 1]) (the last bag ends at indices' end; with include_last_offset,
 * offsets holds one more entry, the last bag's end), skipping indices
 * equal to padding_idx (-1: none), and reduces them: sum (each row times
 * per_sample_weights[i] when given), mean (an empty bag gives 0) or max
 * (elementwise, the first of equal values; an empty bag gives 0). Beside
 * out [B, D] it writes what the backward reads: offset2bag [L] (each
 * index's bag), bag_size [B] (the rows each bag reduced) and, for max,
 * max_indices [B, D] (the weight row each maximum came from; 0 in an empty
 * bag, as PyTorch's). The gradient of per_sample_weights is, for index i,
 * grad_output[offset2bag[i]] . weight[indices[i]] (0 for padding_idx).
 * Index and offset values are checked on the stream.
 * Any floating dtypes and strides; computed in double, one task. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_scratch.h"
#include "ref_tensor.h"

enum { MODE_SUM, MODE_MEAN, MODE_MAX };

typedef struct bag_task {
  const char *op;
  ref_view_t out, offset2bag, bag_size, max_indices; /* forward outputs */
  ref_view_t grad_weight, grad;                      /* backward */
  ref_view_t grad_psw; /* with psw_backward: grad_weight unused */
  ref_view_t weight, indices, offsets, psw;
  bool has_psw, has_max_indices, backward, psw_backward, scale_grad_by_freq;
  int64_t mode, padding_idx, rows, dim, bags, length;
  int64_t *counts; /* backward with scale_grad_by_freq: rows of scratch */
} bag_task_t;

/* Bag b's end: the next offset, or the indices' end after the last. */
static int64_t bag_end(const bag_task_t *t, int64_t b) {
  return b + 1 < t->offsets.numel ? ref_get_int(&t->offsets, b + 1) : t->length;
}

static void run_forward(const bag_task_t *t) {
  for (int64_t b = 0; b < t->bags; b++) {
    int64_t begin = ref_get_int(&t->offsets, b), end = bag_end(t, b), n = 0;
    for (int64_t d = 0; d < t->dim; d++) {
      ref_set(&t->out, b * t->dim + d, 0);
      if (t->has_max_indices)
        ref_set_int(&t->max_indices, b * t->dim + d, 0);
    }
    for (int64_t i = begin; i < end; i++) {
      int64_t row = ref_get_int(&t->indices, i);
      ref_set_int(&t->offset2bag, i, b);
      if (row == t->padding_idx)
        continue;
      double scale = t->has_psw ? ref_get(&t->psw, i) : 1;
      for (int64_t d = 0; d < t->dim; d++) {
        double w = ref_get(&t->weight, row * t->dim + d);
        double o = ref_get(&t->out, b * t->dim + d);
        if (t->mode != MODE_MAX)
          ref_set(&t->out, b * t->dim + d, o + w * scale);
        else if (n == 0 || w > o) {
          ref_set(&t->out, b * t->dim + d, w);
          ref_set_int(&t->max_indices, b * t->dim + d, row);
        }
      }
      n++;
    }
    ref_set_int(&t->bag_size, b, n);
    for (int64_t d = 0; t->mode == MODE_MEAN && n > 0 && d < t->dim; d++)
      ref_set(&t->out, b * t->dim + d,
              ref_get(&t->out, b * t->dim + d) / (double)n);
  }
}

static void add_row(const bag_task_t *t, int64_t row, int64_t b, double scale) {
  for (int64_t d = 0; d < t->dim; d++) {
    int64_t at = row * t->dim + d;
    ref_set(&t->grad_weight, at,
            ref_get(&t->grad_weight, at) +
                ref_get(&t->grad, b * t->dim + d) * scale);
  }
}

static void run_backward(const bag_task_t *t) {
  for (int64_t k = 0; k < t->grad_weight.numel; k++)
    ref_set(&t->grad_weight, k, 0);
  if (t->mode == MODE_MAX) {
    for (int64_t b = 0; b < t->bags; b++)
      for (int64_t d = 0; ref_get_int(&t->bag_size, b) > 0 && d < t->dim; d++) {
        int64_t at = ref_get_int(&t->max_indices, b * t->dim + d) * t->dim + d;
        ref_set(&t->grad_weight, at,
                ref_get(&t->grad_weight, at) +
                    ref_get(&t->grad, b * t->dim + d));
      }
    return;
  }
  if (t->scale_grad_by_freq) {
    memset(t->counts, 0, (size_t)t->rows * sizeof *t->counts);
    for (int64_t i = 0; i < t->length; i++)
      t->counts[ref_get_int(&t->indices, i)]++;
  }
  for (int64_t i = 0; i < t->length; i++) {
    int64_t row = ref_get_int(&t->indices, i);
    if (row == t->padding_idx)
      continue;
    int64_t b = ref_get_int(&t->offset2bag, i);
    double scale = t->has_psw ? ref_get(&t->psw, i) : 1;
    if (t->mode == MODE_MEAN)
      scale /= (double)ref_get_int(&t->bag_size, b);
    if (t->scale_grad_by_freq)
      scale /= (double)t->counts[row];
    add_row(t, row, b, scale);
  }
}

static void run_psw_backward(const bag_task_t *t) {
  for (int64_t i = 0; i < t->length; i++) {
    int64_t row = ref_get_int(&t->indices, i),
            b = ref_get_int(&t->offset2bag, i);
    double dot = 0;
    for (int64_t d = 0; row != t->padding_idx && d < t->dim; d++)
      dot += ref_get(&t->grad, b * t->dim + d) *
             ref_get(&t->weight, row * t->dim + d);
    ref_set(&t->grad_psw, i, dot);
  }
}

static void run(void *args) {
  const bag_task_t *t = args;
  if (t->psw_backward)
    run_psw_backward(t);
  else if (t->backward)
    run_backward(t);
  else
    run_forward(t);
}

/* On the stream: indices below the weight's rows; offsets starting at 0,
 * nondecreasing, within the indices (forward only). */
static diopiError_t check_values(const void *args) {
  const bag_task_t *t = args;
  diopiError_t err = ref_expect_indices_below(t->op, "indices", &t->indices,
                                              t->rows, false, 0);
  for (int64_t b = 0; !err && !t->backward && b < t->offsets.numel; b++) {
    int64_t at = ref_get_int(&t->offsets, b),
            before = b ? ref_get_int(&t->offsets, b - 1) : 0;
    if ((b == 0 && at != 0) || at < before || at > t->length)
      err = ref_fail(t->op,
                     "offsets: expected 0 first, then nondecreasing up to "
                     "%lld, got %lld at %lld",
                     (long long)t->length, (long long)at, (long long)b);
  }
  return err;
}

static diopiError_t check_common(const char *op, bag_task_t *t) {
  if (t->mode < MODE_SUM || t->mode > MODE_MAX)
    return ref_fail(op, "mode: expected 0 (sum), 1 (mean) or 2 (max), got %lld",
                    (long long)t->mode);
  if (t->has_psw && t->mode != MODE_SUM)
    return ref_fail(op,
                    "per_sample_weights: expected only with mode 0 (sum), "
                    "got mode %lld",
                    (long long)t->mode);
  if (t->indices.ndim != 1)
    return ref_fail(op, "indices: expected 1 dim, got %d", t->indices.ndim);
  if (!ref_is_integral(t->indices.dtype))
    return ref_fail(op, "indices: expected an integer dtype, got dtype %d",
                    (int)t->indices.dtype);
  t->length = t->indices.numel;
  if (t->has_psw)
    return ref_expect_shape(op, "per_sample_weights", &t->psw, &t->length, 1);
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiEmbeddingBag(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiTensorHandle_t offset2bag, diopiTensorHandle_t bag_size,
    diopiTensorHandle_t max_indices, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t indices, diopiConstTensorHandle_t offsets,
    int64_t mode, diopiConstTensorHandle_t per_sample_weights,
    bool include_last_offset, int64_t padding_idx) {
  const char *op = "diopiEmbeddingBag";
  bag_task_t t;
  memset(&t, 0, sizeof t);
  t.op = op;
  t.mode = mode;
  t.padding_idx = padding_idx;
  ref_arg_t args[] = {
      {"out", out, &t.out, NULL},
      {"offset2bag", offset2bag, &t.offset2bag, NULL},
      {"bag_size", bag_size, &t.bag_size, NULL},
      {"max_indices", max_indices, &t.max_indices, &t.has_max_indices},
      {"weight", weight, &t.weight, NULL},
      {"indices", indices, &t.indices, NULL},
      {"offsets", offsets, &t.offsets, NULL},
      {"per_sample_weights", per_sample_weights, &t.psw, &t.has_psw},
  };
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err = check_common(op, &t);
  if (err)
    return err;
  if (t.weight.ndim != 2)
    return ref_fail(op, "weight: expected 2 dims, got %d", t.weight.ndim);
  if (t.offsets.ndim != 1)
    return ref_fail(op, "offsets: expected 1 dim, got %d", t.offsets.ndim);
  if (mode == MODE_MAX && !t.has_max_indices)
    return ref_fail(op, "max_indices: expected a tensor with mode 2 (max), "
                        "got NULL");
  t.rows = t.weight.shape[0];
  t.dim = t.weight.shape[1];
  t.bags = t.offsets.numel - (include_last_offset ? 1 : 0);
  if (t.bags < 0)
    return ref_fail(op, "offsets: expected at least 1 entry with "
                        "include_last_offset, got 0");
  int64_t out_shape[2] = {t.bags, t.dim};
  if ((err = ref_expect_shape(op, "out", &t.out, out_shape, 2)) ||
      (err = ref_expect_kind(op, "out", &t.out, REF_OUT_FLOATING)) ||
      (err = ref_expect_shape(op, "offset2bag", &t.offset2bag, &t.length, 1)) ||
      (err = ref_expect_shape(op, "bag_size", &t.bag_size, &t.bags, 1)) ||
      (t.has_max_indices &&
       (err =
            ref_expect_shape(op, "max_indices", &t.max_indices, out_shape, 2))))
    return err;
  if (t.bags == 0)
    return diopiSuccess;
  return ref_enqueue_checked(ctx, op, check_values, run, &t, sizeof t);
}

/* A backward's (rows, dim) table `table` (named `name`) and grad_output's
 * (bags, dim): both 2-D, agreeing on dim; sets t's rows, dim and bags. */
static diopiError_t grad_shapes(const char *op, bag_task_t *t,
                                const ref_view_t *table, const char *name) {
  if (table->ndim != 2 || t->grad.ndim != 2)
    return ref_fail(op, "%s, grad_output: expected 2 dims each, got %d and %d",
                    name, table->ndim, t->grad.ndim);
  t->rows = table->shape[0];
  t->dim = table->shape[1];
  t->bags = t->grad.shape[0];
  int64_t grad_shape[2] = {t->bags, t->dim};
  return ref_expect_shape(op, "grad_output", &t->grad, grad_shape, 2);
}

REF_EXPORT diopiError_t diopiEmbeddingBagBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_weight,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t indices,
    diopiConstTensorHandle_t offset2bag, diopiConstTensorHandle_t bag_size,
    diopiConstTensorHandle_t max_indices, int64_t mode,
    diopiConstTensorHandle_t per_sample_weights, bool scale_grad_by_freq,
    int64_t padding_idx) {
  const char *op = "diopiEmbeddingBagBackward";
  bag_task_t t;
  memset(&t, 0, sizeof t);
  t.op = op;
  t.backward = true;
  t.mode = mode;
  t.padding_idx = padding_idx;
  t.scale_grad_by_freq = scale_grad_by_freq;
  ref_arg_t args[] = {
      {"grad_weight", grad_weight, &t.grad_weight, NULL},
      {"grad_output", grad_output, &t.grad, NULL},
      {"indices", indices, &t.indices, NULL},
      {"offset2bag", offset2bag, &t.offset2bag, NULL},
      {"bag_size", bag_size, &t.bag_size, NULL},
      {"max_indices", max_indices, &t.max_indices, &t.has_max_indices},
      {"per_sample_weights", per_sample_weights, &t.psw, &t.has_psw},
  };
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err = check_common(op, &t);
  if (err)
    return err;
  if ((err = grad_shapes(op, &t, &t.grad_weight, "grad_weight")))
    return err;
  int64_t grad_shape[2] = {t.bags, t.dim};
  if ((err = ref_expect_kind(op, "grad_weight", &t.grad_weight,
                             REF_OUT_FLOATING)) ||
      (err = ref_expect_shape(op, "offset2bag", &t.offset2bag, &t.length, 1)) ||
      (err = ref_expect_shape(op, "bag_size", &t.bag_size, &t.bags, 1)))
    return err;
  if (mode == MODE_MAX &&
      (!t.has_max_indices ||
       (err = ref_expect_shape(op, "max_indices", &t.max_indices, grad_shape,
                               2))))
    return err ? err
               : ref_fail(op, "max_indices: expected a tensor with mode 2 "
                              "(max), got NULL");
  if (t.grad_weight.numel == 0)
    return diopiSuccess;
  if (scale_grad_by_freq && mode != MODE_MAX &&
      (err = ref_scratch(ctx, op, (size_t)t.rows * sizeof(int64_t),
                         (void **)&t.counts)))
    return err;
  return ref_enqueue_checked(ctx, op, check_values, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiEmbeddingBagPerSampleWeightsBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_per_sample_weights,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t indices, diopiConstTensorHandle_t offset2bag,
    int64_t padding_idx) {
  const char *op = "diopiEmbeddingBagPerSampleWeightsBackward";
  bag_task_t t;
  memset(&t, 0, sizeof t);
  t.op = op;
  t.backward = t.psw_backward = true;
  t.padding_idx = padding_idx;
  ref_arg_t args[] = {
      {"grad_per_sample_weights", grad_per_sample_weights, &t.grad_psw, NULL},
      {"grad_output", grad_output, &t.grad, NULL},
      {"weight", weight, &t.weight, NULL},
      {"indices", indices, &t.indices, NULL},
      {"offset2bag", offset2bag, &t.offset2bag, NULL},
  };
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err = check_common(op, &t);
  if (err)
    return err;
  if ((err = grad_shapes(op, &t, &t.weight, "weight")) ||
      (err = ref_expect_shape(op, "grad_per_sample_weights", &t.grad_psw,
                              &t.length, 1)) ||
      (err = ref_expect_kind(op, "grad_per_sample_weights", &t.grad_psw,
                             REF_OUT_FLOATING)) ||
      (err = ref_expect_shape(op, "offset2bag", &t.offset2bag, &t.length, 1)))
    return err;
  if (t.length == 0)
    return diopiSuccess;
  return ref_enqueue_checked(ctx, op, check_values, run, &t, sizeof t);
}
