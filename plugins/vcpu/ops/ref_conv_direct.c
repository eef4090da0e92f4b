/* The direct convolution forward (see ref_conv_direct.h). The weights go
 * into panels of two vectors of a group's output channels (zero past the
 * group's last), tap-major, so that a step over the taps loads two whole
 * vectors; each tap's input offset from its window's origin is in a table.
 * The panels are written in parallel, tap by tap. A tile is 6 positions of one
 * output row: per tap it broadcasts the 6 input values (a stride apart) and
 * adds their products into 12 accumulators, in tap order, the bias added last.
 * A row shorter than a tile repeats its last position and stores only the
 * positions it has. One build per ISA with its own vector width (16, 8 or 4
 * floats). */
#include "ref_conv_direct.h"

#include "ref_isa.h"
#include "ref_pool.h"
#include "ref_vector_types.h"

enum { TILE = 6 };

/* Output channels per panel: two vectors of ref_isa()'s width. */
static int64_t panel_width(void) {
#ifdef REF_ISA_MULTIVERSION
  ref_isa_t isa = ref_isa();
  return isa == REF_ISA_AVX512 ? 32 : isa == REF_ISA_AVX2 ? 16 : 8;
#else
  return 8;
#endif
}

typedef struct layout {
  int64_t cg, og, k; /* per group: input and output channels, taps */
  int64_t width;     /* a panel's channels */
  int64_t panels;    /* per group */
} layout_t;

static layout_t layout_of(const ref_conv_direct_t *c) {
  layout_t l;
  l.cg = c->cin / c->groups;
  l.og = c->cout / c->groups;
  l.k = l.cg * c->kd * c->kh * c->kw;
  l.width = panel_width();
  l.panels = (l.og + l.width - 1) / l.width;
  return l;
}

size_t ref_conv_direct_scratch_bytes(const ref_conv_direct_t *c) {
  layout_t l = layout_of(c);
  return (size_t)l.k * sizeof(int64_t) +
         (size_t)(c->groups * l.panels * (l.k + 1) * l.width) * sizeof(float);
}

typedef struct run {
  const ref_conv_direct_t *c;
  layout_t l;
  const int64_t *offsets; /* tap t's input offset from the window origin */
  const float *weights;   /* [group][panel][tap][channel] */
  const float *bias;      /* [group][panel][channel] */
} run_t;

/* The tap offsets and the bias panels. */
static void pack_offsets_and_bias(const ref_conv_direct_t *c, const layout_t *l,
                                  int64_t *offsets, float *bias) {
  int64_t plane = c->h * c->w, volume = c->d * plane;
  for (int64_t t = 0; t < l->k; t++) {
    int64_t j = t % c->kw, i = t / c->kw % c->kh,
            a = t / (c->kw * c->kh) % c->kd, ci = t / (c->kw * c->kh * c->kd);
    offsets[t] = ci * volume + a * c->dil[0] * plane + i * c->dil[1] * c->w +
                 j * c->dil[2];
  }
  for (int64_t g = 0; g < c->groups; g++)
    for (int64_t p = 0; p < l->panels; p++)
      for (int64_t lane = 0; lane < l->width; lane++) {
        int64_t oc = p * l->width + lane;
        bias[(g * l->panels + p) * l->width + lane] =
            oc < l->og && c->bias ? c->bias[g * l->og + oc] : 0.0f;
      }
}

typedef struct packing {
  const ref_conv_direct_t *c;
  const layout_t *l;
  float *weights;
} packing_t;

/* Taps [begin, end) of every weight panel, written in order (a ref_range_fn_t).
 */
static void pack_weights(void *context, int64_t begin, int64_t end) {
  const packing_t *w = context;
  const ref_conv_direct_t *c = w->c;
  const layout_t *l = w->l;
  for (int64_t g = 0; g < c->groups; g++)
    for (int64_t p = 0; p < l->panels; p++) {
      float *panel = w->weights + (g * l->panels + p) * l->k * l->width;
      for (int64_t t = begin; t < end; t++)
        for (int64_t lane = 0; lane < l->width; lane++) {
          int64_t oc = p * l->width + lane;
          panel[t * l->width + lane] =
              oc < l->og ? c->weight[(g * l->og + oc) * l->k + t] : 0.0f;
        }
    }
}

/* Defines NAME, a ref_range_fn_t over output rows (image, group, depth,
 * row), with vectors of type V (L floats; VU its unaligned form). */
