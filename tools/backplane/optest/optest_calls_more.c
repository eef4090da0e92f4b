/* Callers of the operator library's breadth ops whose signatures
 * optest_calls.c does not have: their arguments by role and attribute name,
 * in the op's own order. */
#include <stdio.h>
#include <string.h>

#include "backplane/backplane.h"
#include "optest_call_forms.h"

/* (input, S other): in-place comparisons. */
CALL(inp_scalar,
     return ((diopiError_t(*)(CTX, T, S))fn)(ctx, tensor(a, "input"),
                                             maybe_scalar(a, "other", &s0));)
/* (out, input, S exponent) and (input, S exponent). */
CALL(pow,
     return ((diopiError_t(*)(CTX, T, CT,
                              S))fn)(ctx, tensor(a, "out"), tensor(a, "input"),
                                     maybe_scalar(a, "exponent", &s0));)
CALL(pow_inp,
     return ((diopiError_t(*)(CTX, T, S))fn)(ctx, tensor(a, "input"),
                                             maybe_scalar(a, "exponent", &s0));)
/* (out, S input, exponent) and (out, input, exponent). */
CALL(pow_scalar,
     return ((diopiError_t(*)(CTX, T, S, CT))fn)(ctx, tensor(a, "out"),
                                                 maybe_scalar(a, "input", &s0),
                                                 tensor(a, "exponent"));)
CALL(pow_tensor,
     return ((diopiError_t(*)(CTX, T, CT, CT))fn)(ctx, tensor(a, "out"),
                                                  tensor(a, "input"),
                                                  tensor(a, "exponent"));)
CALL(where, return ((diopiError_t(*)(CTX, T, CT, CT, CT))fn)(
                ctx, tensor(a, "out"), tensor(a, "condition"),
                tensor(a, "input"), tensor(a, "other"));)
CALL(masked_fill,
     return ((diopiError_t(*)(CTX, T, CT, CT,
                              CT))fn)(ctx, tensor(a, "out"), tensor(a, "input"),
                                      tensor(a, "mask"), tensor(a, "value"));)
CALL(masked_fill_inp,
     return ((diopiError_t(*)(CTX, T, CT, CT))fn)(ctx, tensor(a, "input"),
                                                  tensor(a, "mask"),
                                                  tensor(a, "value"));)
CALL(masked_fill_scalar, return ((diopiError_t(*)(CTX, T, CT, CT, S))fn)(
                             ctx, tensor(a, "out"), tensor(a, "input"),
                             tensor(a, "mask"), maybe_scalar(a, "value", &s0));)
/* clamp with two bounds, scalars or tensors, either may be absent. */
CALL(clamp_scalar,
     return ((diopiError_t(*)(CTX, T, CT, S, S))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), maybe_scalar(a, "min", &s0),
         maybe_scalar(a, "max", &s1));)
CALL(clamp,
     return ((diopiError_t(*)(CTX, T, CT, CT,
                              CT))fn)(ctx, tensor(a, "out"), tensor(a, "input"),
                                      tensor(a, "min"), tensor(a, "max"));)
CALL(clamp_inp_scalar,
     return ((diopiError_t(*)(CTX, T, S, S))fn)(ctx, tensor(a, "input"),
                                                maybe_scalar(a, "min", &s0),
                                                maybe_scalar(a, "max", &s1));)
/* clamp_min / clamp_max: one bound, named "min" or "max". */
CALL(clamp_one_scalar, S bound = maybe_scalar(a, "min", &s0);
     if (!bound) bound = maybe_scalar(a, "max", &s1);
     return ((diopiError_t(*)(CTX, T, CT, S))fn)(ctx, tensor(a, "out"),
                                                 tensor(a, "input"), bound);)
CALL(clamp_one, CT bound = tensor(a, "min");
     if (!bound) bound = tensor(a, "max");
     return ((diopiError_t(*)(CTX, T, CT, CT))fn)(ctx, tensor(a, "out"),
                                                  tensor(a, "input"), bound);)
CALL(leaky_relu,
     return ((diopiError_t(*)(CTX, T, CT,
                              S))fn)(ctx, tensor(a, "out"), tensor(a, "input"),
                                     maybe_scalar(a, "negative_slope", &s0));)
CALL(leaky_relu_inp,
     return ((diopiError_t(*)(CTX, T, S))fn)(ctx, tensor(a, "input"),
                                             maybe_scalar(a, "negative_slope",
                                                          &s0));)
CALL(leaky_relu_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, S, bool))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), maybe_scalar(a, "negative_slope", &s0),
         integer(a, "input_is_result") != 0);)
CALL(hardtanh,
     return ((diopiError_t(*)(CTX, T, CT, S, S))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"),
         maybe_scalar(a, "min_val", &s0), maybe_scalar(a, "max_val", &s1));)
CALL(hardtanh_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, S, S))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), maybe_scalar(a, "min_val", &s0),
         maybe_scalar(a, "max_val", &s1));)
CALL(threshold,
     return ((diopiError_t(*)(CTX, T, CT, S, S))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"),
         maybe_scalar(a, "threshold", &s0), maybe_scalar(a, "value", &s1));)
/* elu: (out, input, alpha, scale, input_scale) and its Inp and Backward. */
CALL(elu, return ((diopiError_t(*)(CTX, T, CT, S, S, S))fn)(
              ctx, tensor(a, "out"), tensor(a, "input"),
              maybe_scalar(a, "alpha", &s0), maybe_scalar(a, "scale", &s1),
              maybe_scalar(a, "input_scale", &s2));)
CALL(elu_inp,
     return ((diopiError_t(*)(CTX, T, S, S, S))fn)(
         ctx, tensor(a, "input"), maybe_scalar(a, "alpha", &s0),
         maybe_scalar(a, "scale", &s1), maybe_scalar(a, "input_scale", &s2));)
CALL(elu_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, S, S, S, bool))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), maybe_scalar(a, "alpha", &s0),
         maybe_scalar(a, "scale", &s1), maybe_scalar(a, "input_scale", &s2),
         integer(a, "input_is_result") != 0);)
/* softplus: (out, input, beta, threshold) and its Backward. */
CALL(softplus,
     return ((diopiError_t(*)(CTX, T, CT, S, S))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"),
         maybe_scalar(a, "beta", &s0), maybe_scalar(a, "threshold", &s1));)
