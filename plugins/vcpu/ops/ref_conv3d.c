/* 3-d convolution (DIOPI's diopiConvolution3d and its backward): direct
 * loops in double over strided views of any floating dtype, groups,
 * stride, padding and dilation per dim. Each output element (forward), and
 * each element of grad_input, grad_weight and grad_bias (backward), is one
 * gather, so the pool splits them without write conflicts. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_volume.h"

typedef struct conv3d_task {
  ref_volumes_t in, weight, out; /* out: the output, or grad_output */
  ref_view_t bias, grad_bias;
  ref_volumes_t grad_in, grad_weight;
  bool has_bias, has_grad_in, has_grad_weight, has_grad_bias;
  int64_t n, cin, cout, cin_group, cout_group, groups;
  int64_t k[3], stride[3], padding[3], dilation[3];
} conv3d_task_t;

/* The input coordinate kernel tap `k` of output coordinate `o` reads. */
static inline int64_t tap(const conv3d_task_t *t, int dim, int64_t o,
                          int64_t k) {
  return o * t->stride[dim] - t->padding[dim] + k * t->dilation[dim];
}

/* out[n, oc] for volumes [begin, end) of (n, oc). */
static void forward_range(void *context, int64_t begin, int64_t end) {
  const conv3d_task_t *t = context;
  const int64_t *os = t->out.size, *is = t->in.size;
  for (int64_t v = begin; v < end; v++) {
    int64_t n = v / t->cout, oc = v % t->cout;
    int64_t ic0 = oc / t->cout_group * t->cin_group;
    double b = t->has_bias ? ref_get(&t->bias, oc) : 0;
    for (int64_t od = 0; od < os[0]; od++)
      for (int64_t oh = 0; oh < os[1]; oh++)
        for (int64_t ow = 0; ow < os[2]; ow++) {
          double acc = b;
          for (int64_t c = 0; c < t->cin_group; c++)
            for (int64_t kd = 0; kd < t->k[0]; kd++) {
              int64_t id = tap(t, 0, od, kd);
              if (id < 0 || id >= is[0])
                continue;
              for (int64_t kh = 0; kh < t->k[1]; kh++) {
                int64_t ih = tap(t, 1, oh, kh);
                if (ih < 0 || ih >= is[1])
                  continue;
                for (int64_t kw = 0; kw < t->k[2]; kw++) {
                  int64_t iw = tap(t, 2, ow, kw);
                  if (iw < 0 || iw >= is[2])
                    continue;
                  acc +=
                      ref_volume_get(&t->in, n * t->cin + ic0 + c, id, ih, iw) *
                      ref_volume_get(&t->weight, oc * t->cin_group + c, kd, kh,
                                     kw);
                }
              }
            }
          ref_volume_set(&t->out, v, od, oh, ow, acc);
        }
  }
}

/* The output coordinate whose kernel tap `k` reads input coordinate `i`,
 * or -1 when none does. */
static inline int64_t reader(const conv3d_task_t *t, int dim, int64_t i,
                             int64_t k) {
  int64_t span = i + t->padding[dim] - k * t->dilation[dim];
  if (span < 0 || span % t->stride[dim] != 0)
    return -1;
  int64_t o = span / t->stride[dim];
  return o < t->out.size[dim] ? o : -1;
}

/* grad_input[n, ic] for volumes [begin, end) of (n, ic). */
static void grad_input_range(void *context, int64_t begin, int64_t end) {
  const conv3d_task_t *t = context;
  const int64_t *is = t->in.size;
  for (int64_t v = begin; v < end; v++) {
    int64_t n = v / t->cin, ic = v % t->cin;
    int64_t g = ic / t->cin_group, c = ic % t->cin_group;
    for (int64_t id = 0; id < is[0]; id++)
      for (int64_t ih = 0; ih < is[1]; ih++)
        for (int64_t iw = 0; iw < is[2]; iw++) {
          double acc = 0;
          for (int64_t oc = g * t->cout_group; oc < (g + 1) * t->cout_group;
               oc++)
            for (int64_t kd = 0; kd < t->k[0]; kd++) {
              int64_t od = reader(t, 0, id, kd);
              if (od < 0)
                continue;
              for (int64_t kh = 0; kh < t->k[1]; kh++) {
                int64_t oh = reader(t, 1, ih, kh);
                if (oh < 0)
                  continue;
                for (int64_t kw = 0; kw < t->k[2]; kw++) {
                  int64_t ow = reader(t, 2, iw, kw);
                  if (ow < 0)
                    continue;
                  acc += ref_volume_get(&t->out, n * t->cout + oc, od, oh, ow) *
                         ref_volume_get(&t->weight, oc * t->cin_group + c, kd,
                                        kh, kw);
                }
              }
            }
          ref_volume_set(&t->grad_in, v, id, ih, iw, acc);
        }
  }
}

