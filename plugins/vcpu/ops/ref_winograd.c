#include "ref_winograd.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "ref_f32.h"
#include "ref_pool.h"

/* Tiles per chunk: the lanes of every transform loop and the columns of
 * each product. */
enum {
  LANES = 16, /* one 16-float vector per row of lanes */
  ROWS = 16   /* output channels per product block */
};

typedef float vec16 __attribute__((vector_size(64)));
/* 16 floats in memory at any float's alignment. */
typedef float vec16u __attribute__((vector_size(64), aligned(4)));
#define AT16(p) (*(vec16u *)(p))
typedef float vec8 __attribute__((vector_size(32)));
typedef float vec8u __attribute__((vector_size(32), aligned(4)));
#define AT8(p) (*(vec8u *)(p))

/* The derived sizes of a geometry. */
typedef struct layout {
  int64_t tiles_h, tiles_w, tiles, chunks;
  int64_t ph, pw; /* padded input plane */
  int64_t kp;     /* C_out rounded up to ROWS */
  int64_t padded_floats, weight_floats, chunk_floats, slots;
} layout_t;

static layout_t layout_of(const ref_winograd_t *w) {
  layout_t l;
  l.tiles_h = (w->oh + 3) / 4;
  l.tiles_w = (w->ow + 3) / 4;
  l.tiles = w->n * l.tiles_h * l.tiles_w;
  l.chunks = (l.tiles + LANES - 1) / LANES;
  l.ph = l.tiles_h * 4 + 2;
  l.pw = l.tiles_w * 4 + 2;
  l.kp = (w->k + ROWS - 1) / ROWS * ROWS;
  l.padded_floats = w->n * w->c * l.ph * l.pw + 8; /* patch rows' overrun */
  l.weight_floats = 36 * l.kp * w->c;
  l.chunk_floats = 36 * (w->c + l.kp) * LANES;
  l.slots = ref_pool_threads();
  return l;
}

bool ref_winograd_applies(int64_t c, int64_t k, int64_t kh, int64_t kw,
                          const int64_t stride[2], const int64_t dil[2],
                          int64_t groups) {
  /* Few channels stay on im2col + GEMM: the transforms cost per channel,
   * the saving is per pair of channels (8 is a choice, not a measured
   * crossover). */
  return kh == 3 && kw == 3 && stride[0] == 1 && stride[1] == 1 &&
         dil[0] == 1 && dil[1] == 1 && groups == 1 && c >= 8 && k >= 8;
}

int64_t ref_winograd_scratch_floats(const ref_winograd_t *w) {
  layout_t l = layout_of(w);
  return l.padded_floats + l.weight_floats + l.slots * l.chunk_floats;
}

typedef struct run {
  const ref_winograd_t *w;
  layout_t l;
  float *padded, *u, *chunks;
  /* Work is taken, not assigned, so that a thread the machine delays
   * leaves its share to the others: the next preparation task, the tasks
   * done so far, the next chunk. */
  atomic_llong next_prepare, prepared, next_chunk;
} run_t;

/* Planes [begin, end) of x into the zero-bordered padded input: padded
 * (yy, xx) holds x (yy - pad_h, xx - pad_w). */
static void pad_planes(void *context, int64_t begin, int64_t end) {
  const run_t *r = context;
  const ref_winograd_t *w = r->w;
  for (int64_t p = begin; p < end; p++) {
    float *dst = r->padded + p * r->l.ph * r->l.pw;
    const float *src = w->x + p * w->h * w->w;
    memset(dst, 0, (size_t)(r->l.ph * r->l.pw) * sizeof *dst);
    for (int64_t y = 0; y < w->h && y + w->pad_h < r->l.ph; y++) {
      int64_t x0 = w->pad_w, n = w->w;
      n = x0 + n > r->l.pw ? r->l.pw - x0 : n;
      if (n > 0)
        memcpy(dst + (y + w->pad_h) * r->l.pw + x0, src + y * w->w,
               (size_t)n * sizeof *dst);
    }
  }
}