CALL(softplus_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, S, S))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), maybe_scalar(a, "beta", &s0),
         maybe_scalar(a, "threshold", &s1));)
CALL(min, return ((diopiError_t(*)(CTX, T, T, CT, int64_t))fn)(
              ctx, tensor(a, "min"), tensor(a, "min_indices"),
              tensor(a, "input"), integer(a, "dim"));)
/* min_all / max_all: the output is "out". */
CALL(reduce_all, return ((diopiError_t(*)(CTX, T, CT))fn)(ctx, tensor(a, "out"),
                                                          tensor(a, "input"));)
CALL(amax, return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, bool))fn)(
               ctx, tensor(a, "out"), tensor(a, "input"), list(a, "dim"),
               integer(a, "keepdim") != 0);)
CALL(mse_loss,
     return ((diopiError_t(*)(CTX, T, CT, CT, diopiReduction_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "target"),
         (diopiReduction_t)integer(a, "reduction"));)
CALL(mse_loss_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, diopiReduction_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "target"),
         (diopiReduction_t)integer(a, "reduction"));)
CALL(adam,
     return ((diopiError_t(*)(CTX, T, CT, T, T, T, float, float, float, float,
                              float, int64_t, bool))fn)(
         ctx, tensor(a, "param"), tensor(a, "grad"), tensor(a, "exp_avg"),
         tensor(a, "exp_avg_sq"), tensor(a, "max_exp_avg_sq"),
         (float)real(a, "lr"), (float)real(a, "beta1"), (float)real(a, "beta2"),
         (float)real(a, "eps"), (float)real(a, "weight_decay"),
         integer(a, "step"), integer(a, "amsgrad") != 0);)
CALL(arange, return ((diopiError_t(*)(CTX, T, S, S, S))fn)(
                 ctx, tensor(a, "out"), maybe_scalar(a, "start", &s0),
                 maybe_scalar(a, "end", &s1), maybe_scalar(a, "step", &s2));)
CALL(linspace, return ((diopiError_t(*)(CTX, T, S, S, int64_t))fn)(
                   ctx, tensor(a, "out"), maybe_scalar(a, "start", &s0),
                   maybe_scalar(a, "end", &s1), integer(a, "steps"));)

CALL(lerp_tensor,
     return ((diopiError_t(*)(CTX, T, CT, CT,
                              CT))fn)(ctx, tensor(a, "out"), tensor(a, "input"),
                                      tensor(a, "end"), tensor(a, "weight"));)
CALL(lerp_scalar, return ((diopiError_t(*)(CTX, T, CT, CT, S))fn)(
                      ctx, tensor(a, "out"), tensor(a, "input"),
                      tensor(a, "end"), maybe_scalar(a, "weight", &s0));)
CALL(addc, return ((diopiError_t(*)(CTX, T, CT, CT, CT, S))fn)(
               ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "tensor1"),
               tensor(a, "tensor2"), maybe_scalar(a, "value", &s0));)
CALL(addc_inp, return ((diopiError_t(*)(CTX, T, CT, CT, S))fn)(
                   ctx, tensor(a, "input"), tensor(a, "tensor1"),
                   tensor(a, "tensor2"), maybe_scalar(a, "value", &s0));)
CALL(flip, return ((diopiError_t(*)(CTX, T, CT, diopiSize_t))fn)(
               ctx, tensor(a, "out"), tensor(a, "input"), list(a, "dims"));)
CALL(roll, return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, diopiSize_t))fn)(
               ctx, tensor(a, "out"), tensor(a, "input"), list(a, "shifts"),
               list(a, "dims"));)
CALL(repeat,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), list(a, "repeats_size"));)
CALL(pad, double value = real(a, "value"); return ((diopiError_t(*)(
    CTX, T, CT, diopiSize_t, const char *,
    const double *))fn)(ctx, tensor(a, "out"), tensor(a, "input"),
                        list(a, "pad"), optest_arg_text(a, "mode"),
                        optest_attr(a->c, "value") ? &value : NULL);)
CALL(triangle,
     return ((diopiError_t(*)(CTX, T, CT, int64_t))fn)(ctx, tensor(a, "out"),
                                                       tensor(a, "input"),
                                                       integer(a, "diagonal"));)
CALL(one_hot,
     return ((diopiError_t(*)(CTX, T, CT, int64_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "num_classes"));)
/* prod / any / all: an optional dim ("dim" absent: all). */
CALL(reduce_dim_ptr, int64_t dim = integer(a, "dim"); return ((diopiError_t(*)(
    CTX, T, CT, const int64_t *))fn)(ctx, tensor(a, "out"), tensor(a, "input"),
                                     optest_attr(a->c, "dim") ? &dim : NULL);)
CALL(norm, return ((diopiError_t(*)(CTX, T, CT, S, diopiSize_t))fn)(
               ctx, tensor(a, "out"), tensor(a, "input"),
               maybe_scalar(a, "p", &s0), list(a, "dim"));)
CALL(norm_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, diopiSize_t, S))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "norm"), list(a, "dim"),
         maybe_scalar(a, "p", &s0));)
CALL(std, return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, S))fn)(
              ctx, tensor(a, "out"), tensor(a, "input"), list(a, "dim"),
              maybe_scalar(a, "correction", &s0));)
CALL(cumsum_backward, return ((diopiError_t(*)(CTX, T, CT, int64_t))fn)(
                          ctx, tensor(a, "grad_input"),
                          tensor(a, "grad_output"), integer(a, "dim"));)
CALL(smooth_l1,
     return ((diopiError_t(*)(CTX, T, CT, CT, diopiReduction_t, double))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "target"),
         (diopiReduction_t)integer(a, "reduction"), real(a, "beta"));)
CALL(smooth_l1_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, diopiReduction_t, double))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "target"),
         (diopiReduction_t)integer(a, "reduction"), real(a, "beta"));)
CALL(bce, return ((diopiError_t(*)(CTX, T, CT, CT, CT, diopiReduction_t))fn)(
              ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "target"),
              tensor(a, "weight"), (diopiReduction_t)integer(a, "reduction"));)
CALL(bce_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, CT, diopiReduction_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "target"), tensor(a, "weight"),
         (diopiReduction_t)integer(a, "reduction"));)
CALL(bce_logits,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, CT, diopiReduction_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "target"),
         tensor(a, "weight"), tensor(a, "pos_weight"),
         (diopiReduction_t)integer(a, "reduction"));)
