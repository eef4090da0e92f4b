/* Scaled dot-product attention as DIOPI's flash attention declares it
 * (functions_ext.h): q [B, Sq, Hq, D], k and v [B, Sk, Hk, D] (Hq a
 * multiple of Hk: grouped heads), causal and sliding-window masks aligned
 * to the bottom right (query i sees key j up to i + Sk - Sq), optional
 * ALiBi slopes; out [B, Sq, Hq, D] and the rows' logsumexp [B, Hq, Sq] in
 * float32. Backward recomputes the probabilities from the logsumexp.
 * The plain algorithm in double: one query row (forward) or one key/value
 * head with its query heads (backward, which owns dk and dv) per work
 * item. The tiled float32 forward takes float32 q, k, v and out with unit
 * stride along head_dim and no ALiBi: per (batch, head) and block of up to
 * QUERY_BLOCK queries, the scores by sgemm, masked rows softmaxed in float
 * (the library's vectorizable exp) across the pool, then out by sgemm.
 * Dropout (p_dropout > 0, a generator required): probability (b, h, i, j)
 * is kept, scaled by 1/(1-p), when the counter-based draw of index
 * ((b * Hq + h) * Sq + i) * Sk + j past the generator's offset is at least
 * p; the forward advances the generator by B * Hq * Sq * Sk draws, and the
 * backward, given the generator as the forward left it, regenerates the
 * same mask from the offset before those draws (and leaves it). The
 * logsumexp is that of the scores before dropout. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_rng.h"
#include "ref_scratch.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

typedef struct attn_task {
  ref_view_t q, k, v, out, lse, alibi, grad_out, gq, gk, gv;
  bool has_alibi, backward, causal;
  int64_t b, sq, sk, hq, hk, d;
  int64_t left, right; /* window; -1: unbounded */
  double scale;
  double p_drop;         /* 0: no dropout */
  uint64_t seed, offset; /* the dropout mask's draws */
  double *row;  /* scratch: 2 sk per work item (scores; backward's dS) */
  bool tiled;   /* the float32 forward; scores in `block` */
  float *block; /* scratch: QUERY_BLOCK x sk scores */
  /* The block being softmaxed: its (b, h) and first query. */
  int64_t at_b, at_h, at_i;
} attn_task_t;

enum { QUERY_BLOCK = 256 };

static int64_t at4(const ref_view_t *v, int64_t a, int64_t b, int64_t c,
                   int64_t d) {
  return a * v->strides[0] + b * v->strides[1] + c * v->strides[2] +
         d * v->strides[3];
}

/* Whether query i sees key j. */
static bool visible(const attn_task_t *t, int64_t i, int64_t j) {
  int64_t diag = i + t->sk - t->sq;
  if (t->causal && j > diag)
    return false;
  if (t->left >= 0 && j < diag - t->left)
    return false;
  return !(t->right >= 0 && j > diag + t->right);
}

/* The dropout factor of probability (i, j) of query head h of batch b:
 * 1 without dropout, else 0 (dropped) or 1 / (1 - p). */
static double kept(const attn_task_t *t, int64_t b, int64_t h, int64_t i,
                   int64_t j) {
  if (t->p_drop == 0)
    return 1;
  uint64_t k = (uint64_t)(((b * t->hq + h) * t->sq + i) * t->sk + j);
  return ref_rng_uniform(t->seed, t->offset + k) >= t->p_drop
             ? 1 / (1 - t->p_drop)
             : 0;
}

/* The scaled score of (i, j) for query head h of batch b. */
static double score(const attn_task_t *t, int64_t b, int64_t h, int64_t i,
                    int64_t j) {
  int64_t kh = h / (t->hq / t->hk);
  double s = 0;
  for (int64_t c = 0; c < t->d; c++)
    s += ref_load_at(&t->q, at4(&t->q, b, i, h, c)) *
         ref_load_at(&t->k, at4(&t->k, b, j, kh, c));
  s *= t->scale;
  if (t->has_alibi)
    s -= ref_get(&t->alibi, h) * fabs((double)(i + t->sk - t->sq - j));
  return s;
}

