/* mm, bmm, matmul, addmm, linear and linear's backward: float32 GEMM through
 * OpenBLAS (cblas_sgemm, on the stream's worker; OpenBLAS uses the pool's
 * thread count); float16, bfloat16 and unusual strides go through float32
 * copies; anything float64 goes through float64 copies and cblas_dgemm. */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_gemm.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_sum_to.h"
#include "ref_tensor.h"

typedef struct mat {
  char *data;
  diopiDtype_t dtype;
  int64_t rows, cols, rs, cs; /* strides in elements */
} mat_t;

typedef struct gemm_task {
  mat_t a, b, c;
  /* Batch dims (matmul's broadcast ones; bmm's one): `batch` products in
   * all, batch index b unravelled over bshape, each operand's element
   * offset the dot of that with its strides (0 where it broadcasts). */
  int64_t batch;
  int nbdims;
  int64_t bshape[REF_MAX_DIMS], bsa[REF_MAX_DIMS], bsb[REF_MAX_DIMS],
      bsc[REF_MAX_DIMS];
  double alpha, beta;
  bool has_init; /* C = beta * init + alpha * A.B, init broadcast to C */
  ref_view_t init;
  float *ta, *tb, *tc; /* scratch for float32 copies of A, B and C */
  bool f64;            /* computed in double: ta, tb, tc hold doubles */
} gemm_task_t;

/* The element offsets of product `b` in A, B and C. */
static void batch_offsets(const gemm_task_t *g, int64_t b, int64_t *oa,
                          int64_t *ob, int64_t *oc) {
  *oa = *ob = *oc = 0;
  for (int d = g->nbdims; d-- > 0;) {
    int64_t i = b % g->bshape[d];
    b /= g->bshape[d];
    *oa += i * g->bsa[d];
    *ob += i * g->bsb[d];
    *oc += i * g->bsc[d];
  }
}

static bool any_f64(const gemm_task_t *g) {
  return g->a.dtype == diopi_dtype_float64 ||
         g->b.dtype == diopi_dtype_float64 || g->c.dtype == diopi_dtype_float64;
}

/* A contiguous double copy of batch entry `offset` of `m`. */
static void to_f64(const mat_t *m, int64_t offset, double *copy) {
  size_t elem = ref_dtype_size(m->dtype);
  const char *base = m->data + offset * (int64_t)elem;
  for (int64_t r = 0; r < m->rows; r++)
    for (int64_t c = 0; c < m->cols; c++)
      copy[r * m->cols + c] =
          ref_load(base + (r * m->rs + c * m->cs) * (int64_t)elem, m->dtype);
}

/* The float64 form of run_gemm: every operand copied to double. */
static void run_dgemm(const gemm_task_t *g) {
  int64_t m = g->c.rows, n = g->c.cols, k = g->a.cols;
  size_t celem = ref_dtype_size(g->c.dtype);
  double *a = (double *)g->ta, *b = (double *)g->tb, *c = (double *)g->tc;
  for (int64_t bi = 0; bi < g->batch; bi++) {
    int64_t oa, ob, oc;
    batch_offsets(g, bi, &oa, &ob, &oc);
    to_f64(&g->a, oa, a);
    to_f64(&g->b, ob, b);
    for (int64_t r = 0; r < m; r++)
      for (int64_t j = 0; j < n; j++)
        c[r * n + j] =
            g->has_init ? g->beta * ref_get(&g->init, (bi * m + r) * n + j) : 0;
    if (k > 0)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
                  (int)k, g->alpha, a, (int)(k > 1 ? k : 1), b,
                  (int)(n > 1 ? n : 1), 1.0, c, (int)(n > 1 ? n : 1));
    char *cbase = g->c.data + oc * (int64_t)celem;
    for (int64_t r = 0; r < m; r++)
      for (int64_t j = 0; j < n; j++)
        ref_store(cbase + (r * g->c.rs + j * g->c.cs) * (int64_t)celem,
                  g->c.dtype, c[r * n + j]);
  }
}