CALL(bce_logits_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, CT, CT, diopiReduction_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "target"), tensor(a, "weight"),
         tensor(a, "pos_weight"), (diopiReduction_t)integer(a, "reduction"));)
CALL(rmsprop,
     return ((diopiError_t(*)(CTX, T, CT, T, T, T, float, float, float, float,
                              float, bool))fn)(
         ctx, tensor(a, "param"), tensor(a, "grad"), tensor(a, "square_avg"),
         tensor(a, "grad_avg"), tensor(a, "momentum_buf"), (float)real(a, "lr"),
         (float)real(a, "alpha"), (float)real(a, "eps"),
         (float)real(a, "weight_decay"), (float)real(a, "momentum"),
         integer(a, "centered") != 0);)
CALL(adadelta,
     return ((diopiError_t(*)(CTX, T, CT, T, T, float, float, float, float))fn)(
         ctx, tensor(a, "param"), tensor(a, "grad"), tensor(a, "square_avg"),
         tensor(a, "acc_delta"), (float)real(a, "lr"), (float)real(a, "rho"),
         (float)real(a, "eps"), (float)real(a, "weight_decay"));)

CALL(avg_pool2d, int64_t divisor = integer(a, "divisor_override");
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                              bool, bool, const int64_t *))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), list(a, "kernel_size"),
         list(a, "stride"), list(a, "padding"), integer(a, "ceil_mode") != 0,
         integer(a, "count_include_pad") != 0,
         optest_attr(a->c, "divisor_override") ? &divisor : NULL);)
CALL(avg_pool2d_backward, int64_t divisor = integer(a, "divisor_override");
     return ((diopiError_t(*)(CTX, T, CT, CT, diopiSize_t, diopiSize_t,
                              diopiSize_t, bool, bool, const int64_t *))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), list(a, "kernel_size"), list(a, "stride"),
         list(a, "padding"), integer(a, "ceil_mode") != 0,
         integer(a, "count_include_pad") != 0,
         optest_attr(a->c, "divisor_override") ? &divisor : NULL);)
CALL(adaptive_max_pool2d_with_indices,
     return ((diopiError_t(*)(CTX, T, T, CT, diopiSize_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "indices"), tensor(a, "input"),
         list(a, "output_size"));)
CALL(adaptive_max_pool2d_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "indices"));)
CALL(group_norm,
     return ((diopiError_t(*)(CTX, T, T, T, CT, CT, CT, int64_t, double))fn)(
         ctx, tensor(a, "out"), tensor(a, "save_mean"),
         tensor(a, "save_invstd"), tensor(a, "input"), tensor(a, "weight"),
         tensor(a, "bias"), integer(a, "num_groups"), real(a, "eps"));)
CALL(group_norm_backward,
     return ((diopiError_t(*)(CTX, T, T, T, CT, CT, CT, CT, CT, int64_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_weight"),
         tensor(a, "grad_bias"), tensor(a, "grad_output"), tensor(a, "input"),
         tensor(a, "weight"), tensor(a, "mean"), tensor(a, "rstd"),
         integer(a, "num_groups"));)
CALL(rms_norm,
     return ((diopiError_t(*)(CTX, T, T, CT, diopiSize_t, CT, CT, double))fn)(
         ctx, tensor(a, "out"), tensor(a, "inv_rms"), tensor(a, "input"),
         list(a, "normalized_shape"), tensor(a, "weight"), tensor(a, "bias"),
         real(a, "eps"));)
CALL(rms_norm_backward,
     return ((diopiError_t(*)(CTX, T, T, T, CT, CT, CT, CT, CT, diopiSize_t,
                              double))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_weight"),
         tensor(a, "grad_bias"), tensor(a, "grad_output"), tensor(a, "input"),
         tensor(a, "weight"), tensor(a, "bias"), tensor(a, "inv_rms"),
         list(a, "normalized_shape"), real(a, "eps"));)
CALL(baddbmm,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, double, double))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "batch1"),
         tensor(a, "batch2"), real(a, "beta"), real(a, "alpha"));)
CALL(baddbmm_inp, return ((diopiError_t(*)(CTX, T, CT, CT, double, double))fn)(
                      ctx, tensor(a, "input"), tensor(a, "batch1"),
                      tensor(a, "batch2"), real(a, "beta"), real(a, "alpha"));)

CALL(scatter,
     return ((diopiError_t(*)(CTX, T, CT, int64_t, CT, CT, const char *))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "dim"),
         tensor(a, "src"), tensor(a, "index"), optest_arg_text(a, "reduce"));)
CALL(scatter_inp,
     return ((diopiError_t(*)(CTX, T, int64_t, CT, CT, const char *))fn)(
         ctx, tensor(a, "input"), integer(a, "dim"), tensor(a, "src"),
         tensor(a, "index"), optest_arg_text(a, "reduce"));)
CALL(scatter_scalar,
     return ((diopiError_t(*)(CTX, T, CT, int64_t, S, CT, const char *))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "dim"),
         maybe_scalar(a, "value", &s0), tensor(a, "index"),
         optest_arg_text(a, "reduce"));)
CALL(gather_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, int64_t, CT))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), integer(a, "dim"), tensor(a, "index"));)
CALL(index_select_backward,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, int64_t, CT))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad"),
         list(a, "input_sizes"), integer(a, "dim"), tensor(a, "index"));)
CALL(masked_select_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "mask"));)

/* The index tensors "indices.0", ... (NULL where named in the int list
 * "null_indices") into indices; their count. */
static int64_t index_list(const optest_args_t *a, CT *indices) {
  int64_t n = integer(a, "indices_counts");
  diopiSize_t nulls = list(a, "null_indices");
  char role[32];
  for (int64_t k = 0; k < n && k < 8; k++) {
    snprintf(role, sizeof role, "indices.%lld", (long long)k);
    indices[k] = tensor(a, role);
    for (int64_t j = 0; j < nulls.len; j++)
      if (nulls.data[j] == k)
        indices[k] = NULL;
  }
  return n;
}
/* index_put: out present, or in place on input. */
static diopiError_t call_index_put(void *fn, CTX ctx, const optest_args_t *a) {
  CT indices[8];
  int64_t n = index_list(a, indices);
  bool accumulate = integer(a, "accumulate") != 0;
  T out = tensor(a, "out");
  if (out)
    return ((diopiError_t(*)(CTX, T, CT, CT, CT *, int64_t, bool))fn)(
        ctx, out, tensor(a, "input"), tensor(a, "values"), indices, n,
        accumulate);
  return ((diopiError_t(*)(CTX, T, CT, CT *, int64_t, bool))fn)(
      ctx, tensor(a, "input"), tensor(a, "values"), indices, n, accumulate);
}

