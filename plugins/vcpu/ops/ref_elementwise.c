/* The elementwise engine's task. */
#include "ref_elementwise.h"

#include <string.h>

#include "ref_enqueue.h"
#include "ref_pool.h"
#include "ref_promote.h"
#include "ref_stream.h"

enum { GRAIN = 1 << 15, BLOCK = 512 };

/* The rows of a run: dims merged where every tensor allows it, so that the
 * innermost dim is as long as possible; then each row of a chunk is taken in
 * blocks of BLOCK elements, each tensor read or written in place when it is
 * unit-stride in the compute dtype, else through a buffer. */
typedef struct row_cursor {
  int64_t idx[REF_MAX_DIMS];
  int64_t off[REF_EW_MAX_IN + 1]; /* out, then the inputs; in elements */
} row_cursor_t;

static const ref_view_t *tensor(const ref_ew_t *ew, int k) {
  return k == 0 ? &ew->out : &ew->in[k - 1];
}

/* Sets the cursor to linear index i of out's shape. */
static void cursor_seek(const ref_ew_t *ew, row_cursor_t *c, int64_t i) {
  const ref_view_t *out = &ew->out;
  for (int d = out->ndim; d-- > 0;) {
    c->idx[d] = i % out->shape[d];
    i /= out->shape[d];
  }
  for (int k = 0; k <= ew->nin; k++) {
    const ref_view_t *v = tensor(ew, k);
    c->off[k] = 0;
    for (int d = 0; d < out->ndim; d++)
      c->off[k] += c->idx[d] * v->strides[d];
  }
}

/* Moves the cursor from a position in a row to the start of the next row:
 * the outer indices counted on with carries, no divisions. */
static void cursor_next_row(const ref_ew_t *ew, row_cursor_t *c) {
  const ref_view_t *out = &ew->out;
  int inner = out->ndim - 1;
  for (int k = 0; k <= ew->nin; k++)
    c->off[k] -= c->idx[inner] * tensor(ew, k)->strides[inner];
  c->idx[inner] = 0;
  for (int d = inner - 1; d >= 0; d--) {
    for (int k = 0; k <= ew->nin; k++)
      c->off[k] += tensor(ew, k)->strides[d];
    if (++c->idx[d] < out->shape[d])
      return;
    for (int k = 0; k <= ew->nin; k++)
      c->off[k] -= out->shape[d] * tensor(ew, k)->strides[d];
    c->idx[d] = 0;
  }
}

/* Block loads and stores, the dtype switch outside the loop. */
static void load_f32(const ref_view_t *v, int64_t off, int64_t stride,
                     int64_t n, float *buf) {
  const char *p = v->data;
  switch (v->dtype) {
  case diopi_dtype_float32: {
    const float *x = (const float *)p + off;
    if (stride == 0) { /* broadcast: one value (the loop vectorizes) */
      float v = *x;
      for (int64_t j = 0; j < n; j++)
        buf[j] = v;
    } else if (stride == -1) { /* flipped */
      for (int64_t j = 0; j < n; j++)
        buf[j] = x[-j];
    } else {
      for (int64_t j = 0; j < n; j++)
        buf[j] = x[j * stride];
    }
    return;
  }
  case diopi_dtype_bool:
  case diopi_dtype_uint8:
    for (int64_t j = 0; j < n; j++)
      buf[j] = (float)((const uint8_t *)p)[off + j * stride];
    return;
  case diopi_dtype_int8:
    for (int64_t j = 0; j < n; j++)
      buf[j] = (float)((const int8_t *)p)[off + j * stride];
    return;
  default: /* int16: exact in float */
    for (int64_t j = 0; j < n; j++)
      buf[j] = (float)((const int16_t *)p)[off + j * stride];
  }
}

static void store_f32(const ref_view_t *v, int64_t off, int64_t stride,
                      int64_t n, const float *buf) {
  if (v->dtype == diopi_dtype_float32)
    for (int64_t j = 0; j < n; j++)
      ((float *)v->data)[off + j * stride] = buf[j];
  else /* bool */
    for (int64_t j = 0; j < n; j++)
      ((bool *)v->data)[off + j * stride] = buf[j] != 0;
}

