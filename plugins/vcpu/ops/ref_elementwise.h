/* The elementwise engine: out[i] = fn(in0[i], in1[i], ...) over out's shape,
 * inputs broadcast to it, any dtypes (computed in double; float16 and
 * bfloat16 round once, at the store), any strides. When out and every input
 * are integral and the op has an integer form, that runs instead, in int64
 * (exact, wrapping as the dtype does; a bool out of inputs float holds
 * exactly takes the float loop first). When every tensor is float32 and
 * contiguous with out's shape, the op's float loop runs instead, split
 * across the worker pool; when every tensor has out's integral (or bool)
 * dtype and is unit-stride along the innermost dim, the op's bits loop
 * (exact, on the stored elements) runs before either. A float32 last input
 * that holds one value per row (broadcast along the innermost dim, every other
 * tensor float32 and unit-stride there) goes to the op's splat loop when it
 * has one, which reads that value once instead of a buffer filled with it.
 * A float32 copy (ref_copy_f32), or an op with an f32_stream loop, of
 * unit-stride rows (no broadcast) whose output is at least
 * ref_stream_min_bytes() streams its stores (ref_stream.h). */
#ifndef BACKPLANE_REF_OPS_ELEMENTWISE_H_
#define BACKPLANE_REF_OPS_ELEMENTWISE_H_

#include "ref_isa.h"
#include "ref_tensor.h"

enum { REF_EW_MAX_IN = 3 };

typedef double (*ref_ew_fn_t)(const double *in, const double *params);
typedef void (*ref_ew_f32_fn_t)(float *out, const float *const *in, int64_t n,
                                const double *params);
typedef int64_t (*ref_ew_int_fn_t)(const int64_t *in, const int64_t *params);
/* n elements of `dtype` (integral or bool: every tensor's) in place. */
typedef void (*ref_ew_bits_fn_t)(void *out, const void *const *in, int64_t n,
                                 diopiDtype_t dtype, const double *params);

/* Defines `static void name(out, in, n, dtype, p)`, a bits loop
 * (ref_ew_bits_fn_t), from name_body written with REF_ISA_BODY: one build
 * per ISA, dispatched on ref_isa(). */
#define REF_EW_BITS(name)                                                      \
  REF_ISA_DISPATCH_VOID(static, name,                                          \
                        (void *out, const void *const *in, int64_t n,          \
                         diopiDtype_t dtype, const double *p),                 \
                        (out, in, n, dtype, p))

/* Runs LOOP(type) with the unsigned type of dtype's width, for bits loops
 * whose result does not depend on signedness. */
#define REF_EW_BY_WIDTH(dtype, LOOP)                                           \
  switch (ref_dtype_size(dtype)) {                                             \
  case 1:                                                                      \
    LOOP(uint8_t);                                                             \
    break;                                                                     \
  case 2:                                                                      \
    LOOP(uint16_t);                                                            \
    break;                                                                     \
  case 4:                                                                      \
    LOOP(uint32_t);                                                            \
    break;                                                                     \
  default:                                                                     \
    LOOP(uint64_t);                                                            \
  }

typedef struct ref_ew {
  int nin;
  ref_view_t out;
  ref_view_t in[REF_EW_MAX_IN];
  ref_ew_fn_t fn;
  ref_ew_f32_fn_t f32; /* NULL: no fast path */
  /* f32 with in[nin - 1] pointing to one value, the same for all n elements
   * (NULL: none; see above). */
  ref_ew_f32_fn_t f32_splat;
  /* f32 through streaming stores, for outputs beyond the last-level cache
   * (NULL: none; see above). */
  ref_ew_f32_fn_t f32_stream;
  ref_ew_int_fn_t int_fn; /* NULL: integral tensors go through fn */
  ref_ew_bits_fn_t bits;  /* NULL: none (see above) */
  double params[4];
  int64_t int_params[2];
  /* Set by ref_ew_launch: the inputs' result type (ref_promote.h), and
   * whether some input converts to it, a float16, bfloat16 or float32,
   * before the double loop computes, or an integer dtype (wrapping: a 0-dim
   * int64 300 meets a uint8 tensor as 44) before the integer one (ops that
   * fill their own views leave all three zero: their inputs are taken as
   * they are). */
  diopiDtype_t compute;
  bool round_inputs, wrap_inputs;
} ref_ew_t;

/* Views out and the inputs, checks that each input broadcasts to out and
 * does not partially overlap it, and enqueues the op. `in_names` name the
 * inputs in messages. */
diopiError_t ref_ew_launch(diopiContextHandle_t ctx, const char *op,
                           ref_ew_t *ew, diopiConstTensorHandle_t out,
                           const diopiConstTensorHandle_t *in,
                           const char *const *in_names);

/* Enqueues an op whose views the caller filled and checked itself (a view
 * with permuted strides, a slice of out). */
diopiError_t ref_ew_enqueue(diopiContextHandle_t ctx, const char *op,
                            const ref_ew_t *ew);

/* The copy functions of copy/cast, for ops built on a strided copy. */
double ref_copy_fn(const double *in, const double *params);
void ref_copy_f32(float *out, const float *const *in, int64_t n,
                  const double *params);
int64_t ref_copy_int(const int64_t *in, const int64_t *params);
/* out = params[0]. */
double ref_fill_fn(const double *in, const double *params);

/* Enqueues out = value over every element of the view `out` (e.g. zeros for
 * a gradient nothing contributes to). */
diopiError_t ref_ew_fill(diopiContextHandle_t ctx, const char *op,
                         const ref_view_t *out, double value);

#endif /* BACKPLANE_REF_OPS_ELEMENTWISE_H_ */
