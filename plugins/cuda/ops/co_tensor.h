/* Tensor views of the cuda op library: what an op needs of a tensor,
 * copied at call time (tensor handles may die once the op returns), and
 * the checks whose messages name the op and the argument. Ops compute
 * float32 (index tensors: int64); other dtypes are diopiNoImplement. */
#ifndef BACKPLANE_CUDA_OPS_TENSOR_H_
#define BACKPLANE_CUDA_OPS_TENSOR_H_

#include <stdbool.h>
#include <stdint.h>

#include <diopi/diopirt.h>

#include "backplane/ops.h"

enum { CO_MAX_VIEW_DIMS = 8 };

typedef struct co_view {
  const char *name; /* the argument, for messages */
  void *data;       /* element 0 */
  diopiDtype_t dtype;
  int ndim;
  int64_t numel;
  int64_t shape[CO_MAX_VIEW_DIMS];
  int64_t strides[CO_MAX_VIEW_DIMS]; /* in elements */
  bp_device_t *device;               /* NULL: host memory */
} co_view_t;

/* Reads `t` (argument `arg`) into *out. NULL, more than CO_MAX_VIEW_DIMS
 * dims: diopiErrorOccurred; a dtype other than `dtype`: diopiNoImplement
 * for a float32 operand (the library computes float32 only),
 * diopiErrorOccurred for an int64 (index) operand. */
diopiError_t co_view(const char *op, const char *arg,
                     diopiConstTensorHandle_t t, diopiDtype_t dtype,
                     co_view_t *out);
/* co_view for an optional tensor: NULL gives *present = false. */
diopiError_t co_view_optional(const char *op, const char *arg,
                              diopiConstTensorHandle_t t, diopiDtype_t dtype,
                              co_view_t *out, bool *present);

/* Fails unless `v` has exactly `shape` (ndim dims). */
diopiError_t co_expect_shape(const char *op, const co_view_t *v,
                             const int64_t *shape, int ndim);
/* diopiNoImplement unless `v` is dense (row-major contiguous). */
diopiError_t co_expect_dense(const char *op, const co_view_t *v);
bool co_dense(const co_view_t *v);

/* A scalar's value: fval for a floating stype, ival otherwise. */
double co_scalar(const diopiScalar_t *s);

/* "[2, 3]" into buf. */
const char *co_shape_text(const int64_t *shape, int ndim, char *buf,
                          size_t size);

#endif /* BACKPLANE_CUDA_OPS_TENSOR_H_ */