#define DEFINE_ROWS(NAME, TARGET, V, VU, L)                                    \
  TARGET static void NAME(void *context, int64_t begin, int64_t end) {         \
    const run_t *r = context;                                                  \
    const ref_conv_direct_t *c = r->c;                                         \
    const layout_t *l = &r->l;                                                 \
    int64_t positions = c->od * c->oh * c->ow;                                 \
    for (int64_t row = begin; row < end; row++) {                              \
      int64_t oy = row % c->oh, rest = row / c->oh;                            \
      int64_t z = rest % c->od, g = rest / c->od % c->groups,                  \
              n = rest / c->od / c->groups;                                    \
      const float *x =                                                         \
          c->x +                                                               \
          ((n * c->cin + g * l->cg) * c->d + z * c->stride[0]) * c->h * c->w + \
          oy * c->stride[1] * c->w;                                            \
      float *y = c->y + (n * c->cout + g * l->og) * positions +                \
                 (z * c->oh + oy) * c->ow;                                     \
      for (int64_t p = 0; p < l->panels; p++) {                                \
        const float *panel = r->weights + (g * l->panels + p) * l->k * 2 * L;  \
        const float *bias = r->bias + (g * l->panels + p) * 2 * L;             \
        int64_t oc0 = p * 2 * L;                                               \
        int64_t channels = l->og - oc0 < 2 * L ? l->og - oc0 : 2 * L;          \
        for (int64_t ox0 = 0; ox0 < c->ow; ox0 += TILE) {                      \
          int64_t count = c->ow - ox0 < TILE ? c->ow - ox0 : TILE;             \
          int64_t at[TILE];                                                    \
          for (int64_t q = 0; q < TILE; q++)                                   \
            at[q] = (ox0 + (q < count ? q : count - 1)) * c->stride[2];        \
          V s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0},        \
            t0 = {0}, t1 = {0}, t2 = {0}, t3 = {0}, t4 = {0}, t5 = {0};        \
          for (int64_t k = 0; k < l->k; k++) {                                 \
            const float *in = x + r->offsets[k];                               \
            const float *wk = panel + k * 2 * L;                               \
            V w0 = *(const VU *)wk, w1 = *(const VU *)(wk + L);                \
            float v0 = in[at[0]], v1 = in[at[1]], v2 = in[at[2]],              \
                  v3 = in[at[3]], v4 = in[at[4]], v5 = in[at[5]];              \
            s0 += v0 * w0;                                                     \
            t0 += v0 * w1;                                                     \
            s1 += v1 * w0;                                                     \
            t1 += v1 * w1;                                                     \
            s2 += v2 * w0;                                                     \
            t2 += v2 * w1;                                                     \
            s3 += v3 * w0;                                                     \
            t3 += v3 * w1;                                                     \
            s4 += v4 * w0;                                                     \
            t4 += v4 * w1;                                                     \
            s5 += v5 * w0;                                                     \
            t5 += v5 * w1;                                                     \
          }                                                                    \
          float tile[TILE][2 * L];                                             \
          *(VU *)tile[0] = s0;                                                 \
          *(VU *)(tile[0] + L) = t0;                                           \
          *(VU *)tile[1] = s1;                                                 \
          *(VU *)(tile[1] + L) = t1;                                           \
          *(VU *)tile[2] = s2;                                                 \
          *(VU *)(tile[2] + L) = t2;                                           \
          *(VU *)tile[3] = s3;                                                 \
          *(VU *)(tile[3] + L) = t3;                                           \
          *(VU *)tile[4] = s4;                                                 \
          *(VU *)(tile[4] + L) = t4;                                           \
          *(VU *)tile[5] = s5;                                                 \
          *(VU *)(tile[5] + L) = t5;                                           \
          for (int64_t ch = 0; ch < channels; ch++)                            \
            for (int64_t q = 0; q < count; q++)                                \
              y[(oc0 + ch) * positions + ox0 + q] = tile[q][ch] + bias[ch];    \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

#ifdef REF_ISA_MULTIVERSION
DEFINE_ROWS(rows_avx512, REF_TARGET_AVX512, vf16, vf16u, 16)
DEFINE_ROWS(rows_avx2, REF_TARGET_AVX2, vf8, vf8u, 8)
#endif
DEFINE_ROWS(rows_sse2, , vf4, vf4u, 4)

void ref_conv_direct_forward(const ref_conv_direct_t *c, void *scratch) {
  run_t r = {.c = c, .l = layout_of(c)};
  int64_t *offsets = scratch;
  float *weights = (float *)(offsets + r.l.k);
  float *bias = weights + c->groups * r.l.panels * r.l.k * r.l.width;
  pack_offsets_and_bias(c, &r.l, offsets, bias);
  packing_t packing = {c, &r.l, weights};
  /* a tap is groups x panels x width floats: a few hundred make a chunk */
  ref_parallel_for(r.l.k,
                   (1 << 14) / (c->groups * r.l.panels * r.l.width + 1) + 1,
                   pack_weights, &packing);
  r.offsets = offsets;
  r.weights = weights;
  r.bias = bias;
  ref_range_fn_t rows = rows_sse2;
#ifdef REF_ISA_MULTIVERSION
  if (r.l.width == 32)
    rows = rows_avx512;
  else if (r.l.width == 16)
    rows = rows_avx2;
#endif
  /* a row is og x ow x k multiply-adds: a few make a chunk */
  int64_t work = c->cout / c->groups * c->ow * r.l.k;
  ref_parallel_for(c->n * c->groups * c->od * c->oh, (1 << 18) / (work + 1) + 1,
                   rows, &r);
}
