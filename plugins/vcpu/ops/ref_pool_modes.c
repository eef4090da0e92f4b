/* DIOPI's mode-switched pools (diopiPool1d, diopiPool2d, diopiPool3d and
 * their backward): thin wrappers that pick the pool of their dims by mode
 * ("max" or "avg") and `adaptive`, and call it. Fixed max windows take
 * ksize, stride, padding, dilation and ceil_mode; fixed average windows the
 * same but dilation (PyTorch's average pools have none), with `exclusive`
 * the opposite of count_include_pad; adaptive pools take output_size alone
 * (the backward: grad_output's shape). A max backward needs the forward's
 * indices. Errors past the mode name the pool called. */
#include <stdbool.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_tensor.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* The pooling `mode` names: max (true) or average (false), or a failure
 * naming `op`. */
static diopiError_t is_max(const char *op, const char *mode, bool *max) {
  if (mode && !strcmp(mode, "max"))
    *max = true;
  else if (mode && !strcmp(mode, "avg"))
    *max = false;
  else
    return ref_fail(op, "mode: expected \"max\" or \"avg\", got %s%s%s",
                    mode ? "\"" : "", mode ? mode : "NULL", mode ? "\"" : "");
  return diopiSuccess;
}

/* The pool a call picks: its dims, mode and windows. */
enum { AVG = 0, MAX = 1, FIXED = 0, ADAPTIVE = 1 };
#define KEY(dims, max, adaptive) ((dims)*4 + (max)*2 + (adaptive))

/* The arguments of a pool call, both directions. */
typedef struct pool_call {
  int dims;
  bool max, adaptive, ceil_mode, exclusive;
  T result; /* out or grad_input */
  CT grad_output, input, indices;
  diopiSize_t ksize, stride, padding, dilation, output_size;
} pool_call_t;

static diopiError_t forward(CTX, const pool_call_t *c) {
  bool include_pad = !c->exclusive;
  switch (KEY(c->dims, c->max, c->adaptive)) {
  case KEY(1, AVG, FIXED):
    return diopiAvgPool1d(ctx, c->result, c->input, c->ksize, c->stride,
                          c->padding, c->ceil_mode, include_pad);
  case KEY(1, AVG, ADAPTIVE):
    return diopiAdaptiveAvgPool1d(ctx, c->result, c->input, c->output_size);
  case KEY(1, MAX, FIXED):
    return diopiMaxPool1d(ctx, c->result, c->input, c->ksize, c->stride,
                          c->padding, c->dilation, c->ceil_mode);
  case KEY(1, MAX, ADAPTIVE):
    return diopiAdaptiveMaxPool1d(ctx, c->result, c->input, c->output_size);
  case KEY(2, AVG, FIXED):
    return diopiAvgPool2d(ctx, c->result, c->input, c->ksize, c->stride,
                          c->padding, c->ceil_mode, include_pad, NULL);
  case KEY(2, AVG, ADAPTIVE):
    return diopiAdaptiveAvgPool2d(ctx, c->result, c->input, c->output_size);
  case KEY(2, MAX, FIXED):
    return diopiMaxPool2d(ctx, c->result, c->input, c->ksize, c->stride,
                          c->padding, c->dilation, c->ceil_mode);
  case KEY(2, MAX, ADAPTIVE):
    return diopiAdaptiveMaxPool2d(ctx, c->result, c->input, c->output_size);
  case KEY(3, AVG, FIXED):
    return diopiAvgPool3d(ctx, c->result, c->input, c->ksize, c->stride,
                          c->padding, c->ceil_mode, include_pad, NULL);
  case KEY(3, AVG, ADAPTIVE):
    return diopiAdaptiveAvgPool3d(ctx, c->result, c->input, c->output_size);
  case KEY(3, MAX, FIXED):
    return diopiMaxPool3d(ctx, c->result, c->input, c->ksize, c->stride,
                          c->padding, c->dilation, c->ceil_mode);
  default: /* KEY(3, MAX, ADAPTIVE) */
    return diopiAdaptiveMaxPool3d(ctx, c->result, c->input, c->output_size);
  }
}