/* masked_select and nonzero allocate their result from the context: once
 * the stream has run it, it is copied into the case's "out" (same
 * element count) to be judged. */
static diopiError_t call_dynamic(void *fn, CTX ctx, const optest_args_t *a) {
  T result = NULL, out = tensor(a, "out");
  diopiError_t err =
      tensor(a, "mask")
          ? ((diopiError_t(*)(CTX, T *, CT, CT))fn)(
                ctx, &result, tensor(a, "input"), tensor(a, "mask"))
          : ((diopiError_t(*)(CTX, T *, CT))fn)(ctx, &result,
                                                tensor(a, "input"));
  return err ? err : optest_result_into(ctx, result, out);
}

/* sort: "stable" absent gives NULL. */
CALL(sort, bool stable = integer(a, "stable") != 0;
     return ((diopiError_t(*)(CTX, T, T, CT, int64_t, bool, const bool *))fn)(
         ctx, tensor(a, "values"), tensor(a, "indices"), tensor(a, "input"),
         integer(a, "dim"), integer(a, "descending") != 0,
         optest_attr(a->c, "stable") ? &stable : NULL);)
CALL(topk,
     return ((diopiError_t(*)(CTX, T, T, CT, int64_t, int64_t, bool, bool))fn)(
         ctx, tensor(a, "values"), tensor(a, "indices"), tensor(a, "input"),
         integer(a, "k"), integer(a, "dim"), integer(a, "largest") != 0,
         integer(a, "sorted") != 0);)

CALL(upsample_nearest,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), list(a, "size"));)
CALL(upsample_nearest_backward,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, diopiSize_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         list(a, "out_size"), list(a, "in_size"));)
CALL(upsample_linear,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, bool, const char *))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), list(a, "size"),
         integer(a, "align_corners") != 0, optest_arg_text(a, "mode"));)
CALL(upsample_linear_backward,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, diopiSize_t, bool,
                              const char *))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         list(a, "out_size"), list(a, "in_size"),
         integer(a, "align_corners") != 0, optest_arg_text(a, "mode"));)

CALL(embedding_renorm, return ((diopiError_t(*)(CTX, T, CT, double, double))fn)(
                           ctx, tensor(a, "inout"), tensor(a, "indices"),
                           real(a, "max_norm"), real(a, "norm_type"));)

/* The tensors "<role>.0", "<role>.1", ... into list (at most 16); their
 * count. */
static int64_t tensor_list(const optest_args_t *a, const char *role, T *list) {
  char name[48];
  int64_t n = 0;
  for (; n < 16; n++) {
    snprintf(name, sizeof name, "%s.%lld", role, (long long)n);
    if (!(list[n] = tensor(a, name)))
      break;
  }
  return n;
}

static diopiError_t call_meshgrid(void *fn, CTX ctx, const optest_args_t *a) {
  T outs[16], inputs[16];
  int64_t n = tensor_list(a, "inputs", inputs);
  tensor_list(a, "outs", outs);
  return ((diopiError_t(*)(CTX, T *, CT *, int64_t))fn)(ctx, outs, (CT *)inputs,
                                                        n);
}

/* foreach: "outs.i" (absent: in place on "inputs.i") and a scalar or
 * tensor "other" (norm: the scalar "ord"). */
static diopiError_t call_foreach(void *fn, CTX ctx, const optest_args_t *a) {
  T outs[16], inputs[16];
  int64_t n = tensor_list(a, "inputs", inputs);
  bool in_place = tensor_list(a, "outs", outs) == 0;
  diopiScalar_t s0;
  S other = maybe_scalar(a, optest_attr(a->c, "ord") ? "ord" : "other", &s0);
  if (!other && in_place)
    return ((diopiError_t(*)(CTX, T *, int64_t, CT))fn)(ctx, inputs, n,
                                                        tensor(a, "other"));
  if (!other)
    return ((diopiError_t(*)(CTX, T *, CT *, int64_t, CT))fn)(
        ctx, outs, (CT *)inputs, n, tensor(a, "other"));
  if (in_place)
    return ((diopiError_t(*)(CTX, T *, int64_t, S))fn)(ctx, inputs, n, other);
  return ((diopiError_t(*)(CTX, T *, CT *, int64_t, S))fn)(
      ctx, outs, (CT *)inputs, n, other);
}

static diopiError_t call_amp_unscale(void *fn, CTX ctx,
                                     const optest_args_t *a) {
  T grads[16];
  int64_t n = tensor_list(a, "scaled_grads", grads);
  return ((diopiError_t(*)(CTX, T *, int64_t, T, CT))fn)(
      ctx, grads, n, tensor(a, "found_inf"), tensor(a, "inv_scale"));
}
CALL(amp_update,
     return ((diopiError_t(*)(CTX, T, T, CT, double, double, int32_t))fn)(
         ctx, tensor(a, "current_scale"), tensor(a, "growth_tracker"),
         tensor(a, "found_inf"), real(a, "scale_growth_factor"),
         real(a, "scale_backoff_factor"),
         (int32_t)integer(a, "growth_interval"));)

static diopiError_t call_fused_adamw(void *fn, CTX ctx,
                                     const optest_args_t *a) {
  T params[16], grads[16], m[16], v[16], vmax[16], steps[16];
  int64_t n = tensor_list(a, "params", params);
  tensor_list(a, "grads", grads);
  tensor_list(a, "exp_avgs", m);
  tensor_list(a, "exp_avg_sqs", v);
  tensor_list(a, "max_exp_avg_sqs", vmax);
  tensor_list(a, "state_steps", steps);
  return ((diopiError_t(*)(CTX, T *, CT *, T *, T *, T *, CT *, int64_t, double,
                           double, double, double, double, bool, bool))fn)(
      ctx, params, (CT *)grads, m, v, vmax, (CT *)steps, n, real(a, "lr"),
      real(a, "beta1"), real(a, "beta2"), real(a, "eps"),
      real(a, "weight_decay"), integer(a, "amsgrad") != 0,
      integer(a, "maximize") != 0);
}

