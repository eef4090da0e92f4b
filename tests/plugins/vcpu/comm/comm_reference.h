/* Test-side references for the collectives: an independent encoder/decoder
 * for float16 and bfloat16 (frexp/ldexp/nearbyint, not the plugin's bit
 * tricks), and typed element access through double for host references. */
#ifndef BACKPLANE_TESTS_COMM_REFERENCE_H_
#define BACKPLANE_TESTS_COMM_REFERENCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"

typedef struct {
  int mantissa_bits; /* explicit fraction bits: 10 for f16, 7 for bf16 */
  int exponent_bits; /* 5 for f16, 8 for bf16 */
} small_float_format;

extern const small_float_format F16;
extern const small_float_format BF16;

double ref_decode(small_float_format f, uint16_t bits);
/* Round-to-nearest-even through nearbyint (the default rounding mode). */
uint16_t ref_encode(small_float_format f, double x);

/* Bytes of one element of the types the collectives carry, 0 otherwise. */
size_t ref_dtype_size(C_DataType dtype);
/* Element i of a buffer of `dtype`, as a double (exact for the small values
 * the collective tests use). */
double ref_load(C_DataType dtype, const void *buf, size_t i);
/* Stores `value` (rounded for float16/bfloat16, truncated for integers). */
void ref_store(C_DataType dtype, void *buf, size_t i, double value);

/* Rank r's element i in the collective tests: small values every type holds
 * exactly (0..3 unsigned, -3..3 otherwise), so sums and products of up to
 * four ranks stay exact too. */
double ref_value(C_DataType dtype, size_t rank, size_t i);

/* Element i of the reduction of ref_value over ranks 0..n-1 (integer AVG
 * truncates toward zero). */
double ref_expected_reduction(C_DataType dtype, C_CCLReduceOp op, size_t n,
                              size_t i);

/* Whether got is within the type's tolerance of want. */
bool ref_close(C_DataType dtype, double got, double want);

/* Fails the cmocka test unless got is within the type's tolerance of want
 * (exact for integers and for the small values above). */
void ref_expect_close(C_DataType dtype, double got, double want,
                      const char *what, size_t rank, size_t i);

#endif /* BACKPLANE_TESTS_COMM_REFERENCE_H_ */
