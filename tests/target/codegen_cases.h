/* The codegen cross-check cases, one per IR construct, with hand-written C
 * references: test_codegen_crosscheck.c runs them on the C builders,
 * test_codegen_crosscheck_opencl.c on the opencl builder, the cuda tests
 * (tests/plugins/cuda) on the cuda builder. Every case is a function "f" of
 * the inputs x [R, C] float32, z [C] float32, w [R, C] int32, h [R, C]
 * float16, and one output y ([R] or [R, C]). */
#ifndef BACKPLANE_TESTS_TARGET_CODEGEN_CASES_H_
#define BACKPLANE_TESTS_TARGET_CODEGEN_CASES_H_

#include <stddef.h>
#include <stdint.h>

enum { R = 13, C = 21 };
/* The inputs (fill_inputs). */
extern float X[R][C], Z[C];
extern int32_t W[R][C];
extern uint16_t H[R][C]; /* float16 bits of HV */
extern float HV[R][C];

typedef double (*reference_fn)(int i, int j);

typedef struct cross_case {
  const char *name;
  int rank; /* of y: 1 is [R], 2 is [R, C] */
  const char *dtype;
  const char *reduce_axes; /* JSON object, or "{}" */
  const char *expr;
  reference_fn reference;
  double tolerance; /* relative; 0: exact */
} cross_case_t;

extern const cross_case_t cases[];
extern const size_t case_count;

/* Random inputs from `seed`. */
void fill_inputs(unsigned seed);
/* The IR of case `c` (a static buffer). */
char *case_ir(const cross_case_t *c);
/* One module of every case, each a function named after its case (the
 * caller frees it). */
char *cases_module_ir(void);
/* Fails the test (naming case, target and `how`) where y differs from the
 * reference by more than c->tolerance (relative; absolute below 1). */
void check_output(const cross_case_t *c, const char *target_text,
                  const char *how, const float *y);

#endif /* BACKPLANE_TESTS_TARGET_CODEGEN_CASES_H_ */
