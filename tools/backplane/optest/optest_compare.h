/* DIOPI-TEST's comparison: isclose(actual, expected, atol, rtol) per
 * element, NaN equal to NaN, over any dtype (read as double). */
#ifndef BACKPLANE_TOOLS_OPTEST_COMPARE_H_
#define BACKPLANE_TOOLS_OPTEST_COMPARE_H_

#include <stddef.h>

#include "backplane/ops.h"

typedef struct optest_mismatch {
  size_t count, first;     /* first mismatching index (valid if count) */
  double expected, actual; /* at `first` */
  double max_abs, max_rel; /* over all elements */
} optest_mismatch_t;

void optest_compare(diopiDtype_t dtype, const void *expected,
                    const void *actual, size_t n, double atol, double rtol,
                    optest_mismatch_t *out);

#endif /* BACKPLANE_TOOLS_OPTEST_COMPARE_H_ */
