/* The remapping copy's task. */
#include "ref_remap.h"

#include <string.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"

/* i mod n in [0, n); no division for i already there (every row of a roll
 * asks for its outer dims' indices). */
static int64_t wrap(int64_t i, int64_t n) {
  if (i >= 0 && i < n)
    return i;
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

/* A row's columns as runs: [at, at + n) are the fill, or source columns
 * from, from + 1, ... (COPY) or from, from - 1, ... (REVERSED). Planned once
 * per block of columns, replayed on every row that maps alike. */
typedef enum run_kind { RUN_FILL, RUN_COPY, RUN_REVERSED } run_kind_t;
typedef struct run {
  run_kind_t kind;
  int64_t at, n, from;
} run_t;

/* The runs of map[0, n) into runs (room for n); returns their count. */
static int64_t plan_runs(const int64_t *map, int64_t n, run_t *runs) {
  int64_t count = 0;
  for (int64_t j = 0; j < n;) {
    int64_t k = j + 1;
    run_kind_t kind = RUN_COPY;
    if (map[j] < 0) {
      kind = RUN_FILL;
      while (k < n && map[k] < 0)
        k++;
    } else if (k < n && map[k] == map[j] - 1) {
      kind = RUN_REVERSED;
      while (k < n && map[k] == map[k - 1] - 1)
        k++;
    } else {
      while (k < n && map[k] == map[k - 1] + 1)
        k++;
    }
    runs[count++] = (run_t){kind, j, k - j, map[j]};
    j = k;
  }
  return count;
}

/* dst[j] = fill for j < n, elements of `elem` bytes. */
static void fill_elements(char *dst, const char *fill, int64_t n, size_t elem) {
#define FILL(type)                                                             \
  {                                                                            \
    type f;                                                                    \
    memcpy(&f, fill, sizeof f);                                                \
    for (int64_t j = 0; j < n; j++)                                            \
      ((type *)dst)[j] = f;                                                    \
    return;                                                                    \
  }
  switch (elem) {
  case 1:
    FILL(uint8_t)
  case 2:
    FILL(uint16_t)
  case 4:
    FILL(uint32_t)
  default:
    FILL(uint64_t)
  }
#undef FILL
}

/* What every row of one range shares: element sizes, the fill's bytes in
 * out's dtype, whether bytes copy as they are. */
typedef struct row_kit {
  const ref_remap_t *r;
  size_t in_elem, out_elem;
  bool same_dtype;
  char fill[8];
} row_kit_t;

static row_kit_t kit_of(const ref_remap_t *r) {
  row_kit_t k = {.r = r,
                 .in_elem = ref_dtype_size(r->in.dtype),
                 .out_elem = ref_dtype_size(r->out.dtype),
                 .same_dtype = r->in.dtype == r->out.dtype};
  ref_store(k.fill, r->out.dtype, r->fill);
  return k;
}

/* [to, to + bytes) = [from, ...): short runs (a pad's or roll's edge)
 * without a call. */
static inline void copy_run(char *to, const char *from, size_t bytes) {
  if (bytes > 32) {
    memcpy(to, from, bytes);
    return;
  }
  for (size_t b = 0; b < bytes; b++)
    to[b] = from[b];
}

/* dst[j * ds] = src[map[j] * ss] for j < n, or the fill where map[j] < 0
 * (everywhere for a NULL map): same dtypes copy their bytes (unit strides:
 * through the row's runs), others convert through double. */
static void gather_row(const row_kit_t *k, char *dst, int64_t ds,
                       const char *src, int64_t ss, const int64_t *map,
                       const run_t *runs, int64_t nruns, int64_t n) {
  const ref_remap_t *r = k->r;
  if (!k->same_dtype) {
    for (int64_t j = 0; j < n; j++)
      ref_store(
          dst + j * ds * (int64_t)k->out_elem, r->out.dtype,
          !map || map[j] < 0
              ? r->fill
              : ref_load(src + map[j] * ss * (int64_t)k->in_elem, r->in.dtype));
    return;
  }
  size_t elem = k->out_elem;
  if (map && ds == 1 && ss == 1) {
    for (int64_t i = 0; i < nruns; i++) {
      const run_t *run = &runs[i];
      char *to = dst + run->at * (int64_t)elem;
      const char *from = src + run->from * (int64_t)elem;
      if (run->kind == RUN_FILL)
        fill_elements(to, k->fill, run->n, elem);
      else if (run->kind == RUN_COPY)
        copy_run(to, from, (size_t)run->n * elem);
      else
        copy_reversed(to, from, run->n, elem);
    }
    return;
  }
  if (!map && ds == 1) {
    fill_elements(dst, k->fill, n, elem);
    return;
  }
#define GATHER(type)                                                           \
  {                                                                            \
    type f;                                                                    \
    memcpy(&f, k->fill, sizeof f);                                             \
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
  switch (elem) {
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
  row_kit_t kit = kit_of(r);
  int inner = r->out.ndim - 1;
  int64_t row = r->out.shape[inner], in_row = r->in.shape[inner];
  int64_t map[COLUMNS], mapped_from = -1, mapped_n = 0, nruns = 0;
  run_t runs[COLUMNS];
  int64_t idx[REF_MAX_DIMS];
  dim_part_t part[REF_MAX_DIMS];
  int64_t rest = begin / row, col = begin % row;
  for (int d = inner; d-- > 0;) {
    idx[d] = rest % r->out.shape[d];
    rest /= r->out.shape[d];
    set_dim(r, d, idx[d], part);
  }
  for (int64_t o = begin; o < end;) {
    int64_t offset = 0, out_offset = 0;
    bool inside = true;
    for (int d = 0; d < inner; d++) {
      inside = inside && !part[d].outside;
      offset += part[d].in;
      out_offset += part[d].out;
    }
    int64_t n = row - col < end - o ? row - col : end - o;
    n = n < COLUMNS ? n : COLUMNS;
    if (inside && (mapped_from != col || mapped_n != n)) {
      for (int64_t j = 0; j < n; j++)
        map[j] = source(r->maps[inner], r->amounts[inner], col + j, in_row);
      nruns = plan_runs(map, n, runs);
      mapped_from = col;
      mapped_n = n;
    }
    gather_row(&kit,
               r->out.data + (out_offset + col * r->out.strides[inner]) *
                                 (int64_t)kit.out_elem,
               r->out.strides[inner],
               r->in.data + offset * (int64_t)kit.in_elem, r->in.strides[inner],
               inside ? map : NULL, runs, nruns, n);
    o += n;
    col += n;
    if (col == row) { /* the next row: advance the outer dims */
      col = 0;
      for (int d = inner; d-- > 0;) {
        idx[d] = idx[d] + 1 < r->out.shape[d] ? idx[d] + 1 : 0;
        set_dim(r, d, idx[d], part);
        if (idx[d] != 0)
          break;
      }
    }
  }
}

/* The length of the rows a roll moves as a whole range, 0 if it is not
 * such a roll: out and in contiguous of one dtype, rolled along the last
 * dim only (the other dims by whole turns), or flattened (one row). */
static int64_t rolled_row(const ref_remap_t *r) {
  if (r->in.dtype != r->out.dtype || !ref_contiguous(&r->in) ||
      !ref_contiguous(&r->out))
    return 0;
  if (r->flat)
    return r->in.numel;
  for (int d = 0; d < r->out.ndim; d++)
    if (r->maps[d] != REF_AXIS_ROLL || r->in.shape[d] != r->out.shape[d] ||
        (d + 1 < r->out.ndim && wrap(r->amounts[d], r->in.shape[d]) != 0))
      return 0;
  return r->out.ndim ? r->out.shape[r->out.ndim - 1] : 0;
}

/* Rows [begin, end) of such a roll by `shift` (in [0, row)): one copy of
 * the range moved by the shift, after which each row's first `shift`
 * elements (the previous row's tail) are put right: row-by-row copies of
 * each row's two runs (520-byte rows) ran at a third of one copy's speed. */
typedef struct rolled_rows {
  const ref_remap_t *r;
  int64_t row, shift;
} rolled_rows_t;

static void roll_rows(void *context, int64_t begin, int64_t end) {
  const rolled_rows_t *rr = context;
  int64_t elem = (int64_t)ref_dtype_size(rr->r->out.dtype);
  int64_t row_bytes = rr->row * elem, shift_bytes = rr->shift * elem;
  char *out = rr->r->out.data + begin * row_bytes;
  const char *in = rr->r->in.data + begin * row_bytes;
  memcpy(out + shift_bytes, in,
         (size_t)((end - begin) * row_bytes - shift_bytes));
  for (int64_t k = 0; k < end - begin; k++)
    memcpy(out + k * row_bytes, in + (k + 1) * row_bytes - shift_bytes,
           (size_t)shift_bytes);
}

static void run(void *args) {
  ref_remap_t *r = args;
  int64_t row = rolled_row(r);
  if (row > 0) {
    int64_t amount = r->flat ? r->flat_shift : r->amounts[r->out.ndim - 1];
    rolled_rows_t rr = {r, row, wrap(amount, row)};
    ref_parallel_for(r->out.numel / row, (1 << 15) / row + 1, roll_rows, &rr);
    return;
  }
  ref_parallel_for(r->out.numel, 1 << 15, run_range, r);
}

diopiError_t ref_remap_enqueue(diopiContextHandle_t ctx, const char *op,
                               const ref_remap_t *r) {
  if (r->out.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, r, sizeof *r);
}
