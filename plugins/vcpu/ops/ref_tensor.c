/* Views, dtype conversions and shape checks. */
#include "ref_tensor.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "backplane/device.h"
#include "backplane/ops.h"
#include "ref_error.h"
#include "ref_isa.h"
#include "ref_pool.h"

size_t ref_dtype_size(diopiDtype_t d) {
  switch (d) {
  case diopi_dtype_int8:
  case diopi_dtype_uint8:
  case diopi_dtype_bool:
    return 1;
  case diopi_dtype_int16:
  case diopi_dtype_uint16:
  case diopi_dtype_float16:
  case diopi_dtype_bfloat16:
    return 2;
  case diopi_dtype_int32:
  case diopi_dtype_uint32:
  case diopi_dtype_float32:
    return 4;
  case diopi_dtype_int64:
  case diopi_dtype_uint64:
  case diopi_dtype_float64:
    return 8;
  default:
    return 0; /* complex, tfloat32: not computed here */
  }
}

bool ref_is_floating(diopiDtype_t d) {
  return d == diopi_dtype_float16 || d == diopi_dtype_float32 ||
         d == diopi_dtype_float64 || d == diopi_dtype_bfloat16;
}

bool ref_is_integral(diopiDtype_t d) {
  return ref_dtype_size(d) && !ref_is_floating(d);
}

const char *ref_shape_text(const int64_t *shape, int ndim, char *buf,
                           size_t size) {
  size_t n = (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < ndim && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%lld", i ? ", " : "",
                          (long long)shape[i]);
  if (n < size)
    snprintf(buf + n, size - n, "]");
  return buf;
}

/* Device memory of the context's device, or host memory. */
static diopiError_t expect_context_device(diopiContextHandle_t ctx,
                                          const char *op, const char *arg,
                                          diopiConstTensorHandle_t t) {
  bp_device_t *device = bp_ops_tensor_bp_device(t);
  bp_device_t *own = bp_ops_context_device(ctx);
  if (!device || !own || device == own)
    return diopiSuccess;
  return ref_fail(op,
                  "%s: on %s, but the context's device is %s (expected all "
                  "tensors on the same device)",
                  arg, bp_device_name(device), bp_device_name(own));
}

diopiError_t ref_view(diopiContextHandle_t ctx, const char *op, const char *arg,
                      diopiConstTensorHandle_t t, ref_view_t *out) {
  if (!t)
    return ref_fail(op, "%s: tensor is NULL", arg);
  diopiError_t err = expect_context_device(ctx, op, arg, t);
  if (err)
    return err;
  diopiSize_t shape, strides;
  const void *data;
  if (diopiGetTensorShape(t, &shape) || diopiGetTensorStride(t, &strides) ||
      diopiGetTensorDtype(t, &out->dtype) || diopiGetTensorDataConst(t, &data))
    return ref_fail(op, "%s: the runtime cannot describe this tensor", arg);
  if (shape.len > REF_MAX_DIMS)
    return ref_fail(op, "%s: %lld dims, at most %d supported", arg,
                    (long long)shape.len, REF_MAX_DIMS);
  if (!ref_dtype_size(out->dtype))
    return ref_fail(op, "%s: dtype %d is not supported", arg, (int)out->dtype);
  out->data = (char *)data;
  out->ndim = (int)shape.len;
  out->numel = 1;
  for (int i = 0; i < out->ndim; i++) {
    out->shape[i] = shape.data[i];
    out->strides[i] = strides.data[i];
    out->numel *= shape.data[i];
  }
  return diopiSuccess;
}

diopiError_t ref_view_optional(diopiContextHandle_t ctx, const char *op,
                               const char *arg, diopiConstTensorHandle_t t,
                               ref_view_t *out, bool *present) {
  *present = t != NULL;
  if (!t) {
    memset(out, 0, sizeof *out);
    return diopiSuccess;
  }
  return ref_view(ctx, op, arg, t, out);
}

diopiError_t ref_views(diopiContextHandle_t ctx, const char *op,
                       const ref_arg_t *args, int n) {
  diopiError_t err = diopiSuccess;
  for (int i = 0; !err && i < n; i++)
    err = args[i].present
              ? ref_view_optional(ctx, op, args[i].name, args[i].tensor,
                                  args[i].view, args[i].present)
              : ref_view(ctx, op, args[i].name, args[i].tensor, args[i].view);
  return err;
}

bool ref_contiguous(const ref_view_t *v) {
  int64_t expected = 1;
  for (int i = v->ndim; i-- > 0;) {
    if (v->shape[i] != 1 && v->strides[i] != expected)
      return false;
    expected *= v->shape[i];
  }
  return true;
}