static diopiError_t backward(CTX, const pool_call_t *c) {
  bool include_pad = !c->exclusive;
  T gi = c->result;
  CT go = c->grad_output, in = c->input, idx = c->indices;
  switch (KEY(c->dims, c->max, c->adaptive)) {
  case KEY(1, AVG, FIXED):
    return diopiAvgPool1dBackward(ctx, gi, go, in, c->ksize, c->stride,
                                  c->padding, c->ceil_mode, include_pad);
  case KEY(1, AVG, ADAPTIVE):
    return diopiAdaptiveAvgPool1dBackward(ctx, gi, go, in);
  case KEY(1, MAX, FIXED):
    return diopiMaxPool1dBackward(ctx, gi, go, in, c->ksize, c->stride,
                                  c->padding, c->dilation, c->ceil_mode, idx);
  case KEY(1, MAX, ADAPTIVE):
    return diopiAdaptiveMaxPool1dBackward(ctx, gi, go, in, idx);
  case KEY(2, AVG, FIXED):
    return diopiAvgPool2dBackward(ctx, gi, go, in, c->ksize, c->stride,
                                  c->padding, c->ceil_mode, include_pad, NULL);
  case KEY(2, AVG, ADAPTIVE):
    return diopiAdaptiveAvgPool2dBackward(ctx, gi, go, in);
  case KEY(2, MAX, FIXED):
    return diopiMaxPool2dBackward(ctx, gi, go, in, c->ksize, c->stride,
                                  c->padding, c->dilation, c->ceil_mode, idx);
  case KEY(2, MAX, ADAPTIVE):
    return diopiAdaptiveMaxPool2dBackward(ctx, gi, go, in, idx);
  case KEY(3, AVG, FIXED):
    return diopiAvgPool3dBackward(ctx, gi, go, in, c->ksize, c->stride,
                                  c->padding, c->ceil_mode, include_pad, NULL);
  case KEY(3, AVG, ADAPTIVE):
    return diopiAdaptiveAvgPool3dBackward(ctx, gi, go, in);
  case KEY(3, MAX, FIXED):
    return diopiMaxPool3dBackward(ctx, gi, go, in, c->ksize, c->stride,
                                  c->padding, c->dilation, c->ceil_mode, idx);
  default: /* KEY(3, MAX, ADAPTIVE) */
    return diopiAdaptiveMaxPool3dBackward(ctx, gi, go, in, idx);
  }
}

/* The checks of the wrapper itself: the mode, and a max backward's
 * indices. */
static diopiError_t pool(CTX, const char *op, const char *mode,
                         pool_call_t *c) {
  diopiError_t err = is_max(op, mode, &c->max);
  if (err)
    return err;
  if (!c->grad_output)
    return forward(ctx, c);
  if (c->max && !c->indices)
    return ref_fail(op, "indices: tensor is NULL, expected the max pool's "
                        "indices of its forward");
  return backward(ctx, c);
}

#define POOL_FORWARD(n)                                                        \
  REF_EXPORT diopiError_t diopiPool##n##d(                                     \
      CTX, T out, CT input, const char *mode, diopiSize_t ksize,               \
      diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,           \
      const bool ceil_mode, const bool exclusive, const bool adaptive,         \
      diopiSize_t output_size) {                                               \
    pool_call_t c = {n,      false,   adaptive, ceil_mode,  exclusive,         \
                     out,    NULL,    input,    NULL,       ksize,             \
                     stride, padding, dilation, output_size};                  \
    return pool(ctx, "diopiPool" #n "d", mode, &c);                            \
  }
#define POOL_BACKWARD(n)                                                       \
  REF_EXPORT diopiError_t diopiPool##n##dBackward(                             \
      CTX, T grad_input, CT grad_output, CT input, const char *mode,           \
      diopiSize_t ksize, diopiSize_t stride, diopiSize_t padding,              \
      diopiSize_t dilation, const bool ceil_mode, const bool exclusive,        \
      const bool adaptive, CT indices) {                                       \
    const char *op = "diopiPool" #n "dBackward";                               \
    if (!grad_output)                                                          \
      return ref_fail(op, "grad_output: tensor is NULL");                      \
    diopiSize_t none = {NULL, 0};                                              \
    pool_call_t c = {n,          false,       adaptive, ceil_mode, exclusive,  \
                     grad_input, grad_output, input,    indices,   ksize,      \
                     stride,     padding,     dilation, none};                 \
    return pool(ctx, op, mode, &c);                                            \
  }

POOL_FORWARD(1)
POOL_FORWARD(2)
POOL_FORWARD(3)
POOL_BACKWARD(1)
POOL_BACKWARD(2)
POOL_BACKWARD(3)