static mat_t mat_of(const ref_view_t *v, int row_dim, bool transpose) {
  int col_dim = row_dim + 1;
  mat_t m = {v->data,
             v->dtype,
             v->shape[row_dim],
             v->shape[col_dim],
             v->strides[row_dim],
             v->strides[col_dim]};
  if (transpose) {
    int64_t t = m.rows;
    m.rows = m.cols;
    m.cols = t;
    t = m.rs;
    m.rs = m.cs;
    m.cs = t;
  }
  return m;
}

/* Whether cblas can read `m` in place. */
static bool cblas_ready(const mat_t *m) {
  return m->dtype == diopi_dtype_float32 &&
         ((m->cs == 1 && m->rs >= (m->cols > 1 ? m->cols : 1)) ||
          (m->rs == 1 && m->cs >= (m->rows > 1 ? m->rows : 1)));
}

/* A float32 operand for cblas: the matrix itself when its layout allows,
 * else a contiguous float copy in `copy` (rows x cols scratch). */
static const float *operand(const mat_t *m, int64_t offset, float *copy,
                            CBLAS_TRANSPOSE *trans, int64_t *ld) {
  size_t elem = ref_dtype_size(m->dtype);
  const char *base = m->data + offset * (int64_t)elem;
  if (m->dtype == diopi_dtype_float32) {
    if (m->cs == 1 && m->rs >= (m->cols > 1 ? m->cols : 1)) {
      *trans = CblasNoTrans;
      *ld = m->rs > 0 ? m->rs : 1;
      return (const float *)base;
    }
    if (m->rs == 1 && m->cs >= (m->rows > 1 ? m->rows : 1)) {
      *trans = CblasTrans;
      *ld = m->cs > 0 ? m->cs : 1;
      return (const float *)base;
    }
  }
  for (int64_t r = 0; r < m->rows; r++)
    for (int64_t c = 0; c < m->cols; c++)
      copy[r * m->cols + c] = (float)ref_load(
          base + (r * m->rs + c * m->cs) * (int64_t)elem, m->dtype);
  *trans = CblasNoTrans;
  *ld = m->cols > 1 ? m->cols : 1;
  return copy;
}

/* C = beta * init for product b when init is float32 with unit column
 * stride (a Linear's broadcast bias row, baddbmm's input): row by row.
 * False when init is not such a view. */
static bool init_rows(const gemm_task_t *g, int64_t b, float *c, int64_t ldc) {
  const ref_view_t *v = &g->init;
  int last = v->ndim - 1;
  if (v->dtype != diopi_dtype_float32 || v->ndim < 2 || v->ndim > 3 ||
      v->strides[last] != 1 || (v->ndim == 2 && g->batch != 1))
    return false;
  const float *first = (const float *)v->data;
  if (v->ndim == 3)
    first += b * v->strides[0];
  float beta = (float)g->beta;
  for (int64_t r = 0; r < g->c.rows; r++) {
    const float *row = first + r * v->strides[last - 1];
    if (beta == 1.0f)
      memmove(c + r * ldc, row, (size_t)g->c.cols * sizeof *c);
    else
      for (int64_t j = 0; j < g->c.cols; j++)
        c[r * ldc + j] = beta * row[j];
  }
  return true;
}

