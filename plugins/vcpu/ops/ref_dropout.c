/* dropout with the context's generator: element i of a call keeps its
 * input (scaled by 1/(1-p)) when the counter-based draw u(seed, offset + i)
 * is at least p. The op advances the generator's offset by numel on the
 * caller's thread, so calls in stream order draw disjoint numbers. A mask
 * of the input's leading dims and 1s ([N, C, 1, 1]) drops whole channels
 * instead (ref_dropout_channels.h). */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_dropout_channels.h"
#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct dropout_task {
  ref_view_t out, mask, input;
  bool has_mask, train;
  double p;
  uint64_t seed, offset;
} dropout_task_t;

/* splitmix64 of (seed, counter): a uniform draw in [0, 1). */
static double draw(uint64_t seed, uint64_t counter) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ull + counter + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* The float32 loop (contiguous out and input, a contiguous bool mask or
 * none): the draws of run_range, compared as integers (u >= p exactly when
 * the draw's 53 bits reach ceil(p * 2^53)) so that every build vectorizes,
 * and the same double product rounded once. */
REF_ISA_BODY void dropout_f32_lanes(float *out, bool *mask, const float *in,
                                    int64_t n, uint64_t first, uint64_t keep_at,
                                    double scale, bool with_mask) {
  for (int64_t i = 0; i < n; i++) {
    uint64_t z = first + (uint64_t)i;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    bool keep = (z >> 11) >= keep_at;
    out[i] = keep ? (float)((double)in[i] * scale) : 0.0f;
    if (with_mask)
      mask[i] = keep;
  }
}
REF_ISA_BODY void dropout_f32_body(float *out, bool *mask, const float *in,
                                   int64_t n, uint64_t first, uint64_t keep_at,
                                   double scale) {
  if (mask)
    dropout_f32_lanes(out, mask, in, n, first, keep_at, scale, true);
  else
    dropout_f32_lanes(out, mask, in, n, first, keep_at, scale, false);
}
REF_ISA_DISPATCH_VOID(static, dropout_f32,
                      (float *out, bool *mask, const float *in, int64_t n,
                       uint64_t first, uint64_t keep_at, double scale),
                      (out, mask, in, n, first, keep_at, scale))

static bool float32_path(const dropout_task_t *t) {
  return ref_f32_contiguous(&t->out) && ref_f32_contiguous(&t->input) &&
         (!t->has_mask ||
          (t->mask.dtype == diopi_dtype_bool && ref_contiguous(&t->mask)));
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const dropout_task_t *t = context;
  double scale = t->p < 1 ? 1.0 / (1.0 - t->p) : 0.0;
  if (float32_path(t)) { /* not training: every draw keeps, scale 1 */
    uint64_t first = t->seed * 0x9e3779b97f4a7c15ull + t->offset +
                     0x632be59bd9b4e019ull + (uint64_t)begin;
    uint64_t keep_at = t->train ? (uint64_t)ceil(t->p * 0x1.0p53) : 0;
    dropout_f32((float *)t->out.data + begin,
                t->has_mask ? (bool *)t->mask.data + begin : NULL,
                (const float *)t->input.data + begin, end - begin, first,
                keep_at, t->train ? scale : 1.0);
    return;
  }
  for (int64_t i = begin; i < end; i++) {
    bool keep = !t->train || draw(t->seed, t->offset + (uint64_t)i) >= t->p;
    ref_set(&t->out, i,
            keep ? ref_get(&t->input, i) * (t->train ? scale : 1.0) : 0.0);
    if (t->has_mask)
      ref_set(&t->mask, i, keep ? 1.0 : 0.0);
  }
}

static void run(void *args) {
  dropout_task_t *t = args;
  ref_parallel_for(t->out.numel, 1 << 15, run_range, t);
}

REF_EXPORT diopiError_t diopiDropout(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiTensorHandle_t mask,
                                     diopiConstTensorHandle_t input, double p,
                                     bool train,
                                     diopiGeneratorHandle_t generator) {
  const char *op = "diopiDropout";
  /* Without a generator, calls share one library-wide counter. */
  static _Atomic uint64_t shared_offset;
  dropout_task_t t;
  memset(&t, 0, sizeof t);
  t.p = p;
  t.train = train;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view_optional(ctx, op, "mask", mask, &t.mask, &t.has_mask);
  if (!err && !(p >= 0 && p <= 1))
    err = ref_fail(op, "p: %g is outside [0, 1]", p);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, t.input.shape, t.input.ndim);
  if (!err && t.has_mask && ref_dropout_is_channel_mask(&t.mask, &t.input))
    return ref_dropout_channels(ctx, op, &t.out, &t.mask, &t.input, p, train,
                                generator);
  if (!err && t.has_mask)
    err = ref_expect_shape(op, "mask", &t.mask, t.input.shape, t.input.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err)
    return err;
  uint64_t n = (uint64_t)t.out.numel;
  if (train && generator) {
    if (diopiGeneratorGetSeedAndOffset(generator, &t.seed, &t.offset) ||
        diopiGeneratorSetSeedAndOffset(generator, t.seed, t.offset + n))
      return ref_fail(op, "generator: the runtime cannot read or advance it");
  } else if (train) {
    t.offset = atomic_fetch_add(&shared_offset, n);
  }
  if (n == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
