/* The remapping copy's task. */
#include "ref_remap.h"

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"

static int64_t wrap(int64_t i, int64_t n) {
  int64_t m = i % n;
  return m < 0 ? m + n : m;
}

/* The source index along a dim of length n, or -1 for the fill. */
static int64_t source(ref_axis_map_t map, int64_t amount, int64_t i,
                      int64_t n) {
  switch (map) {
  case REF_AXIS_SHIFT:
    i -= amount;
    return i >= 0 && i < n ? i : -1;
  case REF_AXIS_FLIP:
    return n - 1 - i;
  case REF_AXIS_ROLL:
    return wrap(i - amount, n);
  case REF_AXIS_REFLECT:
    i -= amount;
    if (n == 1)
      return 0;
    i = wrap(i, 2 * (n - 1));
    return i < n ? i : 2 * (n - 1) - i;
  case REF_AXIS_CLAMP:
    i -= amount;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  }
  return -1;
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const ref_remap_t *r = context;
  size_t elem = ref_dtype_size(r->in.dtype);
  for (int64_t o = begin; o < end; o++) {
    double value = r->fill;
    if (r->flat) {
      value = ref_get(&r->in, wrap(o - r->flat_shift, r->in.numel));
    } else {
      int64_t rest = o, offset = 0;
      bool inside = true;
      for (int d = r->out.ndim; d-- > 0 && inside;) {
        int64_t i = rest % r->out.shape[d];
        rest /= r->out.shape[d];
        int64_t s = source(r->maps[d], r->amounts[d], i, r->in.shape[d]);
        inside = s >= 0;
        offset += s * r->in.strides[d];
      }
      if (inside)
        value = ref_load(r->in.data + offset * (int64_t)elem, r->in.dtype);
    }
    ref_set(&r->out, o, value);
  }
}

static void run(void *args) {
  ref_remap_t *r = args;
  ref_parallel_for(r->out.numel, 1 << 15, run_range, r);
}

diopiError_t ref_remap_enqueue(diopiContextHandle_t ctx, const char *op,
                               const ref_remap_t *r) {
  if (r->out.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, r, sizeof *r);
}
