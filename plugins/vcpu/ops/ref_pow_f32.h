/* pow's float32 elementwise loops (ref_ew_f32_fn_t), vectorized per ISA
 * (ref_pow_f32.c): within 1 ulp of the correctly rounded result, C's powf
 * in every special case. p[0]: the scalar operand where there is one. */
#ifndef BACKPLANE_REF_OPS_POW_F32_H_
#define BACKPLANE_REF_OPS_POW_F32_H_

#include <stdint.h>

/* out = in[0] ^ p[0] (x * x for 2, sqrtf for 0.5, as PyTorch computes
 * them). */
void ref_pow_f32_exponent(float *out, const float *const *in, int64_t n,
                          const double *p);
/* out = in[0] ^ in[1]. */
void ref_pow_f32_tensors(float *out, const float *const *in, int64_t n,
                         const double *p);
/* out = p[0] ^ in[0], the base rounded to float. */
void ref_pow_f32_base(float *out, const float *const *in, int64_t n,
                      const double *p);

#endif /* BACKPLANE_REF_OPS_POW_F32_H_ */
