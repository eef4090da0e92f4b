/* The gradient of cdist for input1 (DIOPI's diopiCdistBackward; input2's
 * is the same op with the inputs and the distances' last two dims
 * swapped), as PyTorch's CPU kernel computes it per p: 0 gives zeros, 1
 * sign(diff), 2 diff / dist, inf the sign of the coordinates that reach
 * the distance, others |diff|^(p-1) sign(diff) / dist^(p-1); a zero
 * distance gives zero. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_cdist.h"
#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct cdist_grad_task {
  ref_view_t grad_input, grad_output, x1, x2, dist;
  ref_cdist_batch_t batch; /* grad_output's and dist's batch dims */
  int64_t p_rows, r_rows, m;
  double p;
  bool f32; /* differences rounded to float32, as the distances were */
} cdist_grad_task_t;

static double sign(double v) {
  return (double)((v > 0) - (v < 0));
}

/* d dist / d x1 for one coordinate difference and the pair's distance. */
static double slope(double p, double diff, double dist) {
  if (p == 0)
    return 0;
  if (p == 1)
    return sign(diff);
  if (isinf(p))
    return fabs(diff) == dist ? sign(diff) : 0;
  if (dist == 0 || (diff == 0 && p < 1))
    return 0;
  if (p == 2)
    return diff / dist;
  return sign(diff) * pow(fabs(diff), p - 1) / pow(dist, p - 1);
}

/* grad_input elements [begin, end) of input1's [B1, P, M]: each sums over
 * the broadcast batches b that read its batch b1. */
static void grad_range(void *context, int64_t begin, int64_t end) {
  const cdist_grad_task_t *t = context;
  for (int64_t o = begin; o < end; o++) {
    int64_t c = o % t->m, i = o / t->m % t->p_rows, b1 = o / t->m / t->p_rows;
    double x = ref_get(&t->x1, o), acc = 0;
    for (int64_t b = 0; b < t->batch.count; b++) {
      if (ref_cdist_batch_of(&t->batch, &t->x1, b) != b1)
        continue;
      int64_t b2 = ref_cdist_batch_of(&t->batch, &t->x2, b);
      for (int64_t j = 0; j < t->r_rows; j++) {
        int64_t pair = (b * t->p_rows + i) * t->r_rows + j;
        double diff = x - ref_get(&t->x2, (b2 * t->r_rows + j) * t->m + c);
        if (t->f32) /* p = inf compares |diff| with the distance exactly */
          diff = (float)diff;
        acc += ref_get(&t->grad_output, pair) *
               slope(t->p, diff, ref_get(&t->dist, pair));
      }
    }
    ref_set(&t->grad_input, o, acc);
  }
}

static void run(void *args) {
  cdist_grad_task_t *t = args;
  ref_parallel_for(t->grad_input.numel, (1 << 12) / (t->r_rows + 1) + 1,
                   grad_range, t);
}

/* input1 [..., P, M], input2 [..., R, M], their batch dims broadcast
 * (ref_cdist.h); grad_output and cdist [broadcast batch, P, R]; grad_input
 * input1's shape. */
REF_EXPORT diopiError_t diopiCdistBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input1,
    diopiConstTensorHandle_t input2, double p, diopiConstTensorHandle_t cdist) {
  const char *op = "diopiCdistBackward";
  cdist_grad_task_t t;
  memset(&t, 0, sizeof t);
  t.p = p;
  const ref_arg_t args[] = {{"grad_input", grad_input, &t.grad_input, NULL},
                            {"grad_output", grad_output, &t.grad_output, NULL},
                            {"input1", input1, &t.x1, NULL},
                            {"input2", input2, &t.x2, NULL},
                            {"cdist", cdist, &t.dist, NULL}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (err)
    return err;
  t.f32 = t.x1.dtype == diopi_dtype_float32;
  int nd = 0;
  int64_t shape[REF_MAX_DIMS];
  if ((err = ref_cdist_shape(op, &t.x1, &t.x2, p, &t.batch, shape, &nd)))
    return err;
  t.p_rows = t.x1.shape[t.x1.ndim - 2];
  t.r_rows = t.x2.shape[t.x2.ndim - 2];
  t.m = t.x1.shape[t.x1.ndim - 1];
  if ((err = ref_expect_shape(op, "grad_output", &t.grad_output, shape, nd)) ||
      (err = ref_expect_shape(op, "cdist", &t.dist, shape, nd)) ||
      (err = ref_expect_shape(op, "grad_input", &t.grad_input, t.x1.shape,
                              t.x1.ndim)))
    return err;
  return t.grad_input.numel ? ref_enqueue(ctx, op, run, &t, sizeof t)
                            : diopiSuccess;
}
