#include "reduce/reduce.h"

#include <stdint.h>

#include "reduce/half.h"

/* Sources are combined a block at a time into a small accumulator that stays
 * in L1, so every input is read once and the output written once, and the
 * inner loops are simple enough for the compiler to vectorize. */
enum { REDUCE_BLOCK = 1024 };

typedef void (*reduce_kernel_fn)(void *dst, const void *const *srcs,
                                 size_t nsrc, size_t count, size_t divisor);

#define COMBINE_SUM(a, b) ((a) + (b))
#define COMBINE_PROD(a, b) ((a) * (b))
#define COMBINE_MAX(a, b) ((a) > (b) ? (a) : (b))
#define COMBINE_MIN(a, b) ((a) < (b) ? (a) : (b))

#define FINISH_KEEP(a, d, T) (a)
/* Integer AVG: the sum wraps in the element type (as NCCL's does), then is
 * divided, truncating toward zero. */
#define FINISH_AVG_SIGNED(a, d, T) ((uint64_t)((int64_t)(T)(a) / (int64_t)(d)))
#define FINISH_AVG_UNSIGNED(a, d, T) ((uint64_t)(T)(a) / (uint64_t)(d))
#define FINISH_AVG_FLOAT(a, d, T) ((a) / (d))

#define AS_IS(x) (x)
#define TO_U64(x) ((uint64_t)(x))

#define DEFINE_KERNEL(NAME, T, A, LOAD, COMBINE, FINISH, STORE)                \
  static void NAME(void *dst, const void *const *srcs, size_t nsrc,            \
                   size_t count, size_t divisor) {                             \
    T *out = dst;                                                              \
    A acc[REDUCE_BLOCK];                                                       \
    (void)divisor;                                                             \
    for (size_t base = 0; base < count; base += REDUCE_BLOCK) {                \
      size_t len = count - base < REDUCE_BLOCK ? count - base : REDUCE_BLOCK;  \
      const T *first = (const T *)srcs[0] + base;                              \
      for (size_t i = 0; i < len; i++)                                         \
        acc[i] = LOAD(first[i]);                                               \
      for (size_t s = 1; s < nsrc; s++) {                                      \
        const T *in = (const T *)srcs[s] + base;                               \
        for (size_t i = 0; i < len; i++)                                       \
          acc[i] = COMBINE(acc[i], LOAD(in[i]));                               \
      }                                                                        \
      for (size_t i = 0; i < len; i++)                                         \
        out[base + i] = (T)STORE(FINISH(acc[i], divisor, T));                  \
    }                                                                          \
  }

/* Integers: sum/prod/avg in uint64_t (wrap-around is defined there), max/min
 * in the element type. */
