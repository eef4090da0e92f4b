/* Deliberately wrong op libraries for `backplane optest`, one per build
 * (BROKEN_ADD, BROKEN_COPY, BROKEN_RELU): an add that reads `other` one
 * element off, a copy that ignores the source's strides, and a relu that
 * writes its input. Each runs on the caller's thread (correctness only). */
#include <diopi/functions.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static int64_t numel(diopiConstTensorHandle_t t) {
  int64_t n = 0;
  diopiGetTensorNumel(t, &n);
  return n;
}

#if defined(BROKEN_ADD)
EXPORT diopiError_t diopiAdd(diopiContextHandle_t ctx, diopiTensorHandle_t out,
                             diopiConstTensorHandle_t input,
                             diopiConstTensorHandle_t other,
                             const diopiScalar_t *alpha) {
  (void)ctx;
  float *o;
  const float *a, *b;
  diopiGetTensorData(out, (void **)&o);
  diopiGetTensorDataConst(input, (const void **)&a);
  diopiGetTensorDataConst(other, (const void **)&b);
  int64_t n = numel(out);
  for (int64_t i = 0; i < n; i++)
    o[i] = a[i] + (float)alpha->fval * b[(i + 1) % n];
  return diopiSuccess;
}
#elif defined(BROKEN_COPY)
EXPORT diopiError_t diopiCopyInp(diopiContextHandle_t ctx,
                                 diopiConstTensorHandle_t src,
                                 diopiTensorHandle_t dest) {
  (void)ctx;
  void *d;
  const void *s;
  diopiGetTensorData(dest, &d);
  diopiGetTensorDataConst(src, &s);
  memcpy(d, s, (size_t)numel(dest) * sizeof(float)); /* strides ignored */
  return diopiSuccess;
}
#elif defined(BROKEN_RELU)
EXPORT diopiError_t diopiRelu(diopiContextHandle_t ctx, diopiTensorHandle_t out,
                              diopiConstTensorHandle_t input) {
  (void)ctx;
  float *o, *x;
  diopiGetTensorData(out, (void **)&o);
  diopiGetTensorDataConst(input, (const void **)&x);
  for (int64_t i = 0; i < numel(out); i++)
    o[i] = x[i] = x[i] > 0 ? x[i] : 0; /* writes its input */
  return diopiSuccess;
}
#endif
