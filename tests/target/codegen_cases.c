/* The cross-check cases (codegen_cases.h). */
#include "codegen_cases.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

float X[R][C], Z[C];
int32_t W[R][C];
uint16_t H[R][C]; /* float16 bits of HV */
float HV[R][C];

/* Rounds to `bits` significant bits, ties to even (float16: 11, bfloat16:
 * 8), for normal numbers: an independent model of the conversions. */
static double round_bits(double v, int bits) {
  if (v == 0)
    return 0;
  int e;
  double m = frexp(v, &e);
  return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}

static uint16_t half_of_exact(float v) { /* v exactly representable */
  if (v == 0)
    return 0;
  int e;
  float m = frexpf(fabsf(v), &e);
  uint16_t sign = v < 0 ? 0x8000 : 0;
  return (uint16_t)(sign | ((e - 1 + 15) << 10) |
                    (uint16_t)((m * 2 - 1) * 1024));
}

static double half_value(uint16_t bits) {
  int exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  double v =
      exponent ? ldexp(1024 + mantissa, exponent - 25) : ldexp(mantissa, -24);
  return bits & 0x8000 ? -v : v;
}

static double r_add(int i, int j) {
  return (double)X[i][j] + Z[j];
}
static double r_sub(int i, int j) {
  return (double)X[i][j] - Z[j];
}
static double r_mul(int i, int j) {
  return (double)X[i][j] * Z[j];
}
static double r_div(int i, int j) {
  return (double)X[i][j] / Z[j];
}
static double r_max(int i, int j) {
  return fmax(X[i][j], Z[j] - 2);
}
static double r_min(int i, int j) {
  return fmin(X[i][j], Z[j] - 2);
}
static double r_lt(int i, int j) {
  return X[i][j] < 0.5;
}
static double r_ge(int i, int j) {
  return X[i][j] >= Z[j] - 2;
}
static double r_eq(int i, int j) {
  return W[i][j] == 3;
}
static double r_ne(int i, int j) {
  return W[i][j] != 3;
}
static double r_le_and(int i, int j) {
  return X[i][j] <= 0 && W[i][j] > 2;
}
static double r_or_not(int i, int j) {
  return !(X[i][j] > 1) || W[i][j] < 0;
}
static double r_neg_abs(int i, int j) {
  return -fabs(X[i][j]);
}
static double r_exp(int i, int j) {
  return exp(X[i][j]);
}
static double r_log(int i, int j) {
  return log(Z[j]) + i;
}
static double r_sqrt(int i, int j) {
  return sqrt(Z[j] * (i + 1));
}
static double r_tanh(int i, int j) {
  return tanh(X[i][j]);
}
static double r_erf(int i, int j) {
  return erf(X[i][j]);
}
static double r_select(int i, int j) {
  return X[i][j] > 0 ? X[i][j] : 0.1 * X[i][j];
}
static double r_cast_int(int i, int j) {
  return trunc(X[i][j] * 10.0f);
}
static double r_cast_f16(int i, int j) {
  return round_bits(X[i][j] * 3.3f, 11);
}
static double r_cast_bf16(int i, int j) {
  return round_bits(X[i][j], 8);
}
static double r_axis(int i, int j) {
  return X[i][j] + j - 2 * i;
}
static double r_index(int i, int j) {
  return (double)X[i][0] * X[R - 1][j];
}
static double r_int_math(int i, int j) {
  int32_t w = W[i][j], d = j % 4 - 1; /* divides by zero when d == 0 */
  return (double)(d == 0 ? 0 : w / d) * 3 - (w > 5 ? w : 5);
}
static double r_half_in(int i, int j) {
  return HV[i][j] * 2 + 1;
}
static double r_half_out(int i, int j) {
  return round_bits(X[i][j] / 3, 11);
}
static double r_bf16_out(int i, int j) {
  return round_bits(X[i][j] / 3, 8);
}
static double r_sum(int i, int j) {
  (void)j;
  double s = 0;
  for (int k = 0; k < C; k++)
    s += X[i][k];
  return s;
}
static double r_rmax(int i, int j) {
  (void)j;
  double m = -INFINITY;
  for (int k = 0; k < C; k++)
    m = fmax(m, X[i][k] * Z[k]);
  return m;
}
static double r_rmin(int i, int j) {
  (void)j;
  int32_t m = INT32_MAX;
  for (int k = 0; k < C; k++)
    m = W[i][k] < m ? W[i][k] : m;
  return m;
}
static double r_sum2(int i, int j) { /* over a 2-axis window */
  double s = 0;
  for (int a = 0; a <= i && a < 3; a++)
    for (int b = 0; b < C; b++)
      s += X[a][b] * (j + 1);
  return s;
}
static double r_mean(int i, int j) {
  return r_sum(i, j) / C + 1;
}

