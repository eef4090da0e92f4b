/* The elementwise engine's task. */
#include "ref_elementwise.h"

#include <string.h>

#include "ref_enqueue.h"
#include "ref_pool.h"

enum { GRAIN = 1 << 15 };

static void run_f32(void *context, int64_t begin, int64_t end) {
  const ref_ew_t *ew = context;
  const float *in[REF_EW_MAX_IN];
  for (int k = 0; k < ew->nin; k++)
    in[k] = (const float *)ew->in[k].data + begin;
  ew->f32((float *)ew->out.data + begin, in, end - begin, ew->params);
}

static void run_generic(void *context, int64_t begin, int64_t end) {
  const ref_ew_t *ew = context;
  double values[REF_EW_MAX_IN];
  for (int64_t i = begin; i < end; i++) {
    for (int k = 0; k < ew->nin; k++)
      values[k] = ref_get(&ew->in[k], i);
    ref_set(&ew->out, i, ew->fn(values, ew->params));
  }
}

static void run_int(void *context, int64_t begin, int64_t end) {
  const ref_ew_t *ew = context;
  int64_t values[REF_EW_MAX_IN];
  for (int64_t i = begin; i < end; i++) {
    for (int k = 0; k < ew->nin; k++)
      values[k] = ref_get_int(&ew->in[k], i);
    ref_set_int(&ew->out, i, ew->int_fn(values, ew->int_params));
  }
}

static bool integral(const ref_ew_t *ew) {
  if (!ew->int_fn || !ref_is_integral(ew->out.dtype))
    return false;
  for (int k = 0; k < ew->nin; k++)
    if (!ref_is_integral(ew->in[k].dtype))
      return false;
  return true;
}

static bool fast(const ref_ew_t *ew) {
  if (!ew->f32 || ew->out.dtype != diopi_dtype_float32 ||
      !ref_contiguous(&ew->out))
    return false;
  for (int k = 0; k < ew->nin; k++) {
    const ref_view_t *v = &ew->in[k];
    if (v->dtype != diopi_dtype_float32 || !ref_contiguous(v))
      return false;
    for (int d = 0; d < v->ndim; d++)
      if (v->strides[d] == 0 && v->shape[d] > 1)
        return false; /* broadcast */
  }
  return true;
}

static void run(void *args) {
  ref_ew_t *ew = args;
  ref_parallel_for(ew->out.numel, GRAIN,
                   integral(ew) ? run_int
                   : fast(ew)   ? run_f32
                                : run_generic,
                   ew);
}

diopiError_t ref_ew_launch(diopiContextHandle_t ctx, const char *op,
                           ref_ew_t *ew, diopiConstTensorHandle_t out,
                           const diopiConstTensorHandle_t *in,
                           const char *const *in_names) {
  diopiError_t err = ref_view(ctx, op, "out", out, &ew->out);
  for (int k = 0; !err && k < ew->nin; k++) {
    err = ref_view(ctx, op, in_names[k], in[k], &ew->in[k]);
    if (!err)
      err =
          ref_expect_no_partial_overlap(op, in_names[k], &ew->out, &ew->in[k]);
    if (!err)
      err = ref_broadcast_to(op, in_names[k], &ew->in[k], ew->out.shape,
                             ew->out.ndim);
  }
  if (err)
    return err;
  return ref_ew_enqueue(ctx, op, ew);
}

diopiError_t ref_ew_fill(diopiContextHandle_t ctx, const char *op,
                         const ref_view_t *out, double value) {
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.out = *out;
  ew.fn = ref_fill_fn;
  ew.params[0] = value;
  return ref_ew_enqueue(ctx, op, &ew);
}

diopiError_t ref_ew_enqueue(diopiContextHandle_t ctx, const char *op,
                            const ref_ew_t *ew) {
  if (ew->out.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, ew, sizeof *ew);
}
