/* Callers of the operator library's extension ops (var, logsumexp,
 * kl_div, adagrad, eye, digamma, polygamma, xlogy, addmv, addbmm), of nll_loss
 * v2 and of flash attention, whose dropout draws from a generator the case
 * seeds: the backward's generator is set to the case's "offset", where the
 * forward left it. */
#include <string.h>

#include "backplane/backplane.h"
#include "optest_call_forms.h"

CALL(var, return ((diopiError_t(*)(CTX, T, CT, diopiSize_t, S))fn)(
              ctx, tensor(a, "out"), tensor(a, "input"), list(a, "dim"),
              maybe_scalar(a, "correction", &s0));)
CALL(var_backward, return ((diopiError_t(*)(CTX, T, CT, CT, diopiSize_t, S))fn)(
                       ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
                       tensor(a, "input"), list(a, "dim"),
                       maybe_scalar(a, "correction", &s0));)
CALL(logsumexp, return ((diopiError_t(*)(CTX, T, CT, diopiSize_t))fn)(
                    ctx, tensor(a, "out"), tensor(a, "input"), list(a, "dim"));)
CALL(logsumexp_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, diopiSize_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "result"), list(a, "dim"));)
CALL(kl_div,
     return ((diopiError_t(*)(CTX, T, CT, CT, diopiReduction_t, bool))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"), tensor(a, "target"),
         (diopiReduction_t)integer(a, "reduction"),
         integer(a, "log_target") != 0);)
CALL(kl_div_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, diopiReduction_t, bool))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "target"),
         (diopiReduction_t)integer(a, "reduction"),
         integer(a, "log_target") != 0);)
CALL(adagrad, return ((diopiError_t(*)(CTX, T, CT, T, float, float, float,
                                       float, int64_t))fn)(
                  ctx, tensor(a, "param"), tensor(a, "grad"),
                  tensor(a, "state_sum"), (float)real(a, "lr"),
                  (float)real(a, "lr_decay"), (float)real(a, "weight_decay"),
                  (float)real(a, "eps"), integer(a, "step"));)
CALL(nll_loss_v2,
     return ((diopiError_t(*)(CTX, T, T, CT, CT, CT, diopiReduction_t, int64_t))
                 fn)(ctx, tensor(a, "out"), tensor(a, "totalWeight"),
                     tensor(a, "input"), tensor(a, "target"),
                     tensor(a, "weight"),
                     (diopiReduction_t)integer(a, "reduction"),
                     integer(a, "ignore_index"));)
CALL(nll_loss_v2_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, CT, CT, diopiReduction_t,
                              int64_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), tensor(a, "target"), tensor(a, "weight"),
         tensor(a, "totalWeight"), (diopiReduction_t)integer(a, "reduction"),
         integer(a, "ignore_index"));)
CALL(eye, return ((diopiError_t(*)(CTX, T, int64_t, int64_t))fn)(
              ctx, tensor(a, "out"), integer(a, "n"), integer(a, "m"));)
CALL(unary, return ((diopiError_t(*)(CTX, T, CT))fn)(ctx, tensor(a, "out"),
                                                     tensor(a, "input"));)
CALL(unary_inp, return ((diopiError_t(*)(CTX, T))fn)(ctx, tensor(a, "input"));)
CALL(polygamma,
     return ((diopiError_t(*)(CTX, T, CT, int64_t))fn)(ctx, tensor(a, "out"),
                                                       tensor(a, "input"),
                                                       integer(a, "n"));)
CALL(polygamma_inp,
     return ((diopiError_t(*)(CTX, T, int64_t))fn)(ctx, tensor(a, "input"),
                                                   integer(a, "n"));)
CALL(polygamma_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT, int64_t))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_output"),
         tensor(a, "input"), integer(a, "n"));)
CALL(digamma_backward,
     return ((diopiError_t(*)(CTX, T, CT, CT))fn)(ctx, tensor(a, "grad_input"),
                                                  tensor(a, "grad_output"),
                                                  tensor(a, "input"));)
