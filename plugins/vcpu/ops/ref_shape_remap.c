/* flip, roll, repeat and pad (constant, reflect, replicate, circular):
 * copies whose every output index reads one input index per dim (the remap
 * engine), so any strides and dtypes. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_remap.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* Views out and input into r, every dim an identity map. */
static diopiError_t begin(diopiContextHandle_t ctx, const char *op,
                          ref_remap_t *r, CT out, CT input) {
  memset(r, 0, sizeof *r);
  diopiError_t err = ref_view(ctx, op, "out", out, &r->out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &r->in);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &r->out, &r->in);
  if (!err && r->out.data == r->in.data && r->out.numel && r->in.numel)
    err =
        ref_fail(op, "input: is the output's memory; remaps are not in place");
  return err;
}

REF_EXPORT diopiError_t diopiFlip(CTX, T out, CT input, diopiSize_t dims) {
  const char *op = "diopiFlip";
  ref_remap_t r;
  diopiError_t err = begin(ctx, op, &r, out, input);
  if (!err)
    err = ref_expect_shape(op, "out", &r.out, r.in.shape, r.in.ndim);
  for (int64_t k = 0; !err && k < dims.len; k++) {
    int d;
    err = ref_dim(op, "dims", dims.data[k], r.in.ndim, &d);
    if (!err && r.maps[d] == REF_AXIS_FLIP)
      err = ref_fail(op, "dims: dim %d appears twice", d);
    if (!err && r.in.ndim)
      r.maps[d] = REF_AXIS_FLIP;
  }
  return err ? err : ref_remap_enqueue(ctx, op, &r);
}

/* No dims: the flattened tensor rolls by shifts[0]. */
REF_EXPORT diopiError_t diopiRoll(CTX, T out, CT input, diopiSize_t shifts,
                                  diopiSize_t dims) {
  const char *op = "diopiRoll";
  ref_remap_t r;
  diopiError_t err = begin(ctx, op, &r, out, input);
  if (!err)
    err = ref_expect_shape(op, "out", &r.out, r.in.shape, r.in.ndim);
  if (!err && dims.len == 0 && shifts.len != 1)
    err = ref_fail(op, "shifts: expected 1 shift without dims, got %lld",
                   (long long)shifts.len);
  if (!err && dims.len && shifts.len != dims.len)
    err = ref_fail(op, "shifts: expected %lld shifts (one per dim), got %lld",
                   (long long)dims.len, (long long)shifts.len);
  if (err)
    return err;
  if (dims.len == 0) {
    r.flat = true;
    r.flat_shift = shifts.data[0];
  }
  for (int d = 0; d < r.in.ndim; d++)
    r.maps[d] = REF_AXIS_ROLL;
  for (int64_t k = 0; !err && k < dims.len; k++) {
    int d;
    err = ref_dim(op, "dims", dims.data[k], r.in.ndim, &d);
    if (!err)
      r.amounts[d] += shifts.data[k];
  }
  return err ? err : ref_remap_enqueue(ctx, op, &r);
}

/* repeats may have more entries than input has dims: input gains leading
 * size-1 dims. */
REF_EXPORT diopiError_t diopiRepeat(CTX, T out, CT input,
                                    diopiSize_t repeats_size) {
  const char *op = "diopiRepeat";
  ref_remap_t r;
  diopiError_t err = begin(ctx, op, &r, out, input);
  if (!err && (repeats_size.len < r.in.ndim || repeats_size.len > REF_MAX_DIMS))
    err = ref_fail(op, "repeats_size: expected %d to %d entries, got %lld",
                   r.in.ndim, REF_MAX_DIMS, (long long)repeats_size.len);
  if (err)
    return err;
  int n = (int)repeats_size.len, lead = n - r.in.ndim;
  int64_t shape[REF_MAX_DIMS];
  ref_view_t in = r.in;
  in.ndim = n;
  for (int d = 0; d < n; d++) {
    int64_t rep = repeats_size.data[d];
    if (rep < 0)
      return ref_fail(op, "repeats_size: entry %d is negative (%lld)", d,
                      (long long)rep);
    in.shape[d] = d < lead ? 1 : r.in.shape[d - lead];
    in.strides[d] = d < lead ? 0 : r.in.strides[d - lead];
    shape[d] = in.shape[d] * rep;
    r.maps[d] = REF_AXIS_ROLL; /* roll by 0: i mod n */
  }
  r.in = in;
  err = ref_expect_shape(op, "out", &r.out, shape, n);
  return err ? err : ref_remap_enqueue(ctx, op, &r);
}