static void load_double(const ref_view_t *v, int64_t off, int64_t stride,
                        int64_t n, double *buf) {
  switch (v->dtype) {
  case diopi_dtype_float32:
    for (int64_t j = 0; j < n; j++)
      buf[j] = ((const float *)v->data)[off + j * stride];
    return;
  case diopi_dtype_float64:
    for (int64_t j = 0; j < n; j++)
      buf[j] = ((const double *)v->data)[off + j * stride];
    return;
  default: {
    size_t elem = ref_dtype_size(v->dtype);
    for (int64_t j = 0; j < n; j++)
      buf[j] = ref_load(v->data + (off + j * stride) * (int64_t)elem, v->dtype);
  }
  }
}

static void store_double(const ref_view_t *v, int64_t off, int64_t stride,
                         int64_t n, const double *buf) {
  switch (v->dtype) {
  case diopi_dtype_float32:
    for (int64_t j = 0; j < n; j++)
      ((float *)v->data)[off + j * stride] = (float)buf[j];
    return;
  case diopi_dtype_float64:
    for (int64_t j = 0; j < n; j++)
      ((double *)v->data)[off + j * stride] = buf[j];
    return;
  default: {
    size_t elem = ref_dtype_size(v->dtype);
    for (int64_t j = 0; j < n; j++)
      ref_store(v->data + (off + j * stride) * (int64_t)elem, v->dtype, buf[j]);
  }
  }
}

static void load_int(const ref_view_t *v, int64_t off, int64_t stride,
                     int64_t n, int64_t *buf) {
  size_t elem = ref_dtype_size(v->dtype);
  switch (v->dtype) {
  case diopi_dtype_int64:
    for (int64_t j = 0; j < n; j++)
      buf[j] = ((const int64_t *)v->data)[off + j * stride];
    return;
  case diopi_dtype_int32:
    for (int64_t j = 0; j < n; j++)
      buf[j] = ((const int32_t *)v->data)[off + j * stride];
    return;
  case diopi_dtype_bool:
  case diopi_dtype_uint8:
    for (int64_t j = 0; j < n; j++)
      buf[j] = ((const uint8_t *)v->data)[off + j * stride];
    return;
  default:
    for (int64_t j = 0; j < n; j++)
      buf[j] =
          ref_load_int(v->data + (off + j * stride) * (int64_t)elem, v->dtype);
  }
}

static void store_int(const ref_view_t *v, int64_t off, int64_t stride,
                      int64_t n, const int64_t *buf) {
  size_t elem = ref_dtype_size(v->dtype);
  switch (v->dtype) {
  case diopi_dtype_int64:
    for (int64_t j = 0; j < n; j++)
      ((int64_t *)v->data)[off + j * stride] = buf[j];
    return;
  case diopi_dtype_int32:
    for (int64_t j = 0; j < n; j++)
      ((int32_t *)v->data)[off + j * stride] = (int32_t)buf[j];
    return;
  default:
    for (int64_t j = 0; j < n; j++)
      ref_store_int(v->data + (off + j * stride) * (int64_t)elem, v->dtype,
                    buf[j]);
  }
}

typedef enum mode {
  MODE_BITS,
  MODE_F32,
  MODE_F32_SPLAT, /* MODE_F32 through the op's splat loop, rows in place */
  MODE_DOUBLE,
  MODE_INT
} mode_t_;

/* The float mode's buffers, kept across the blocks of a range: an input
 * broadcast along the innermost dim (stride 0) fills its buffer with one
 * value, which the next blocks reuse while they read the same element
 * (repeated_off, -1: none; the first repeated_n floats hold it). */
typedef struct f32_blocks {
  float buf[REF_EW_MAX_IN + 1][BLOCK]; /* out, then the inputs */
  int64_t repeated_off[REF_EW_MAX_IN], repeated_n[REF_EW_MAX_IN];
} f32_blocks_t;

