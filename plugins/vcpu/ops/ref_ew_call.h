/* One-call launches of the elementwise engine for ops whose output has
 * exactly the broadcast shape of their inputs (PyTorch's rule), with the
 * checks every such op makes: out's shape, no partial overlap, and the
 * dtype class an op's result needs. */
#ifndef BACKPLANE_REF_OPS_EW_CALL_H_
#define BACKPLANE_REF_OPS_EW_CALL_H_

#include "ref_elementwise.h"

/* What an op asks of out's dtype. */
typedef enum ref_out_kind {
  REF_OUT_ANY,      /* any computed dtype */
  REF_OUT_FLOATING, /* float16/32/64, bfloat16 */
  REF_OUT_NUMERIC,  /* anything but bool */
} ref_out_kind_t;

/* out = fn(in[0], ..., in[nin - 1]; params) with `f32` its float32 loop
 * (NULL: none). `params` holds up to 4 values (NULL: zeros). Fails, naming
 * `op` and the argument, unless out has the inputs' broadcast shape and a
 * dtype of `kind`. */
diopiError_t ref_ew_call(diopiContextHandle_t ctx, const char *op,
                         diopiConstTensorHandle_t out, int nin,
                         const diopiConstTensorHandle_t *in,
                         const char *const *names, ref_ew_fn_t fn,
                         ref_ew_f32_fn_t f32, const double *params,
                         ref_out_kind_t kind);

/* ref_ew_call with the loops and params of `ew` (nin, fn, f32, int_fn,
 * bits, params; the views are filled here). */
diopiError_t ref_ew_call_with(diopiContextHandle_t ctx, const char *op,
                              ref_ew_t *ew, diopiConstTensorHandle_t out,
                              const diopiConstTensorHandle_t *in,
                              const char *const *names, ref_out_kind_t kind);

/* Fails unless `v`'s dtype is of `kind`, naming `op` and `arg`. */
diopiError_t ref_expect_kind(const char *op, const char *arg,
                             const ref_view_t *v, ref_out_kind_t kind);

#endif /* BACKPLANE_REF_OPS_EW_CALL_H_ */