/* o[i * os] = (G g)[i] for the 3 values g[j * gs] (products by the
 * reciprocals: within an ulp of G's fractions, and no divisions). */
static void weight_1d(const float *g, int gs, float *o, int os) {
  const float sixth = 1.0f / 6, twelfth = 1.0f / 12, twenty_fourth = 1.0f / 24;
  float g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
  o[0] = g0 * 0.25f;
  o[os] = -(g0 + g1 + g2) * sixth;
  o[2 * os] = -(g0 - g1 + g2) * sixth;
  o[3 * os] = g0 * twenty_fourth + g1 * twelfth + g2 * sixth;
  o[4 * os] = g0 * twenty_fourth - g1 * twelfth + g2 * sixth;
  o[5 * os] = g2;
}

/* Output channels [begin, end) (of kp) of the transformed weights
 * u[xi][k / ROWS][c][k % ROWS] = (G g G^T)[xi]; rows past C_out are 0. */
static void transform_weights(void *context, int64_t begin, int64_t end) {
  const run_t *r = context;
  const ref_winograd_t *w = r->w;
  int64_t blocks = r->l.kp / ROWS;
  for (int64_t c = 0; c < w->c; c++) /* k inner: u's rows share lines */
    for (int64_t k = begin; k < end; k++) {
      float gg[6][6] = {{0}};
      if (k < w->k) {
        float g[9];
        for (int q = 0; q < 9; q++)
          g[q] = w->flipped ? w->weight[(c * w->k + k) * 9 + 8 - q]
                            : w->weight[(k * w->c + c) * 9 + q];
        float t[6 * 3];
        for (int j = 0; j < 3; j++) /* G g: down each column */
          weight_1d(g + j, 3, t + j, 3);
        for (int i = 0; i < 6; i++) /* (G g) G^T: along each row */
          weight_1d(t + 3 * i, 1, &gg[i][0], 1);
      }
      for (int xi = 0; xi < 36; xi++)
        r->u[((xi * blocks + k / ROWS) * w->c + c) * ROWS + k % ROWS] =
            gg[xi / 6][xi % 6];
    }
}

/* o[i * os + t] = (B^T d)[i] for the 6 values d[j * ds + t], each lane t. */
static inline __attribute__((always_inline)) void
input_1d(const float *restrict d, int64_t ds, float *restrict o, int64_t os) {
  for (int t = 0; t < LANES; t += 16) {
    vec16 d0 = AT16(d + t), d1 = AT16(d + ds + t), d2 = AT16(d + 2 * ds + t),
          d3 = AT16(d + 3 * ds + t), d4 = AT16(d + 4 * ds + t),
          d5 = AT16(d + 5 * ds + t);
    AT16(o + t) = 4 * d0 - 5 * d2 + d4;
    AT16(o + os + t) = -4 * (d1 + d2) + d3 + d4;
    AT16(o + 2 * os + t) = 4 * (d1 - d2) - d3 + d4;
    AT16(o + 3 * os + t) = 2 * (d3 - d1) - d2 + d4;
    AT16(o + 4 * os + t) = 2 * (d1 - d3) - d2 + d4;
    AT16(o + 5 * os + t) = 4 * d1 - 5 * d3 + d5;
  }
}

/* o[a * os + t] = (A^T m)[a] for the 6 values m[j * ms + t], each lane t. */
static inline __attribute__((always_inline)) void
output_1d(const float *restrict m, int64_t ms, float *restrict o, int64_t os) {
  for (int t = 0; t < LANES; t += 16) {
    vec16 m0 = AT16(m + t), m1 = AT16(m + ms + t), m2 = AT16(m + 2 * ms + t),
          m3 = AT16(m + 3 * ms + t), m4 = AT16(m + 4 * ms + t),
          m5 = AT16(m + 5 * ms + t);
    vec16 s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;
    AT16(o + t) = m0 + s12 + s34;
    AT16(o + os + t) = d12 + 2 * d34;
    AT16(o + 2 * os + t) = s12 + 4 * s34;
    AT16(o + 3 * os + t) = d12 + 8 * d34 + m5;
  }
}