#define DEFINE_INT_FAMILY(tag, T, FINISH_AVG)                                  \
  DEFINE_KERNEL(tag##_sum, T, uint64_t, TO_U64, COMBINE_SUM, FINISH_KEEP,      \
                AS_IS)                                                         \
  DEFINE_KERNEL(tag##_prod, T, uint64_t, TO_U64, COMBINE_PROD, FINISH_KEEP,    \
                AS_IS)                                                         \
  DEFINE_KERNEL(tag##_avg, T, uint64_t, TO_U64, COMBINE_SUM, FINISH_AVG,       \
                AS_IS)                                                         \
  DEFINE_KERNEL(tag##_max, T, T, AS_IS, COMBINE_MAX, FINISH_KEEP, AS_IS)       \
  DEFINE_KERNEL(tag##_min, T, T, AS_IS, COMBINE_MIN, FINISH_KEEP, AS_IS)

/* Floating point: every op in the accumulator type A. */
#define DEFINE_FLOAT_FAMILY(tag, T, A, LOAD, STORE)                            \
  DEFINE_KERNEL(tag##_sum, T, A, LOAD, COMBINE_SUM, FINISH_KEEP, STORE)        \
  DEFINE_KERNEL(tag##_prod, T, A, LOAD, COMBINE_PROD, FINISH_KEEP, STORE)      \
  DEFINE_KERNEL(tag##_avg, T, A, LOAD, COMBINE_SUM, FINISH_AVG_FLOAT, STORE)   \
  DEFINE_KERNEL(tag##_max, T, A, LOAD, COMBINE_MAX, FINISH_KEEP, STORE)        \
  DEFINE_KERNEL(tag##_min, T, A, LOAD, COMBINE_MIN, FINISH_KEEP, STORE)

DEFINE_INT_FAMILY(i8, int8_t, FINISH_AVG_SIGNED)
DEFINE_INT_FAMILY(i16, int16_t, FINISH_AVG_SIGNED)
DEFINE_INT_FAMILY(i32, int32_t, FINISH_AVG_SIGNED)
DEFINE_INT_FAMILY(i64, int64_t, FINISH_AVG_SIGNED)
DEFINE_INT_FAMILY(u8, uint8_t, FINISH_AVG_UNSIGNED)
DEFINE_INT_FAMILY(u16, uint16_t, FINISH_AVG_UNSIGNED)
DEFINE_INT_FAMILY(u32, uint32_t, FINISH_AVG_UNSIGNED)
DEFINE_INT_FAMILY(u64, uint64_t, FINISH_AVG_UNSIGNED)
DEFINE_FLOAT_FAMILY(f16, uint16_t, float, vcpu_comm_f16_to_float,
                    vcpu_comm_float_to_f16)
DEFINE_FLOAT_FAMILY(bf16, uint16_t, float, vcpu_comm_bf16_to_float,
                    vcpu_comm_float_to_bf16)
DEFINE_FLOAT_FAMILY(f32, float, float, AS_IS, AS_IS)
DEFINE_FLOAT_FAMILY(f64, double, double, AS_IS, AS_IS)

#define FAMILY_ROW(tag)                                                        \
  {                                                                            \
    [SUM] = tag##_sum, [AVG] = tag##_avg, [MAX] = tag##_max,                   \
    [MIN] = tag##_min, [PRODUCT] = tag##_prod                                  \
  }

enum { OP_COUNT = PRODUCT + 1, DTYPE_COUNT = COMPLEX128 + 1 };

static const reduce_kernel_fn kernels[DTYPE_COUNT][OP_COUNT] = {
    [INT8] = FAMILY_ROW(i8),     [INT16] = FAMILY_ROW(i16),
    [INT32] = FAMILY_ROW(i32),   [INT64] = FAMILY_ROW(i64),
    [UINT8] = FAMILY_ROW(u8),    [UINT16] = FAMILY_ROW(u16),
    [UINT32] = FAMILY_ROW(u32),  [UINT64] = FAMILY_ROW(u64),
    [FLOAT16] = FAMILY_ROW(f16), [BFLOAT16] = FAMILY_ROW(bf16),
    [FLOAT32] = FAMILY_ROW(f32), [FLOAT64] = FAMILY_ROW(f64),
};

size_t vcpu_comm_dtype_size(C_DataType dtype) {
  switch (dtype) {
  case BOOL: /* no reductions defined for these */
  case COMPLEX64:
  case COMPLEX128:
    return 0;
  default:
    return BP_DataTypeSize(dtype);
  }
}

const char *vcpu_comm_dtype_name(C_DataType dtype) {
  switch (dtype) {
  case INT8:
    return "int8";
  case INT16:
    return "int16";
  case INT32:
    return "int32";
  case INT64:
    return "int64";
  case UINT8:
    return "uint8";
  case UINT16:
    return "uint16";
  case UINT32:
    return "uint32";
  case UINT64:
    return "uint64";
  case FLOAT16:
    return "float16";
  case BFLOAT16:
    return "bfloat16";
  case FLOAT32:
    return "float32";
  case FLOAT64:
    return "float64";
  case BOOL:
    return "bool";
  case COMPLEX64:
    return "complex64";
  case COMPLEX128:
    return "complex128";
  default:
    return "undefined";
  }
}

const char *vcpu_comm_op_name(C_CCLReduceOp op) {
  switch (op) {
  case SUM:
    return "sum";
  case AVG:
    return "avg";
  case MAX:
    return "max";
  case MIN:
    return "min";
  case PRODUCT:
    return "prod";
  }
  return "unknown";
}

bool vcpu_comm_op_valid(C_CCLReduceOp op) {
  return (unsigned)op < OP_COUNT;
}

bool vcpu_comm_reduce(void *dst, const void *const *srcs, size_t nsrc,
                      size_t count, C_DataType dtype, C_CCLReduceOp op,
                      size_t divisor) {
  if ((unsigned)dtype >= DTYPE_COUNT || !vcpu_comm_op_valid(op) || nsrc == 0)
    return false;
  reduce_kernel_fn kernel = kernels[dtype][op];
  if (kernel == NULL)
    return false;
  kernel(dst, srcs, nsrc, count, divisor == 0 ? 1 : divisor);
  return true;
}
