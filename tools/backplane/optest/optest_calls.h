/* How `backplane optest` calls each DIOPI op of a case: its arguments by
 * role and attribute name, in the op's own order. */
#ifndef BACKPLANE_TOOLS_OPTEST_CALLS_H_
#define BACKPLANE_TOOLS_OPTEST_CALLS_H_

#include "optest_cases.h"

typedef struct optest_args {
  const optest_case_t *c;
  diopiTensorHandle_t *handles; /* parallel to c->tensors */
} optest_args_t;

typedef diopiError_t (*optest_call_t)(void *fn, diopiContextHandle_t ctx,
                                      const optest_args_t *args);

/* The caller of DIOPI op `op`, or NULL if the runner cannot call it. */
optest_call_t optest_caller(const char *op);

/* The callers of optest_calls_more.c (the operator library's breadth ops
 * with signatures of their own), consulted after optest_caller's table. */
optest_call_t optest_more_caller(const char *op);

/* The callers of optest_calls_ext.c (the extension ops, and flash
 * attention with its generator), consulted after optest_more_caller's. */
optest_call_t optest_ext_caller(const char *op);

/* The callers of optest_calls_config.c (in-place forms DIOPI's own
 * configurations call), consulted after optest_ext_caller's. */
optest_call_t optest_config_caller(const char *op);

/* Copies an op's context-allocated `result` (contiguous, out's element
 * count) into the case's `out` once the stream has run; diopiErrorOccurred
 * if the counts differ or a copy fails. */
diopiError_t optest_result_into(diopiContextHandle_t ctx,
                                diopiConstTensorHandle_t result,
                                diopiTensorHandle_t out);

/* Argument readers shared by the callers: the tensor of role `role` (NULL
 * if the case has none); an attribute as a double, an int64, a list or a
 * string (0, empty or NULL if absent); a scalar attribute, float attributes
 * as float64 and int attributes as int64 (absent: float64 1.0). */
diopiTensorHandle_t optest_arg_tensor(const optest_args_t *a, const char *role);
double optest_arg_real(const optest_args_t *a, const char *name);
int64_t optest_arg_integer(const optest_args_t *a, const char *name);
diopiSize_t optest_arg_list(const optest_args_t *a, const char *name);
const char *optest_arg_text(const optest_args_t *a, const char *name);
diopiScalar_t optest_arg_scalar(const optest_args_t *a, const char *name);

#endif /* BACKPLANE_TOOLS_OPTEST_CALLS_H_ */
