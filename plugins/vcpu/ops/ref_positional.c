/* Ops whose value depends on the element's position: tril and triu (keep
 * one side of a diagonal of the last two dims, zero the other) and one_hot
 * (out[..., c] = input[...] == c). */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

typedef enum positional { TRIL, TRIU, ONE_HOT } positional_t;

typedef struct positional_task {
  positional_t kind;
  ref_view_t out, in;
  int64_t diagonal;
} positional_task_t;

/* Rows [first, last) of contiguous tensors: tril/triu of one dtype copy the
 * kept run of each row and zero the rest; one_hot zeroes each row and sets
 * its class. */
static void rows_contiguous(const positional_task_t *t, int64_t first,
                            int64_t last) {
  int nd = t->out.ndim;
  int64_t cols = t->out.shape[nd - 1];
  size_t elem = ref_dtype_size(t->out.dtype);
  for (int64_t r = first; r < last; r++) {
    char *out = t->out.data + r * cols * (int64_t)elem;
    if (t->kind == ONE_HOT) {
      memset(out, 0, (size_t)cols * elem);
      int64_t c = ref_get_int(&t->in, r);
      if (c >= 0 && c < cols)
        ref_store_int(out + c * (int64_t)elem, t->out.dtype, 1);
      continue;
    }
    const char *in = t->in.data + r * cols * (int64_t)elem;
    int64_t i = r % t->out.shape[nd - 2];
    /* tril keeps j <= i + diagonal; triu keeps j >= i + diagonal */
    int64_t edge = i + t->diagonal, lo = 0, hi = cols;
    if (t->kind == TRIL)
      hi = edge + 1 < 0 ? 0 : edge + 1 > cols ? cols : edge + 1;
    else
      lo = edge < 0 ? 0 : edge > cols ? cols : edge;
    memset(out, 0, (size_t)lo * elem);
    if (in != out)
      memcpy(out + lo * (int64_t)elem, in + lo * (int64_t)elem,
             (size_t)(hi - lo) * elem);
    memset(out + hi * (int64_t)elem, 0, (size_t)(cols - hi) * elem);
  }
}

static bool contiguous_rows(const positional_task_t *t) {
  if (!ref_contiguous(&t->out))
    return false;
  if (t->kind == ONE_HOT)
    return ref_is_integral(t->out.dtype) && ref_is_integral(t->in.dtype);
  return ref_contiguous(&t->in) && t->in.dtype == t->out.dtype;
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const positional_task_t *t = context;
  int nd = t->out.ndim;
  int64_t row = t->out.shape[nd - 1];
  if (row > 0 && begin % row == 0 && (end % row == 0 || end == t->out.numel) &&
      contiguous_rows(t)) {
    rows_contiguous(t, begin / row, (end + row - 1) / row);
    return;
  }
  int64_t cols = t->out.shape[nd - 1];
  for (int64_t o = begin; o < end; o++) {
    int64_t j = o % cols;
    double v;
    if (t->kind == ONE_HOT) {
      v = ref_get(&t->in, o / cols) == (double)j;
    } else {
      int64_t i = o / cols % t->out.shape[nd - 2];
      bool keep = t->kind == TRIL ? j - i <= t->diagonal : j - i >= t->diagonal;
      v = keep ? ref_get(&t->in, o) : 0.0;
    }
    ref_set(&t->out, o, v);
  }
}

/* Whole rows to each chunk, so that rows_contiguous can take them. */
static void run_rows(void *context, int64_t begin, int64_t end) {
  const positional_task_t *t = context;
  int64_t row = t->out.shape[t->out.ndim - 1];
  run_range(context, begin * row, end * row);
}

static void run(void *args) {
  positional_task_t *t = args;
  int64_t row = t->out.shape[t->out.ndim - 1];
  if (row == 0)
    return;
  ref_parallel_for(t->out.numel / row, (1 << 15) / row + 1, run_rows, t);
}

static diopiError_t triangle(CTX, const char *op, positional_t kind, CT out,
                             CT input, int64_t diagonal) {
  positional_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = kind;
  t.diagonal = diagonal;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.in);
  if (!err && t.in.ndim < 2)
    err = ref_fail(op, "input: expected at least 2 dims, got %d", t.in.ndim);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, t.in.shape, t.in.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.in);
  if (err || t.out.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiTril(CTX, T out, CT input, int64_t diagonal) {
  return triangle(ctx, "diopiTril", TRIL, out, input, diagonal);
}
REF_EXPORT diopiError_t diopiTriu(CTX, T out, CT input, int64_t diagonal) {
  return triangle(ctx, "diopiTriu", TRIU, out, input, diagonal);
}
REF_EXPORT diopiError_t diopiTriuInp(CTX, T input, int64_t diagonal) {
  return triangle(ctx, "diopiTriuInp", TRIU, input, input, diagonal);
}

/* num_classes -1: out's last dim gives the count. An index outside
 * [0, classes) (device data, not read on the caller's thread) matches no
 * class: its row is all zeros. */
REF_EXPORT diopiError_t diopiOneHot(CTX, T out, CT input, int64_t num_classes) {
  const char *op = "diopiOneHot";
  positional_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = ONE_HOT;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.in);
  if (!err && ref_is_floating(t.in.dtype))
    err = ref_fail(op, "input: expected an integer dtype, got dtype %d",
                   (int)t.in.dtype);
  if (!err && t.in.ndim + 1 > REF_MAX_DIMS)
    err =
        ref_fail(op, "input: %d dims, at most %d", t.in.ndim, REF_MAX_DIMS - 1);
  if (!err && num_classes < -1)
    err = ref_fail(op, "num_classes: expected -1 or >= 0, got %lld",
                   (long long)num_classes);
  if (err)
    return err;
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, t.in.shape, sizeof(int64_t) * (size_t)t.in.ndim);
  shape[t.in.ndim] = num_classes >= 0
                         ? num_classes
                         : (t.out.ndim ? t.out.shape[t.out.ndim - 1] : 0);
  err = ref_expect_shape(op, "out", &t.out, shape, t.in.ndim + 1);
  if (err || t.out.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
