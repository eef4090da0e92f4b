/* Deliberately wrong op libraries for `backplane optest`, one per build
 * (BROKEN_ADD, BROKEN_COPY, BROKEN_RELU, BROKEN_RANDOM): an add that reads
 * `other` one element off, a copy that ignores the source's strides, a
 * relu that writes its input, and random ops whose draws keep to their
 * range but not to their distribution (random_ writing `from` everywhere,
 * multinomial taking each row's positive-weight categories in turn,
 * normal ignoring std). Each runs on the caller's thread (correctness
 * only), on float32 tensors. */
#include <diopi/functions.h>
#include <math.h>
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
#elif defined(BROKEN_RANDOM)
EXPORT diopiError_t diopiRandomInp(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t inout, int64_t from,
                                   const int64_t *to,
                                   diopiGeneratorHandle_t generator) {
  (void)ctx, (void)to, (void)generator;
  float *o;
  diopiGetTensorData(inout, (void **)&o);
  for (int64_t i = 0; i < numel(inout); i++)
    o[i] = (float)from;
  return diopiSuccess;
}

EXPORT diopiError_t diopiMultinomial(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     int64_t num_samples, bool replacement,
                                     diopiGeneratorHandle_t generator) {
  (void)ctx, (void)replacement, (void)generator;
  diopiSize_t shape;
  diopiGetTensorShape(input, &shape);
  int64_t categories = shape.data[shape.len - 1];
  int64_t rows = categories ? numel(input) / categories : 0;
  const float *w;
  int64_t *o;
  diopiGetTensorDataConst(input, (const void **)&w);
  diopiGetTensorData(out, (void **)&o);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t k = 0, c = 0; k < num_samples; c = (c + 1) % categories)
      if (w[r * categories + c] > 0)
        o[r * num_samples + k++] = c;
  return diopiSuccess;
}

EXPORT diopiError_t diopiNormalTensor(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      diopiConstTensorHandle_t mean,
                                      diopiConstTensorHandle_t std,
                                      diopiGeneratorHandle_t generator) {
  (void)ctx, (void)std, (void)generator;
  float *o;
  const float *m; /* mean of out's shape */
  diopiGetTensorData(out, (void **)&o);
  diopiGetTensorDataConst(mean, (const void **)&m);
  uint64_t state = 1;
  for (int64_t i = 0; i < numel(out); i++) {
    double u[2];
    for (int k = 0; k < 2; k++) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      u[k] = (double)((state >> 11) + 1) / 9007199254740993.0;
    }
    o[i] = (float)(m[i] + sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]));
  }
  return diopiSuccess;
}
#endif
