/* Tensor views of the reference library: everything a task needs about a
 * tensor, copied by value at enqueue time (data pointer, dtype, shape,
 * strides in elements), element loads and stores in double for any dtype
 * and in int64 for the integral ones (exact beyond 2^53), and shape checks
 * whose messages name the op and the argument. */
#ifndef BACKPLANE_REF_OPS_TENSOR_H_
#define BACKPLANE_REF_OPS_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <diopi/diopirt.h>

#define REF_EXPORT __attribute__((visibility("default")))
enum { REF_MAX_DIMS = 8 };

typedef struct ref_view {
  char *data; /* element 0 */
  diopiDtype_t dtype;
  int ndim;
  int64_t numel;
  int64_t shape[REF_MAX_DIMS];
  int64_t strides[REF_MAX_DIMS]; /* in elements */
} ref_view_t;

/* Reads `t` into *out. A NULL tensor, a dtype the library cannot compute,
 * too many dims, or device memory of another device than ctx's (whose
 * stream would read it unordered; PyTorch: "Expected all tensors to be on
 * the same device") fail with a message naming `op` and `arg`. */
diopiError_t ref_view(diopiContextHandle_t ctx, const char *op, const char *arg,
                      diopiConstTensorHandle_t t, ref_view_t *out);
/* ref_view for an optional tensor: NULL gives *present = false. */
diopiError_t ref_view_optional(diopiContextHandle_t ctx, const char *op,
                               const char *arg, diopiConstTensorHandle_t t,
                               ref_view_t *out, bool *present);

/* One tensor argument of an op for ref_views: its name in messages, the
 * handle, the view to fill, and where to record whether it was given (NULL:
 * the argument is required). */
typedef struct ref_arg {
  const char *name;
  diopiConstTensorHandle_t tensor;
  ref_view_t *view;
  bool *present;
} ref_arg_t;

/* ref_view (or ref_view_optional) over args[0, n) in order; the first
 * error stops it. */
diopiError_t ref_views(diopiContextHandle_t ctx, const char *op,
                       const ref_arg_t *args, int n);
#define REF_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

size_t ref_dtype_size(diopiDtype_t dtype);
bool ref_is_floating(diopiDtype_t dtype);
/* The integer dtypes and bool: computed exactly in int64. */
bool ref_is_integral(diopiDtype_t dtype);
bool ref_contiguous(const ref_view_t *v);
/* "[2, 3]" into buf. */
const char *ref_shape_text(const int64_t *shape, int ndim, char *buf,
                           size_t size);

double ref_load(const char *p, diopiDtype_t dtype);
void ref_store(char *p, diopiDtype_t dtype, double value);
/* Whether dtype is float16, bfloat16 or float32 (ref_round_to rounds). */
bool ref_is_narrow_floating(diopiDtype_t dtype);
/* value as `dtype` holds it, rounded to nearest for float16, bfloat16 and
 * float32; any other dtype leaves it. */
double ref_round_to(diopiDtype_t dtype, double value);
double ref_scalar(const diopiScalar_t *s, double if_null);
/* Integral dtypes only: loads widen to int64 (uint64 keeps its bits), stores
 * narrow as C conversions do (bool: value != 0). */
int64_t ref_load_int(const char *p, diopiDtype_t dtype);
void ref_store_int(char *p, diopiDtype_t dtype, int64_t value);
/* value as the integral dtype holds it (300 is 44 as uint8, -1 is 255). */
int64_t ref_int_as(diopiDtype_t dtype, int64_t value);
/* A scalar as int64 (a float one truncated), and whether it is integral. */
int64_t ref_scalar_int(const diopiScalar_t *s, int64_t if_null);
bool ref_scalar_is_integral(const diopiScalar_t *s);
/* A scalar as PyTorch converts it to a tensor's dtype before computing with
 * it: an integral dtype truncates, then wraps to its width (-1 is 255 as
 * uint8); float16, bfloat16 and float32 round to nearest (0.1 is
 * 0.0999755859375 as float16); float64 keeps the value. */
double ref_scalar_as(const diopiScalar_t *s, diopiDtype_t dtype,
                     double if_null);
/* ref_scalar_as for the dtype of `t` (a handle whose dtype cannot be read
 * leaves the value as ref_scalar gives it; the op's checks report it). */
