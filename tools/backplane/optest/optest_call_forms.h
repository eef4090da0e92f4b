/* The shorthand of the caller files beyond optest_calls.c
 * (optest_calls_more.c, optest_calls_ext.c): DIOPI's handle types by short
 * names, the argument readers of optest_calls.h, optional scalars, and
 * CALL(name, body), which defines call_<name> with three scalars of room. */
#ifndef BACKPLANE_TOOLS_OPTEST_CALL_FORMS_H_
#define BACKPLANE_TOOLS_OPTEST_CALL_FORMS_H_

#include "backplane/diopi/functions.h"
#include "optest_calls.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;
typedef const diopiScalar_t *S;
typedef diopiGeneratorHandle_t G;

#define tensor optest_arg_tensor
#define real optest_arg_real
#define integer optest_arg_integer
#define list optest_arg_list

/* The scalar attribute `name` in *storage, or NULL when the case has none
 * (an optional scalar). */
static inline S maybe_scalar(const optest_args_t *a, const char *name,
                             diopiScalar_t *storage) {
  if (!optest_attr(a->c, name))
    return NULL;
  *storage = optest_arg_scalar(a, name);
  return storage;
}

#define CALL(name, ...)                                                        \
  static diopiError_t call_##name(void *fn, CTX ctx, const optest_args_t *a) { \
    diopiScalar_t s0, s1, s2;                                                  \
    (void)s0, (void)s1, (void)s2;                                              \
    __VA_ARGS__                                                                \
  }

#endif /* BACKPLANE_TOOLS_OPTEST_CALL_FORMS_H_ */
