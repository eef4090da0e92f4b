/* The tensor-expression IR after parsing and validation: functions of
 * placeholders (inputs) and stages (computed tensors), each stage one
 * expression tree over its axes. Everything here is immutable once
 * te_module_parse returned it. */
#ifndef BACKPLANE_TARGET_TE_IR_H_
#define BACKPLANE_TARGET_TE_IR_H_

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/status.h"

enum {
  TE_MAX_RANK = 6,
  TE_MAX_REDUCE_AXES = 4,
  TE_MAX_REDUCTIONS = 16, /* per stage */
  TE_NAME_MAX = 64
};

typedef enum te_dtype { TE_F32, TE_F16, TE_BF16, TE_I32 } te_dtype_t;
/* The type an expression computes in: float16/bfloat16 compute as float. */
typedef enum te_type { TE_FLOAT, TE_INT } te_type_t;

typedef enum te_op {
  /* binary */
  TE_ADD,
  TE_SUB,
  TE_MUL,
  TE_DIV,
  TE_MAX,
  TE_MIN,
  TE_LT,
  TE_LE,
  TE_GT,
  TE_GE,
  TE_EQ,
  TE_NE,
  TE_AND,
  TE_OR,
  /* unary */
  TE_NEG,
  TE_ABS,
  TE_EXP,
  TE_LOG,
  TE_SQRT,
  TE_TANH,
  TE_ERF,
  TE_NOT,
  /* others */
  TE_SELECT,
  TE_CAST,
  TE_OP_COUNT
} te_op_t;

typedef enum te_reduce { TE_SUM, TE_RMAX, TE_RMIN } te_reduce_t;

typedef enum te_node_kind {
  TE_NODE_CONST,
  TE_NODE_LOAD,
  TE_NODE_AXIS,
  TE_NODE_OP,
  TE_NODE_REDUCE
} te_node_kind_t;

/* One index of a load: a constant or an axis (stage axes first, then the
 * stage's reduce axes). */
typedef struct te_index {
  int is_const;
  int64_t value; /* constant */
  int axis;      /* axis number */
} te_index_t;

typedef struct te_node {
  te_node_kind_t kind;
  te_type_t type;
  double real;     /* CONST of TE_FLOAT */
  int32_t integer; /* CONST of TE_INT */
  int tensor;      /* LOAD: index into the function's tensors */
  int rank;        /* LOAD */
  te_index_t index[TE_MAX_RANK];
  int axis;           /* AXIS */
  te_op_t op;         /* OP */
  te_dtype_t cast_to; /* OP TE_CAST */
  te_reduce_t reduce; /* REDUCE */
  int reduce_count;
  int reduce_axes[TE_MAX_REDUCE_AXES]; /* axis numbers */
  int arg_count;
  struct te_node *args[3];
} te_node_t;

typedef struct te_tensor {
  char name[TE_NAME_MAX + 1];
  te_dtype_t dtype;
  int rank;
  int64_t shape[TE_MAX_RANK];
  int is_stage;
  /* stages only */
  char axes[TE_MAX_RANK + TE_MAX_REDUCE_AXES][TE_NAME_MAX + 1];
  int reduce_count;
  int64_t reduce_extent[TE_MAX_REDUCE_AXES];
  te_node_t *expr;
  int output; /* position among the outputs, or -1 */
} te_tensor_t;

typedef struct te_function {
  char name[TE_NAME_MAX + 1];
  size_t tensor_count, input_count, output_count;
  te_tensor_t *tensors; /* inputs (in parameter order), then stages */
  int *order;           /* stages (tensor numbers) in dependency order */
  int *outputs;         /* tensor numbers, in parameter order */
  /* Nonzero when every stage can be split by its first axis in the same
   * blocks (one outer extent, stages read each other only at the same
   * outer index): then each block runs its rows of every stage. Otherwise
   * block 0 runs the whole function. */
  int splittable;
} te_function_t;

typedef struct te_module {
  size_t function_count;
  te_function_t *functions;
} te_module_t;

/* Parses and validates `json` (an object with "functions"). Errors name the
 * function, stage and node path. */
bp_status_t te_module_parse(const json_t *json, te_module_t **out_module);
void te_module_free(te_module_t *module);

/* Growable text. */
typedef struct te_text {
  char *data;
  size_t length, capacity;
  int failed; /* out of memory: the text is incomplete */
} te_text_t;
void te_text_printf(te_text_t *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* C source for every function of `module`, with vector_width lanes in the
 * vectorized loops. The caller frees *out_source. */
bp_status_t te_lower_to_c(const te_module_t *module, int64_t vector_width,
                          char **out_source);
/* OpenCL C source: a kernel per stage of every function and the descriptor
 * lines that group them (te_lower_opencl.c). The caller frees
 * *out_source. */
bp_status_t te_lower_to_opencl(const te_module_t *module, int64_t vector_width,
                               char **out_source);
/* CUDA C source for NVRTC, compiled for `arch` ("sm_90"): a kernel per stage
 * of every function and the descriptor lines that group them
 * (te_lower_cuda.c). The caller frees *out_source. */
bp_status_t te_lower_to_cuda(const te_module_t *module, const char *arch,
                             char **out_source);

#endif /* BACKPLANE_TARGET_TE_IR_H_ */
