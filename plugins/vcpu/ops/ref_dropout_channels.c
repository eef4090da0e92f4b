/* Channel dropout: one counter-based draw per mask element, the channel's
 * elements (a run of input's row-major linear indices) scaled or zeroed
 * together (contiguous float32: in float); channels split across the
 * worker pool. */
#include "ref_dropout_channels.h"

#include <string.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_rng.h"

typedef struct channels_task {
  ref_view_t out, mask, input;
  int64_t inner; /* elements per channel */
  bool train;
  bool f32; /* out and input contiguous float32: a float loop */
  double p;
  uint64_t seed, offset;
} channels_task_t;

bool ref_dropout_is_channel_mask(const ref_view_t *mask,
                                 const ref_view_t *input) {
  if (mask->ndim != input->ndim || mask->ndim < 2)
    return false;
  int lead = 0;
  while (lead < mask->ndim && mask->shape[lead] == input->shape[lead])
    lead++;
  if (lead == mask->ndim || lead == 0)
    return false; /* input's own shape, or no channel dims */
  for (int d = lead; d < mask->ndim; d++)
    if (mask->shape[d] != 1)
      return false;
  return true;
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const channels_task_t *t = context;
  double scale = t->p < 1 ? 1.0 / (1.0 - t->p) : 0.0;
  for (int64_t c = begin; c < end; c++) {
    bool keep =
        !t->train || ref_rng_uniform(t->seed, t->offset + (uint64_t)c) >= t->p;
    double factor = keep ? (t->train ? scale : 1.0) : 0.0;
    ref_set(&t->mask, c, keep ? 1.0 : 0.0);
    if (t->f32) {
      const float *x = (const float *)t->input.data + c * t->inner;
      float *y = (float *)t->out.data + c * t->inner, f = (float)factor;
      for (int64_t i = 0; i < t->inner; i++)
        y[i] = keep ? x[i] * f : 0.0f;
      continue;
    }
    for (int64_t i = c * t->inner; i < (c + 1) * t->inner; i++)
      ref_set(&t->out, i, keep ? ref_get(&t->input, i) * factor : 0.0);
  }
}

static void run(void *args) {
  channels_task_t *t = args;
  int64_t grain = (1 << 15) / (t->inner ? t->inner : 1) + 1;
  ref_parallel_for(t->mask.numel, grain, run_range, t);
}

diopiError_t ref_dropout_channels(diopiContextHandle_t ctx, const char *op,
                                  const ref_view_t *out, const ref_view_t *mask,
                                  const ref_view_t *input, double p, bool train,
                                  diopiGeneratorHandle_t generator) {
  channels_task_t t;
  memset(&t, 0, sizeof t);
  t.out = *out;
  t.mask = *mask;
  t.input = *input;
  t.p = p;
  t.train = train;
  t.inner = mask->numel ? input->numel / mask->numel : 0;
  t.f32 = ref_f32_contiguous(out) && ref_f32_contiguous(input);
  diopiError_t err = ref_expect_no_partial_overlap(op, "input", out, input);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "mask", out, mask);
  if (!err && train)
    err = ref_rng_reserve(op, generator, (uint64_t)mask->numel, &t.seed,
                          &t.offset);
  if (err || mask->numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