/* The tiles of one chunk: [t0, t0 + count); lanes past count repeat tile
 * t0 (their results are dropped). Each lane's offset of its 6x6 patch in
 * the padded input, of its top-left output pixel in y (channel 0), and the
 * rows and columns of its 4x4 tile inside the output. */
typedef struct chunk {
  int64_t count;
  int64_t patch[LANES], out[LANES], rows[LANES], cols[LANES];
} chunk_t;

static void chunk_of(const run_t *r, int64_t t0, chunk_t *ch) {
  const ref_winograd_t *w = r->w;
  const layout_t *l = &r->l;
  int64_t per_image = l->tiles_h * l->tiles_w;
  ch->count = l->tiles - t0 < LANES ? l->tiles - t0 : LANES;
  for (int t = 0; t < LANES; t++) {
    int64_t q = t0 + (t < ch->count ? t : 0), n = q / per_image;
    int64_t y = q % per_image / l->tiles_w * 4, x = q % l->tiles_w * 4;
    ch->patch[t] = (n * w->c * l->ph + y) * l->pw + x;
    ch->out[t] = (n * w->k * w->oh + y) * w->ow + x;
    ch->rows[t] = w->oh - y < 4 ? w->oh - y : 4;
    ch->cols[t] = w->ow - x < 4 ? w->ow - x : 4;
  }
}

/* Channel c's patch rows into rows[i][t][0..8) (8 floats each, two past
 * the patch, unused). */
static inline __attribute__((always_inline)) void
copy_rows(const run_t *r, const chunk_t *ch, int64_t c, float *restrict rows) {
  for (int t = 0; t < LANES; t++) {
    const float *src = r->padded + ch->patch[t] + c * r->l.ph * r->l.pw;
    for (int i = 0; i < 6; i++)
      memcpy(rows + (i * LANES + t) * 8, src + i * r->l.pw, 8 * sizeof *src);
  }
}

/* v[xi][c][t] = (B^T d B)[xi] of each lane's patch d in channel c. The
 * rows of channel c + 1 are copied before channel c's are read back (as
 * strided loads the compiler vectorizes), so that the reads do not wait on
 * the just-issued stores. */
REF_ISA_BODY void transform_input_body(const run_t *r, const chunk_t *ch,
                                       float *restrict v) {
  const ref_winograd_t *w = r->w;
  float rows[2][6 * LANES * 8], d[36 * LANES], tmp[36 * LANES];
  copy_rows(r, ch, 0, rows[0]);
  for (int64_t c = 0; c < w->c; c++) {
    if (c + 1 < w->c)
      copy_rows(r, ch, c + 1, rows[(c + 1) & 1]);
    const float *rc = rows[c & 1];
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++)
        for (int t = 0; t < LANES; t++)
          d[(i * 6 + j) * LANES + t] = rc[(i * LANES + t) * 8 + j];
    for (int j = 0; j < 6; j++) /* B^T d: down each column */
      input_1d(d + j * LANES, 6 * LANES, tmp + j * LANES, 6 * LANES);
    for (int i = 0; i < 6; i++) /* (B^T d) B: along each row */
      input_1d(tmp + i * 6 * LANES, LANES, v + (i * 6 * w->c + c) * LANES,
               w->c * LANES);
  }
}
REF_ISA_DISPATCH_VOID(static, transform_input,
                      (const run_t *r, const chunk_t *ch, float *restrict v),
                      (r, ch, v))

/* m[xi][k][t] = sum over c of u[xi][k][c] v[xi][c][t]: blocks of ROWS
 * output channels by LANES tiles held in AVX-512's 32 registers. */
