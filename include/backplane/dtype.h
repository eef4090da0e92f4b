/* Element data types of the framework face. bp_dtype_t is Backplane's own
 * enumeration (its numbering is stable: values are only appended); DLPack's
 * DLDataType is the interop form at the edge, converted both ways here. */
#ifndef BACKPLANE_DTYPE_H_
#define BACKPLANE_DTYPE_H_

#include <stddef.h>

#include <dlpack/dlpack.h>

#include "backplane/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bp_dtype {
  BP_DTYPE_UNDEFINED = 0,
  BP_DTYPE_BOOL = 1,
  BP_DTYPE_UINT8 = 2,
  BP_DTYPE_UINT16 = 3,
  BP_DTYPE_UINT32 = 4,
  BP_DTYPE_UINT64 = 5,
  BP_DTYPE_INT8 = 6,
  BP_DTYPE_INT16 = 7,
  BP_DTYPE_INT32 = 8,
  BP_DTYPE_INT64 = 9,
  BP_DTYPE_FLOAT16 = 10,
  BP_DTYPE_FLOAT32 = 11,
  BP_DTYPE_FLOAT64 = 12,
  BP_DTYPE_BFLOAT16 = 13,
  BP_DTYPE_COMPLEX64 = 14,  /* two float32 */
  BP_DTYPE_COMPLEX128 = 15, /* two float64 */
  BP_DTYPE_COUNT = 16,
} bp_dtype_t;

/* Bytes per element; 0 for BP_DTYPE_UNDEFINED or a value out of range. */
BP_API size_t bp_dtype_size(bp_dtype_t dtype);

/* "float32" for BP_DTYPE_FLOAT32, "undefined" for BP_DTYPE_UNDEFINED; NULL
 * for a value out of range. */
BP_API const char *bp_dtype_name(bp_dtype_t dtype);

/* The DLPack form (one lane). BP_DTYPE_BOOL is DLPack 0.8's kDLBool (code 6)
 * with 8 bits. BP_ERR_INVALID_ARGUMENT for BP_DTYPE_UNDEFINED, a value out
 * of range or a NULL out_dl; *out_dl is written only on success. */
BP_API bp_status_t bp_dtype_to_dl(bp_dtype_t dtype, DLDataType *out_dl);

/* The bp_dtype_t of a one-lane DLPack type. BP_ERR_UNSUPPORTED for a type
 * with no bp_dtype_t (vector lanes, odd widths, opaque handles);
 * BP_ERR_INVALID_ARGUMENT for a NULL out_dtype. */
BP_API bp_status_t bp_dtype_from_dl(DLDataType dl, bp_dtype_t *out_dtype);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_DTYPE_H_ */
