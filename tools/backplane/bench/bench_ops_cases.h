/* The cases of `backplane bench ops`: one row per op and size, each an op of
 * the reference library with its tensors described by spec strings that the
 * PyTorch script (the package's backplane/_bench_ops_torch.py) reads the same
 * way, so both sides run the op on tensors of the same shapes, dtypes and value
 * ranges.
 *
 * A tensor spec is KIND:DIM,DIM,... with KIND one of
 *   f  float32 in [-1, 1)        p  float32 in [0.5, 1.5)
 *   h  float32 in (0, 1)         b  bool, about half true
 *   iN int64 in [0, N)           n  int32 in [0, 1024)
 * and a 0-dim tensor written KIND: (nothing after the colon). */
#ifndef BACKPLANE_CLI_BENCH_OPS_CASES_H_
#define BACKPLANE_CLI_BENCH_OPS_CASES_H_

#include <stdint.h>

#include "backplane/diopi/functions.h"
#include "bench.h"

enum { OPS_MAX_TENSORS = 12, OPS_MAX_DIMS = 5, OPS_MAX_CASES = 160 };

typedef enum ops_baseline { VS_NONE, VS_SGEMM, VS_MEMCPY } ops_baseline_t;

typedef struct ops_tensor_spec {
  char kind;     /* f, p, h, b, i, n (above) */
  int64_t range; /* i: values in [0, range) */
  int ndim;
  int64_t shape[OPS_MAX_DIMS];
} ops_tensor_spec_t;

/* What a case's call receives: the op, its context and tensors (inputs,
 * then outputs, in spec order). */
typedef struct ops_call {
  diopiContextHandle_t ctx;
  void *fn;
  diopiTensorHandle_t *t;
} ops_call_t;

typedef diopiError_t (*ops_call_fn_t)(const ops_call_t *call);

typedef struct op_case {
  char name[48];     /* no spaces: the PyTorch script reads it as one word */
  const char *op;    /* the PyTorch script's op name */
  const char *diopi; /* the library's function */
  ops_call_fn_t call;
  char specs[256]; /* the tensor specs, space-separated, inputs first */
  int ninputs, ntensors;
  ops_tensor_spec_t t[OPS_MAX_TENSORS];
  double flops, bytes; /* per run; flops 0: rated in GB/s of all tensors */
  ops_baseline_t vs;   /* the same-run baseline besides PyTorch */
  double at_least;     /* the budget: our rate / PyTorch's */
} op_case_t;

/* Fills `cases` (OPS_MAX_CASES rooms) and returns their count: the full
 * list, or for --quick the original cases at tiny sizes. When the
 * environment variable BACKPLANE_BENCH_OPS names a comma-separated list of
 * words, only cases whose name contains one of them are kept. -1 if a spec
 * does not parse (a bug in the table, reported on stderr). */
int ops_make_cases(const bench_ctx_t *ctx, op_case_t *cases);

/* Elements of tensor k of the case, and its bytes. */
int64_t ops_numel(const op_case_t *c, int k);
double ops_tensor_bytes(const op_case_t *c, int k);
diopiDtype_t ops_spec_dtype(const ops_tensor_spec_t *spec);

#endif /* BACKPLANE_CLI_BENCH_OPS_CASES_H_ */
