/* add, sub, mul, div: tensor and scalar operands, in place or not, alpha,
 * rounding modes. out = input + alpha * other (sub: minus). */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_stream.h"
#include "ref_tensor.h"

typedef enum arith { ADD, MUL, DIV } arith_t;

/* params: [0] alpha (ADD: sign folded in), [1] round mode */
static double add_fn(const double *in, const double *p) {
  return in[0] + p[0] * in[1];
}
static double mul_fn(const double *in, const double *p) {
  (void)p;
  return in[0] * in[1];
}
/* a // b as PyTorch (and Python) define it for floats: the floor of the
 * exact quotient, from a - fmod(a, b), which is exact, so 1 // 0.1 is 9
 * where floor(1 / 0.1) is 10; +-inf // b is NaN; by 0 it is a / b. One body
 * for float and double. */
#define DIV_FLOOR_BODY(FMOD, FLOOR)                                            \
  if (b == 0)                                                                  \
    return a / b;                                                              \
  __typeof__(a) mod = FMOD(a, b), div = (a - mod) / b;                         \
  if (mod != 0 && (b < 0) != (mod < 0))                                        \
    div -= 1;                                                                  \
  if (div == 0)                                                                \
    return copysign(0, a / b);                                                 \
  __typeof__(a) low = FLOOR(div);                                              \
  return div - low > 0.5f ? low + 1 : low;
static inline double div_floor(double a, double b) {
  DIV_FLOOR_BODY(fmod, floor)
}
static inline float div_floor_f32(float a, float b) {
  DIV_FLOOR_BODY(fmodf, floorf)
}

static double div_fn(const double *in, const double *p) {
  if (p[1] == RoundModeFloor)
    return div_floor(in[0], in[1]);
  double q = in[0] / in[1];
  return p[1] == RoundModeTrunc ? trunc(q) : q;
}

REF_ISA_BODY void add_f32_body(float *out, const float *const *in, int64_t n,
                               const double *p) {
  const float *a = in[0], *b = in[1];
  float alpha = (float)p[0];
  if (alpha == 1.0f)
    for (int64_t i = 0; i < n; i++)
      out[i] = a[i] + b[i];
  else if (alpha == -1.0f) /* sub: a - b is a + (-1) b, bit for bit */
    for (int64_t i = 0; i < n; i++)
      out[i] = a[i] - b[i];
  else
    for (int64_t i = 0; i < n; i++)
      out[i] = a[i] + alpha * b[i];
}
REF_ISA_DISPATCH_VOID(static, add_f32,
                      (float *out, const float *const *in, int64_t n,
                       const double *p),
                      (out, in, n, p))
REF_ISA_BODY void mul_f32_body(float *out, const float *const *in, int64_t n,
                               const double *p) {
  (void)p;
  const float *a = in[0], *b = in[1];
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] * b[i];
}
REF_ISA_DISPATCH_VOID(static, mul_f32,
                      (float *out, const float *const *in, int64_t n,
                       const double *p),
                      (out, in, n, p))
REF_ISA_BODY void div_f32_body(float *out, const float *const *in, int64_t n,
                               const double *p) {
  const float *a = in[0], *b = in[1];
  if (p[1] == RoundModeFloor) {
    for (int64_t i = 0; i < n; i++)
      out[i] = div_floor_f32(a[i], b[i]);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] / b[i];
  if (p[1] == RoundModeTrunc)
    for (int64_t i = 0; i < n; i++)
      out[i] = truncf(out[i]);
}
REF_ISA_DISPATCH_VOID(static, div_f32,
                      (float *out, const float *const *in, int64_t n,
                       const double *p),
                      (out, in, n, p))

/* The splat loops: other (in[1]) is one value for the n elements. */
REF_ISA_BODY void add_splat_f32_body(float *out, const float *const *in,
                                     int64_t n, const double *p) {
  const float *a = in[0];
  float b = (float)p[0] * in[1][0]; /* alpha * other, as add_f32 rounds it */
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] + b;
}
REF_F32_EW(add_splat_f32)
REF_ISA_BODY void mul_splat_f32_body(float *out, const float *const *in,
                                     int64_t n, const double *p) {
  (void)p;
  const float *a = in[0];
  float b = in[1][0];
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] * b;
}
REF_F32_EW(mul_splat_f32)
REF_ISA_BODY void div_splat_f32_body(float *out, const float *const *in,
                                     int64_t n, const double *p) {
  const float *a = in[0];
  float b = in[1][0];
  if (p[1] == RoundModeFloor) {
    for (int64_t i = 0; i < n; i++)
      out[i] = div_floor_f32(a[i], b);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] / b;
  if (p[1] == RoundModeTrunc)
    for (int64_t i = 0; i < n; i++)
      out[i] = truncf(out[i]);
}
REF_F32_EW(div_splat_f32)

/* The integer forms (wrapping, as the dtype does): params[0] alpha, [1] the
 * scalar operand. */
