/* One call of a bridge phi kernel: the device and stream Paddle gave it,
 * Paddle tensors wrapped as DIOPI tensors, DIOPI ops found by name, and
 * errors raised to Paddle as exceptions whose text names the phi kernel,
 * the device and what Backplane said (bp_last_error, or the op library's
 * message).
 *
 * Kernels are registered with Paddle's kernel C API through its own
 * PD_BUILD_PHI_KERNEL (phi/capi/all.h). That is C++ by necessity: Paddle's
 * eager mode calls a kernel through a "variadic" entry point whose
 * signature is the phi kernel's C++ one (const DeviceContext&, const
 * DenseTensor&, ..., const std::vector<int>&, DenseTensor*), which only
 * the C API's templates generate. Each kernel is therefore a function
 * template over the C API's thin wrappers (phi::DenseTensor is a
 * PD_Tensor*), and does its work on the PD_* handles here.
 * Not shared between threads: Paddle runs each kernel call on one thread. */
#ifndef BACKPLANE_PADDLE_KERNEL_CALL_H_
#define BACKPLANE_PADDLE_KERNEL_CALL_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/diopi/functions.h"
#include "backplane/diopi/functions_backplane.h"
#include "bridge.h"
#include "paddle/phi/capi/all.h"

enum { KERNEL_CALL_MAX_TENSORS = 64 };

/* The C handle behind a C API tensor wrapper; NULL for an absent optional
 * or output. */
static inline PD_Tensor *pd(const phi::DenseTensor &t) {
  return t.raw_data();
}
static inline PD_Tensor *pd(const phi::DenseTensor *t) {
  return t ? t->raw_data() : NULL;
}
static inline PD_Tensor *pd(const paddle::optional<phi::DenseTensor> &t) {
  return t ? t->raw_data() : NULL;
}

class KernelCall {
public:
  KernelCall(const phi::Context &dev_ctx, const char *kernel);
  /* The same for a kernel whose outputs all have its element type
   * `kernel_dtype` unless alloc names another: a legacy-IR static graph
   * hands kernels outputs still in a placeholder dtype (float32), which
   * Paddle's own kernels override by allocating their T. */
  KernelCall(const phi::Context &dev_ctx, const char *kernel,
             PD_DataType kernel_dtype);
  /* Destroys the wrappers and returns scratch in stream order. */
  ~KernelCall();
  KernelCall(const KernelCall &) = delete;
  KernelCall &operator=(const KernelCall &) = delete;

  PD_DeviceContext *context() const {
    return ctx_;
  }
  bp_device_t *device() const {
    return device_;
  }
  diopiContextHandle_t diopi() const {
    return diopi_;
  }

  /* `t` as a DIOPI tensor with its own shape (NULL for NULL), or with
   * `shape` (same element count) when ndim >= 0. */
  diopiTensorHandle_t wrap(PD_Tensor *t, int ndim = -1,
                           const int64_t *shape = NULL);
  /* `t` as a DIOPI tensor of `other`'s rank when it has fewer dims: its
   * dims at `other`'s dim `axis` (-1: the trailing dims, numpy's rule),
   * ones elsewhere; the broadcasting of Paddle's legacy elementwise ops. */
  diopiTensorHandle_t wrap_at_axis(PD_Tensor *t, PD_Tensor *other, int axis);
  /* `data` of the device as a DIOPI tensor (strides in elements; NULL:
   * contiguous). */
  diopiTensorHandle_t wrap_data(void *data, diopiDtype_t dtype, int ndim,
                                const int64_t *shape, const int64_t *strides);
  /* Allocates output `t` (its dims already set by Paddle's InferMeta, or
   * set here when ndim >= 0) with `dtype` (UNDEFINED: the kernel's dtype
   * when the constructor was given one, else the tensor's own) and wraps
   * it. NULL for NULL. */
  diopiTensorHandle_t alloc(PD_Tensor *t, int ndim = -1,
                            const int64_t *shape = NULL,
                            PD_DataType dtype = PD_DataType::UNDEFINED);
  /* Scratch from the device's caching allocator, freed in stream order. */
  diopiTensorHandle_t temp(diopiDtype_t dtype, int ndim, const int64_t *shape);

  /* `fn`, the DIOPI op `name` looked up once (DIOPI below); raises when
   * the op library lacks it. */
  void *op(const char *name, void *fn);
  /* Raises unless `err` is diopiSuccess. */
  void check(diopiError_t err, const char *op_name);
  /* Raises "backplane kernel <kernel> on backplane:<id> (<device>): ...". */
  [[noreturn]] void fail(const char *format, ...)
      __attribute__((format(printf, 2, 3)));

private:
  diopiTensorHandle_t keep(diopiTensorHandle_t t, bp_status_t status,
                           const char *what);

