/* DIOPI-TEST's comparison: isclose(actual, expected, atol, rtol) per
 * element, NaN equal to NaN, over any dtype (read as double). */
#ifndef BACKPLANE_TOOLS_OPTEST_COMPARE_H_
#define BACKPLANE_TOOLS_OPTEST_COMPARE_H_

#include <stddef.h>

#include "backplane/ops.h"
#include "optest_cases.h"

typedef struct optest_mismatch {
  size_t count, first;     /* first mismatching index (valid if count) */
  double expected, actual; /* at `first` */
  double max_abs, max_rel; /* over all elements */
} optest_mismatch_t;

void optest_compare(diopiDtype_t dtype, const void *expected,
                    const void *actual, size_t n, double atol, double rtol,
                    optest_mismatch_t *out);

/* The sum of n elements of `dtype` at data, and the sum of their
 * magnitudes, in double. */
void optest_sums(diopiDtype_t dtype, const void *data, size_t n, double *sum,
                 double *abs_sum);

/* The rule named by the case's "judge" attribute, over the read-back data
 * of its tensors (`got`, parallel to c->tensors), for ops whose results
 * are another library's random numbers. "dropout": every out element is 0
 * or input / (1 - p) (isclose), the mask (if any) says which, and the kept
 * fraction is near 1 - p. "uniform" / "normal": values within [from, to];
 * their mean within 5 standard errors, their spread (64 draws or more)
 * within 10 % (a normal with "mean"/"std" input tensors: its draws
 * standardized per element). "bernoulli": 0s and 1s, their mean near p.
 * "permutation": 0..n-1 once each. "multinomial": categories of positive
 * weight, none repeated in a row without replacement, with it the drawn
 * weight shares near their expectation. "integers": integers of [from,
 * high), their mean near the range's. Returns 0 if the rule holds, else
 * -1 with the reason in `detail`. */
int optest_judge_rule(const optest_case_t *c, const unsigned char *const *got,
                      char *detail, size_t size);

#endif /* BACKPLANE_TOOLS_OPTEST_COMPARE_H_ */
