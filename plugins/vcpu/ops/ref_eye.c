/* eye: an extension op (DIOPI 1.0 declares none), as torch.eye: out
 * [n, m] (any dtype the library computes, any strides) holds 1 on the
 * diagonal and 0 elsewhere; contiguous rows are zeroed as bytes. */
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct eye_task {
  ref_view_t out;
} eye_task_t;

static void rows(void *context, int64_t begin, int64_t end) {
  const eye_task_t *t = context;
  int64_t m = t->out.shape[1];
  if (ref_contiguous(&t->out)) { /* zero the rows' bytes, then the ones */
    size_t elem = ref_dtype_size(t->out.dtype);
    memset(t->out.data + begin * m * (int64_t)elem, 0,
           (size_t)((end - begin) * m) * elem);
    for (int64_t i = begin; i < end && i < m; i++)
      ref_is_integral(t->out.dtype) ? ref_set_int(&t->out, i * m + i, 1)
                                    : ref_set(&t->out, i * m + i, 1);
    return;
  }
  bool integral = ref_is_integral(t->out.dtype);
  for (int64_t i = begin * m; i < end * m; i++) {
    bool one = i / m == i % m;
    if (integral)
      ref_set_int(&t->out, i, one);
    else
      ref_set(&t->out, i, one);
  }
}

static void run(void *args) {
  eye_task_t *t = args;
  ref_parallel_for(t->out.shape[0], 64, rows, t);
}

REF_EXPORT diopiError_t diopiEye(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out, int64_t n,
                                 int64_t m) {
  const char *op = "diopiEye";
  if (n < 0 || m < 0)
    return ref_fail(op, "%s: expected >= 0, got %lld", n < 0 ? "n" : "m",
                    (long long)(n < 0 ? n : m));
  eye_task_t t;
  memset(&t, 0, sizeof t);
  int64_t shape[2] = {n, m};
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, shape, 2);
  if (err || t.out.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