  PD_DeviceContext *ctx_;
  const char *kernel_;
  PD_DataType kernel_dtype_;
  bp_device_t *device_;
  diopiContextHandle_t diopi_;
  diopiTensorHandle_t tensors_[KERNEL_CALL_MAX_TENSORS];
  size_t ntensors_;
};

/* The op library's `name`, typed as functions.h (or functions_backplane.h)
 * declares it, looked up on
 * first use (a thread-safe function-local static); raises when the library
 * lacks it. */
#define DIOPI(call, name)                                                      \
  ((decltype(&name))(call).op(#name, []() {                                    \
    static void *const fn = bridge_op(#name);                                  \
    return fn;                                                                 \
  }()))

/* The PD_DataType of a kernel's element type T. */
template <typename T> static inline PD_DataType kernel_dtype_of() {
  return phi::capi::CppTypeToPDType<T>::Type();
}

/* Paddle's dims of `t` into `shape` (at most BP_OPS_MAX_DIMS); returns
 * ndim. */
int kernel_dims(PD_Tensor *t, int64_t *shape);
int64_t kernel_numel(PD_Tensor *t);
PD_DataType kernel_dtype(PD_Tensor *t);
diopiDtype_t kernel_diopi_dtype(PD_DataType dtype);

diopiScalar_t kernel_scalar(double value);
/* A Scalar attribute as a double (phi's Scalar converts what it holds;
 * PD_ScalarGetDataType is declared but not exported by Paddle 3.3.1). */
diopiScalar_t kernel_scalar(const phi::Scalar &value);
/* An IntArray attribute into `out` (at most BP_OPS_MAX_DIMS); returns the
 * count. */
int kernel_int_array(const phi::IntArray &array, int64_t *out);

/* x's shape with the reduced dims (`dims`, negative from the end; none or
 * reduce_all: every dim) set to 1, into `kept`; returns x's rank. Fails on
 * a dim out of range. */
int kernel_kept_shape(KernelCall &call, PD_Tensor *x, const int64_t *dims,
                      int ndims, bool reduce_all, int64_t *kept);

/* The first element of `t` (any real dtype) read back on the call's
 * stream, after the work queued before it: the host waits. */
double kernel_read_scalar(KernelCall &call, diopiConstTensorHandle_t t,
                          const char *name);

/* Allocates `out` with the shape that the op library chose for `result`
 * (an op that sizes its own output) and `dtype` (UNDEFINED: as alloc
 * takes it), and copies result there, converting its dtype. */
void kernel_copy_sized(KernelCall &call, diopiConstTensorHandle_t result,
                       PD_Tensor *out, PD_DataType dtype);

/* Scratch of `t`'s shape and dtype filled with zeros (also for a
 * no-need-buffer input of a gradient kernel, which has dims but no memory). */
diopiTensorHandle_t kernel_zeros_like(KernelCall &call, PD_Tensor *t);

/* A generator for one random kernel: Paddle's seed attribute when nonzero,
 * else seeded by the next number of the device context's generator (so
 * paddle.seed holds). The caller destroys it (bp_ops_generator_destroy). */
diopiGeneratorHandle_t kernel_generator(KernelCall &call, int seed);

/* dst = src summed over the dims in which it was broadcast from dst's
 * shape (numpy rules, aligned right; or dst's dims at src's dim `axis`, as
 * wrap_at_axis places them); a plain copy when the shapes agree. `scale`
 * multiplies the result (1 or -1). NULL dst: nothing. */
void kernel_sum_to(KernelCall &call, PD_Tensor *dst,
                   diopiConstTensorHandle_t src, int src_ndim,
                   const int64_t *src_shape, double scale, int axis = -1);

/* The floating dtypes of kernels whose DIOPI ops take every floating
 * dtype (the reference library computes float16 and bfloat16 in float or
 * double and rounds on store, float64 in double), and every dtype of the
 * data-movement kernels. */
#define BRIDGE_FLOAT_DTYPES                                                    \
  float, double, phi::dtype::float16, phi::dtype::bfloat16
#define BRIDGE_ANY_DTYPE                                                       \
  BRIDGE_FLOAT_DTYPES, int32_t, int64_t, bool, uint8_t, int8_t

/* Paddle's backend token for the kernels: the bridge's device type. */
#define BRIDGE_KERNEL_BACKEND backplane

#endif /* BACKPLANE_PADDLE_KERNEL_CALL_H_ */