double ref_scalar_for(const diopiScalar_t *s, diopiConstTensorHandle_t t,
                      double if_null);
/* A scalar operand of an op with the tensor `t`, as PyTorch converts it
 * before computing (what `t > 0.3` compares float16 elements with): to
 * the dtype of the op's computation, which is t's unless the scalar's kind
 * is higher (float32, the default dtype, for a floating scalar with an
 * integral or bool tensor; int64 for an integral one with a bool tensor),
 * as ref_scalar_as converts. */
double ref_scalar_operand_for(const diopiScalar_t *s,
                              diopiConstTensorHandle_t t, double if_null);
/* ref_scalar_operand_for in int64, exact beyond 2^53, for an integral
 * scalar with an integral or bool tensor `t` (whose op then computes in an
 * integral dtype). */
int64_t ref_scalar_int_operand_for(const diopiScalar_t *s,
                                   diopiConstTensorHandle_t t, int64_t if_null);

/* The element offset of row-major linear index `i` of `v`. */
int64_t ref_offset(const ref_view_t *v, int64_t i);
static inline double ref_get(const ref_view_t *v, int64_t i) {
  size_t elem = ref_dtype_size(v->dtype);
  return ref_load(v->data + ref_offset(v, i) * (int64_t)elem, v->dtype);
}
static inline void ref_set(const ref_view_t *v, int64_t i, double value) {
  size_t elem = ref_dtype_size(v->dtype);
  ref_store(v->data + ref_offset(v, i) * (int64_t)elem, v->dtype, value);
}

static inline int64_t ref_get_int(const ref_view_t *v, int64_t i) {
  size_t elem = ref_dtype_size(v->dtype);
  return ref_load_int(v->data + ref_offset(v, i) * (int64_t)elem, v->dtype);
}
static inline void ref_set_int(const ref_view_t *v, int64_t i, int64_t value) {
  size_t elem = ref_dtype_size(v->dtype);
  ref_store_int(v->data + ref_offset(v, i) * (int64_t)elem, v->dtype, value);
}
/* buf[j] = ref_get(v, begin + j) for j < n, a contiguous float32 or
 * float64 view read directly. */
void ref_get_block(const ref_view_t *v, int64_t begin, int64_t n, double *buf);

/* dst[i] = src[j], converting the dtype if they differ: bytes when they
 * match, int64 between integral dtypes, double otherwise. */
void ref_copy_element(const ref_view_t *dst, int64_t i, const ref_view_t *src,
                      int64_t j);

/* Fails unless `v` has exactly `shape`. */
diopiError_t ref_expect_shape(const char *op, const char *arg,
                              const ref_view_t *v, const int64_t *shape,
                              int ndim);
/* Fails unless `v` has `dtype`. */
diopiError_t ref_expect_dtype(const char *op, const char *arg,
                              const ref_view_t *v, diopiDtype_t dtype);
/* Rewrites `v` in place to broadcast to `shape` (stride 0 on broadcast
 * dims), or fails naming the shapes. */
diopiError_t ref_broadcast_to(const char *op, const char *arg, ref_view_t *v,
                              const int64_t *shape, int ndim);
/* Fails if `out` and `in` share memory without being the very same view (an
 * op that would write its inputs while reading them), where that is known:
 * both dense, broadcast dims aside. Strided views whose extents meet pass,
 * as in PyTorch: they may interleave without sharing an element. */
diopiError_t ref_expect_no_partial_overlap(const char *op, const char *arg,
                                           const ref_view_t *out,
                                           const ref_view_t *in);
/* Fails unless every value of the integral view `v` is in [0, bound) (or
 * equals `ignore` when `has_ignore`), naming the first that is not. Reads
 * the data: call it where the stream has produced it (a check of
 * ref_enqueue_checked, on the stream's worker). A long contiguous view is
 * scanned across the worker pool. */
diopiError_t ref_expect_indices_below(const char *op, const char *arg,
                                      const ref_view_t *v, int64_t bound,
                                      bool has_ignore, int64_t ignore);
/* Normalizes a possibly negative dim against ndim, or fails. */
diopiError_t ref_dim(const char *op, const char *arg, int64_t dim, int ndim,
                     int *out);

#endif /* BACKPLANE_REF_OPS_TENSOR_H_ */