/* grad_weight[oc, c] for volumes [begin, end) of (oc, c). */
static void grad_weight_range(void *context, int64_t begin, int64_t end) {
  const conv3d_task_t *t = context;
  const int64_t *os = t->out.size;
  for (int64_t v = begin; v < end; v++) {
    int64_t oc = v / t->cin_group;
    int64_t ic = oc / t->cout_group * t->cin_group + v % t->cin_group;
    for (int64_t kd = 0; kd < t->k[0]; kd++)
      for (int64_t kh = 0; kh < t->k[1]; kh++)
        for (int64_t kw = 0; kw < t->k[2]; kw++) {
          double acc = 0;
          for (int64_t n = 0; n < t->n; n++)
            for (int64_t od = 0; od < os[0]; od++) {
              int64_t id = tap(t, 0, od, kd);
              if (id < 0 || id >= t->in.size[0])
                continue;
              for (int64_t oh = 0; oh < os[1]; oh++) {
                int64_t ih = tap(t, 1, oh, kh);
                if (ih < 0 || ih >= t->in.size[1])
                  continue;
                for (int64_t ow = 0; ow < os[2]; ow++) {
                  int64_t iw = tap(t, 2, ow, kw);
                  if (iw < 0 || iw >= t->in.size[2])
                    continue;
                  acc += ref_volume_get(&t->out, n * t->cout + oc, od, oh, ow) *
                         ref_volume_get(&t->in, n * t->cin + ic, id, ih, iw);
                }
              }
            }
          ref_volume_set(&t->grad_weight, v, kd, kh, kw, acc);
        }
  }
}

static void grad_bias_range(void *context, int64_t begin, int64_t end) {
  const conv3d_task_t *t = context;
  const int64_t *os = t->out.size;
  for (int64_t oc = begin; oc < end; oc++) {
    double acc = 0;
    for (int64_t n = 0; n < t->n; n++)
      for (int64_t od = 0; od < os[0]; od++)
        for (int64_t oh = 0; oh < os[1]; oh++)
          for (int64_t ow = 0; ow < os[2]; ow++)
            acc += ref_volume_get(&t->out, n * t->cout + oc, od, oh, ow);
    ref_set(&t->grad_bias, oc, acc);
  }
}

static void run_forward(void *args) {
  conv3d_task_t *t = args;
  ref_parallel_for(t->out.count, 1, forward_range, t);
}

static void run_backward(void *args) {
  conv3d_task_t *t = args;
  if (t->has_grad_in)
    ref_parallel_for(t->grad_in.count, 1, grad_input_range, t);
  if (t->has_grad_weight)
    ref_parallel_for(t->grad_weight.count, 1, grad_weight_range, t);
  if (t->has_grad_bias)
    ref_parallel_for(t->cout, 1, grad_bias_range, t);
}

/* Shapes and attributes shared by forward and backward; `out` is the
 * output (or grad_output), checked against the geometry. */