/* n elements from the cursor's offsets along the innermost dim. */
static void run_block(const ref_ew_t *ew, mode_t_ mode, const int64_t *off,
                      int64_t n, f32_blocks_t *f32) {
  int inner = ew->out.ndim - 1;
  int64_t out_stride = ew->out.strides[inner];
  if (mode == MODE_BITS) { /* every tensor unit-stride, out's dtype */
    int64_t elem = (int64_t)ref_dtype_size(ew->out.dtype);
    const void *in[REF_EW_MAX_IN];
    for (int k = 0; k < ew->nin; k++)
      in[k] = ew->in[k].data + off[k + 1] * elem;
    ew->bits(ew->out.data + off[0] * elem, in, n, ew->out.dtype, ew->params);
  } else if (mode == MODE_F32_SPLAT) { /* the last input's stride is 0 */
    const float *in[REF_EW_MAX_IN];
    for (int k = 0; k < ew->nin; k++)
      in[k] = (const float *)ew->in[k].data + off[k + 1];
    ew->f32_splat((float *)ew->out.data + off[0], in, n, ew->params);
  } else if (mode == MODE_F32) {
    const float *in[REF_EW_MAX_IN];
    for (int k = 0; k < ew->nin; k++) {
      const ref_view_t *v = &ew->in[k];
      int64_t stride = v->strides[inner];
      if (v->dtype == diopi_dtype_float32 && stride == 1)
        in[k] = (const float *)v->data + off[k + 1];
      else if (stride == 0 && f32->repeated_off[k] == off[k + 1] &&
               f32->repeated_n[k] >= n)
        in[k] = f32->buf[k + 1]; /* the value is there already */
      else {
        load_f32(v, off[k + 1], stride, n, f32->buf[k + 1]);
        f32->repeated_off[k] = stride == 0 ? off[k + 1] : -1;
        f32->repeated_n[k] = n;
        in[k] = f32->buf[k + 1];
      }
    }
    bool direct = ew->out.dtype == diopi_dtype_float32 && out_stride == 1;
    float *out = direct ? (float *)ew->out.data + off[0] : f32->buf[0];
    ew->f32(out, in, n, ew->params);
    if (!direct)
      store_f32(&ew->out, off[0], out_stride, n, out);
  } else if (mode == MODE_DOUBLE) {
    double buf[REF_EW_MAX_IN + 1][BLOCK], values[REF_EW_MAX_IN];
    for (int k = 0; k < ew->nin; k++) {
      load_double(&ew->in[k], off[k + 1], ew->in[k].strides[inner], n,
                  buf[k + 1]);
      if (ew->round_inputs && ew->in[k].dtype != ew->compute)
        for (int64_t j = 0; j < n; j++)
          buf[k + 1][j] = ref_round_to(ew->compute, buf[k + 1][j]);
    }
    for (int64_t j = 0; j < n; j++) {
      for (int k = 0; k < ew->nin; k++)
        values[k] = buf[k + 1][j];
      buf[0][j] = ew->fn(values, ew->params);
    }
    store_double(&ew->out, off[0], out_stride, n, buf[0]);
  } else {
    int64_t buf[REF_EW_MAX_IN + 1][BLOCK], values[REF_EW_MAX_IN];
    for (int k = 0; k < ew->nin; k++) {
      load_int(&ew->in[k], off[k + 1], ew->in[k].strides[inner], n, buf[k + 1]);
      if (ew->wrap_inputs && ew->in[k].dtype != ew->compute)
        for (int64_t j = 0; j < n; j++)
          buf[k + 1][j] = ref_int_as(ew->compute, buf[k + 1][j]);
    }
    for (int64_t j = 0; j < n; j++) {
      for (int k = 0; k < ew->nin; k++)
        values[k] = buf[k + 1][j];
      buf[0][j] = ew->int_fn(values, ew->int_params);
    }
    store_int(&ew->out, off[0], out_stride, n, buf[0]);
  }
}

static bool integral(const ref_ew_t *ew) {
  if (!ew->int_fn || !ref_is_integral(ew->out.dtype))
    return false;
  for (int k = 0; k < ew->nin; k++)
    if (!ref_is_integral(ew->in[k].dtype))
      return false;
  return true;
}

/* The float loop computes exactly what the double one would once rounded:
 * every input converts exactly to float and out is float32 or bool. */
static bool float_path(const ref_ew_t *ew) {
  if (!ew->f32 || (ew->out.dtype != diopi_dtype_float32 &&
                   ew->out.dtype != diopi_dtype_bool))
    return false;
  for (int k = 0; k < ew->nin; k++) {
    diopiDtype_t d = ew->in[k].dtype;
    if (d != diopi_dtype_float32 && d != diopi_dtype_bool &&
        d != diopi_dtype_uint8 && d != diopi_dtype_int8 &&
        d != diopi_dtype_int16)
      return false;
  }
  return true;
}

/* The op has a bits loop, and every tensor out's integral dtype and unit
 * stride along the innermost dim. */