/* clip_grad_norm: the total norm it returns is copied into the case's
 * 0-dim float64 "total_norm" to be judged. */
static diopiError_t call_clip_grad_norm(void *fn, CTX ctx,
                                        const optest_args_t *a) {
  T grads[16];
  int64_t n = tensor_list(a, "grads", grads);
  double total = 0;
  diopiError_t err =
      ((diopiError_t(*)(CTX, double *, T *, int64_t, double, double, bool))fn)(
          ctx, &total, grads, n, real(a, "max_norm"), real(a, "norm_type"),
          integer(a, "error_if_nonfinite") != 0);
  void *dst = NULL;
  if (err || diopiGetTensorData(tensor(a, "total_norm"), &dst) ||
      bp_copy(bp_ops_context_device(ctx), dst, NULL, &total, sizeof total,
              NULL))
    return err ? err : diopiErrorOccurred;
  return diopiSuccess;
}

CALL(conv_transpose2d,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, diopiSize_t, diopiSize_t,
                              diopiSize_t, int64_t, diopiSize_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "weight"),
         tensor(a, "bias"), list(a, "stride"), list(a, "padding"),
         list(a, "output_padding"), integer(a, "groups"), list(a, "dilation"));)
CALL(conv_transpose2d_backward, diopiSize_t bias_sizes = list(a, "bias_sizes");
     return ((diopiError_t(*)(CTX, T, T, T, CT, CT, CT, diopiSize_t *,
                              diopiSize_t, diopiSize_t, diopiSize_t,
                              diopiSize_t, int64_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_weight"),
         tensor(a, "grad_bias"), tensor(a, "grad_output"), tensor(a, "input"),
         tensor(a, "weight"), bias_sizes.len ? &bias_sizes : NULL,
         list(a, "stride"), list(a, "padding"), list(a, "dilation"),
         list(a, "output_padding"), integer(a, "groups"));)

CALL(remainder_of_scalar,
     return ((diopiError_t(*)(CTX, T, S, CT))fn)(ctx, tensor(a, "out"),
                                                 maybe_scalar(a, "input", &s0),
                                                 tensor(a, "other"));)
CALL(constant_fill,
     return ((diopiError_t(*)(CTX, T, diopiSize_t))fn)(ctx, tensor(a, "out"),
                                                       list(a, "size"));)
CALL(select, return ((diopiError_t(*)(CTX, T, CT, int64_t, int64_t))fn)(
                 ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "dim"),
                 integer(a, "index"));)
CALL(select_backward,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, int64_t, int64_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         list(a, "input_sizes"), integer(a, "dim"), integer(a, "index"));)
CALL(select_scatter,
     return ((diopiError_t(*)(CTX, T, CT, CT, int64_t, int64_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "src"),
         integer(a, "dim"), integer(a, "index"));)
CALL(slice, return ((diopiError_t(*)(CTX, T, CT, int64_t, int64_t, int64_t,
                                     int64_t))fn)(
                ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "dim"),
                integer(a, "start"), integer(a, "end"), integer(a, "step"));)
CALL(slice_backward,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, int64_t, int64_t,
                              int64_t, int64_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         list(a, "input_sizes"), integer(a, "dim"), integer(a, "start"),
         integer(a, "end"), integer(a, "step"));)
CALL(slice_scatter,
     return ((diopiError_t(*)(CTX, T, CT, CT, int64_t, int64_t, int64_t,
                              int64_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "src"),
         integer(a, "dim"), integer(a, "start"), integer(a, "end"),
         integer(a, "step"));)
CALL(index_fill,
     return ((diopiError_t(*)(CTX, T, CT, int64_t, CT, CT))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "dim"),
         tensor(a, "index"), tensor(a, "value"));)
CALL(index_fill_scalar,
     return ((diopiError_t(*)(CTX, T, CT, int64_t, CT, S))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "dim"),
         tensor(a, "index"), maybe_scalar(a, "value", &s0));)
CALL(index_fill_inp, return ((diopiError_t(*)(CTX, T, int64_t, CT, CT))fn)(
                         ctx, tensor(a, "input"), integer(a, "dim"),
                         tensor(a, "index"), tensor(a, "value"));)
CALL(index_fill_inp_scalar,
     return ((diopiError_t(*)(CTX, T, int64_t, CT, S))fn)(
         ctx, tensor(a, "input"), integer(a, "dim"), tensor(a, "index"),
         maybe_scalar(a, "value", &s0));)
CALL(sort_backward,
     return ((diopiError_t(*)(CTX, T, CT, int64_t, CT, diopiSize_t, bool))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         integer(a, "dim"), tensor(a, "indices"), list(a, "sizes"),
         integer(a, "keepdim") != 0);)
CALL(argsort, int64_t dim = integer(a, "dim");
     return ((diopiError_t(*)(CTX, T, CT, bool, const int64_t *, bool))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "stable") != 0,
         optest_attr(a->c, "dim") ? &dim : NULL,
         integer(a, "descending") != 0);)
CALL(linalg_vec_norm, diopiScalar_t ord = optest_arg_scalar(a, "ord");
     return ((diopiError_t(*)(CTX, T, CT, diopiScalar_t *, diopiSize_t, bool))
                 fn)(ctx, tensor(a, "out"), tensor(a, "input"), &ord,
                     list(a, "dim"), integer(a, "keepdim") != 0);)
CALL(dropout_inp,
     return ((diopiError_t(*)(CTX, T, T, double, bool, diopiGeneratorHandle_t))
                 fn)(ctx, tensor(a, "input"), tensor(a, "mask"), real(a, "p"),
                     integer(a, "train") != 0, NULL);)

/* equal: its host bool is copied into the case's bool "out". */
static diopiError_t call_equal(void *fn, CTX ctx, const optest_args_t *a) {
  bool result = false;
  diopiError_t err = ((diopiError_t(*)(CTX, bool *, CT, CT))fn)(
      ctx, &result, tensor(a, "input"), tensor(a, "other"));
  void *dst = NULL;
  if (err || diopiGetTensorData(tensor(a, "out"), &dst) ||
      bp_copy(bp_ops_context_device(ctx), dst, NULL, &result, 1, NULL))
    return err ? err : diopiErrorOccurred;
  return diopiSuccess;
}

