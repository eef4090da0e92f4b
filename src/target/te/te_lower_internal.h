/* What the C, OpenCL C and CUDA C lowerings share (te_emit.c): the walk over
 * a stage's expression. An emitter binds every axis of the stage to a
 * variable a_<axis> (a long), declares each tensor as t_<name> (a pointer to
 * its storage type) and the helpers its prelude must define (bp_f16_to_f32,
 * bp_f32_to_f16, bp_bf16_to_f32, bp_f32_to_bf16, bp_f2i, bp_idiv, bp_imax,
 * bp_imin, BP_IADD, BP_ISUB, BP_IMUL, BP_INEG, BP_IABS, int32_t, INT32_MIN,
 * INT32_MAX, INFINITY), then calls te_emit_stage_body inside its loops.
 *
 * The device lowerings (OpenCL C, CUDA C) also share the kernel-per-stage
 * layout (te_lower_kernels.c): descriptor lines, scratch offsets and the
 * grid-stride loop over a stage's elements. */
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

/* C99's float functions (expf, fmaxf, ...): the names of C and of CUDA C
 * (te_emit.c). */
extern const te_dialect_t te_c_float_dialect;

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
 * prelude that defines uint16_t, uint32_t, as_float, as_uint, rint and
 * BP_HELPER (how a helper function is declared: `static inline`). */
extern const char te_half_helpers[];
/* bp_f2i, bp_idiv, bp_imax, bp_imin and the BP_I* macros, for a prelude
 * (after the int32_t, uint32_t, INT32_MIN, INT32_MAX and BP_HELPER it
 * defines). */
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

/* A device language of the kernel-per-stage lowerings (te_lower_kernels.c):
 * every stage of a function is a kernel `<function>__s<i>` that runs its
 * elements in a grid-stride loop, and descriptor lines (the plugin's
 * contract, docs/plugin-guide.md) say what one launch of the function runs.
 * The source is: `marker`, the language's header lines, then the helpers,
 * then per function its descriptor and its kernels. */
typedef struct te_kernel_language {
  const char *name;   /* "OpenCL C": for error messages */
  const char *marker; /* the first line, BP_*_GENERATED_MARKER */
  const char *prelude;
  const te_dialect_t *dialect;
  /* The flat index of this work-item and the number of work-items. */
  const char *global_id, *global_size;
  /* Opens kernel `stage` of ctx->function, through the declarations of
   * every tensor t_<name>: the parameters (inputs, then outputs, as
   * te_kernel_parameter numbers them) and the intermediate stages at
   * `scratch_offsets` (-1: not in scratch) of the scratch buffer. */
  void (*open_kernel)(lower_ctx_t *ctx, size_t stage,
                      const int64_t *scratch_offsets);
} te_kernel_language_t;

/* The tensor behind parameter word `p` (inputs, then outputs). */
const te_tensor_t *te_kernel_parameter(const te_function_t *function, size_t p);

/* Lowers every function of `module` to `language`, with `header` (lines
 * that follow the marker, "" for none) after the marker. The caller frees
 * *out_source. */
bp_status_t te_lower_kernels(const te_module_t *module, int64_t vector_width,
                             const te_kernel_language_t *language,
                             const char *header, char **out_source);

#endif /* BACKPLANE_TARGET_TE_LOWER_INTERNAL_H_ */