static bool bits_path(const ref_ew_t *ew) {
  if (!ew->bits || !ref_is_integral(ew->out.dtype))
    return false;
  int inner = ew->out.ndim - 1;
  for (int k = 0; k <= ew->nin; k++) {
    const ref_view_t *v = tensor(ew, k);
    if (v->dtype != ew->out.dtype || v->strides[inner] != 1)
      return false;
  }
  return true;
}

/* The op has a splat loop, every tensor is float32, the last input is
 * broadcast along the innermost dim and the others are unit-stride there. */
static bool splat_path(const ref_ew_t *ew) {
  if (!ew->f32_splat || ew->nin == 0)
    return false;
  int inner = ew->out.ndim - 1;
  for (int k = 0; k <= ew->nin; k++) {
    const ref_view_t *v = tensor(ew, k);
    if (v->dtype != diopi_dtype_float32 ||
        v->strides[inner] != (k == ew->nin ? 0 : 1))
      return false;
  }
  return true;
}

/* A bool out of inputs that float holds exactly takes the float loop before
 * the integer one (both exact). */
static mode_t_ choose_mode(const ref_ew_t *ew) {
  return bits_path(ew)    ? MODE_BITS
         : splat_path(ew) ? MODE_F32_SPLAT
         : float_path(ew) ? MODE_F32
         : integral(ew)   ? MODE_INT
                          : MODE_DOUBLE;
}

/* Whether every tensor is float32 and unit-stride along the innermost dim
 * (whole rows go to the float loop, no buffers). */
static bool all_direct(const ref_ew_t *ew) {
  int inner = ew->out.ndim - 1;
  for (int k = 0; k <= ew->nin; k++) {
    const ref_view_t *v = tensor(ew, k);
    if (v->dtype != diopi_dtype_float32 || v->strides[inner] != 1)
      return false;
  }
  return true;
}

/* A run of the engine: the op, and the loop through which its rows stream
 * their stores (ref_stream.h), or NULL. */
typedef struct ew_run {
  const ref_ew_t *ew;
  ref_ew_f32_fn_t stream;
} ew_run_t;

static void run_range(void *context, int64_t begin, int64_t end) {
  const ew_run_t *run = context;
  const ref_ew_t *ew = run->ew;
  mode_t_ mode = choose_mode(ew);
  bool direct = mode == MODE_BITS || mode == MODE_F32_SPLAT ||
                (mode == MODE_F32 && all_direct(ew));
  int inner = ew->out.ndim - 1;
  int64_t row = ew->out.shape[inner];
  row_cursor_t c;
  f32_blocks_t f32;
  for (int k = 0; k < REF_EW_MAX_IN; k++)
    f32.repeated_off[k] = -1;
  cursor_seek(ew, &c, begin);
  for (int64_t i = begin; i < end; cursor_next_row(ew, &c)) {
    int64_t len = row - c.idx[inner];
    len = len < end - i ? len : end - i;
    if (run->stream) { /* every tensor unit-stride float32 */
      const float *in[REF_EW_MAX_IN];
      for (int k = 0; k < ew->nin; k++)
        in[k] = (const float *)ew->in[k].data + c.off[k + 1];
      run->stream((float *)ew->out.data + c.off[0], in, len, ew->params);
      i += len;
      continue;
    }
    for (int64_t s = 0; s < len;) {
      int64_t n = direct ? len : (len - s < BLOCK ? len - s : BLOCK);
      int64_t off[REF_EW_MAX_IN + 1];
      for (int k = 0; k <= ew->nin; k++)
        off[k] = c.off[k] + s * tensor(ew, k)->strides[inner];
      run_block(ew, mode, off, n, &f32);
      s += n;
    }
    i += len;
  }
  if (run->stream)
    ref_stream_fence();
}

/* Merges dims d and d + 1 wherever every tensor walks them as one, and drops
 * size-1 dims; the linear order of elements is unchanged. */