static diopiError_t call_index(void *fn, CTX ctx, const optest_args_t *a) {
  CT indices[8];
  int64_t n = index_list(a, indices);
  T result = NULL;
  diopiError_t err = ((diopiError_t(*)(CTX, T *, CT, CT *, int64_t))fn)(
      ctx, &result, tensor(a, "input"), indices, n);
  return err ? err : optest_result_into(ctx, result, tensor(a, "out"));
}
static diopiError_t call_index_backward(void *fn, CTX ctx,
                                        const optest_args_t *a) {
  CT indices[8];
  int64_t n = index_list(a, indices);
  return ((diopiError_t(*)(CTX, T, T, CT *, int64_t, CT))fn)(
      ctx, tensor(a, "grad_input"), tensor(a, "zeros_like_input"), indices, n,
      tensor(a, "grad_output"));
}

CALL(unfold,
     return ((diopiError_t(*)(CTX, T, CT, int64_t, int64_t, int64_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), integer(a, "dim"),
         integer(a, "size"), integer(a, "step"));)
CALL(unfold_backward,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, int64_t, int64_t,
                              int64_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         list(a, "input_sizes"), integer(a, "dim"), integer(a, "size"),
         integer(a, "step"));)
CALL(cdist, return ((diopiError_t(*)(CTX, T, CT, CT, double, const int64_t *))
                        fn)(ctx, tensor(a, "out"), tensor(a, "input1"),
                            tensor(a, "input2"), real(a, "p"), NULL);)
CALL(cdist_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, double, CT))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input1"), tensor(a, "input2"), real(a, "p"),
         tensor(a, "cdist"));)

CALL(bn_stats, return ((diopiError_t(*)(CTX, T, T, CT, double))fn)(
                   ctx, tensor(a, "mean"), tensor(a, "invstd"),
                   tensor(a, "input"), real(a, "eps"));)
CALL(bn_gather,
     return ((diopiError_t(*)(CTX, T, T, CT, CT, CT, T, T, float, float, CT))
                 fn)(ctx, tensor(a, "mean"), tensor(a, "invstd"),
                     tensor(a, "input"), tensor(a, "mean_all"),
                     tensor(a, "invstd_all"), tensor(a, "running_mean"),
                     tensor(a, "running_var"), (float)real(a, "momentum"),
                     (float)real(a, "eps"), tensor(a, "counts"));)
CALL(bn_elemt, return ((diopiError_t(*)(CTX, T, CT, CT, CT, CT, CT, float))fn)(
                   ctx, tensor(a, "out"), tensor(a, "input"),
                   tensor(a, "weight"), tensor(a, "bias"), tensor(a, "mean"),
                   tensor(a, "invstd"), (float)real(a, "eps"));)
CALL(bn_backward_reduce,
     return ((diopiError_t(*)(CTX, T, T, T, T, CT, CT, CT, CT, CT, bool, bool,
                              bool))fn)(
         ctx, tensor(a, "sum_dy"), tensor(a, "sum_dy_xmu"),
         tensor(a, "grad_weight"), tensor(a, "grad_bias"),
         tensor(a, "grad_out"), tensor(a, "input"), tensor(a, "mean"),
         tensor(a, "invstd"), tensor(a, "weight"), integer(a, "input_g") != 0,
         integer(a, "weight_g") != 0, integer(a, "bias_g") != 0);)
CALL(bn_backward_elemt,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, CT, CT, CT, CT, CT))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_out"),
         tensor(a, "input"), tensor(a, "mean"), tensor(a, "invstd"),
         tensor(a, "weight"), tensor(a, "sum_dy"), tensor(a, "sum_dy_xmu"),
         tensor(a, "count"));)

CALL(im2col,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                              diopiSize_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), list(a, "kernel_size"),
         list(a, "dilation"), list(a, "padding"), list(a, "stride"));)
CALL(col2im,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                              diopiSize_t, diopiSize_t))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), list(a, "output_size"),
         list(a, "kernel_size"), list(a, "dilation"), list(a, "padding"),
         list(a, "stride"));)
CALL(avg_pool1d,
     return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                              bool, bool))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), list(a, "kernel_size"),
         list(a, "stride"), list(a, "padding"), integer(a, "ceil_mode") != 0,
         integer(a, "count_include_pad") != 0);)
CALL(avg_pool1d_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, diopiSize_t, diopiSize_t,
                              diopiSize_t, bool, bool))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), list(a, "kernel_size"), list(a, "stride"),
         list(a, "padding"), integer(a, "ceil_mode") != 0,
         integer(a, "count_include_pad") != 0);)

/* split: the outputs are the tensors "outs.0", "outs.1", ... */
static diopiError_t call_split(void *fn, CTX ctx, const optest_args_t *a) {
  T outs[16];
  int64_t n = 0;
  char role[32];
  for (; n < 16; n++) {
    snprintf(role, sizeof role, "outs.%lld", (long long)n);
    if (!(outs[n] = tensor(a, role)))
      break;
  }
  return ((diopiError_t(*)(CTX, T *, int64_t, CT, const diopiSize_t,
                           int64_t))fn)(ctx, outs, n, tensor(a, "input"),
                                        list(a, "splitSizes"),
                                        integer(a, "dim"));
}

/* Random ops draw from a generator seeded by the case. Their arguments
 * after the context, by op: */
typedef enum random_form {
  FILL_TWO,       /* (tensor, a, b, gen): uniform, normal */
  BERNOULLI_P,    /* (out, p, gen) */
  BERNOULLI_IN,   /* (out, input, gen) */
  BERNOULLI_IO,   /* (inout, gen) */
  RANDPERM,       /* (out, n, gen) */
  MULTINOMIAL,    /* (out, input, num_samples, replacement, gen) */
  NORMAL_TENSORS, /* (out, mean, std, gen), either may be a scalar */
  INTEGERS,       /* (inout, from, to, gen) */
} random_form_t;

