/* Callers of the in-place forms that only DIOPI's own configurations ask
 * for (tests/data/ops_diopi): scalar and tensor bounds, scalar operands and
 * masks written back into the input. */
#include <string.h>

#include "optest_call_forms.h"

/* (input, S other, S alpha): add/sub. */
CALL(alpha_inp_scalar, diopiScalar_t alpha = optest_arg_scalar(a, "alpha");
     return ((diopiError_t(*)(CTX, T, S, S))fn)(ctx, tensor(a, "input"),
                                                maybe_scalar(a, "other", &s0),
                                                &alpha);)
CALL(div_inp_scalar, return ((diopiError_t(*)(CTX, T, S, diopiRoundMode_t))fn)(
                         ctx, tensor(a, "input"), maybe_scalar(a, "other", &s0),
                         (diopiRoundMode_t)integer(a, "rounding_mode"));)
/* clamp in place: two tensor bounds, or the one named "min" or "max" as a
 * tensor or a scalar. */
CALL(clamp_inp,
     return ((diopiError_t(*)(CTX, T, CT, CT))fn)(ctx, tensor(a, "input"),
                                                  tensor(a, "min"),
                                                  tensor(a, "max"));)
CALL(clamp_one_inp, CT bound = tensor(a, "min");
     if (!bound) bound = tensor(a, "max");
     return ((diopiError_t(*)(CTX, T, CT))fn)(ctx, tensor(a, "input"), bound);)
CALL(clamp_one_inp_scalar, S bound = maybe_scalar(a, "min", &s0);
     if (!bound) bound = maybe_scalar(a, "max", &s1);
     return ((diopiError_t(*)(CTX, T, S))fn)(ctx, tensor(a, "input"), bound);)
CALL(masked_fill_inp_scalar,
     return ((diopiError_t(*)(CTX, T, CT,
                              S))fn)(ctx, tensor(a, "input"), tensor(a, "mask"),
                                     maybe_scalar(a, "value", &s0));)
/* (input, S, S): hardtanh's bounds, threshold's threshold and value. */
CALL(hardtanh_inp, return ((diopiError_t(*)(CTX, T, S, S))fn)(
                       ctx, tensor(a, "input"), maybe_scalar(a, "min_val", &s0),
                       maybe_scalar(a, "max_val", &s1));)
CALL(threshold_inp,
     return ((diopiError_t(*)(CTX, T, S, S))fn)(ctx, tensor(a, "input"),
                                                maybe_scalar(a, "threshold",
                                                             &s0),
                                                maybe_scalar(a, "value", &s1));)
CALL(triangle_inp,
     return ((diopiError_t(*)(CTX, T, int64_t))fn)(ctx, tensor(a, "input"),
                                                   integer(a, "diagonal"));)
CALL(scatter_inp_scalar,
     return ((diopiError_t(*)(CTX, T, int64_t, S, CT, const char *))fn)(
         ctx, tensor(a, "input"), integer(a, "dim"),
         maybe_scalar(a, "value", &s0), tensor(a, "index"),
         optest_arg_text(a, "reduce"));)

static const struct {
  const char *op;
  optest_call_t call;
} callers[] = {
    {"diopiAddInpScalar", call_alpha_inp_scalar},
    {"diopiSubInpScalar", call_alpha_inp_scalar},
    {"diopiDivInpScalar", call_div_inp_scalar},
    {"diopiClampInp", call_clamp_inp},
    {"diopiClampMinInp", call_clamp_one_inp},
    {"diopiClampMaxInp", call_clamp_one_inp},
    {"diopiClampMinInpScalar", call_clamp_one_inp_scalar},
    {"diopiClampMaxInpScalar", call_clamp_one_inp_scalar},
    {"diopiMaskedFillInpScalar", call_masked_fill_inp_scalar},
    {"diopiHardtanhInp", call_hardtanh_inp},
    {"diopiThresholdInp", call_threshold_inp},
    {"diopiTriuInp", call_triangle_inp},
    {"diopiTrilInp", call_triangle_inp},
    {"diopiScatterInpScalar", call_scatter_inp_scalar},
};

optest_call_t optest_config_caller(const char *op) {
  for (size_t i = 0; i < sizeof callers / sizeof callers[0]; i++)
    if (!strcmp(callers[i].op, op))
      return callers[i].call;
  return NULL;
}
