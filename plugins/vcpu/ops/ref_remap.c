/* The remapping copy's task. */
#include "ref_remap.h"

#include <string.h>

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

/* The flattened roll, element by element. */
static void run_flat(const ref_remap_t *r, int64_t begin, int64_t end) {
  for (int64_t o = begin; o < end; o++)
    ref_set(&r->out, o, ref_get(&r->in, wrap(o - r->flat_shift, r->in.numel)));
}

enum { COLUMNS = 2048 };

/* dst[j] = last[-j] for j < n, elements of `elem` bytes. */
static void copy_reversed(char *dst, const char *last, int64_t n, size_t elem) {
#define REVERSE(type)                                                          \
  {                                                                            \
    const type *first = (const type *)last - (n - 1);                          \
    type *d = (type *)dst + (n - 1);                                           \
    for (int64_t j = 0; j < n; j++)                                            \
      d[-j] = first[j];                                                        \
    return;                                                                    \
  }
  switch (elem) {
  case 1:
    REVERSE(uint8_t)
  case 2:
    REVERSE(uint16_t)
  case 4:
    REVERSE(uint32_t)
  default:
    REVERSE(uint64_t)
  }
#undef REVERSE
}

/* dst[j * ds] = src[map[j] * ss] for j < n, or the fill where map[j] < 0
 * (everywhere for a NULL map):
 * same dtypes copy their bytes, others convert through double. */
static void gather_row(const ref_remap_t *r, char *dst, int64_t ds,
                       const char *src, int64_t ss, const int64_t *map,
                       int64_t n) {
  if (r->in.dtype != r->out.dtype) {
    size_t in_elem = ref_dtype_size(r->in.dtype),
           out_elem = ref_dtype_size(r->out.dtype);
    for (int64_t j = 0; j < n; j++)
      ref_store(
          dst + j * ds * (int64_t)out_elem, r->out.dtype,
          !map || map[j] < 0
              ? r->fill
              : ref_load(src + map[j] * ss * (int64_t)in_elem, r->in.dtype));
    return;
  }
  char fill[8];
  ref_store(fill, r->out.dtype, r->fill);
#define GATHER(type)                                                           \
  {                                                                            \
    type f;                                                                    \
    memcpy(&f, fill, sizeof f);                                                \
    type *d = (type *)dst;                                                     \
    const type *s = (const type *)src;                                         \
    if (!map)                                                                  \
      for (int64_t j = 0; j < n; j++)                                          \
        d[j * ds] = f;                                                         \
    else                                                                       \
      for (int64_t j = 0; j < n; j++)                                          \
        d[j * ds] = map[j] < 0 ? f : s[map[j] * ss];                           \
    return;                                                                    \
  }
  /* Runs of consecutive sources (pad, roll, repeat, narrow): memcpy; runs
   * of descending ones (flip): a reversed copy. */
  if (map && ds == 1 && ss == 1) {
    size_t elem = ref_dtype_size(r->out.dtype);
    for (int64_t j = 0; j < n;) {
      int64_t k = j + 1;
      if (map[j] < 0) {
        while (k < n && map[k] < 0)
          k++;
        for (int64_t f = j; f < k; f++)
          memcpy(dst + f * (int64_t)elem, fill, elem);
      } else if (k < n && map[k] == map[j] - 1) {
        while (k < n && map[k] == map[k - 1] - 1)
          k++;
        copy_reversed(dst + j * (int64_t)elem, src + map[j] * (int64_t)elem,
                      k - j, elem);
      } else {
        while (k < n && map[k] == map[k - 1] + 1)
          k++;
        memcpy(dst + j * (int64_t)elem, src + map[j] * (int64_t)elem,
               (size_t)(k - j) * elem);
      }
      j = k;
    }
    return;
  }
  switch (ref_dtype_size(r->out.dtype)) {
  case 1:
    GATHER(uint8_t)
  case 2:
    GATHER(uint16_t)
  case 4:
    GATHER(uint32_t)
  default:
    GATHER(uint64_t)
  }
#undef GATHER
}

/* One outer dim's share of a row: source and out offsets at out index i;
 * outside: the source index is off in (the row is the fill). */
typedef struct dim_part {
  int64_t in, out;
  bool outside;
} dim_part_t;

static void set_dim(const ref_remap_t *r, int d, int64_t i, dim_part_t *part) {
  int64_t s = source(r->maps[d], r->amounts[d], i, r->in.shape[d]);
  part[d].outside = s < 0;
  part[d].in = s * r->in.strides[d];
  part[d].out = i * r->out.strides[d];
}

/* Row by row along out's last dim: the outer dims' offsets kept per dim and
 * updated as their indices advance (an odometer), the last dim's source
 * indices once per block of columns. */
static void run_range(void *context, int64_t begin, int64_t end) {
  const ref_remap_t *r = context;
  if (r->flat || r->out.ndim == 0) {
    run_flat(r, begin, end);
    return;
  }
  int inner = r->out.ndim - 1;
  int64_t row = r->out.shape[inner], in_row = r->in.shape[inner];
  size_t in_elem = ref_dtype_size(r->in.dtype),
         out_elem = ref_dtype_size(r->out.dtype);
  int64_t map[COLUMNS], mapped_from = -1, mapped_n = 0;
  int64_t idx[REF_MAX_DIMS];
  dim_part_t part[REF_MAX_DIMS];
  int64_t rest = begin / row;
  for (int d = inner; d-- > 0;) {
    idx[d] = rest % r->out.shape[d];
    rest /= r->out.shape[d];
    set_dim(r, d, idx[d], part);
  }
  for (int64_t o = begin; o < end;) {
    int64_t col = o % row, offset = 0, out_offset = 0;
    bool inside = true;
    for (int d = 0; d < inner; d++) {
      inside = inside && !part[d].outside;
      offset += part[d].in;
      out_offset += part[d].out;
    }
    int64_t n = row - col < end - o ? row - col : end - o;
    n = n < COLUMNS ? n : COLUMNS;
    if (inside && (mapped_from != col || mapped_n < n)) {
      for (int64_t j = 0; j < n; j++)
        map[j] = source(r->maps[inner], r->amounts[inner], col + j, in_row);
      mapped_from = col;
      mapped_n = n;
    }
    gather_row(r,
               r->out.data + (out_offset + col * r->out.strides[inner]) *
                                 (int64_t)out_elem,
               r->out.strides[inner], r->in.data + offset * (int64_t)in_elem,
               r->in.strides[inner], inside ? map : NULL, n);
    o += n;
    if (col + n == row) /* the next row: advance the outer dims */
      for (int d = inner; d-- > 0;) {
        idx[d] = idx[d] + 1 < r->out.shape[d] ? idx[d] + 1 : 0;
        set_dim(r, d, idx[d], part);
        if (idx[d] != 0)
          break;
      }
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