static void run_gemm(void *args) {
  gemm_task_t *g = args;
  if (g->f64) {
    run_dgemm(g);
    return;
  }
  int64_t m = g->c.rows, n = g->c.cols, k = g->a.cols;
  size_t celem = ref_dtype_size(g->c.dtype);
  bool direct =
      g->c.dtype == diopi_dtype_float32 && g->c.cs == 1 && g->c.rs >= n;
  float *cbuf = g->tc;
  for (int64_t b = 0; b < g->batch; b++) {
    int64_t oa, ob, oc;
    batch_offsets(g, b, &oa, &ob, &oc);
    char *cbase = g->c.data + oc * (int64_t)celem;
    float *c = direct ? (float *)cbase : cbuf;
    int64_t ldc = direct ? g->c.rs : n;
    float beta = 0.0f;
    if (g->has_init && init_rows(g, b, c, ldc)) {
      beta = 1.0f;
    } else if (g->has_init) {
      beta = 1.0f;
      for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < n; j++)
          c[r * ldc + j] =
              (float)(g->beta * ref_get(&g->init, (b * m + r) * n + j));
    }
    CBLAS_TRANSPOSE transa, transb;
    int64_t lda, ldb;
    const float *a = operand(&g->a, oa, g->ta, &transa, &lda);
    const float *bm = operand(&g->b, ob, g->tb, &transb, &ldb);
    if (k == 0 && !g->has_init)
      for (int64_t r = 0; r < m; r++)
        memset(c + r * ldc, 0, (size_t)n * sizeof *c);
    else if (m && n)
      cblas_sgemm(CblasRowMajor, transa, transb, (int)m, (int)n, (int)k,
                  (float)g->alpha, a, (int)lda, bm, (int)ldb, beta, c,
                  (int)ldc);
    if (!direct)
      for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < n; j++)
          ref_store(cbase + (r * g->c.rs + j * g->c.cs) * (int64_t)celem,
                    g->c.dtype, c[r * n + j]);
  }
}

static diopiError_t float_only(const char *op, const char *arg,
                               const ref_view_t *v) {
  return ref_is_floating(v->dtype)
             ? diopiSuccess
             : ref_fail(op, "%s: dtype %d is not a floating type", arg,
                        (int)v->dtype);
}

/* Scratch for the float32 copies run_gemm will need, taken here so that
 * running out of memory is this op's error. */
static diopiError_t enqueue_gemm(diopiContextHandle_t ctx, const char *op,
                                 gemm_task_t *g) {
  if (g->c.rows == 0 || g->c.cols == 0 || g->batch == 0)
    return diopiSuccess;
  const mat_t *mats[3] = {&g->a, &g->b, &g->c};
  float **bufs[3] = {&g->ta, &g->tb, &g->tc};
  g->f64 = any_f64(g);
  size_t elem = g->f64 ? sizeof(double) : sizeof(float);
  for (int i = 0; i < 3; i++) {
    bool ready = g->f64  ? false
                 : i < 2 ? cblas_ready(mats[i])
                         : g->c.dtype == diopi_dtype_float32 && g->c.cs == 1 &&
                               g->c.rs >= g->c.cols;
    diopiError_t err =
        ready ? diopiSuccess
              : ref_scratch(ctx, op,
                            (size_t)(mats[i]->rows * mats[i]->cols) * elem,
                            (void **)bufs[i]);
    if (err)
      return err;
  }
  return ref_enqueue(ctx, op, run_gemm, g, sizeof *g);
}

/* Views `out`, `a`, `b` as [batch?, m, k] x [batch?, k, n] -> [batch?, m, n]
 * (rank 2 or, with `batched`, 3) and checks the shapes. */