static diopiError_t geometry(const char *op, conv3d_task_t *t,
                             const ref_view_t *in, const ref_view_t *weight,
                             const ref_view_t *out, const char *out_arg,
                             diopiSize_t stride, diopiSize_t padding,
                             diopiSize_t dilation, int64_t groups) {
  diopiError_t err = ref_volumes(op, "input", in, false, &t->in);
  if (!err)
    err = ref_volumes(op, "weight", weight, false, &t->weight);
  if (!err)
    err = ref_window_attrs3(op, in->dtype, stride, padding, dilation, 1,
                            t->stride, t->padding, t->dilation);
  if (err)
    return err;
  t->n = in->shape[0];
  t->cin = in->shape[1];
  t->cout = weight->shape[0];
  t->cin_group = weight->shape[1];
  t->groups = groups;
  if (groups < 1 || t->cout % groups != 0 || t->cin != t->cin_group * groups)
    return ref_fail(op,
                    "groups: %lld does not divide %lld output channels "
                    "into groups of %lld of input's %lld channels",
                    (long long)groups, (long long)t->cout,
                    (long long)t->cin_group, (long long)t->cin);
  t->cout_group = t->cout / groups;
  int64_t shape[5] = {t->n, t->cout};
  for (int i = 0; i < 3; i++) {
    t->k[i] = weight->shape[2 + i];
    int64_t span = in->shape[2 + i] + 2 * t->padding[i] -
                   t->dilation[i] * (t->k[i] - 1) - 1;
    if (span < 0)
      return ref_fail(op,
                      "input: %lld in dim %d is smaller than the kernel's "
                      "reach %lld (padding %lld)",
                      (long long)in->shape[2 + i], 2 + i,
                      (long long)(t->dilation[i] * (t->k[i] - 1) + 1),
                      (long long)t->padding[i]);
    shape[2 + i] = span / t->stride[i] + 1;
  }
  err = ref_expect_shape(op, out_arg, out, shape, 5);
  return err ? err : ref_volumes(op, out_arg, out, false, &t->out);
}

REF_EXPORT diopiError_t diopiConvolution3d(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t bias, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, int64_t groups) {
  const char *op = "diopiConvolution3d";
  conv3d_task_t t;
  memset(&t, 0, sizeof t);
  ref_view_t in, w, o;
  const ref_arg_t args[] = {{"out", out, &o, NULL},
                            {"input", input, &in, NULL},
                            {"weight", weight, &w, NULL},
                            {"bias", bias, &t.bias, &t.has_bias}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err =
        geometry(op, &t, &in, &w, &o, "out", stride, padding, dilation, groups);
  if (!err && t.has_bias)
    err = ref_expect_shape(op, "bias", &t.bias, &t.cout, 1);
  if (err || o.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run_forward, &t, sizeof t);
}

/* bias_sizes is not needed: grad_bias's own shape says it. */
REF_EXPORT diopiError_t diopiConvolution3dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_weight, diopiTensorHandle_t grad_bias,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t weight, diopiSize_t *bias_sizes,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    int64_t groups) {
  const char *op = "diopiConvolution3dBackward";
  (void)bias_sizes;
  conv3d_task_t t;
  memset(&t, 0, sizeof t);
  ref_view_t in, w, go, gi, gw;
  const ref_arg_t args[] = {
      {"grad_output", grad_output, &go, NULL},
      {"input", input, &in, NULL},
      {"weight", weight, &w, NULL},
      {"grad_input", grad_input, &gi, &t.has_grad_in},
      {"grad_weight", grad_weight, &gw, &t.has_grad_weight},
      {"grad_bias", grad_bias, &t.grad_bias, &t.has_grad_bias}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err = geometry(op, &t, &in, &w, &go, "grad_output", stride, padding,
                   dilation, groups);
  if (!err && t.has_grad_in)
    err = ref_expect_shape(op, "grad_input", &gi, in.shape, 5);
  if (!err && t.has_grad_in)
    err = ref_volumes(op, "grad_input", &gi, false, &t.grad_in);
  if (!err && t.has_grad_weight)
    err = ref_expect_shape(op, "grad_weight", &gw, w.shape, 5);
  if (!err && t.has_grad_weight)
    err = ref_volumes(op, "grad_weight", &gw, false, &t.grad_weight);
  if (!err && t.has_grad_bias)
    err = ref_expect_shape(op, "grad_bias", &t.grad_bias, &t.cout, 1);
  if (err)
    return err;
  return ref_enqueue(ctx, op, run_backward, &t, sizeof t);
}
