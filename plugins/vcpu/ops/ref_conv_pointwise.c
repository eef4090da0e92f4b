/* The pointwise convolution forward (see ref_conv_pointwise.h). */
#include "ref_conv_pointwise.h"

#include <cblas.h>
#include <string.h>

#include "ref_pool.h"

bool ref_conv_pointwise_applies(const int64_t kernel[3],
                                const int64_t stride[3]) {
  for (int i = 0; i < 3; i++)
    if (kernel[i] != 1 || stride[i] != 1)
      return false;
  return true;
}

static bool padded(const ref_conv_pointwise_t *c) {
  return c->pad[0] || c->pad[1] || c->pad[2];
}

int64_t ref_conv_pointwise_scratch_floats(const ref_conv_pointwise_t *c) {
  return padded(c) ? c->cout / c->groups * c->d * c->h * c->w : 0;
}

/* One image's group: `og` output channels from `product` (og x d*h*w,
 * NULL when the GEMM wrote y in place) and the bias. */
typedef struct fill {
  const ref_conv_pointwise_t *c;
  const float *product, *bias; /* bias: the group's first, or NULL */
  float *y;                    /* the group's first output channel */
  int64_t od, oh, ow;          /* output sizes */
} fill_t;

static void fill_row(float *dst, const float *src, int64_t n, float bias) {
  if (src)
    for (int64_t k = 0; k < n; k++)
      dst[k] = src[k] + bias;
  else
    for (int64_t k = 0; k < n; k++)
      dst[k] = bias;
}

/* Output rows [begin, end): row q = (o, z, y) of the group's channels. */
static void fill_rows(void *context, int64_t begin, int64_t end) {
  const fill_t *f = context;
  const ref_conv_pointwise_t *c = f->c;
  for (int64_t q = begin; q < end; q++) {
    int64_t o = q / (f->od * f->oh), z = q / f->oh % f->od, y = q % f->oh;
    float bias = f->bias ? f->bias[o] : 0.0f;
    float *dst = f->y + q * f->ow;
    int64_t iz = z - c->pad[0], iy = y - c->pad[1];
    if (!f->product) { /* in place: the row is the product's */
      fill_row(dst, dst, f->ow, bias);
      continue;
    }
    if (iz < 0 || iz >= c->d || iy < 0 || iy >= c->h) {
      fill_row(dst, NULL, f->ow, bias);
      continue;
    }
    const float *src = f->product + ((o * c->d + iz) * c->h + iy) * c->w;
    fill_row(dst, NULL, c->pad[2], bias);
    fill_row(dst + c->pad[2], src, c->w, bias);
    fill_row(dst + c->pad[2] + c->w, NULL, f->ow - c->pad[2] - c->w, bias);
  }
}

void ref_conv_pointwise_forward(const ref_conv_pointwise_t *c, float *scratch) {
  int64_t cg = c->cin / c->groups, og = c->cout / c->groups;
  int64_t volume = c->d * c->h * c->w;
  fill_t f = {.c = c,
              .od = c->d + 2 * c->pad[0],
              .oh = c->h + 2 * c->pad[1],
              .ow = c->w + 2 * c->pad[2]};
  int64_t out_volume = f.od * f.oh * f.ow;
  bool in_place = !padded(c);
  for (int64_t n = 0; n < c->n; n++)
    for (int64_t gr = 0; gr < c->groups; gr++) {
      f.y = c->y + (n * c->cout + gr * og) * out_volume;
      f.product = in_place ? NULL : scratch;
      f.bias = c->bias ? c->bias + gr * og : NULL;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)og,
                  (int)volume, (int)cg, 1.0f, c->weight + gr * og * cg, (int)cg,
                  c->x + (n * c->cin + gr * cg) * volume, (int)volume, 0.0f,
                  in_place ? f.y : scratch, (int)volume);
      if (in_place && !f.bias)
        continue;
      ref_parallel_for(og * f.od * f.oh, (1 << 14) / (f.ow + 1) + 1, fill_rows,
                       &f);
    }
}
