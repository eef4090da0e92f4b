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

#endif /* BACKPLANE_TOOLS_OPTEST_CALLS_H_ */