static int64_t add_int(const int64_t *in, const int64_t *p) {
  return (int64_t)((uint64_t)in[0] + (uint64_t)p[0] * (uint64_t)in[1]);
}
static int64_t mul_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return (int64_t)((uint64_t)in[0] * (uint64_t)in[1]);
}
static int64_t add_scalar_int(const int64_t *in, const int64_t *p) {
  return (int64_t)((uint64_t)in[0] + (uint64_t)p[0] * (uint64_t)p[1]);
}
static int64_t mul_scalar_int(const int64_t *in, const int64_t *p) {
  return (int64_t)((uint64_t)in[0] * (uint64_t)p[1]);
}

/* a / b rounded by `mode` (trunc or floor) in int64: INT64_MIN / -1 wraps
 * to INT64_MIN, a division by zero gives 0 (PyTorch raises). */
static int64_t rounded_quotient(int64_t a, int64_t b, int64_t mode) {
  if (b == 0)
    return 0;
  if (b == -1)
    return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return mode == RoundModeFloor && a % b != 0 && (a < 0) != (b < 0) ? q - 1 : q;
}
/* params[0] the rounding mode, [1] the scalar operand. */
static int64_t div_int(const int64_t *in, const int64_t *p) {
  return rounded_quotient(in[0], in[1], p[0]);
}
static int64_t div_scalar_int(const int64_t *in, const int64_t *p) {
  return rounded_quotient(in[0], p[1], p[0]);
}

static diopiError_t check_mode(const char *op, diopiRoundMode_t mode) {
  if (mode >= RoundModeNone && mode < RoundModeEND)
    return diopiSuccess;
  return ref_fail(op,
                  "rounding_mode: %d is not a diopiRoundMode_t (RoundModeNone, "
                  "RoundModeTrunc or RoundModeFloor)",
                  (int)mode);
}

/* alpha (NULL: 1) times `sign` (-1 for sub); div's integer form is its
 * rounded quotients' (a true quotient is floating), int_params[0] the
 * mode. */
static void set_alpha(ref_ew_t *ew, arith_t kind, const diopiScalar_t *alpha,
                      int sign, diopiRoundMode_t mode, ref_ew_int_fn_t int_fn) {
  ew->params[0] = sign * ref_scalar(alpha, 1);
  if (kind == DIV && mode != RoundModeNone) {
    ew->int_fn = int_fn;
    ew->int_params[0] = mode;
  } else if (kind != DIV && ref_scalar_is_integral(alpha)) {
    ew->int_fn = int_fn;
    ew->int_params[0] = sign * ref_scalar_int(alpha, 1);
  }
}

static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           arith_t kind, diopiConstTensorHandle_t out,
                           diopiConstTensorHandle_t input,
                           diopiConstTensorHandle_t other,
                           const diopiScalar_t *alpha, int sign,
                           diopiRoundMode_t mode) {
  diopiError_t err = check_mode(op, mode);
  if (err)
    return err;
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 2;
  ew.fn = kind == ADD ? add_fn : kind == MUL ? mul_fn : div_fn;
  ew.f32 = kind == ADD ? add_f32 : kind == MUL ? mul_f32 : div_f32;
  ew.f32_splat = kind == ADD   ? add_splat_f32
                 : kind == MUL ? mul_splat_f32
                               : div_splat_f32;
  set_alpha(&ew, kind, alpha, sign, mode,
            kind == ADD   ? add_int
            : kind == MUL ? mul_int
                          : div_int);
  ew.params[1] = mode;
  ew.f32_stream = kind == ADD             ? ref_stream_add_f32
                  : kind == MUL           ? ref_stream_mul_f32
                  : mode == RoundModeNone ? ref_stream_div_f32
                                          : NULL;
  diopiConstTensorHandle_t in[2] = {input, other};
  static const char *const names[2] = {"input", "other"};
  return ref_ew_launch(ctx, op, &ew, out, in, names);
}

/* The scalar family: out = input (op) value, through the unary path with the
 * value as a parameter. */
static double add_scalar_fn(const double *in, const double *p) {
  return in[0] + p[0] * p[2];
}
static double mul_scalar_fn(const double *in, const double *p) {
  return in[0] * p[2];
}
static double div_scalar_fn(const double *in, const double *p) {
  double two[2] = {in[0], p[2]};
  return div_fn(two, p);
}
REF_ISA_BODY void add_scalar_f32_body(float *out, const float *const *in,
                                      int64_t n, const double *p) {
  const float *a = in[0];
  float v = (float)(p[0] * p[2]);
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] + v;
}
REF_F32_EW(add_scalar_f32)
REF_ISA_BODY void mul_scalar_f32_body(float *out, const float *const *in,
                                      int64_t n, const double *p) {
  const float *a = in[0];
  float v = (float)p[2];
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] * v;
}
REF_F32_EW(mul_scalar_f32)