/* Forward row (b, h, i): scores, logsumexp, out. */
static void forward_row(const attn_task_t *t, int64_t item, double *p) {
  int64_t i = item % t->sq, h = item / t->sq % t->hq, b = item / t->sq / t->hq;
  int64_t kh = h / (t->hq / t->hk);
  double m = -INFINITY, sum = 0;
  for (int64_t j = 0; j < t->sk; j++) {
    p[j] = visible(t, i, j) ? score(t, b, h, i, j) : -INFINITY;
    m = p[j] > m ? p[j] : m;
  }
  for (int64_t j = 0; j < t->sk; j++) {
    p[j] = m == -INFINITY ? 0 : exp(p[j] - m);
    sum += p[j];
  }
  ref_set(&t->lse, (b * t->hq + h) * t->sq + i,
          sum > 0 ? m + log(sum) : INFINITY);
  for (int64_t j = 0; t->p_drop != 0 && j < t->sk; j++)
    p[j] *= kept(t, b, h, i, j); /* sum stays the undropped one */
  for (int64_t c = 0; c < t->d; c++) {
    double acc = 0;
    for (int64_t j = 0; j < t->sk; j++)
      if (p[j] != 0)
        acc += p[j] * ref_load_at(&t->v, at4(&t->v, b, j, kh, c));
    ref_store_at(&t->out, at4(&t->out, b, i, h, c), sum > 0 ? acc / sum : 0);
  }
}

/* Backward for kv head (b, kh): every query head of its group; dq rows
 * belong to this item alone, dk and dv too. */
static void backward_head(const attn_task_t *t, int64_t item, double *p) {
  int64_t kh = item % t->hk, b = item / t->hk, group = t->hq / t->hk;
  for (int64_t j = 0; j < t->sk; j++)
    for (int64_t c = 0; c < t->d; c++) {
      ref_store_at(&t->gk, at4(&t->gk, b, j, kh, c), 0);
      ref_store_at(&t->gv, at4(&t->gv, b, j, kh, c), 0);
    }
  for (int64_t h = kh * group; h < (kh + 1) * group; h++)
    for (int64_t i = 0; i < t->sq; i++) {
      double lse = ref_get(&t->lse, (b * t->hq + h) * t->sq + i), delta = 0;
      for (int64_t c = 0; c < t->d; c++)
        delta += ref_load_at(&t->grad_out, at4(&t->grad_out, b, i, h, c)) *
                 ref_load_at(&t->out, at4(&t->out, b, i, h, c));
      for (int64_t j = 0; j < t->sk; j++)
        p[j] = visible(t, i, j) && isfinite(lse)
                   ? exp(score(t, b, h, i, j) - lse)
                   : 0;
      /* dS_ij = P_ij (Z_ij dO_i . v_j - delta) scale, Z the dropout
       * factor; then p holds P_ij Z_ij, the weight of v_j in out_i */
      double *ds = p + t->sk;
      for (int64_t j = 0; j < t->sk; j++) {
        double dp = 0, z = p[j] != 0 ? kept(t, b, h, i, j) : 0;
        for (int64_t c = 0; z != 0 && c < t->d; c++)
          dp += ref_load_at(&t->grad_out, at4(&t->grad_out, b, i, h, c)) *
                ref_load_at(&t->v, at4(&t->v, b, j, kh, c));
        ds[j] = p[j] * (z * dp - delta) * t->scale;
        p[j] *= z;
      }
      for (int64_t c = 0; c < t->d; c++) {
        double dq = 0, qc = ref_load_at(&t->q, at4(&t->q, b, i, h, c));
        double go = ref_load_at(&t->grad_out, at4(&t->grad_out, b, i, h, c));
        for (int64_t j = 0; j < t->sk; j++) {
          if (ds[j] == 0 && p[j] == 0)
            continue;
          dq += ds[j] * ref_load_at(&t->k, at4(&t->k, b, j, kh, c));
          int64_t gk = at4(&t->gk, b, j, kh, c), gv = at4(&t->gv, b, j, kh, c);
          ref_store_at(&t->gk, gk, ref_load_at(&t->gk, gk) + ds[j] * qc);
          ref_store_at(&t->gv, gv, ref_load_at(&t->gv, gv) + p[j] * go);
        }
        ref_store_at(&t->gq, at4(&t->gq, b, i, h, c), dq);
      }
    }
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const attn_task_t *t = context;
  for (int64_t item = begin; item < end; item++) {
    double *p = t->row + item * 2 * t->sk;
    if (t->backward)
      backward_head(t, item, p);
    else
      forward_row(t, item, p);
  }
}

