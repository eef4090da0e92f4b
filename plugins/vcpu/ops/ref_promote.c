/* Type promotion as torch.result_type decides it. */
#include "ref_promote.h"

static int kind(diopiDtype_t d) {
  return d == diopi_dtype_bool ? 0 : ref_is_floating(d) ? 2 : 1;
}

static bool is_unsigned(diopiDtype_t d) {
  return d == diopi_dtype_uint8 || d == diopi_dtype_uint16 ||
         d == diopi_dtype_uint32 || d == diopi_dtype_uint64;
}

static diopiDtype_t signed_of_size(size_t size) {
  return size <= 1   ? diopi_dtype_int8
         : size <= 2 ? diopi_dtype_int16
         : size <= 4 ? diopi_dtype_int32
                     : diopi_dtype_int64;
}

diopiDtype_t ref_promote_types(diopiDtype_t a, diopiDtype_t b) {
  if (a == b || kind(b) < kind(a))
    return a;
  if (kind(a) < kind(b))
    return b;
  size_t sa = ref_dtype_size(a), sb = ref_dtype_size(b);
  if (kind(a) == 2) /* float16 with bfloat16 meets at float32 */
    return sa != sb ? (sa > sb ? a : b) : diopi_dtype_float32;
  if (is_unsigned(a) == is_unsigned(b))
    return sa >= sb ? a : b;
  diopiDtype_t u = is_unsigned(a) ? a : b, s = is_unsigned(a) ? b : a;
  if (ref_dtype_size(s) > ref_dtype_size(u))
    return s;
  return signed_of_size(2 * ref_dtype_size(u));
}

diopiDtype_t ref_result_type(const ref_view_t *in, int n) {
  bool have_dims = false, have_zero = false;
  diopiDtype_t dims = diopi_dtype_bool, zero = diopi_dtype_bool;
  for (int k = 0; k < n; k++) {
    diopiDtype_t *into = in[k].ndim > 0 ? &dims : &zero;
    bool *have = in[k].ndim > 0 ? &have_dims : &have_zero;
    *into = *have ? ref_promote_types(*into, in[k].dtype) : in[k].dtype;
    *have = true;
  }
  if (!have_dims)
    return zero;
  if (!have_zero || kind(zero) <= kind(dims))
    return dims;
  return ref_promote_types(dims, zero);
}