const cross_case_t cases[] = {
    {"add", 2, "float32", "{}", "{\"op\":\"add\",\"args\":[\"x\",\"z\"]}",
     r_add, 1e-6},
    {"sub", 2, "float32", "{}", "{\"op\":\"sub\",\"args\":[\"x\",\"z\"]}",
     r_sub, 1e-6},
    {"mul", 2, "float32", "{}", "{\"op\":\"mul\",\"args\":[\"x\",\"z\"]}",
     r_mul, 1e-6},
    {"div", 2, "float32", "{}", "{\"op\":\"div\",\"args\":[\"x\",\"z\"]}",
     r_div, 1e-6},
    {"max", 2, "float32", "{}",
     "{\"op\":\"max\",\"args\":[\"x\",{\"op\":\"sub\",\"args\":[\"z\",2]}]}",
     r_max, 1e-6},
    {"min", 2, "float32", "{}",
     "{\"op\":\"min\",\"args\":[\"x\",{\"op\":\"sub\",\"args\":[\"z\",2]}]}",
     r_min, 1e-6},
    {"lt", 2, "float32", "{}", "{\"op\":\"lt\",\"args\":[\"x\",0.5]}", r_lt, 0},
    {"ge", 2, "int32", "{}",
     "{\"op\":\"ge\",\"args\":[\"x\",{\"op\":\"sub\",\"args\":[\"z\",2]}]}",
     r_ge, 0},
    {"eq", 2, "int32", "{}", "{\"op\":\"eq\",\"args\":[\"w\",3]}", r_eq, 0},
    {"ne", 2, "int32", "{}", "{\"op\":\"ne\",\"args\":[\"w\",3]}", r_ne, 0},
    {"le_and", 2, "int32", "{}",
     "{\"op\":\"and\",\"args\":[{\"op\":\"le\",\"args\":[\"x\",0]},"
     "{\"op\":\"gt\",\"args\":[\"w\",2]}]}",
     r_le_and, 0},
    {"or_not", 2, "int32", "{}",
     "{\"op\":\"or\",\"args\":[{\"op\":\"not\",\"args\":[{\"op\":\"gt\","
     "\"args\":[\"x\",1]}]},{\"op\":\"lt\",\"args\":[\"w\",0]}]}",
     r_or_not, 0},
    {"neg_abs", 2, "float32", "{}",
     "{\"op\":\"neg\",\"args\":[{\"op\":\"abs\",\"args\":[\"x\"]}]}", r_neg_abs,
     0},
    {"exp", 2, "float32", "{}", "{\"op\":\"exp\",\"args\":[\"x\"]}", r_exp,
     1e-6},
    {"log", 2, "float32", "{}",
     "{\"op\":\"add\",\"args\":[{\"op\":\"log\",\"args\":[\"z\"]},"
     "{\"axis\":\"i\"}]}",
     r_log, 1e-6},
    {"sqrt", 2, "float32", "{}",
     "{\"op\":\"sqrt\",\"args\":[{\"op\":\"mul\",\"args\":[\"z\",{\"op\":"
     "\"add\",\"args\":[{\"axis\":\"i\"},1]}]}]}",
     r_sqrt, 1e-6},
    {"tanh", 2, "float32", "{}", "{\"op\":\"tanh\",\"args\":[\"x\"]}", r_tanh,
     1e-6},
    {"erf", 2, "float32", "{}", "{\"op\":\"erf\",\"args\":[\"x\"]}", r_erf,
     1e-6},
    {"select", 2, "float32", "{}",
     "{\"op\":\"select\",\"args\":[{\"op\":\"gt\",\"args\":[\"x\",0]},\"x\","
     "{\"op\":\"mul\",\"args\":[\"x\",0.1]}]}",
     r_select, 1e-6},
    {"cast_int32", 2, "float32", "{}",
     "{\"op\":\"cast\",\"dtype\":\"int32\",\"args\":[{\"op\":\"mul\","
     "\"args\":[\"x\",10.0]}]}",
     r_cast_int, 0},
    {"cast_float16", 2, "float32", "{}",
     "{\"op\":\"cast\",\"dtype\":\"float16\",\"args\":[{\"op\":\"mul\","
     "\"args\":[\"x\",3.3]}]}",
     r_cast_f16, 0},
    {"cast_bfloat16", 2, "float32", "{}",
     "{\"op\":\"cast\",\"dtype\":\"bfloat16\",\"args\":[\"x\"]}", r_cast_bf16,
     0},
    {"axis", 2, "float32", "{}",
     "{\"op\":\"add\",\"args\":[\"x\",{\"op\":\"sub\",\"args\":[{\"axis\":"
     "\"j\"},{\"op\":\"mul\",\"args\":[2,{\"axis\":\"i\"}]}]}]}",
     r_axis, 1e-6},
    {"const_index", 2, "float32", "{}",
     "{\"op\":\"mul\",\"args\":[{\"load\":\"x\",\"index\":[\"i\",0]},"
     "{\"load\":\"x\",\"index\":[12,\"j\"]}]}",
     r_index, 1e-6},
    {"int_math", 2, "int32", "{}",
     "{\"op\":\"sub\",\"args\":[{\"op\":\"mul\",\"args\":[{\"op\":\"div\","
     "\"args\":[\"w\",{\"op\":\"sub\",\"args\":[{\"op\":\"sub\",\"args\":[{"
     "\"axis\":\"j\"},{\"op\":\"mul\",\"args\":[4,{\"op\":\"div\",\"args\":[{"
     "\"axis\":\"j\"},4]}]}]},1]}]},3]},{\"op\":\"max\",\"args\":[\"w\",5]}]}",
     r_int_math, 0},
    {"float16_input", 2, "float32", "{}",
     "{\"op\":\"add\",\"args\":[{\"op\":\"mul\",\"args\":[\"h\",2]},1]}",
     r_half_in, 1e-6},
    {"float16_output", 2, "float16", "{}",
     "{\"op\":\"div\",\"args\":[\"x\",3]}", r_half_out, 0},
    {"bfloat16_output", 2, "bfloat16", "{}",
     "{\"op\":\"div\",\"args\":[\"x\",3]}", r_bf16_out, 0},
    {"sum", 1, "float32", "{\"k\":21}",
     "{\"reduce\":\"sum\",\"axes\":[\"k\"],\"arg\":{\"load\":\"x\",\"index\":"
     "[\"i\",\"k\"]}}",
     r_sum, 1e-5},
    {"reduce_max", 1, "float32", "{\"k\":21}",
     "{\"reduce\":\"max\",\"axes\":[\"k\"],\"arg\":{\"op\":\"mul\",\"args\":"
     "[{\"load\":\"x\",\"index\":[\"i\",\"k\"]},{\"load\":\"z\",\"index\":"
     "[\"k\"]}]}}",
     r_rmax, 1e-6},
    {"reduce_min_int", 1, "int32", "{\"k\":21}",
     "{\"reduce\":\"min\",\"axes\":[\"k\"],\"arg\":{\"load\":\"w\",\"index\":"
     "[\"i\",\"k\"]}}",
     r_rmin, 0},
    {"reduce_two_axes", 2, "float32", "{\"a\":3,\"b\":21}",
     "{\"reduce\":\"sum\",\"axes\":[\"a\",\"b\"],\"arg\":{\"op\":\"select\","
     "\"args\":[{\"op\":\"le\",\"args\":[{\"axis\":\"a\"},{\"axis\":\"i\"}]},"
     "{\"op\":\"mul\",\"args\":[{\"load\":\"x\",\"index\":[\"a\",\"b\"]},{"
     "\"op\":\"add\",\"args\":[{\"axis\":\"j\"},1]}]},0]}}",
     r_sum2, 1e-5},
    {"reduce_in_expr", 1, "float32", "{\"k\":21}",
     "{\"op\":\"add\",\"args\":[{\"op\":\"div\",\"args\":[{\"reduce\":"
     "\"sum\",\"axes\":[\"k\"],\"arg\":{\"load\":\"x\",\"index\":[\"i\","
     "\"k\"]}},21.0]},1]}",
     r_mean, 1e-5},
};