/* Softmax of the block's rows [begin, end) in place (masked scores out),
 * their logsumexp stored; a row with nothing visible becomes zeros. */
static void softmax_rows(void *context, int64_t begin, int64_t end) {
  const attn_task_t *t = context;
  for (int64_t r = begin; r < end; r++) {
    float *s = t->block + r * t->sk;
    int64_t i = t->at_i + r;
    if (t->causal || t->left >= 0 || t->right >= 0)
      for (int64_t j = 0; j < t->sk; j++)
        s[j] = visible(t, i, j) ? s[j] : -INFINITY;
    float m = ref_f32_max(s, t->sk);
    double sum = 0;
    if (m != -INFINITY) {
      ref_f32_exp(s, s, t->sk, m);
      sum = ref_f32_sum(s, t->sk);
    }
    float inv = sum > 0 ? (float)(1.0 / sum) : 0.0f;
    for (int64_t j = 0; j < t->sk; j++)
      s[j] = m == -INFINITY ? 0.0f : s[j] * inv;
    for (int64_t j = 0; t->p_drop != 0 && j < t->sk; j++)
      s[j] *= (float)kept(t, t->at_b, t->at_h, i, j);
    ref_set(&t->lse, (t->at_b * t->hq + t->at_h) * t->sq + i,
            sum > 0 ? m + log(sum) : INFINITY);
  }
}

static void forward_tiled(attn_task_t *t) {
  const float *q = (const float *)t->q.data, *k = (const float *)t->k.data,
              *v = (const float *)t->v.data;
  float *out = (float *)t->out.data;
  int64_t group = t->hq / t->hk;
  for (int64_t b = 0; b < t->b; b++)
    for (int64_t h = 0; h < t->hq; h++) {
      int64_t kh = h / group;
      const float *qh = q + b * t->q.strides[0] + h * t->q.strides[2];
      const float *kb = k + b * t->k.strides[0] + kh * t->k.strides[2];
      const float *vb = v + b * t->v.strides[0] + kh * t->v.strides[2];
      float *oh = out + b * t->out.strides[0] + h * t->out.strides[2];
      for (int64_t i = 0; i < t->sq; i += QUERY_BLOCK) {
        int rows = (int)(t->sq - i < QUERY_BLOCK ? t->sq - i : QUERY_BLOCK);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, (int)t->sk,
                    (int)t->d, (float)t->scale, qh + i * t->q.strides[1],
                    (int)t->q.strides[1], kb, (int)t->k.strides[1], 0.0f,
                    t->block, (int)t->sk);
        t->at_b = b;
        t->at_h = h;
        t->at_i = i;
        ref_parallel_for(rows, 8, softmax_rows, t);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, (int)t->d,
                    (int)t->sk, 1.0f, t->block, (int)t->sk, vb,
                    (int)t->v.strides[1], 0.0f, oh + i * t->out.strides[1],
                    (int)t->out.strides[1]);
      }
    }
}

static void run(void *args) {
  attn_task_t *t = args;
  if (t->tiled) {
    forward_tiled(t);
    return;
  }
  ref_parallel_for(t->backward ? t->b * t->hk : t->b * t->hq * t->sq, 1,
                   run_range, t);
}