CALL(xlogy, return ((diopiError_t(*)(CTX, T, CT, CT))fn)(ctx, tensor(a, "out"),
                                                         tensor(a, "input"),
                                                         tensor(a, "other"));)
CALL(xlogy_inp,
     return ((diopiError_t(*)(CTX, T, CT))fn)(ctx, tensor(a, "input"),
                                              tensor(a, "other"));)
CALL(xlogy_scalar, s0 = optest_arg_scalar(a, "other");
     return ((diopiError_t(*)(CTX, T, CT, S))fn)(ctx, tensor(a, "out"),
                                                 tensor(a, "input"), &s0);)
CALL(xlogy_scalar_inp, s0 = optest_arg_scalar(a, "other");
     return ((diopiError_t(*)(CTX, T, S))fn)(ctx, tensor(a, "input"), &s0);)
CALL(xlogy_scalar_self, s0 = optest_arg_scalar(a, "input");
     return ((diopiError_t(*)(CTX, T, S, CT))fn)(ctx, tensor(a, "out"), &s0,
                                                 tensor(a, "other"));)
CALL(xlogy_backward,
     return ((diopiError_t(*)(CTX, T, T, CT, CT, CT))fn)(
         ctx, tensor(a, "grad_input"), tensor(a, "grad_other"),
         tensor(a, "grad_output"), tensor(a, "input"), tensor(a, "other"));)
/* addmv (input, mat, vec) and addbmm (input, batch1, batch2), and their
 * backwards. */
CALL(add_product, s0 = optest_arg_scalar(a, "beta");
     s1 = optest_arg_scalar(a, "alpha"); bool bmm = tensor(a, "batch1") != NULL;
     return ((diopiError_t(*)(CTX, T, CT, CT, CT, S, S))fn)(
         ctx, tensor(a, "out"), tensor(a, "input"),
         tensor(a, bmm ? "batch1" : "mat"), tensor(a, bmm ? "batch2" : "vec"),
         &s0, &s1);)
CALL(add_product_backward, s0 = optest_arg_scalar(a, "beta");
     s1 = optest_arg_scalar(a, "alpha"); bool bmm = tensor(a, "batch1") != NULL;
     return ((diopiError_t(*)(CTX, T, T, T, CT, CT, CT, S, S))fn)(
         ctx, tensor(a, "grad_input"),
         tensor(a, bmm ? "grad_batch1" : "grad_mat"),
         tensor(a, bmm ? "grad_batch2" : "grad_vec"), tensor(a, "grad_output"),
         tensor(a, bmm ? "batch1" : "mat"), tensor(a, bmm ? "batch2" : "vec"),
         &s0, &s1);)
CALL(add_product_inp, s0 = optest_arg_scalar(a, "beta");
     s1 = optest_arg_scalar(a, "alpha"); bool bmm = tensor(a, "batch1") != NULL;
     return ((diopiError_t(*)(CTX, T, CT, CT, S, S))fn)(
         ctx, tensor(a, "input"), tensor(a, bmm ? "batch1" : "mat"),
         tensor(a, bmm ? "batch2" : "vec"), &s0, &s1);)

/* A generator for a case with a "seed" (at its "offset"), else NULL;
 * *failed when one cannot be made. */
static G case_generator(const optest_args_t *a, bool *failed) {
  G g = NULL;
  *failed = false;
  if (!optest_attr(a->c, "seed"))
    return NULL;
  if (bp_ops_generator_create((uint64_t)integer(a, "seed"), &g) ||
      diopiGeneratorSetSeedAndOffset(g, (uint64_t)integer(a, "seed"),
                                     (uint64_t)integer(a, "offset"))) {
    if (g)
      bp_ops_generator_destroy(g);
    *failed = true;
    return NULL;
  }
  return g;
}

static void release_generator(CTX ctx, G g) {
  if (!g)
    return;
  bp_stream_synchronize(bp_ops_context_stream(ctx)); /* generator in use */
  bp_ops_generator_destroy(g);
}

