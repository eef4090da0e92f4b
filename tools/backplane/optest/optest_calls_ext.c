/* Callers of the operator library's extension ops (var, logsumexp,
 * kl_div, adagrad, eye, digamma), of nll_loss v2 and of flash attention, whose
 * dropout draws from a generator the case seeds: the backward's generator is
 * set to the case's "offset", where the forward left it. */
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
    {"diopiFlashAttention", call_flash_attention},
    {"diopiFlashAttentionBackward", call_flash_attention_backward},
};

optest_call_t optest_ext_caller(const char *op) {
  for (size_t i = 0; i < sizeof callers / sizeof callers[0]; i++)
    if (!strcmp(callers[i].op, op))
      return callers[i].call;
  return optest_config_caller(op);
}