static diopiError_t launch_scalar(diopiContextHandle_t ctx, const char *op,
                                  arith_t kind, diopiConstTensorHandle_t out,
                                  diopiConstTensorHandle_t input,
                                  const diopiScalar_t *other,
                                  const diopiScalar_t *alpha, int sign,
                                  diopiRoundMode_t mode) {
  if (!other)
    return ref_fail(op, "other: scalar is NULL");
  diopiError_t err = check_mode(op, mode);
  if (err)
    return err;
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = kind == ADD   ? add_scalar_fn
          : kind == MUL ? mul_scalar_fn
                        : div_scalar_fn;
  ew.f32 = kind == ADD ? add_scalar_f32 : kind == MUL ? mul_scalar_f32 : NULL;
  set_alpha(&ew, kind, alpha, sign, mode,
            kind == ADD   ? add_scalar_int
            : kind == MUL ? mul_scalar_int
                          : div_scalar_int);
  if (!ref_scalar_is_integral(other))
    ew.int_fn = NULL;
  ew.params[1] = mode;
  ew.params[2] = ref_scalar_operand_for(other, input, 0);
  ew.int_params[1] = ref_scalar_int_operand_for(other, input, 0);
  static const char *const names[1] = {"input"};
  return ref_ew_launch(ctx, op, &ew, out, &input, names);
}

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

REF_EXPORT diopiError_t diopiAdd(CTX, T out, CT input, CT other, S alpha) {
  return launch(ctx, "diopiAdd", ADD, out, input, other, alpha, 1,
                RoundModeNone);
}
REF_EXPORT diopiError_t diopiAddInp(CTX, T input, CT other, S alpha) {
  return launch(ctx, "diopiAddInp", ADD, input, input, other, alpha, 1,
                RoundModeNone);
}
REF_EXPORT diopiError_t diopiAddScalar(CTX, T out, CT input, S other, S alpha) {
  return launch_scalar(ctx, "diopiAddScalar", ADD, out, input, other, alpha, 1,
                       RoundModeNone);
}
REF_EXPORT diopiError_t diopiAddInpScalar(CTX, T input, S other, S alpha) {
  return launch_scalar(ctx, "diopiAddInpScalar", ADD, input, input, other,
                       alpha, 1, RoundModeNone);
}
REF_EXPORT diopiError_t diopiSub(CTX, T out, CT input, CT other, S alpha) {
  return launch(ctx, "diopiSub", ADD, out, input, other, alpha, -1,
                RoundModeNone);
}
REF_EXPORT diopiError_t diopiSubInp(CTX, T input, CT other, S alpha) {
  return launch(ctx, "diopiSubInp", ADD, input, input, other, alpha, -1,
                RoundModeNone);
}
REF_EXPORT diopiError_t diopiSubScalar(CTX, T out, CT input, S other, S alpha) {
  return launch_scalar(ctx, "diopiSubScalar", ADD, out, input, other, alpha, -1,
                       RoundModeNone);
}
REF_EXPORT diopiError_t diopiSubInpScalar(CTX, T input, S other, S alpha) {
  return launch_scalar(ctx, "diopiSubInpScalar", ADD, input, input, other,
                       alpha, -1, RoundModeNone);
}
REF_EXPORT diopiError_t diopiMul(CTX, T out, CT input, CT other) {
  return launch(ctx, "diopiMul", MUL, out, input, other, NULL, 1,
                RoundModeNone);
}
REF_EXPORT diopiError_t diopiMulInp(CTX, T input, CT other) {
  return launch(ctx, "diopiMulInp", MUL, input, input, other, NULL, 1,
                RoundModeNone);
}
REF_EXPORT diopiError_t diopiMulScalar(CTX, T out, CT input, S other) {
  return launch_scalar(ctx, "diopiMulScalar", MUL, out, input, other, NULL, 1,
                       RoundModeNone);
}
REF_EXPORT diopiError_t diopiMulInpScalar(CTX, T input, S other) {
  return launch_scalar(ctx, "diopiMulInpScalar", MUL, input, input, other, NULL,
                       1, RoundModeNone);
}
REF_EXPORT diopiError_t diopiDiv(CTX, T out, CT input, CT other,
                                 diopiRoundMode_t mode) {
  return launch(ctx, "diopiDiv", DIV, out, input, other, NULL, 1, mode);
}
REF_EXPORT diopiError_t diopiDivInp(CTX, T input, CT other,
                                    diopiRoundMode_t mode) {
  return launch(ctx, "diopiDivInp", DIV, input, input, other, NULL, 1, mode);
}
REF_EXPORT diopiError_t diopiDivScalar(CTX, T out, CT input, S other,
                                       diopiRoundMode_t mode) {
  return launch_scalar(ctx, "diopiDivScalar", DIV, out, input, other, NULL, 1,
                       mode);
}
REF_EXPORT diopiError_t diopiDivInpScalar(CTX, T input, S other,
                                          diopiRoundMode_t mode) {
  return launch_scalar(ctx, "diopiDivInpScalar", DIV, input, input, other, NULL,
                       1, mode);
}
