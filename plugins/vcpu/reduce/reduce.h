/* Element-wise reductions for the collectives: sum, avg, max, min and product
 * over the integer (8..64-bit, signed and unsigned), float16, bfloat16,
 * float32 and float64 C_DataTypes. Integers wrap modulo 2^bits like NCCL's;
 * float16/bfloat16 accumulate in float and round to nearest even once per
 * call. Pure functions, thread-safe. */
#ifndef BACKPLANE_VCPU_COMM_REDUCE_H_
#define BACKPLANE_VCPU_COMM_REDUCE_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/device_ext.h"

/* Bytes per element of a reducible/transferable type; 0 for types the
 * collectives do not carry (UNDEFINED, BOOL, COMPLEX*, unknown values). */
size_t vcpu_comm_dtype_size(C_DataType dtype);

/* "float32" etc. for messages; "C_DataType(N)" style text never NULL. */
const char *vcpu_comm_dtype_name(C_DataType dtype);

/* "sum", "avg", "max", "min", "prod"; "unknown" for other values. */
const char *vcpu_comm_op_name(C_CCLReduceOp op);

/* True when `op` is one of the five reduce operations. */
bool vcpu_comm_op_valid(C_CCLReduceOp op);

/* dst[i] = srcs[0][i] op srcs[1][i] op ... op srcs[nsrc-1][i] for i < count.
 * For AVG the combined sum is divided by `divisor` (integers truncate toward
 * zero); pass divisor 1 for a partial AVG step that a later call finishes.
 * Other ops ignore `divisor`. `dst` may be exactly one of the sources (same
 * address); other overlap is undefined. nsrc >= 1. Returns false (and does
 * nothing) for an unsupported dtype or op. */
bool vcpu_comm_reduce(void *dst, const void *const *srcs, size_t nsrc,
                      size_t count, C_DataType dtype, C_CCLReduceOp op,
                      size_t divisor);

#endif /* BACKPLANE_VCPU_COMM_REDUCE_H_ */