REF_ISA_BODY void multiply_wide(const run_t *r, const float *restrict v,
                                float *restrict m) {
  int64_t c_in = r->w->c, blocks = r->l.kp / ROWS;
  for (int xi = 0; xi < 36; xi++)
    for (int64_t kb = 0; kb < blocks; kb++) {
      const float *ub = r->u + (xi * blocks + kb) * c_in * ROWS;
      const float *vb = v + xi * c_in * LANES;
      vec16 acc[ROWS];
      memset(acc, 0, sizeof acc);
      for (int64_t c = 0; c < c_in; c++) {
        vec16 vc = AT16(vb + c * LANES);
        for (int k = 0; k < ROWS; k++)
          acc[k] += ub[c * ROWS + k] * vc;
      }
      memcpy(m + (xi * r->l.kp + kb * ROWS) * LANES, acc, sizeof acc);
    }
}

/* The same product for 16 registers of 8 floats (AVX2) or 4 (SSE2):
 * `rows` output channels of the block from k0 on, in 8-lane halves. */
REF_ISA_BODY void multiply_rows(const run_t *r, const float *restrict v,
                                float *restrict m, int k0, int rows) {
  int64_t c_in = r->w->c, blocks = r->l.kp / ROWS;
  for (int xi = 0; xi < 36; xi++)
    for (int64_t kb = 0; kb < blocks; kb++) {
      const float *ub = r->u + (xi * blocks + kb) * c_in * ROWS + k0;
      const float *vb = v + xi * c_in * LANES;
      vec8 acc[ROWS][2];
      for (int k = 0; k < rows; k++)
        acc[k][0] = acc[k][1] = (vec8){0};
      for (int64_t c = 0; c < c_in; c++) {
        vec8 lo = AT8(vb + c * LANES), hi = AT8(vb + c * LANES + 8);
        for (int k = 0; k < rows; k++) {
          acc[k][0] += ub[c * ROWS + k] * lo;
          acc[k][1] += ub[c * ROWS + k] * hi;
        }
      }
      float *mk = m + (xi * r->l.kp + kb * ROWS + k0) * LANES;
      for (int k = 0; k < rows; k++) {
        AT8(mk + k * LANES) = acc[k][0];
        AT8(mk + k * LANES + 8) = acc[k][1];
      }
    }
}
#ifdef REF_ISA_MULTIVERSION
REF_TARGET_AVX512 static void
multiply_avx512(const run_t *r, const float *restrict v, float *restrict m) {
  multiply_wide(r, v, m);
}
/* 6 + 6 + 4 rows: 12 accumulators, two tile vectors, a broadcast. */
REF_TARGET_AVX2 static void
multiply_avx2(const run_t *r, const float *restrict v, float *restrict m) {
  multiply_rows(r, v, m, 0, 6);
  multiply_rows(r, v, m, 6, 6);
  multiply_rows(r, v, m, 12, 4);
}
#endif
static void multiply_sse2(const run_t *r, const float *restrict v,
                          float *restrict m) {
  for (int k0 = 0; k0 < ROWS; k0 += 2)
    multiply_rows(r, v, m, k0, 2);
}
static void multiply(const run_t *r, const float *restrict v,
                     float *restrict m) {
#ifdef REF_ISA_MULTIVERSION
  ref_isa_t isa = ref_isa();
  if (isa == REF_ISA_AVX512)
    multiply_avx512(r, v, m);
  else if (isa == REF_ISA_AVX2)
    multiply_avx2(r, v, m);
  else
#endif
    multiply_sse2(r, v, m);
}