static void coalesce(ref_ew_t *ew) {
  ref_view_t *out = &ew->out;
  int nd = 0;
  for (int d = 0; d < out->ndim; d++) {
    if (out->shape[d] == 1)
      continue;
    bool merge = nd > 0;
    for (int k = 0; merge && k <= ew->nin; k++) {
      const ref_view_t *v = tensor(ew, k);
      merge = v->strides[nd - 1] == v->strides[d] * out->shape[d];
    }
    for (int k = 0; k <= ew->nin; k++) {
      ref_view_t *v = k == 0 ? out : &ew->in[k - 1];
      if (merge)
        v->strides[nd - 1] = v->strides[d];
      else
        v->strides[nd] = v->strides[d];
    }
    if (merge)
      out->shape[nd - 1] *= out->shape[d];
    else
      out->shape[nd++] = out->shape[d];
  }
  if (nd == 0) { /* one element */
    out->shape[0] = 1;
    for (int k = 0; k <= ew->nin; k++)
      (k == 0 ? out : &ew->in[k - 1])->strides[0] = 0;
    nd = 1;
  }
  out->ndim = nd;
  for (int k = 0; k < ew->nin; k++) {
    ew->in[k].ndim = nd;
    memcpy(ew->in[k].shape, out->shape, sizeof out->shape);
  }
}

static void stream_copy(float *out, const float *const *in, int64_t n,
                        const double *params) {
  (void)params;
  ref_stream_store(out, in[0], n);
}

/* The loop through which the run streams its stores, or NULL: a float32
 * copy, or an op with an f32_stream loop, over unit-stride rows of inputs
 * as large as the output (none broadcast), whose output is at least
 * ref_stream_min_bytes(). Ops without one compute: through a cache-resident
 * block streamed out they went slower than with ordinary stores (measured
 * on AMD EPYC, docs/performance.md); the binary loops and sigmoid's store
 * as they compute. */
static ref_ew_f32_fn_t stream_loop(const ref_ew_t *ew) {
  ref_ew_f32_fn_t loop = ew->f32 == ref_copy_f32 ? stream_copy : ew->f32_stream;
  if (!loop || choose_mode(ew) != MODE_F32 || !all_direct(ew) ||
      (size_t)ew->out.numel * sizeof(float) < ref_stream_min_bytes())
    return NULL;
  for (int k = 0; k < ew->nin; k++)
    for (int d = 0; d < ew->out.ndim; d++)
      if (ew->out.shape[d] > 1 && ew->in[k].strides[d] == 0)
        return NULL; /* broadcast */
  return loop;
}

static void run(void *args) {
  ref_ew_t *ew = args;
  coalesce(ew);
  ew_run_t r = {.ew = ew, .stream = stream_loop(ew)};
  ref_parallel_for(ew->out.numel, GRAIN, run_range, &r);
}

diopiError_t ref_ew_launch(diopiContextHandle_t ctx, const char *op,
                           ref_ew_t *ew, diopiConstTensorHandle_t out,
                           const diopiConstTensorHandle_t *in,
                           const char *const *in_names) {
  diopiError_t err = ref_view(ctx, op, "out", out, &ew->out);
  for (int k = 0; !err && k < ew->nin; k++)
    err = ref_view(ctx, op, in_names[k], in[k], &ew->in[k]);
  if (err)
    return err;
  /* Inputs of other dtypes convert to the op's result type first, as
   * PyTorch's do (a float64 0-dim operand of a float16 op rounds to
   * float16); decided on the shapes as given, before the broadcast. */
  ew->compute = ref_result_type(ew->in, ew->nin);
  for (int k = 0; k < ew->nin; k++) {
    bool converts = ew->in[k].dtype != ew->compute;
    ew->round_inputs =
        ew->round_inputs || (converts && ref_is_narrow_floating(ew->compute));
    ew->wrap_inputs =
        ew->wrap_inputs || (converts && ref_is_integral(ew->compute) &&
                            ew->compute != diopi_dtype_bool);
  }
  for (int k = 0; !err && k < ew->nin; k++) {
    err = ref_expect_no_partial_overlap(op, in_names[k], &ew->out, &ew->in[k]);
    if (!err)
      err = ref_broadcast_to(op, in_names[k], &ew->in[k], ew->out.shape,
                             ew->out.ndim);
  }
  if (err)
    return err;
  return ref_ew_enqueue(ctx, op, ew);
}

diopiError_t ref_ew_fill(diopiContextHandle_t ctx, const char *op,
                         const ref_view_t *out, double value) {
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.out = *out;
  ew.fn = ref_fill_fn;
  ew.params[0] = value;
  return ref_ew_enqueue(ctx, op, &ew);
}

diopiError_t ref_ew_enqueue(diopiContextHandle_t ctx, const char *op,
                            const ref_ew_t *ew) {
  if (ew->out.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, ew, sizeof *ew);
}
