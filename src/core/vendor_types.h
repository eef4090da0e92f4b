/* The framework face's types in the vendor ABI's terms (internal): the one
 * place where bp_dtype_t, bp_reduce_op_t, bp_device_attr_t and the comm
 * extension's status meet device_ext.h and comm_ext.h. Every function is
 * pure and thread-safe. */
#ifndef BACKPLANE_CORE_VENDOR_TYPES_H_
#define BACKPLANE_CORE_VENDOR_TYPES_H_

#include <stdbool.h>
#include <stdint.h>

#include "backplane/comm.h"
#include "backplane/comm_ext.h"
#include "backplane/device.h"
#include "backplane/device_ext.h"
#include "backplane/dtype.h"

/* Each writes *out and returns true, or returns false (writing nothing) for
 * a value outside its enumeration (BP_DTYPE_UNDEFINED included). */
bool bp_dtype_to_c(bp_dtype_t dtype, C_DataType *out);
bool bp_reduce_op_to_c(bp_reduce_op_t op, C_CCLReduceOp *out);
bool bp_device_attr_to_c(bp_device_attr_t attr, BP_DeviceAttr *out);

/* A plugin's answer as the framework's value: true with *out written for an
 * INT or STRING answer (the string NUL-terminated), false for UNSUPPORTED
 * or an unknown kind (see `value->kind`). */
bool bp_device_attr_value_from_c(const BP_AttrValue *value,
                                 bp_device_attr_value_t *out);

/* A BP_CommExtStatus as a bp_status_t: BP_OK for BP_COMM_EXT_OK,
 * BP_ERR_PLUGIN for a value the extension does not define. */
bp_status_t bp_status_from_comm_ext(int32_t status);

#endif /* BACKPLANE_CORE_VENDOR_TYPES_H_ */