int64_t ref_offset(const ref_view_t *v, int64_t i) {
  int64_t offset = 0;
  for (int d = v->ndim; d-- > 0;) {
    int64_t n = v->shape[d];
    offset += (i % n) * v->strides[d];
    i /= n;
  }
  return offset;
}

void ref_get_block(const ref_view_t *v, int64_t begin, int64_t n, double *buf) {
  if (v->dtype == diopi_dtype_float32 && ref_contiguous(v)) {
    const float *x = (const float *)v->data + begin;
    for (int64_t j = 0; j < n; j++)
      buf[j] = x[j];
  } else if (v->dtype == diopi_dtype_float64 && ref_contiguous(v)) {
    memcpy(buf, (const double *)v->data + begin, (size_t)n * sizeof *buf);
  } else {
    for (int64_t j = 0; j < n; j++)
      buf[j] = ref_get(v, begin + j);
  }
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f,
           mant = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = ldexpf((float)mant, -24);
    return sign ? -f : f;
  }
  uint32_t bits = exp == 31 ? sign | 0x7f800000u | (mant << 13)
                            : sign | ((exp + 112) << 23) | (mant << 13);
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint16_t float_to_half(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
  if (isnan(f))
    return sign | 0x7e00;
  float a = fabsf(f);
  if (a >= 65520.0f)
    return sign | 0x7c00;
  if (a < 6.103515625e-05f) /* subnormal: round to a multiple of 2^-24 */
    return sign | (uint16_t)nearbyintf(a * 16777216.0f);
  uint32_t e = ((bits >> 23) & 0xff) - 112, m = bits & 0x7fffff;
  uint32_t h = (e << 10) | (m >> 13);
  uint32_t rest = m & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    h++; /* round to nearest even; a carry into the exponent is right */
  return sign | (uint16_t)h;
}

static float bf16_to_float(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint16_t float_to_bf16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if (isnan(f))
    return (uint16_t)((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return (uint16_t)(bits >> 16);
}

double ref_load(const char *p, diopiDtype_t d) {
  switch (d) {
#define LOAD(name, type)                                                       \
  case diopi_dtype_##name: {                                                   \
    type v;                                                                    \
    memcpy(&v, p, sizeof v);                                                   \
    return (double)v;                                                          \
  }
    LOAD(int8, int8_t)
    LOAD(uint8, uint8_t)
    LOAD(int16, int16_t)
    LOAD(uint16, uint16_t)
    LOAD(int32, int32_t)
    LOAD(uint32, uint32_t)
    LOAD(int64, int64_t)
    LOAD(uint64, uint64_t)
    LOAD(float32, float)
    LOAD(float64, double)
#undef LOAD
  case diopi_dtype_bool:
    return *p ? 1.0 : 0.0;
  case diopi_dtype_float16: {
    uint16_t h;
    memcpy(&h, p, sizeof h);
    return half_to_float(h);
  }
  case diopi_dtype_bfloat16: {
    uint16_t h;
    memcpy(&h, p, sizeof h);
    return bf16_to_float(h);
  }
  default:
    return 0.0;
  }
}

void ref_store(char *p, diopiDtype_t d, double value) {
  switch (d) {
#define STORE(name, type)                                                      \
  case diopi_dtype_##name: {                                                   \
    type v = (type)value;                                                      \
    memcpy(p, &v, sizeof v);                                                   \
    return;                                                                    \
  }
    STORE(int8, int8_t)
    STORE(uint8, uint8_t)
    STORE(int16, int16_t)
    STORE(uint16, uint16_t)
    STORE(int32, int32_t)
    STORE(uint32, uint32_t)
    STORE(int64, int64_t)
    STORE(uint64, uint64_t)
    STORE(float32, float)
    STORE(float64, double)
#undef STORE
  case diopi_dtype_bool:
    *p = value != 0.0;
    return;
  case diopi_dtype_float16: {
    uint16_t h = float_to_half((float)value);
    memcpy(p, &h, sizeof h);
    return;
  }
  case diopi_dtype_bfloat16: {
    uint16_t h = float_to_bf16((float)value);
    memcpy(p, &h, sizeof h);
    return;
  }
  default:
    return;
  }
}

double ref_scalar(const diopiScalar_t *s, double if_null) {
  if (!s)
    return if_null;
  return ref_is_floating(s->stype) ? s->fval : (double)s->ival;
}