static diopiError_t call_flash_attention(void *fn, CTX ctx,
                                         const optest_args_t *a) {
  bool failed;
  G g = case_generator(a, &failed);
  if (failed)
    return diopiErrorOccurred;
  diopiError_t err = ((diopiError_t(*)(CTX, T, T, G, CT, CT, CT, CT, float,
                                       float, bool, int32_t, int32_t))fn)(
      ctx, tensor(a, "attention_out"), tensor(a, "softmax_lse"), g,
      tensor(a, "q"), tensor(a, "k"), tensor(a, "v"), tensor(a, "alibi_slopes"),
      (float)real(a, "p_dropout"), (float)real(a, "softmax_scale"),
      integer(a, "is_causal") != 0, (int32_t)integer(a, "window_size_left"),
      (int32_t)integer(a, "window_size_right"));
  release_generator(ctx, g);
  return err;
}

static diopiError_t call_flash_attention_backward(void *fn, CTX ctx,
                                                  const optest_args_t *a) {
  bool failed;
  G g = case_generator(a, &failed);
  if (failed)
    return diopiErrorOccurred;
  diopiError_t err =
      ((diopiError_t(*)(CTX, T, T, T, CT, G, CT, CT, CT, CT, CT, CT, float,
                        float, bool, int32_t, int32_t))fn)(
          ctx, tensor(a, "grad_q"), tensor(a, "grad_k"), tensor(a, "grad_v"),
          tensor(a, "grad_output"), g, tensor(a, "q"), tensor(a, "k"),
          tensor(a, "v"), tensor(a, "alibi_slopes"), tensor(a, "attention_out"),
          tensor(a, "softmax_lse"), (float)real(a, "p_dropout"),
          (float)real(a, "softmax_scale"), integer(a, "is_causal") != 0,
          (int32_t)integer(a, "window_size_left"),
          (int32_t)integer(a, "window_size_right"));
  release_generator(ctx, g);
  return err;
}

static const struct {
  const char *op;
  optest_call_t call;
} callers[] = {
    {"diopiVar", call_var},
    {"diopiVarBackward", call_var_backward},
    {"diopiLogsumexp", call_logsumexp},
    {"diopiLogsumexpBackward", call_logsumexp_backward},
    {"diopiKLDivLoss", call_kl_div},
    {"diopiKLDivLossBackward", call_kl_div_backward},
    {"diopiAdagrad", call_adagrad},
    {"diopiNLLLossV2", call_nll_loss_v2},
    {"diopiNLLLossV2Backward", call_nll_loss_v2_backward},
    {"diopiEye", call_eye},
    {"diopiDigamma", call_unary},
    {"diopiDigammaInp", call_unary_inp},
    {"diopiDigammaBackward", call_digamma_backward},
    {"diopiPolygamma", call_polygamma},
    {"diopiPolygammaInp", call_polygamma_inp},
    {"diopiPolygammaBackward", call_polygamma_backward},
    {"diopiXlogy", call_xlogy},
    {"diopiXlogyInp", call_xlogy_inp},
    {"diopiXlogyScalar", call_xlogy_scalar},
    {"diopiXlogyScalarInp", call_xlogy_scalar_inp},
    {"diopiXlogyScalarSelf", call_xlogy_scalar_self},
    {"diopiXlogyBackward", call_xlogy_backward},
    {"diopiAddmv", call_add_product},
    {"diopiAddmvInp", call_add_product_inp},
    {"diopiAddbmm", call_add_product},
    {"diopiAddbmmInp", call_add_product_inp},
    {"diopiAddmvBackward", call_add_product_backward},
    {"diopiAddbmmBackward", call_add_product_backward},
    {"diopiFlashAttention", call_flash_attention},
    {"diopiFlashAttentionBackward", call_flash_attention_backward},
};

optest_call_t optest_ext_caller(const char *op) {
  for (size_t i = 0; i < sizeof callers / sizeof callers[0]; i++)
    if (!strcmp(callers[i].op, op))
      return callers[i].call;
  return optest_config_caller(op);
}