static diopiError_t product(diopiContextHandle_t ctx, const char *op,
                            diopiConstTensorHandle_t out,
                            diopiConstTensorHandle_t a_t, const char *a_name,
                            diopiConstTensorHandle_t b_t, const char *b_name,
                            bool batched, gemm_task_t *g) {
  ref_view_t o, a, b;
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_view(ctx, op, a_name, a_t, &a);
  if (!err)
    err = ref_view(ctx, op, b_name, b_t, &b);
  if (err)
    return err;
  int rank = batched ? 3 : 2, lead = rank - 2;
  if (a.ndim != rank || b.ndim != rank)
    return ref_fail(op, "%s and %s: expected %d-d tensors, got %d-d and %d-d",
                    a_name, b_name, rank, a.ndim, b.ndim);
  if (a.shape[lead + 1] != b.shape[lead] ||
      (batched && a.shape[0] != b.shape[0]))
    return ref_fail(op, "%s: expected shape [%s%lld, n], got %s%lld, %lld]",
                    b_name, batched ? "batch, " : "",
                    (long long)a.shape[lead + 1], batched ? "[.., " : "[",
                    (long long)b.shape[lead], (long long)b.shape[lead + 1]);
  int64_t want[3] = {a.shape[0], a.shape[lead], b.shape[lead + 1]};
  if (!batched) {
    want[0] = a.shape[0];
    want[1] = b.shape[1];
  }
  if ((err = ref_expect_shape(op, "out", &o, want, rank)) ||
      (err = float_only(op, a_name, &a)) || (err = float_only(op, "out", &o)) ||
      (err = ref_expect_no_partial_overlap(op, a_name, &o, &a)) ||
      (err = ref_expect_no_partial_overlap(op, b_name, &o, &b)))
    return err;
  memset(g, 0, sizeof *g);
  g->a = mat_of(&a, lead, false);
  g->b = mat_of(&b, lead, false);
  g->c = mat_of(&o, lead, false);
  g->batch = batched ? o.shape[0] : 1;
  if (batched) {
    g->nbdims = 1;
    g->bshape[0] = o.shape[0];
    g->bsa[0] = a.strides[0];
    g->bsb[0] = b.strides[0];
    g->bsc[0] = o.strides[0];
  }
  g->alpha = 1;
  return diopiSuccess;
}

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

REF_EXPORT diopiError_t diopiMm(CTX, T out, CT input, CT mat2) {
  gemm_task_t g;
  diopiError_t err =
      product(ctx, "diopiMm", out, input, "input", mat2, "mat2", false, &g);
  return err ? err : enqueue_gemm(ctx, "diopiMm", &g);
}

REF_EXPORT diopiError_t diopiBmm(CTX, T out, CT input, CT mat2) {
  gemm_task_t g;
  diopiError_t err =
      product(ctx, "diopiBmm", out, input, "input", mat2, "mat2", true, &g);
  return err ? err : enqueue_gemm(ctx, "diopiBmm", &g);
}

diopiError_t ref_gemm_baddbmm(diopiContextHandle_t ctx, const char *op,
                              diopiConstTensorHandle_t out,
                              diopiConstTensorHandle_t input,
                              diopiConstTensorHandle_t batch1,
                              diopiConstTensorHandle_t batch2, double beta,
                              double alpha) {
  gemm_task_t g;
  ref_view_t o;
  diopiError_t err =
      product(ctx, op, out, batch1, "batch1", batch2, "batch2", true, &g);
  if (!err)
    err = ref_view(ctx, op, "input", input, &g.init);
  if (!err)
    err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &o, &g.init);
  if (!err) {
    int64_t shape[3] = {g.batch, g.c.rows, g.c.cols};
    err = ref_broadcast_to(op, "input", &g.init, shape, 3);
  }
  if (err)
    return err;
  g.beta = beta;
  g.alpha = alpha;
  g.has_init = beta != 0; /* beta 0 ignores input, NaN and Inf too */
  return enqueue_gemm(ctx, op, &g);
}

/* matmul as torch.matmul: a 1-D operand is a vector (a row on the left, a
 * column on the right, its dim absent from out); dims before the last two
 * are batch dims, broadcast against each other. */