int64_t ref_load_int(const char *p, diopiDtype_t d) {
  switch (d) {
#define LOAD(name, type)                                                       \
  case diopi_dtype_##name: {                                                   \
    type v;                                                                    \
    memcpy(&v, p, sizeof v);                                                   \
    return (int64_t)v;                                                         \
  }
    LOAD(int8, int8_t)
    LOAD(uint8, uint8_t)
    LOAD(int16, int16_t)
    LOAD(uint16, uint16_t)
    LOAD(int32, int32_t)
    LOAD(uint32, uint32_t)
    LOAD(int64, int64_t)
    LOAD(uint64, int64_t)
#undef LOAD
  case diopi_dtype_bool:
    return *p != 0;
  default:
    return 0;
  }
}

void ref_store_int(char *p, diopiDtype_t d, int64_t value) {
  switch (d) {
#define STORE(name, type)                                                      \
  case diopi_dtype_##name: {                                                   \
    type v = (type)value;                                                      \
    memcpy(p, &v, sizeof v);                                                   \
    return;                                                                    \
  }
    STORE(int8, int8_t)
    STORE(uint8, uint8_t)
    STORE(int16, int16_t)
    STORE(uint16, uint16_t)
    STORE(int32, int32_t)
    STORE(uint32, uint32_t)
    STORE(int64, int64_t)
    STORE(uint64, int64_t)
#undef STORE
  case diopi_dtype_bool:
    *p = value != 0;
    return;
  default:
    return;
  }
}

int64_t ref_scalar_int(const diopiScalar_t *s, int64_t if_null) {
  if (!s)
    return if_null;
  return ref_is_floating(s->stype) ? (int64_t)s->fval : s->ival;
}

bool ref_scalar_is_integral(const diopiScalar_t *s) {
  return !s || !ref_is_floating(s->stype);
}

bool ref_is_narrow_floating(diopiDtype_t dtype) {
  return dtype == diopi_dtype_float16 || dtype == diopi_dtype_bfloat16 ||
         dtype == diopi_dtype_float32;
}

double ref_round_to(diopiDtype_t dtype, double value) {
  if (dtype == diopi_dtype_float32)
    return (double)(float)value;
  if (!ref_is_narrow_floating(dtype))
    return value;
  char held[8]; /* ref_store's switch reads as any dtype's width */
  ref_store(held, dtype, value);
  return ref_load(held, dtype);
}

int64_t ref_int_as(diopiDtype_t dtype, int64_t value) {
  char held[8] = {0};
  ref_store_int(held, dtype, value);
  return ref_load_int(held, dtype);
}

double ref_scalar_as(const diopiScalar_t *s, diopiDtype_t dtype,
                     double if_null) {
  if (!s)
    return if_null;
  if (ref_is_integral(dtype))
    return (double)ref_int_as(dtype, ref_scalar_int(s, 0));
  return ref_round_to(dtype, ref_scalar(s, if_null));
}

/* The dtype PyTorch computes an op of a tensor of `tensor_dtype` and the
 * scalar operand `s` in (its result_type). */
static diopiDtype_t scalar_operand_dtype(const diopiScalar_t *s,
                                         diopiDtype_t tensor_dtype) {
  if (!s || ref_is_floating(tensor_dtype))
    return tensor_dtype;
  if (!ref_scalar_is_integral(s))
    return diopi_dtype_float32; /* PyTorch's default dtype */
  if (tensor_dtype == diopi_dtype_bool && s->stype != diopi_dtype_bool)
    return diopi_dtype_int64;
  return tensor_dtype;
}

double ref_scalar_for(const diopiScalar_t *s, diopiConstTensorHandle_t t,
                      double if_null) {
  diopiDtype_t dtype = diopi_dtype_float64;
  if (!t || diopiGetTensorDtype(t, &dtype) != diopiSuccess)
    return ref_scalar(s, if_null);
  return ref_scalar_as(s, dtype, if_null);
}

double ref_scalar_operand_for(const diopiScalar_t *s,
                              diopiConstTensorHandle_t t, double if_null) {
  diopiDtype_t dtype = diopi_dtype_float64;
  if (!t || diopiGetTensorDtype(t, &dtype) != diopiSuccess)
    return ref_scalar(s, if_null);
  return ref_scalar_as(s, scalar_operand_dtype(s, dtype), if_null);
}

