/* bp_dtype_t: element sizes, names and the DLPack form. */
#include "backplane/dtype.h"

#include "base/status.h"

/* DLPack 0.8's kDLBool; the installed DLPack may predate it. */
enum { DL_CODE_BOOL = 6 };

typedef struct dtype_info {
  const char *name;
  uint8_t dl_code;
  uint8_t bits; /* of one element */
} dtype_info_t;

static const dtype_info_t infos[BP_DTYPE_COUNT] = {
    [BP_DTYPE_BOOL] = {"bool", DL_CODE_BOOL, 8},
    [BP_DTYPE_UINT8] = {"uint8", kDLUInt, 8},
    [BP_DTYPE_UINT16] = {"uint16", kDLUInt, 16},
    [BP_DTYPE_UINT32] = {"uint32", kDLUInt, 32},
    [BP_DTYPE_UINT64] = {"uint64", kDLUInt, 64},
    [BP_DTYPE_INT8] = {"int8", kDLInt, 8},
    [BP_DTYPE_INT16] = {"int16", kDLInt, 16},
    [BP_DTYPE_INT32] = {"int32", kDLInt, 32},
    [BP_DTYPE_INT64] = {"int64", kDLInt, 64},
    [BP_DTYPE_FLOAT16] = {"float16", kDLFloat, 16},
    [BP_DTYPE_FLOAT32] = {"float32", kDLFloat, 32},
    [BP_DTYPE_FLOAT64] = {"float64", kDLFloat, 64},
    [BP_DTYPE_BFLOAT16] = {"bfloat16", kDLBfloat, 16},
    [BP_DTYPE_COMPLEX64] = {"complex64", kDLComplex, 64},
    [BP_DTYPE_COMPLEX128] = {"complex128", kDLComplex, 128},
};

/* The entry of a defined dtype, or NULL. */
static const dtype_info_t *info_of(bp_dtype_t dtype) {
  if ((int)dtype <= BP_DTYPE_UNDEFINED || dtype >= BP_DTYPE_COUNT)
    return NULL;
  return &infos[dtype];
}

BP_API size_t bp_dtype_size(bp_dtype_t dtype) {
  const dtype_info_t *info = info_of(dtype);
  return info ? info->bits / 8u : 0;
}

BP_API const char *bp_dtype_name(bp_dtype_t dtype) {
  if (dtype == BP_DTYPE_UNDEFINED)
    return "undefined";
  const dtype_info_t *info = info_of(dtype);
  return info ? info->name : NULL;
}

BP_API bp_status_t bp_dtype_to_dl(bp_dtype_t dtype, DLDataType *out_dl) {
  const dtype_info_t *info = info_of(dtype);
  if (info == NULL || out_dl == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_dtype_to_dl: dtype %d has no DLPack form (0 and "
                    "%d.. are not data types) or out_dl is NULL",
                    (int)dtype, (int)BP_DTYPE_COUNT);
  *out_dl = (DLDataType){.code = info->dl_code, .bits = info->bits, .lanes = 1};
  return BP_OK;
}

BP_API bp_status_t bp_dtype_from_dl(DLDataType dl, bp_dtype_t *out_dtype) {
  if (out_dtype == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_dtype_from_dl: out_dtype is NULL");
  for (int d = BP_DTYPE_UNDEFINED + 1; d < BP_DTYPE_COUNT; d++)
    if (dl.lanes == 1 && infos[d].dl_code == dl.code &&
        infos[d].bits == dl.bits) {
      *out_dtype = (bp_dtype_t)d;
      return BP_OK;
    }
  return bp_error(BP_ERR_UNSUPPORTED,
                  "bp_dtype_from_dl: DLPack type (code %u, %u bits, %u "
                  "lanes) has no bp_dtype_t",
                  (unsigned)dl.code, (unsigned)dl.bits, (unsigned)dl.lanes);
}