/* Views q, k, v, alibi_slopes and the attributes into t. */
static diopiError_t setup(diopiContextHandle_t ctx, const char *op,
                          attn_task_t *t, diopiConstTensorHandle_t q,
                          diopiConstTensorHandle_t k,
                          diopiConstTensorHandle_t v,
                          diopiConstTensorHandle_t alibi_slopes,
                          float p_dropout, float softmax_scale, bool is_causal,
                          int32_t window_size_left, int32_t window_size_right) {
  diopiError_t err = ref_view(ctx, op, "q", q, &t->q);
  if (!err)
    err = ref_view(ctx, op, "k", k, &t->k);
  if (!err)
    err = ref_view(ctx, op, "v", v, &t->v);
  if (!err && (t->q.ndim != 4 || t->k.ndim != 4))
    err = ref_fail(op,
                   "q, k: expected [batch, seq, heads, head_dim], got %d "
                   "and %d dims",
                   t->q.ndim, t->k.ndim);
  if (!err)
    err = ref_expect_shape(op, "v", &t->v, t->k.shape, t->k.ndim);
  if (err)
    return err;
  t->b = t->q.shape[0];
  t->sq = t->q.shape[1];
  t->hq = t->q.shape[2];
  t->d = t->q.shape[3];
  t->sk = t->k.shape[1];
  t->hk = t->k.shape[2];
  if (t->k.shape[0] != t->b || t->k.shape[3] != t->d || t->hk < 1 ||
      t->hq % t->hk)
    return ref_fail(op,
                    "k: batch %lld, %lld heads of %lld, expected batch "
                    "%lld and heads dividing %lld of %lld",
                    (long long)t->k.shape[0], (long long)t->hk,
                    (long long)t->k.shape[3], (long long)t->b, (long long)t->hq,
                    (long long)t->d);
  if (!(p_dropout >= 0 && p_dropout <= 1))
    return ref_fail(op, "p_dropout: expected within [0, 1], got %g", p_dropout);
  t->p_drop = p_dropout;
  if (alibi_slopes) {
    t->has_alibi = true;
    if ((err = ref_view(ctx, op, "alibi_slopes", alibi_slopes, &t->alibi)) ||
        (err = ref_expect_shape(op, "alibi_slopes", &t->alibi, &t->hq, 1)))
      return err;
  }
  t->scale = softmax_scale;
  t->causal = is_causal;
  t->left = window_size_left < 0 ? -1 : window_size_left;
  t->right = window_size_right < 0 ? -1 : window_size_right;
  return diopiSuccess;
}

/* `h` viewed into *v, which must have the 4-dim `shape`. */
static diopiError_t view_shaped(diopiContextHandle_t ctx, const char *op,
                                const char *arg, diopiConstTensorHandle_t h,
                                ref_view_t *v, const int64_t *shape) {
  diopiError_t err = ref_view(ctx, op, arg, h, v);
  return err ? err : ref_expect_shape(op, arg, v, shape, 4);
}

static diopiError_t lse_view(diopiContextHandle_t ctx, const char *op,
                             attn_task_t *t, diopiConstTensorHandle_t lse) {
  int64_t shape[3] = {t->b, t->hq, t->sq};
  diopiError_t err = ref_view(ctx, op, "softmax_lse", lse, &t->lse);
  return err ? err : ref_expect_shape(op, "softmax_lse", &t->lse, shape, 3);
}

/* The dropout mask's draws: the forward reserves them (advancing the
 * generator), the backward finds them just before the generator's offset
 * (leaving it). Nothing to do without dropout. */
static diopiError_t dropout_draws(const char *op, attn_task_t *t,
                                  diopiGeneratorHandle_t gen) {
  if (t->p_drop == 0)
    return diopiSuccess;
  if (!gen)
    return ref_fail(op,
                    "gen: p_dropout %g needs a generator (the backward "
                    "regenerates the forward's mask from it), got NULL",
                    t->p_drop);
  uint64_t count = (uint64_t)(t->b * t->hq * t->sq * t->sk);
  if (!t->backward)
    return ref_rng_reserve(op, gen, count, &t->seed, &t->offset);
  if (diopiGeneratorGetSeedAndOffset(gen, &t->seed, &t->offset))
    return ref_fail(op, "gen: the runtime cannot read it");
  if (t->offset < count)
    return ref_fail(op,
                    "gen: offset %llu is below the forward's %llu draws: "
                    "expected the generator as the forward left it",
                    (unsigned long long)t->offset, (unsigned long long)count);
  t->offset -= count;
  return diopiSuccess;
}

