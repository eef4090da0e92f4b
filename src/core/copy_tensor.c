/* bp_copy_tensor: DLTensor to DLTensor, contiguous runs through bp_copy's
 * body (core/copy_internal.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "core/active.h"
#include "core/copy_internal.h"

#define MAX_DIMS 32

static const char *side_name(int is_to) {
  return is_to ? "to" : "from";
}

/* "[2, 3]" into `text`. */
static const char *shape_text(const DLTensor *t, char *text, size_t size) {
  size_t used = (size_t)snprintf(text, size, "[");
  for (int d = 0; d < t->ndim && used < size; ++d)
    used += (size_t)snprintf(text + used, size - used, "%s%" PRId64,
                             d ? ", " : "", t->shape[d]);
  if (used < size)
    snprintf(text + used, size - used, "]");
  return text;
}

static bp_status_t device_of(bp_runtime_t *runtime, const DLTensor *t,
                             int is_to, bp_device_t **out_device) {
  if (t->device.device_type == kDLCPU) {
    *out_device = NULL;
    return BP_OK;
  }
  if (t->device.device_type != kDLExtDev)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_copy_tensor: %s is on DLDevice type %d, neither "
                    "kDLCPU nor kDLExtDev (Backplane's devices)",
                    side_name(is_to), (int)t->device.device_type);
  bp_status_t status = bp_device_from_dl(runtime, t->device, out_device);
  if (status != BP_OK)
    return bp_error(status,
                    "bp_copy_tensor: %s is on {kDLExtDev, %d}: no such device "
                    "is loaded (the runtime has %zu)",
                    side_name(is_to), (int)t->device.device_id,
                    bp_device_count(runtime));
  return BP_OK;
}

static bp_status_t check_pair(const DLTensor *from, const DLTensor *to) {
  char a[160], b[160];
  if (from->ndim != to->ndim || from->ndim < 0 || from->ndim > MAX_DIMS ||
      (from->ndim > 0 && (!from->shape || !to->shape)))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_copy_tensor: from has %d dimensions, to has %d "
                    "(at most %d, with a shape)",
                    from->ndim, to->ndim, MAX_DIMS);
  for (int d = 0; d < from->ndim; ++d)
    if (from->shape[d] != to->shape[d] || from->shape[d] < 0)
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_copy_tensor: shapes differ: from %s, to %s",
                      shape_text(from, a, sizeof a),
                      shape_text(to, b, sizeof b));
  if (from->dtype.code != to->dtype.code ||
      from->dtype.bits != to->dtype.bits ||
      from->dtype.lanes != to->dtype.lanes)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_copy_tensor: dtypes differ: from (code %u, %u bits, "
                    "%u lanes), to (code %u, %u bits, %u lanes)",
                    from->dtype.code, from->dtype.bits, from->dtype.lanes,
                    to->dtype.code, to->dtype.bits, to->dtype.lanes);
  return BP_OK;
}

/* Strides in elements (compact row-major when the tensor has none). */
static bp_status_t strides_of(const DLTensor *t, int is_to, int64_t *out) {
  int64_t compact = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    out[d] = t->strides ? t->strides[d] : compact;
    compact *= t->shape[d];
    if (out[d] < 0)
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_copy_tensor: %s has stride %" PRId64
                      " in dimension %d: negative strides are not supported",
                      side_name(is_to), out[d], d);
    if (is_to && out[d] == 0 && t->shape[d] > 1)
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_copy_tensor: to has stride 0 in dimension %d of "
                      "size %" PRId64 ": its elements overlap",
                      d, t->shape[d]);
  }
  return BP_OK;
}

/* The copy, cut into runs: the innermost `inner` dimensions are contiguous
 * on both sides and make one run of `run` bytes; the others are walked. */
typedef struct tensor_copy {
  int ndim, inner;
  const int64_t *shape;
  int64_t from_strides[MAX_DIMS], to_strides[MAX_DIMS];
  size_t element, run, runs;
} tensor_copy_t;

/* How many innermost dimensions `strides` keeps compact; size-1
 * dimensions never break it. */
static int compact_inner(const tensor_copy_t *c, const int64_t *strides) {
  int64_t expected = 1;
  int d = c->ndim;
  while (d > 0 && (c->shape[d - 1] == 1 || strides[d - 1] == expected)) {
    expected *= c->shape[d - 1];
    --d;
  }
  return c->ndim - d;
}