/* Narrows dim d of v to [from, from + len). */
static void narrow_view(ref_view_t *v, int d, int64_t from, int64_t len) {
  v->data += from * v->strides[d] * (int64_t)ref_dtype_size(v->dtype);
  v->numel = v->shape[d] ? v->numel / v->shape[d] * len : 0;
  v->shape[d] = len;
}

/* Whether (before, after) fits `map` on a dim of size n, as PyTorch takes
 * it: a negative pad crops in every mode; reflect needs pads below n,
 * replicate a nonempty dim, circular pads at most the cropped size (it
 * wraps within what the crop leaves). */
static bool pad_fits(ref_axis_map_t map, int64_t before, int64_t after,
                     int64_t n) {
  if (n + before + after < 0)
    return false;
  switch (map) {
  case REF_AXIS_REFLECT:
    return before < n && after < n;
  case REF_AXIS_CLAMP:
    return n > 0;
  case REF_AXIS_ROLL: {
    int64_t kept = n + (before < 0 ? before : 0) + (after < 0 ? after : 0);
    return kept >= 0 && before <= kept && after <= kept;
  }
  default:
    return true;
  }
}

/* pad: pairs (before, after) from the last dim backwards; a negative pad
 * crops, in every mode. Reflect and replicate index the whole dim (a crop
 * shifts the map); circular crops first and wraps within what is left, as
 * PyTorch 1.13 does. */
REF_EXPORT diopiError_t diopiPad(CTX, T out, CT input, diopiSize_t pad,
                                 const char *mode, const double *value) {
  const char *op = "diopiPad";
  ref_remap_t r;
  diopiError_t err = begin(ctx, op, &r, out, input);
  if (err)
    return err;
  ref_axis_map_t map;
  if (!mode || !strcmp(mode, "constant"))
    map = REF_AXIS_SHIFT;
  else if (!strcmp(mode, "reflect"))
    map = REF_AXIS_REFLECT;
  else if (!strcmp(mode, "replicate"))
    map = REF_AXIS_CLAMP;
  else if (!strcmp(mode, "circular"))
    map = REF_AXIS_ROLL;
  else
    return ref_fail(op,
                    "mode: expected constant, reflect, replicate or "
                    "circular, got '%s'",
                    mode);
  if (pad.len % 2 || pad.len / 2 > r.in.ndim)
    return ref_fail(op, "pad: expected an even count of at most %d, got %lld",
                    2 * r.in.ndim, (long long)pad.len);
  r.fill = value ? *value : 0.0;
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, r.in.shape, sizeof shape);
  for (int64_t k = 0; k < pad.len / 2; k++) {
    int d = r.in.ndim - 1 - (int)k;
    int64_t before = pad.data[2 * k], after = pad.data[2 * k + 1];
    int64_t n = r.in.shape[d];
    if (!pad_fits(map, before, after, n))
      return ref_fail(op,
                      "pad: (%lld, %lld) does not fit mode '%s' on dim %d "
                      "of size %lld",
                      (long long)before, (long long)after,
                      mode ? mode : "constant", d, (long long)n);
    shape[d] = n + before + after;
    r.maps[d] = map;
    r.amounts[d] = before;
    if (map == REF_AXIS_ROLL && (before < 0 || after < 0)) {
      int64_t crop_before = before < 0 ? -before : 0;
      int64_t crop_after = after < 0 ? -after : 0;
      narrow_view(&r.in, d, crop_before, n - crop_before - crop_after);
      r.amounts[d] = before < 0 ? 0 : before;
    }
  }
  err = ref_expect_shape(op, "out", &r.out, shape, r.in.ndim);
  return err ? err : ref_remap_enqueue(ctx, op, &r);
}