REF_EXPORT diopiError_t diopiMatmul(CTX, T out, CT input, CT other) {
  const char *op = "diopiMatmul";
  ref_view_t o, a, b;
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_view(ctx, op, "input", input, &a);
  if (!err)
    err = ref_view(ctx, op, "other", other, &b);
  if (err)
    return err;
  if (a.ndim == 0 || b.ndim == 0)
    return ref_fail(op,
                    "input and other: both need at least 1 dim, got %d "
                    "and %d",
                    a.ndim, b.ndim);
  bool a_vec = a.ndim == 1, b_vec = b.ndim == 1;
  int64_t m = a_vec ? 1 : a.shape[a.ndim - 2], k = a.shape[a.ndim - 1];
  int64_t kb = b_vec ? b.shape[0] : b.shape[b.ndim - 2];
  int64_t n = b_vec ? 1 : b.shape[b.ndim - 1];
  char have_a[128], have_b[128];
  if (k != kb)
    return ref_fail(op,
                    "input %s and other %s: inner sizes %lld and %lld "
                    "differ",
                    ref_shape_text(a.shape, a.ndim, have_a, sizeof have_a),
                    ref_shape_text(b.shape, b.ndim, have_b, sizeof have_b),
                    (long long)k, (long long)kb);
  gemm_task_t g;
  memset(&g, 0, sizeof g);
  int abd = a.ndim > 2 ? a.ndim - 2 : 0, bbd = b.ndim > 2 ? b.ndim - 2 : 0;
  g.nbdims = abd > bbd ? abd : bbd;
  g.batch = 1;
  int64_t want[REF_MAX_DIMS];
  int nwant = 0;
  for (int d = 0; d < g.nbdims; d++) {
    int da = d - (g.nbdims - abd), db = d - (g.nbdims - bbd);
    int64_t sa = da >= 0 ? a.shape[da] : 1, sb = db >= 0 ? b.shape[db] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return ref_fail(op,
                      "input %s and other %s: batch dims do not "
                      "broadcast",
                      ref_shape_text(a.shape, a.ndim, have_a, sizeof have_a),
                      ref_shape_text(b.shape, b.ndim, have_b, sizeof have_b));
    g.bshape[d] = sa == 1 ? sb : sa;
    g.bsa[d] = da >= 0 && sa != 1 ? a.strides[da] : 0;
    g.bsb[d] = db >= 0 && sb != 1 ? b.strides[db] : 0;
    g.batch *= g.bshape[d];
    want[nwant++] = g.bshape[d];
  }
  if (!a_vec)
    want[nwant++] = m;
  if (!b_vec)
    want[nwant++] = n;
  if ((err = ref_expect_shape(op, "out", &o, want, nwant)) ||
      (err = float_only(op, "input", &a)) ||
      (err = float_only(op, "out", &o)) ||
      (err = ref_expect_no_partial_overlap(op, "input", &o, &a)) ||
      (err = ref_expect_no_partial_overlap(op, "other", &o, &b)))
    return err;
  for (int d = 0; d < g.nbdims; d++)
    g.bsc[d] = o.strides[d];
  g.a = (mat_t){a.data,
                a.dtype,
                m,
                k,
                a_vec ? 0 : a.strides[a.ndim - 2],
                a.strides[a.ndim - 1]};
  g.b = b_vec ? (mat_t){b.data, b.dtype, k, 1, b.strides[0], 0}
              : (mat_t){b.data,
                        b.dtype,
                        k,
                        n,
                        b.strides[b.ndim - 2],
                        b.strides[b.ndim - 1]};
  int last = o.ndim - 1;
  g.c = (mat_t){o.data,
                o.dtype,
                m,
                n,
                a_vec ? 0 : o.strides[b_vec ? last : last - 1],
                b_vec ? 0 : o.strides[last]};
  g.alpha = 1;
  return enqueue_gemm(ctx, op, &g);
}

REF_EXPORT diopiError_t diopiAddmm(CTX, T out, CT input, CT mat1, CT mat2,
                                   const diopiScalar_t *beta,
                                   const diopiScalar_t *alpha) {
  const char *op = "diopiAddmm";
  gemm_task_t g;
  diopiError_t err =
      product(ctx, op, out, mat1, "mat1", mat2, "mat2", false, &g);
  if (!err)
    err = ref_view(ctx, op, "input", input, &g.init);
  if (!err) {
    int64_t shape[2] = {g.c.rows, g.c.cols};
    err = ref_broadcast_to(op, "input", &g.init, shape, 2);
  }
  if (err)
    return err;
  g.beta = ref_scalar(beta, 1);
  g.alpha = ref_scalar(alpha, 1);
  g.has_init = g.beta != 0; /* beta 0 ignores input, NaN and Inf too (BLAS) */
  return enqueue_gemm(ctx, op, &g);
}