/* Whether the tiled float32 forward takes the task (see the top). */
static bool tiles(const attn_task_t *t) {
  const ref_view_t *views[4] = {&t->q, &t->k, &t->v, &t->out};
  for (int k = 0; k < 4; k++)
    if (views[k]->dtype != diopi_dtype_float32 ||
        (views[k]->strides[3] != 1 && t->d > 1) ||
        views[k]->strides[1] < t->d || views[k]->strides[1] > INT32_MAX)
      return false;
  return !t->has_alibi && t->sq <= INT32_MAX && t->sk <= INT32_MAX &&
         t->d <= INT32_MAX;
}

static diopiError_t enqueue(diopiContextHandle_t ctx, const char *op,
                            attn_task_t *t) {
  int64_t items = t->backward ? t->b * t->hk : t->b * t->hq * t->sq;
  if (items == 0 || t->d == 0)
    return diopiSuccess;
  if (t->tiled) {
    int64_t rows = t->sq < QUERY_BLOCK ? t->sq : QUERY_BLOCK;
    diopiError_t err = ref_scratch(
        ctx, op, (size_t)(rows * t->sk) * sizeof(float), (void **)&t->block);
    return err ? err : ref_enqueue(ctx, op, run, t, sizeof *t);
  }
  diopiError_t err = ref_scratch(
      ctx, op, (size_t)(items * 2 * t->sk) * sizeof(double), (void **)&t->row);
  return err ? err : ref_enqueue(ctx, op, run, t, sizeof *t);
}

REF_EXPORT diopiError_t diopiFlashAttention(
    diopiContextHandle_t ctx, diopiTensorHandle_t attention_out,
    diopiTensorHandle_t softmax_lse, diopiGeneratorHandle_t gen,
    diopiConstTensorHandle_t q, diopiConstTensorHandle_t k,
    diopiConstTensorHandle_t v, diopiConstTensorHandle_t alibi_slopes,
    float p_dropout, float softmax_scale, bool is_causal,
    int32_t window_size_left, int32_t window_size_right) {
  const char *op = "diopiFlashAttention";
  attn_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err =
      setup(ctx, op, &t, q, k, v, alibi_slopes, p_dropout, softmax_scale,
            is_causal, window_size_left, window_size_right);
  if (!err)
    err =
        view_shaped(ctx, op, "attention_out", attention_out, &t.out, t.q.shape);
  if (!err)
    err = lse_view(ctx, op, &t, softmax_lse);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "q", &t.out, &t.q);
  t.tiled = !err && tiles(&t);
  if (!err)
    err = dropout_draws(op, &t, gen);
  return err ? err : enqueue(ctx, op, &t);
}

REF_EXPORT diopiError_t diopiFlashAttentionBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_q,
    diopiTensorHandle_t grad_k, diopiTensorHandle_t grad_v,
    diopiConstTensorHandle_t grad_output, diopiGeneratorHandle_t gen,
    diopiConstTensorHandle_t q, diopiConstTensorHandle_t k,
    diopiConstTensorHandle_t v, diopiConstTensorHandle_t alibi_slopes,
    diopiConstTensorHandle_t attention_out,
    diopiConstTensorHandle_t softmax_lse, float p_dropout, float softmax_scale,
    bool is_causal, int32_t window_size_left, int32_t window_size_right) {
  const char *op = "diopiFlashAttentionBackward";
  attn_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  diopiError_t err =
      setup(ctx, op, &t, q, k, v, alibi_slopes, p_dropout, softmax_scale,
            is_causal, window_size_left, window_size_right);
  if (!err)
    err =
        view_shaped(ctx, op, "attention_out", attention_out, &t.out, t.q.shape);
  if (!err)
    err = view_shaped(ctx, op, "grad_output", grad_output, &t.grad_out,
                      t.q.shape);
  if (!err)
    err = lse_view(ctx, op, &t, softmax_lse);
  if (!err)
    err = view_shaped(ctx, op, "grad_q", grad_q, &t.gq, t.q.shape);
  if (!err)
    err = view_shaped(ctx, op, "grad_k", grad_k, &t.gk, t.k.shape);
  if (!err)
    err = view_shaped(ctx, op, "grad_v", grad_v, &t.gv, t.k.shape);
  if (!err)
    err = dropout_draws(op, &t, gen);
  return err ? err : enqueue(ctx, op, &t);
}