int64_t ref_scalar_int_operand_for(const diopiScalar_t *s,
                                   diopiConstTensorHandle_t t,
                                   int64_t if_null) {
  diopiDtype_t dtype = diopi_dtype_int64;
  if (!s)
    return if_null;
  if (!t || diopiGetTensorDtype(t, &dtype) != diopiSuccess)
    return ref_scalar_int(s, if_null);
  dtype = scalar_operand_dtype(s, dtype);
  return ref_is_integral(dtype) ? ref_int_as(dtype, ref_scalar_int(s, 0))
                                : ref_scalar_int(s, 0);
}

void ref_copy_element(const ref_view_t *dst, int64_t i, const ref_view_t *src,
                      int64_t j) {
  size_t elem = ref_dtype_size(dst->dtype);
  char *to = dst->data + ref_offset(dst, i) * (int64_t)elem;
  const char *from =
      src->data + ref_offset(src, j) * (int64_t)ref_dtype_size(src->dtype);
  if (dst->dtype == src->dtype)
    memcpy(to, from, elem);
  else if (ref_is_integral(dst->dtype) && ref_is_integral(src->dtype))
    ref_store_int(to, dst->dtype, ref_load_int(from, src->dtype));
  else
    ref_store(to, dst->dtype, ref_load(from, src->dtype));
}

diopiError_t ref_expect_shape(const char *op, const char *arg,
                              const ref_view_t *v, const int64_t *shape,
                              int ndim) {
  bool same = v->ndim == ndim;
  for (int i = 0; same && i < ndim; i++)
    same = v->shape[i] == shape[i];
  if (same)
    return diopiSuccess;
  char want[128], have[128];
  return ref_fail(op, "%s: expected shape %s, got %s", arg,
                  ref_shape_text(shape, ndim, want, sizeof want),
                  ref_shape_text(v->shape, v->ndim, have, sizeof have));
}

diopiError_t ref_expect_dtype(const char *op, const char *arg,
                              const ref_view_t *v, diopiDtype_t dtype) {
  if (v->dtype == dtype)
    return diopiSuccess;
  return ref_fail(op, "%s: expected dtype %d, got %d", arg, (int)dtype,
                  (int)v->dtype);
}

diopiError_t ref_broadcast_to(const char *op, const char *arg, ref_view_t *v,
                              const int64_t *shape, int ndim) {
  char want[128], have[128];
  if (v->ndim > ndim)
    return ref_fail(op, "%s: shape %s does not broadcast to %s", arg,
                    ref_shape_text(v->shape, v->ndim, have, sizeof have),
                    ref_shape_text(shape, ndim, want, sizeof want));
  ref_view_t b = *v;
  int lead = ndim - v->ndim;
  for (int i = 0; i < ndim; i++) {
    int64_t n = i < lead ? 1 : v->shape[i - lead];
    int64_t s = i < lead ? 0 : v->strides[i - lead];
    if (n != shape[i] && n != 1)
      return ref_fail(op, "%s: shape %s does not broadcast to %s", arg,
                      ref_shape_text(v->shape, v->ndim, have, sizeof have),
                      ref_shape_text(shape, ndim, want, sizeof want));
    b.shape[i] = shape[i];
    b.strides[i] = n == shape[i] ? s : 0;
  }
  b.ndim = ndim;
  b.numel = 1;
  for (int i = 0; i < ndim; i++)
    b.numel *= shape[i];
  *v = b;
  return diopiSuccess;
}

/* [first, last] bytes a view touches. */
static void extent(const ref_view_t *v, const char **first, const char **last) {
  int64_t hi = 0;
  for (int i = 0; i < v->ndim; i++)
    hi += (v->shape[i] - 1) * v->strides[i];
  *first = v->data;
  *last = v->data + (hi + 1) * (int64_t)ref_dtype_size(v->dtype) - 1;
}

/* Whether `v` covers its extent exactly once: its dims of size > 1 that do
 * not broadcast (stride 0), by increasing stride, pack one inside the next
 * from stride 1 (PyTorch's is_non_overlapping_and_dense of the view before
 * broadcasting). */
static bool dense(const ref_view_t *v) {
  int64_t shape[REF_MAX_DIMS], strides[REF_MAX_DIMS];
  int n = 0;
  for (int i = 0; i < v->ndim; i++) {
    if (v->shape[i] == 1 || v->strides[i] == 0)
      continue;
    int at = n++;
    for (; at > 0 && strides[at - 1] > v->strides[i]; at--) {
      shape[at] = shape[at - 1];
      strides[at] = strides[at - 1];
    }
    shape[at] = v->shape[i];
    strides[at] = v->strides[i];
  }
  int64_t next = 1;
  for (int i = 0; i < n; i++) {
    if (strides[i] != next)
      return false;
    next *= shape[i];
  }
  return true;
}