/* input [..., in] as a matrix [rows, in]: leading dims must fold. */
static diopiError_t as_rows(const char *op, const char *arg,
                            const ref_view_t *v, mat_t *out) {
  if (v->ndim < 1)
    return ref_fail(op, "%s: expected at least 1 dim, got 0", arg);
  int last = v->ndim - 1;
  int64_t rows = 1; /* the leading dims' product, also when a dim is 0 */
  for (int d = 0; d < last; d++)
    rows *= v->shape[d];
  int64_t rs = v->ndim >= 2 ? v->strides[last - 1] : v->shape[last];
  for (int d = 0; d + 2 < v->ndim + 0 && v->ndim > 2; d++)
    if (v->shape[d] > 1 && v->strides[d] != v->strides[d + 1] * v->shape[d + 1])
      return ref_fail(op, "%s: leading dims do not fold into rows (strides)",
                      arg);
  *out = (mat_t){v->data, v->dtype, rows, v->shape[last], rs, v->strides[last]};
  if (v->ndim == 1)
    out->rows = 1;
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiLinear(CTX, T out, CT input, CT weight, CT bias) {
  const char *op = "diopiLinear";
  ref_view_t o, x, w;
  bool has_bias;
  gemm_task_t g;
  memset(&g, 0, sizeof g);
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_view(ctx, op, "input", input, &x);
  if (!err)
    err = ref_view(ctx, op, "weight", weight, &w);
  if (!err)
    err = ref_view_optional(ctx, op, "bias", bias, &g.init, &has_bias);
  if (err)
    return err;
  if (w.ndim != 2 || x.ndim < 1 || x.shape[x.ndim - 1] != w.shape[1])
    return ref_fail(op,
                    "weight: expected shape [out_features, %lld], got %d-d "
                    "[%lld, %lld]",
                    (long long)(x.ndim ? x.shape[x.ndim - 1] : 0), w.ndim,
                    (long long)w.shape[0], (long long)w.shape[1]);
  int64_t want[REF_MAX_DIMS];
  memcpy(want, x.shape, sizeof want);
  want[x.ndim - 1] = w.shape[0];
  if ((err = ref_expect_shape(op, "out", &o, want, x.ndim)) ||
      (err = float_only(op, "input", &x)) ||
      (err = as_rows(op, "input", &x, &g.a)) ||
      (err = as_rows(op, "out", &o, &g.c)))
    return err;
  g.b = mat_of(&w, 0, true);
  if (has_bias) {
    int64_t shape[2] = {g.c.rows, g.c.cols};
    if ((err = ref_broadcast_to(op, "bias", &g.init, shape, 2)))
      return err;
  }
  g.has_init = has_bias;
  g.alpha = g.beta = 1;
  g.batch = 1;
  return enqueue_gemm(ctx, op, &g);
}

/* grad_bias[j] = sum over rows of grad_output[r, j]. */
typedef struct bias_task {
  mat_t go;
  ref_view_t gb;
} bias_task_t;

/* The float32 form: the same sums in double, row after row, vectorized
 * across columns. False unless grad_output and grad_bias are float32 with
 * unit column strides and at most 4096 columns. */
static bool bias_f32(const bias_task_t *t) {
  enum { MAX_COLS = 4096 };
  if (t->go.dtype != diopi_dtype_float32 || t->go.cs != 1 ||
      t->gb.dtype != diopi_dtype_float32 || !ref_contiguous(&t->gb) ||
      t->go.cols > MAX_COLS)
    return false;
  double sum[MAX_COLS];
  int64_t n = t->go.cols;
  for (int64_t j = 0; j < n; j++)
    sum[j] = 0;
  for (int64_t r = 0; r < t->go.rows; r++) {
    const float *row = (const float *)t->go.data + r * t->go.rs;
    for (int64_t j = 0; j < n; j++)
      sum[j] += row[j];
  }
  float *out = (float *)t->gb.data;
  for (int64_t j = 0; j < n; j++)
    out[j] = (float)sum[j];
  return true;
}

static void run_bias(void *args) {
  bias_task_t *t = args;
  if (bias_f32(t))
    return;
  size_t elem = ref_dtype_size(t->go.dtype);
  for (int64_t j = 0; j < t->go.cols; j++) {
    double sum = 0;
    for (int64_t r = 0; r < t->go.rows; r++)
      sum +=
          ref_load(t->go.data + (r * t->go.rs + j * t->go.cs) * (int64_t)elem,
                   t->go.dtype);
    ref_set(&t->gb, j, sum);
  }
}

REF_EXPORT diopiError_t diopiLinearBackward(CTX, T grad_input, T grad_weight,
                                            T grad_bias, CT grad_output,
                                            CT input, CT weight) {
  const char *op = "diopiLinearBackward";
  ref_view_t go, x, w, gi, gw;
  mat_t gom, xm;
  bool has_gi, has_gw, has_gb;
  bias_task_t bt;
  diopiError_t err = ref_view(ctx, op, "grad_output", grad_output, &go);
  if (!err)
    err = ref_view(ctx, op, "input", input, &x);
  if (!err)
    err = ref_view(ctx, op, "weight", weight, &w);
  if (!err)
    err = ref_view_optional(ctx, op, "grad_input", grad_input, &gi, &has_gi);
  if (!err)
    err = ref_view_optional(ctx, op, "grad_weight", grad_weight, &gw, &has_gw);
  if (!err)
    err = ref_view_optional(ctx, op, "grad_bias", grad_bias, &bt.gb, &has_gb);
  if (!err)
    err = as_rows(op, "grad_output", &go, &gom);
  if (!err)
    err = as_rows(op, "input", &x, &xm);
  if (err)
    return err;
  if (w.ndim != 2 || gom.cols != w.shape[0] || xm.cols != w.shape[1] ||
      gom.rows != xm.rows)
    return ref_fail(op,
                    "grad_output: expected [%lld, %lld] for weight [%lld, "
                    "%lld], got [%lld, %lld]",
                    (long long)xm.rows, (long long)w.shape[0],
                    (long long)w.shape[0], (long long)w.shape[1],
                    (long long)gom.rows, (long long)gom.cols);
  if (has_gi &&
      (err = ref_expect_shape(op, "grad_input", &gi, x.shape, x.ndim)))
    return err;
  if (has_gw && (err = ref_expect_shape(op, "grad_weight", &gw, w.shape, 2)))
    return err;
  /* grad_bias: [out_features], or the shape of a bias that broadcast */
  ref_fold_t gb_sum;
  bool gb_broadcast =
      has_gb && !(bt.gb.ndim == 1 && bt.gb.shape[0] == w.shape[0]);
  if (gb_broadcast &&
      (err = ref_sum_to_prepare(op, "grad_bias", &bt.gb, &go, &gb_sum)))
    return err;
  gemm_task_t g;
  memset(&g, 0, sizeof g);
  g.alpha = 1;
  g.batch = 1;
  if (has_gi) {
    g.a = gom;
    g.b = mat_of(&w, 0, false);
    if ((err = as_rows(op, "grad_input", &gi, &g.c)) ||
        (err = enqueue_gemm(ctx, op, &g)))
      return err;
  }
  if (has_gw) {
    mat_t gomt = {gom.data, gom.dtype, gom.cols, gom.rows, gom.cs, gom.rs};
    g.a = gomt;
    g.b = xm;
    g.c = mat_of(&gw, 0, false);
    if ((err = enqueue_gemm(ctx, op, &g)))
      return err;
  }
  if (gb_broadcast)
    return ref_fold_launch(ctx, op, &gb_sum);
  if (has_gb) {
    bt.go = gom;
    if (bt.gb.numel)
      return ref_enqueue(ctx, op, run_bias, &bt, sizeof bt);
  }
  return diopiSuccess;
}

/* OpenBLAS uses as many threads as the worker pool. */
__attribute__((constructor)) static void set_blas_threads(void) {
  openblas_set_num_threads(ref_pool_threads());
}