static void plan(tensor_copy_t *c) {
  int from_inner = compact_inner(c, c->from_strides);
  int to_inner = compact_inner(c, c->to_strides);
  c->inner = from_inner < to_inner ? from_inner : to_inner;
  c->run = c->element;
  c->runs = 1;
  for (int d = 0; d < c->ndim; ++d) {
    if (d >= c->ndim - c->inner)
      c->run *= (size_t)c->shape[d];
    else
      c->runs *= (size_t)c->shape[d];
  }
}

/* Byte offsets of run `index` on each side. */
static void run_offsets(const tensor_copy_t *c, size_t index,
                        int64_t *from_offset, int64_t *to_offset) {
  int64_t f = 0, t = 0;
  for (int d = c->ndim - c->inner - 1; d >= 0; --d) {
    int64_t i = (int64_t)(index % (size_t)c->shape[d]);
    index /= (size_t)c->shape[d];
    f += i * c->from_strides[d];
    t += i * c->to_strides[d];
  }
  *from_offset = f * (int64_t)c->element;
  *to_offset = t * (int64_t)c->element;
}

static bp_status_t each_run(const tensor_copy_t *c, bp_device_t *to_device,
                            char *to, bp_device_t *from_device,
                            const char *from, bp_stream_t *stream) {
  for (size_t r = 0; r < c->runs; ++r) {
    int64_t f, t;
    run_offsets(c, r, &f, &t);
    bp_status_t status = bp_copy_internal(to_device, to + t, from_device,
                                          from + f, c->run, stream);
    if (status != BP_OK)
      return status;
  }
  return BP_OK;
}

/* Host side strided, device side compact: one copy through a packed host
 * buffer. */
static bp_status_t packed(const tensor_copy_t *c, bp_device_t *to_device,
                          char *to, bp_device_t *from_device, const char *from,
                          bp_stream_t *stream) {
  size_t bytes = c->run * c->runs;
  char *buffer = malloc(bytes);
  if (!buffer)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_copy_tensor: no host memory to pack %zu bytes", bytes);
  bp_status_t status;
  if (!from_device) { /* pack, then host->device */
    for (size_t r = 0; r < c->runs; ++r) {
      int64_t f, t;
      run_offsets(c, r, &f, &t);
      memcpy(buffer + r * c->run, from + f, c->run);
    }
    status = bp_copy_internal(to_device, to, NULL, buffer, bytes, stream);
  } else { /* device->host (into pageable memory: complete on return) */
    status = bp_copy_internal(NULL, buffer, from_device, from, bytes, stream);
    for (size_t r = 0; status == BP_OK && r < c->runs; ++r) {
      int64_t f, t;
      run_offsets(c, r, &f, &t);
      memcpy(to + t, buffer + r * c->run, c->run);
    }
  }
  free(buffer);
  return status;
}

static bool compact(const tensor_copy_t *c, const int64_t *strides) {
  return compact_inner(c, strides) == c->ndim;
}

BP_API bp_status_t bp_copy_tensor(bp_runtime_t *runtime, const DLTensor *from,
                                  DLTensor *to, bp_stream_t *stream) {
  if (!runtime || !from || !to)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_copy_tensor: runtime, from or to is NULL");
  bp_status_t status = check_pair(from, to);
  bp_device_t *from_device = NULL, *to_device = NULL;
  if (status == BP_OK)
    status = device_of(runtime, from, 0, &from_device);
  if (status == BP_OK)
    status = device_of(runtime, to, 1, &to_device);
  tensor_copy_t c = {.ndim = from->ndim, .shape = from->shape};
  if (status == BP_OK)
    status = strides_of(from, 0, c.from_strides);
  if (status == BP_OK)
    status = strides_of(to, 1, c.to_strides);
  if (status != BP_OK)
    return status;
  size_t count = 1;
  for (int d = 0; d < c.ndim; ++d)
    count *= (size_t)c.shape[d];
  if (count == 0)
    return BP_OK;
  if (!from->data || !to->data)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_copy_tensor: %s data is NULL (%zu elements)",
                    from->data ? "to" : "from", count);
  c.element = ((size_t)from->dtype.bits * from->dtype.lanes + 7) / 8;
  if ((status = bp_stream_resolve(to_device ? to_device : from_device,
                                  &stream)) != BP_OK)
    return status;
  plan(&c);
  const char *src = (const char *)from->data + from->byte_offset;
  char *dst = (char *)to->data + to->byte_offset;
  if (c.runs > 1 && (!from_device != !to_device) &&
      compact(&c, from_device ? c.from_strides : c.to_strides))
    return packed(&c, to_device, dst, from_device, src, stream);
  return each_run(&c, to_device, dst, from_device, src, stream);
}