static diopiError_t call_random(void *fn, CTX ctx, const optest_args_t *a,
                                random_form_t form) {
  diopiGeneratorHandle_t g;
  if (bp_ops_generator_create((uint64_t)integer(a, "seed"), &g))
    return diopiErrorOccurred;
  T target = tensor(a, "inout");
  if (!target)
    target = tensor(a, "out");
  typedef diopiGeneratorHandle_t G;
  diopiError_t err = diopiErrorOccurred;
  switch (form) {
  case FILL_TWO: {
    const char *first = optest_attr(a->c, "from") ? "from" : "mean";
    const char *second = optest_attr(a->c, "to") ? "to" : "std";
    err = ((diopiError_t(*)(CTX, T, double, double, G))fn)(
        ctx, target, real(a, first), real(a, second), g);
    break;
  }
  case BERNOULLI_P:
    err =
        ((diopiError_t(*)(CTX, T, double, G))fn)(ctx, target, real(a, "p"), g);
    break;
  case BERNOULLI_IN:
    err = ((diopiError_t(*)(CTX, T, CT, G))fn)(ctx, target, tensor(a, "input"),
                                               g);
    break;
  case BERNOULLI_IO:
    err = ((diopiError_t(*)(CTX, T, G))fn)(ctx, target, g);
    break;
  case RANDPERM:
    err = ((diopiError_t(*)(CTX, T, int64_t, G))fn)(ctx, target,
                                                    integer(a, "n"), g);
    break;
  case NORMAL_TENSORS: {
    T mean = tensor(a, "mean"), std = tensor(a, "std");
    if (mean && std)
      err = ((diopiError_t(*)(CTX, T, CT, CT, G))fn)(ctx, target, mean, std, g);
    else if (mean)
      err = ((diopiError_t(*)(CTX, T, CT, double, G))fn)(ctx, target, mean,
                                                         real(a, "std"), g);
    else
      err = ((diopiError_t(*)(CTX, T, double, CT, G))fn)(
          ctx, target, real(a, "mean"), std, g);
    break;
  }
  case INTEGERS: {
    int64_t to = integer(a, "to");
    err = ((diopiError_t(*)(CTX, T, int64_t, const int64_t *, G))fn)(
        ctx, target, integer(a, "from"), optest_attr(a->c, "to") ? &to : NULL,
        g);
    break;
  }
  case MULTINOMIAL:
    err = ((diopiError_t(*)(CTX, T, CT, int64_t, bool, G))fn)(
        ctx, target, tensor(a, "input"), integer(a, "num_samples"),
        integer(a, "replacement") != 0, g);
    break;
  }
  bp_stream_synchronize(bp_ops_context_stream(ctx)); /* generator in use */
  bp_ops_generator_destroy(g);
  return err;
}
#define RANDOM_CALL(name, form)                                                \
  static diopiError_t call_##name(void *fn, CTX ctx, const optest_args_t *a) { \
    return call_random(fn, ctx, a, form);                                      \
  }
RANDOM_CALL(random_fill, FILL_TWO)
RANDOM_CALL(bernoulli_scalar, BERNOULLI_P)
RANDOM_CALL(bernoulli, BERNOULLI_IN)
RANDOM_CALL(bernoulli_inp, BERNOULLI_IO)
RANDOM_CALL(randperm, RANDPERM)
RANDOM_CALL(multinomial, MULTINOMIAL)
RANDOM_CALL(normal_tensors, NORMAL_TENSORS)
RANDOM_CALL(random_integers, INTEGERS)