/* y's 4x4 tiles = A^T m A + bias, cut at the output's edges. */
REF_ISA_BODY void transform_output_body(const run_t *r, const chunk_t *ch,
                                        const float *restrict m) {
  const ref_winograd_t *w = r->w;
  int64_t ms = r->l.kp * LANES;
  float tmp[24 * LANES], o[16 * LANES];
  for (int64_t k = 0; k < w->k; k++) {
    for (int j = 0; j < 6; j++) /* A^T m: down each column */
      output_1d(m + k * LANES + j * ms, 6 * ms, tmp + j * LANES, 6 * LANES);
    for (int a = 0; a < 4; a++) /* (A^T m) A: along each row */
      output_1d(tmp + a * 6 * LANES, LANES, o + a * 4 * LANES, LANES);
    float bias = w->bias ? (float)ref_get(w->bias, k) : 0.0f;
    float *yk = w->y + k * w->oh * w->ow;
    for (int64_t t = 0; t < ch->count; t++) {
      float *out = yk + ch->out[t];
      if (ch->rows[t] == 4 && ch->cols[t] == 4) { /* unrolled */
        for (int a = 0; a < 4; a++)
          for (int b = 0; b < 4; b++)
            out[a * w->ow + b] = o[(a * 4 + b) * LANES + t] + bias;
        continue;
      }
      for (int64_t a = 0; a < ch->rows[t]; a++)
        for (int64_t b = 0; b < ch->cols[t]; b++)
          out[a * w->ow + b] = o[(a * 4 + b) * LANES + t] + bias;
    }
  }
}
REF_ISA_DISPATCH_VOID(static, transform_output,
                      (const run_t *r, const chunk_t *ch,
                       const float *restrict m),
                      (r, ch, m))

enum { PREPARE_GROUP = 8 };

/* The preparation tasks: one per block of ROWS transformed-weight rows
 * (whose values share cache lines, so one thread writes each block), then
 * one per PREPARE_GROUP planes of the padded input. */
static int64_t prepare_tasks(const run_t *r) {
  return r->l.kp / ROWS +
         (r->w->n * r->w->c + PREPARE_GROUP - 1) / PREPARE_GROUP;
}
static void prepare(const run_t *r, int64_t task) {
  int64_t blocks = r->l.kp / ROWS, planes = r->w->n * r->w->c;
  if (task < blocks) {
    transform_weights((void *)r, task * ROWS, (task + 1) * ROWS);
    return;
  }
  int64_t p = (task - blocks) * PREPARE_GROUP;
  pad_planes((void *)r, p,
             p + PREPARE_GROUP < planes ? p + PREPARE_GROUP : planes);
}

/* Slots [begin, end) (one per pool thread, or all of them on a busy
 * pool's caller), all in one parallel step: each takes preparation tasks
 * until none is left, waits until all are done (only on tasks another
 * thread is running), then takes chunks until none is left, in the slot's
 * own buffers. */
static void run_slots(void *context, int64_t begin, int64_t end) {
  run_t *r = context;
  int64_t tasks = prepare_tasks(r);
  for (int64_t s = begin; s < end; s++) {
    for (int64_t q; (q = atomic_fetch_add(&r->next_prepare, 1)) < tasks;) {
      prepare(r, q);
      atomic_fetch_add(&r->prepared, 1);
    }
    while (atomic_load(&r->prepared) < tasks)
      sched_yield();
    float *v = r->chunks + s * r->l.chunk_floats;
    float *m = v + 36 * r->w->c * LANES;
    for (int64_t q; (q = atomic_fetch_add(&r->next_chunk, 1)) < r->l.chunks;) {
      chunk_t ch;
      chunk_of(r, q * LANES, &ch);
      transform_input(r, &ch, v);
      multiply(r, v, m);
      transform_output(r, &ch, m);
    }
  }
}

void ref_winograd_forward(const ref_winograd_t *w, float *scratch) {
  run_t r = {.w = w, .l = layout_of(w)};
  atomic_init(&r.next_prepare, 0);
  atomic_init(&r.prepared, 0);
  atomic_init(&r.next_chunk, 0);
  r.padded = scratch;
  r.u = r.padded + r.l.padded_floats;
  r.chunks = r.u + r.l.weight_floats;
  ref_parallel_for(r.l.slots, 1, run_slots, &r);
}
