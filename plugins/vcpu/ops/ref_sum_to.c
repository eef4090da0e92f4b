/* ref_sum_to_prepare: out viewed with in's rank (leading dims of 1), the
 * dims where out is 1 and in is not folded by a sum in double. */
#include "ref_sum_to.h"

#include <string.h>

#include "ref_error.h"

static void sum_step(ref_fold_state_t *s, double v, int64_t r,
                     const double *p) {
  (void)r;
  (void)p;
  s->a += v;
}
static double sum_finish(const ref_fold_state_t *s, int64_t count,
                         const double *p) {
  (void)count;
  (void)p;
  return s->a;
}

diopiError_t ref_sum_to_prepare(const char *op, const char *arg,
                                const ref_view_t *out, const ref_view_t *in,
                                ref_fold_t *f) {
  char want[128], got[128];
  int lead = in->ndim - out->ndim;
  for (int d = 0; d < out->ndim && lead >= 0; d++)
    if (out->shape[d] != 1 && out->shape[d] != in->shape[lead + d])
      lead = -1;
  if (lead < 0)
    return ref_fail(op, "%s: shape %s does not broadcast to %s", arg,
                    ref_shape_text(out->shape, out->ndim, got, sizeof got),
                    ref_shape_text(in->shape, in->ndim, want, sizeof want));
  memset(f, 0, sizeof *f);
  f->nin = 1;
  f->in[0] = *in;
  f->step = sum_step;
  f->finish = sum_finish;
  f->out = *out;
  f->out.ndim = in->ndim;
  for (int d = 0; d < in->ndim; d++) {
    bool given = d >= lead;
    f->out.shape[d] = given ? out->shape[d - lead] : 1;
    f->out.strides[d] = given ? out->strides[d - lead] : 0;
    f->reduced[d] = f->out.shape[d] == 1 && in->shape[d] != 1;
  }
  return diopiSuccess;
}