static const struct {
  const char *op;
  optest_call_t call;
} callers[] = {
    {"diopiEqInpScalar", call_inp_scalar},
    {"diopiGeInpScalar", call_inp_scalar},
    {"diopiGtInpScalar", call_inp_scalar},
    {"diopiLeInpScalar", call_inp_scalar},
    {"diopiNeInpScalar", call_inp_scalar},
    {"diopiBitwiseAndInpScalar", call_inp_scalar},
    {"diopiBitwiseOrInpScalar", call_inp_scalar},
    {"diopiLtInpScalar", call_inp_scalar},
    {"diopiMulInpScalar", call_inp_scalar},
    {"diopiPow", call_pow},
    {"diopiPowInp", call_pow_inp},
    {"diopiPowScalar", call_pow_scalar},
    {"diopiPowTensor", call_pow_tensor},
    {"diopiWhere", call_where},
    {"diopiMaskedFill", call_masked_fill},
    {"diopiMaskedFillInp", call_masked_fill_inp},
    {"diopiMaskedFillScalar", call_masked_fill_scalar},
    {"diopiClampScalar", call_clamp_scalar},
    {"diopiClampInpScalar", call_clamp_inp_scalar},
    {"diopiClamp", call_clamp},
    {"diopiClampMinScalar", call_clamp_one_scalar},
    {"diopiClampMaxScalar", call_clamp_one_scalar},
    {"diopiClampMin", call_clamp_one},
    {"diopiClampMax", call_clamp_one},
    {"diopiLeakyRelu", call_leaky_relu},
    {"diopiLeakyReluInp", call_leaky_relu_inp},
    {"diopiLeakyReluBackward", call_leaky_relu_backward},
    {"diopiHardtanh", call_hardtanh},
    {"diopiHardtanhBackward", call_hardtanh_backward},
    {"diopiThreshold", call_threshold},
    {"diopiMin", call_min},
    {"diopiElu", call_elu},
    {"diopiEluInp", call_elu_inp},
    {"diopiEluBackward", call_elu_backward},
    {"diopiSoftplus", call_softplus},
    {"diopiSoftplusBackward", call_softplus_backward},
    {"diopiMinAll", call_reduce_all},
    {"diopiMaxAll", call_reduce_all},
    {"diopiAmax", call_amax},
    {"diopiMSELoss", call_mse_loss},
    {"diopiMSELossBackward", call_mse_loss_backward},
    {"diopiAdam", call_adam},
    {"diopiArange", call_arange},
    {"diopiLinspace", call_linspace},
    {"diopiUniformInp", call_random_fill},
    {"diopiNormalInp", call_random_fill},
    {"diopiNormal", call_random_fill},
    {"diopiBernoulliScalar", call_bernoulli_scalar},
    {"diopiBernoulli", call_bernoulli},
    {"diopiBernoulliInp", call_bernoulli_inp},
    {"diopiRandperm", call_randperm},
    {"diopiMultinomial", call_multinomial},
    {"diopiLerpTensor", call_lerp_tensor},
    {"diopiLerpScalar", call_lerp_scalar},
    {"diopiAddcmul", call_addc},
    {"diopiAddcdiv", call_addc},
    {"diopiAddcmulInp", call_addc_inp},
    {"diopiAddcdivInp", call_addc_inp},
    {"diopiFlip", call_flip},
    {"diopiRoll", call_roll},
    {"diopiRepeat", call_repeat},
    {"diopiPad", call_pad},
    {"diopiTril", call_triangle},
    {"diopiTriu", call_triangle},
    {"diopiOneHot", call_one_hot},
    {"diopiSplitWithSizes", call_split},
    {"diopiProd", call_reduce_dim_ptr},
    {"diopiAny", call_reduce_dim_ptr},
    {"diopiAll", call_reduce_dim_ptr},
    {"diopiNorm", call_norm},
    {"diopiNormBackward", call_norm_backward},
    {"diopiStd", call_std},
    {"diopiCumsumBackward", call_cumsum_backward},
    {"diopiSmoothL1Loss", call_smooth_l1},
    {"diopiSmoothL1LossBackward", call_smooth_l1_backward},
    {"diopiBCELoss", call_bce},
    {"diopiBCELossBackward", call_bce_backward},
    {"diopiBCEWithLogits", call_bce_logits},
    {"diopiBCEWithLogitsBackward", call_bce_logits_backward},
    {"diopiRmsprop", call_rmsprop},
    {"diopiAdadelta", call_adadelta},
    {"diopiAvgPool2d", call_avg_pool2d},
    {"diopiAvgPool2dBackward", call_avg_pool2d_backward},
    {"diopiAvgPool3d", call_avg_pool2d}, /* the same arguments */
    {"diopiAvgPool3dBackward", call_avg_pool2d_backward},
    {"diopiAdaptiveMaxPool2dWithIndices",
     call_adaptive_max_pool2d_with_indices},
    {"diopiAdaptiveMaxPool2dBackward", call_adaptive_max_pool2d_backward},
    {"diopiGroupNorm", call_group_norm},
    {"diopiGroupNormBackward", call_group_norm_backward},
    {"diopiRMSNorm", call_rms_norm},
    {"diopiRMSNormBackward", call_rms_norm_backward},
    {"diopiBaddbmm", call_baddbmm},
    {"diopiBaddbmmInp", call_baddbmm_inp},
    {"diopiSort", call_sort},
    {"diopiAvgPool1d", call_avg_pool1d},
    {"diopiIm2Col", call_im2col},
    {"diopiCol2Im", call_col2im},
    {"diopiAvgPool1dBackward", call_avg_pool1d_backward},
    {"diopiAdaptiveMaxPool1dWithIndices",
     call_adaptive_max_pool2d_with_indices},
    {"diopiAdaptiveMaxPool1dBackward", call_adaptive_max_pool2d_backward},
    {"diopiBatchNormStats", call_bn_stats},
    {"diopiBatchNormGatherStatsWithCounts", call_bn_gather},
    {"diopiBatchNormElemt", call_bn_elemt},
    {"diopiBatchNormBackwardReduce", call_bn_backward_reduce},
    {"diopiBatchNormBackwardElemt", call_bn_backward_elemt},
    {"diopiUnfold", call_unfold},
    {"diopiUnfoldBackward", call_unfold_backward},
    {"diopiCdist", call_cdist},
    {"diopiCdistBackward", call_cdist_backward},
    {"diopiRemainder", call_remainder_of_scalar},
    {"diopiZeros", call_constant_fill},
    {"diopiOnes", call_constant_fill},
    {"diopiSelect", call_select},
    {"diopiSelectBackward", call_select_backward},
    {"diopiSelectScatter", call_select_scatter},
    {"diopiSlice", call_slice},
    {"diopiSliceBackward", call_slice_backward},
    {"diopiSliceScatter", call_slice_scatter},
    {"diopiMeshGrid", call_meshgrid},
    {"diopiIndex", call_index},
    {"diopiIndexBackward", call_index_backward},
    {"diopiIndexFill", call_index_fill},
    {"diopiIndexFillScalar", call_index_fill_scalar},
    {"diopiIndexFillInpScalar", call_index_fill_inp_scalar},
    {"diopiIndexFillInp", call_index_fill_inp},
    {"diopiSortBackward", call_sort_backward},
    {"diopiArgsort", call_argsort},
    {"diopiLinalgVecNorm", call_linalg_vec_norm},
    {"diopiDropoutInp", call_dropout_inp},
    {"diopiEqual", call_equal},
    {"diopiForeachaddScalar", call_foreach},
    {"diopiForeachaddInpScalar", call_foreach},
    {"diopiForeachmulScalar", call_foreach},
    {"diopiForeachmulTensor", call_foreach},
    {"diopiForeachmulInpTensor", call_foreach},
    {"diopiForeachnormScalar", call_foreach},
    {"diopiAmpForeachNonFiniteCheckAndUnscaleInp", call_amp_unscale},
    {"diopiAmpUpdateScaleInp", call_amp_update},
    {"diopiNormalTensorScalar", call_normal_tensors},
    {"diopiNormalScalarTensor", call_normal_tensors},
    {"diopiNormalTensor", call_normal_tensors},
    {"diopiRandomInp", call_random_integers},
    {"diopiConvTranspose2d", call_conv_transpose2d},
    {"diopiConvTranspose2dBackward", call_conv_transpose2d_backward},
    {"diopiEmbeddingRenorm_", call_embedding_renorm},
    {"diopiFusedAdamW", call_fused_adamw},
    {"diopiClipGradNorm", call_clip_grad_norm},
    {"diopiUpsampleNearest", call_upsample_nearest},
    {"diopiUpsampleNearestBackward", call_upsample_nearest_backward},
    {"diopiUpsampleLinear", call_upsample_linear},
    {"diopiUpsampleLinearBackward", call_upsample_linear_backward},
    {"diopiTopk", call_topk},
    {"diopiScatter", call_scatter},
    {"diopiScatterInp", call_scatter_inp},
    {"diopiScatterScalar", call_scatter_scalar},
    {"diopiGatherBackward", call_gather_backward},
    {"diopiIndexSelectBackward", call_index_select_backward},
    {"diopiIndexPut", call_index_put},
    {"diopiIndexPutInp", call_index_put},
    {"diopiMaskedSelect", call_dynamic},
    {"diopiNonzero", call_dynamic},
    {"diopiMaskedSelectBackward", call_masked_select_backward},
};

optest_call_t optest_more_caller(const char *op) {
  for (size_t i = 0; i < sizeof callers / sizeof callers[0]; i++)
    if (!strcmp(callers[i].op, op))
      return callers[i].call;
  return optest_ext_caller(op);
}