diopiError_t ref_expect_no_partial_overlap(const char *op, const char *arg,
                                           const ref_view_t *out,
                                           const ref_view_t *in) {
  if (!out->numel || !in->numel)
    return diopiSuccess;
  const char *a0, *a1, *b0, *b1;
  extent(out, &a0, &a1);
  extent(in, &b0, &b1);
  bool same =
      out->data == in->data && out->dtype == in->dtype &&
      out->ndim == in->ndim &&
      !memcmp(out->shape, in->shape, sizeof(int64_t) * (size_t)out->ndim) &&
      !memcmp(out->strides, in->strides, sizeof(int64_t) * (size_t)out->ndim);
  /* Extents that meet prove nothing for strided views (a GRU's gates are
   * interleaved column blocks of one buffer): as PyTorch's
   * assert_no_partial_overlap, only two dense views are known to share
   * memory when their extents meet. */
  if (a1 < b0 || b1 < a0 || same || !dense(out) || !dense(in))
    return diopiSuccess;
  return ref_fail(op, "%s: overlaps the output in memory", arg);
}

/* Whether every element of a contiguous int64 or int32 tensor is in
 * [0, bound): one branch-free pass (the unsigned compare catches the
 * negative ones), vectorized. */
REF_ISA_BODY bool indices_below_body(const void *data, bool wide, int64_t n,
                                     int64_t bound) {
  int outside = 0;
  if (wide) {
    const int64_t *x = data;
#pragma omp simd reduction(| : outside)
    for (int64_t i = 0; i < n; i++)
      outside |= (uint64_t)x[i] >= (uint64_t)bound;
  } else {
    const int32_t *x = data;
#pragma omp simd reduction(| : outside)
    for (int64_t i = 0; i < n; i++)
      outside |= (uint64_t)(int64_t)x[i] >= (uint64_t)bound;
  }
  return !outside;
}
REF_ISA_DISPATCH(static, bool, indices_below,
                 (const void *data, bool wide, int64_t n, int64_t bound),
                 (data, wide, n, bound))

/* indices_below over the pool: each range flags `outside` if it holds an
 * index outside [0, bound). */
typedef struct indices_check {
  const char *data;
  bool wide;
  int64_t bound;
  atomic_bool outside;
} indices_check_t;

static void check_range(void *context, int64_t begin, int64_t end) {
  indices_check_t *c = context;
  int64_t elem = c->wide ? 8 : 4;
  if (!indices_below(c->data + begin * elem, c->wide, end - begin, c->bound))
    atomic_store_explicit(&c->outside, true, memory_order_relaxed);
}

diopiError_t ref_expect_indices_below(const char *op, const char *arg,
                                      const ref_view_t *v, int64_t bound,
                                      bool has_ignore, int64_t ignore) {
  /* Contiguous int64 or int32 (every index tensor the ops write) is read
   * directly: ref_get_int walks the strides of every element. */
  bool direct = ref_contiguous(v) && (v->dtype == diopi_dtype_int64 ||
                                      v->dtype == diopi_dtype_int32);
  if (direct && bound >= 0) {
    indices_check_t check = {
        .data = v->data, .wide = v->dtype == diopi_dtype_int64, .bound = bound};
    atomic_init(&check.outside, false);
    ref_parallel_for(v->numel, 1 << 16, check_range, &check);
    if (!atomic_load_explicit(&check.outside, memory_order_relaxed))
      return diopiSuccess; /* else the loop finds the first one outside */
  }
  for (int64_t i = 0; i < v->numel; i++) {
    int64_t x = !direct                         ? ref_get_int(v, i)
                : v->dtype == diopi_dtype_int64 ? ((const int64_t *)v->data)[i]
                                                : ((const int32_t *)v->data)[i];
    if ((x < 0 || x >= bound) && !(has_ignore && x == ignore))
      return ref_fail(op,
                      "%s: value %lld at element %lld is out of range [0, "
                      "%lld)",
                      arg, (long long)x, (long long)i, (long long)bound);
  }
  return diopiSuccess;
}

diopiError_t ref_dim(const char *op, const char *arg, int64_t dim, int ndim,
                     int *out) {
  int64_t n = ndim ? ndim : 1;
  if (dim < -n || dim >= n)
    return ref_fail(op, "%s: dim %lld out of range for %d dims", arg,
                    (long long)dim, ndim);
  *out = (int)(dim < 0 ? dim + n : dim);
  return diopiSuccess;
}