const size_t case_count = sizeof(cases) / sizeof(cases[0]);

void fill_inputs(unsigned seed) {
  srand(seed);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      X[i][j] = (float)rand() / (float)RAND_MAX * 4 - 2;
      W[i][j] = rand() % 21 - 10;
      HV[i][j] = (float)(rand() % 257 - 128) / 64.0f;
      H[i][j] = half_of_exact(HV[i][j]);
    }
  for (int j = 0; j < C; j++)
    Z[j] = 0.5f + (float)rand() / (float)RAND_MAX * 2.5f;
}

char *case_ir(const cross_case_t *c) {
  static char ir[8192];
  snprintf(ir, sizeof(ir),
           "{\"functions\":[{\"name\":\"f\",\"inputs\":["
           "{\"name\":\"x\",\"shape\":[%d,%d],\"dtype\":\"float32\"},"
           "{\"name\":\"z\",\"shape\":[%d],\"dtype\":\"float32\"},"
           "{\"name\":\"w\",\"shape\":[%d,%d],\"dtype\":\"int32\"},"
           "{\"name\":\"h\",\"shape\":[%d,%d],\"dtype\":\"float16\"}],"
           "\"stages\":[{\"name\":\"y\",\"shape\":%s,\"dtype\":\"%s\","
           "\"axes\":%s,\"reduce_axes\":%s,\"expr\":%s}],"
           "\"outputs\":[\"y\"]}]}",
           R, C, C, R, C, R, C, c->rank == 1 ? "[13]" : "[13,21]", c->dtype,
           c->rank == 1 ? "[\"i\"]" : "[\"i\",\"j\"]", c->reduce_axes, c->expr);
  return ir;
}

