/* What the C and the OpenCL C lowerings share (te_emit.c): the walk over a
 * stage's expression. An emitter binds every axis of the stage to a variable
 * a_<axis> (a long), declares each tensor as t_<name> (a pointer to its
 * storage type) and the helpers its prelude must define (bp_f16_to_f32,
 * bp_f32_to_f16, bp_bf16_to_f32, bp_f32_to_bf16, bp_f2i, bp_idiv, bp_imax,
 * bp_imin, BP_IADD, BP_ISUB, BP_IMUL, BP_INEG, BP_IABS, int32_t, INT32_MIN,
 * INT32_MAX, INFINITY), then calls te_emit_stage_body inside its loops. */
#ifndef BACKPLANE_TARGET_TE_LOWER_INTERNAL_H_
#define BACKPLANE_TARGET_TE_LOWER_INTERNAL_H_

#include "target/te/te_ir.h"

/* The names a language gives the float intrinsics. */
typedef struct te_dialect {
  const char *calls[TE_OP_COUNT]; /* TE_EXP, TE_LOG, TE_SQRT, TE_TANH, TE_ERF */
  const char *fabs;
  const char *fmax; /* with the opening parenthesis: "fmaxf(" */
  const char *fmin;
} te_dialect_t;

/* Lowering state of one function. */
typedef struct lower_ctx {
  te_text_t *text;
  const te_dialect_t *dialect;
  const te_function_t *function;
  const te_tensor_t *stage;
  int64_t vector_width; /* partial accumulators of a reduction */
  /* The stage's reductions, hoisted into temporaries r0, r1, ... */
  int reduction_count;
  const te_node_t *reductions[TE_MAX_REDUCTIONS];
} lower_ctx_t;

/* bp_f16_to_f32, bp_f32_to_f16, bp_bf16_to_f32 and bp_f32_to_bf16, for a
 * prelude that defines uint16_t, uint32_t, as_float, as_uint and rint. */
extern const char te_half_helpers[];
/* bp_f2i, bp_idiv, bp_imax, bp_imin and the BP_I* macros, for a prelude
 * (after the int32_t, uint32_t, INT32_MIN and INT32_MAX it defines). */
extern const char te_integer_helpers[];

/* "float", "int32_t" or "uint16_t" (float16 and bfloat16 bits). */
const char *te_storage_type(te_dtype_t dtype);
/* `node` (a load) as a flat element index. The first index of an
 * intermediate stage is relative to bp_lo, which the emitter defines (the
 * first row its block holds; 0 where stages are whole). */
void te_emit_index(lower_ctx_t *ctx, const te_node_t *node);
/* `node` as a value of type `to`. */
void te_emit_expr(lower_ctx_t *ctx, const te_node_t *node, te_type_t to);
int te_has_reduction(const te_node_t *node);
/* The element of ctx->stage at the bound axes: its reductions hoisted into
 * temporaries, then the store. */
void te_emit_stage_body(lower_ctx_t *ctx);

#endif /* BACKPLANE_TARGET_TE_LOWER_INTERNAL_H_ */
