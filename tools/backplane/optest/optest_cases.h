/* The op conformance cases of the .bin files of tests/data/ops (written by
 * scripts/make_op_baselines.py; the format is described there) and of the
 * .bin.gz files of tests/data/ops_diopi (scripts/make_diopi_config_cases.py,
 * from DIOPI's own test configurations). */
#ifndef BACKPLANE_TOOLS_OPTEST_CASES_H_
#define BACKPLANE_TOOLS_OPTEST_CASES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/ops.h"
#include "optest_seeded.h"

/* What a case may hold: tensors, attributes, values in a list attribute (a
 * pad list names two per dimension). A file beyond them is refused, saying
 * which case and what. */
enum {
  OPTEST_MAX_TENSORS = 32, /* a fused optimizer step: six lists of 3+ */
  OPTEST_MAX_ATTRS = 16,
  OPTEST_MAX_LIST = 2 * BP_OPS_MAX_DIMS,
};

typedef enum optest_kind {
  OPTEST_INPUT = 0,
  OPTEST_OUTPUT = 1,
  OPTEST_INPLACE = 2,
} optest_kind_t;

typedef struct optest_tensor {
  char *role;
  optest_kind_t kind;
  diopiDtype_t dtype;
  int ndim;
  int64_t shape[BP_OPS_MAX_DIMS], stride[BP_OPS_MAX_DIMS];
  int64_t offset;
  size_t storage_bytes, expected_bytes;
  unsigned char *storage, *expected; /* owned; NULL when absent */
  /* A seeded tensor (kind byte | 0x10 in the file) has no storage here:
   * storage_bytes is its extent, optest_seeded_fill makes it. A sampled
   * output (| 0x20) has `expected` at sample's positions only. */
  bool seeded, sampled;
  optest_seed_t seed;
  optest_sample_t sample;
} optest_tensor_t;

typedef enum optest_attr_type {
  OPTEST_INT = 0,
  OPTEST_FLOAT = 1,
  OPTEST_LIST = 2,
  OPTEST_STRING = 3,
} optest_attr_type_t;

typedef struct optest_attr {
  char *name;
  optest_attr_type_t type;
  int64_t i;
  double f;
  int64_t *list; /* owned */
  size_t list_len;
  char *s; /* owned */
} optest_attr_t;

typedef struct optest_case {
  char *name, *op;
  double atol, rtol;
  uint64_t flops, bytes;
  size_t tensor_count, attr_count;
  optest_tensor_t *tensors;
  optest_attr_t *attrs;
} optest_case_t;

typedef struct optest_suite {
  size_t count;
  optest_case_t *cases;
} optest_suite_t;

/* Reads every *.bin and *.bin.gz (gzip-compressed) of `dir`, in name order,
 * into *out. Returns 0, or -1
 * with a message naming the file on stderr. */
int optest_suite_load(const char *dir, optest_suite_t *out);
void optest_suite_release(optest_suite_t *suite);

/* The tensor or attribute called `name` in `c`, or NULL. */
const optest_tensor_t *optest_tensor(const optest_case_t *c, const char *name);
const optest_attr_t *optest_attr(const optest_case_t *c, const char *name);

#endif /* BACKPLANE_TOOLS_OPTEST_CASES_H_ */