char *cases_module_ir(void) {
  static const char head[] = "{\"functions\":[", tail[] = "]}";
  static const char name_f[] = "\"name\":\"f\"";
  size_t capacity = 1 << 16, length = 0;
  char *ir = malloc(capacity);
  assert_non_null(ir);
  length += (size_t)snprintf(ir, capacity, "%s", head);
  for (size_t c = 0; c < case_count; c++) {
    const char *rest =
        strstr(case_ir(&cases[c]), name_f) + strlen(name_f); /* after "f" */
    size_t body = strlen(rest) - strlen(tail);
    int written =
        snprintf(ir + length, capacity - length, "%s{\"name\":\"%s\"%.*s",
                 c ? "," : "", cases[c].name, (int)body, rest);
    assert_true(written > 0 && (size_t)written < capacity - length);
    length += (size_t)written;
  }
  snprintf(ir + length, capacity - length, "%s", tail);
  return ir;
}

static double output_value(const cross_case_t *c, const void *y, int index) {
  if (!strcmp(c->dtype, "int32"))
    return ((const int32_t *)y)[index];
  if (!strcmp(c->dtype, "float16"))
    return half_value(((const uint16_t *)y)[index]);
  if (!strcmp(c->dtype, "bfloat16")) {
    uint32_t bits = (uint32_t)((const uint16_t *)y)[index] << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  return ((const float *)y)[index];
}

void check_output(const cross_case_t *c, const char *target_text,
                  const char *how, const float *y) {
  int columns = c->rank == 1 ? 1 : C;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < columns; j++) {
      double expected = c->reference(i, j);
      double actual = output_value(c, y, i * columns + j);
      double allowed = c->tolerance * fmax(1.0, fabs(expected));
      if (!(fabs(actual - expected) <= allowed))
        fail_msg("%s on '%s' (%s) at [%d, %d]: generated %.9g, "
                 "hand-written %.9g",
                 c->name, target_text, how, i, j, actual, expected);
    }
}
