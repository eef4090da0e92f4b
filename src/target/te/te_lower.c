/* Lowering the tensor-expression IR to C. Each stage becomes a loop nest
 * over its axes: the first axis split into the launch's blocks, the last one
 * a simple loop over restrict pointers that gcc -O3 vectorizes (with
 * `omp simd` when the body has no reduction). A reduction is hoisted before
 * the store and, over its innermost axis, kept in vector_width partial
 * accumulators so it vectorizes without reassociating the caller's math
 * (te_emit.c, shared with the OpenCL C lowering). */
#include <stdio.h>
#include <stdlib.h>

#include "base/status.h"
#include "target/te/te_lower_internal.h"

/* Headers, the parameter block, the device API and the float16/bfloat16
 * bit casts the float16/bfloat16 conversions use (te_half_helpers and
 * te_integer_helpers follow). */
static const char prelude[] =
    "#include <math.h>\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "\n"
    "typedef struct bp_generated_params {\n"
    "  void *tensors[16];\n"
    "} bp_generated_params_t;\n"
    "\n"
    "/* The head of bp_kernel_device_api_t (backplane/kernel_types.h; its\n"
    " * fields are only appended), which the plugin points this weak symbol\n"
    " * at when it loads the module, as backplane/kernel_device.h does. */\n"
    "typedef struct bp_device_api_head {\n"
    "  size_t struct_size;\n"
    "  uint32_t (*block_index)(void);\n"
    "  uint32_t (*block_count)(void);\n"
    "} bp_device_api_head_t;\n"
    "__attribute__((weak, visibility(\"default\")))\n"
    "const bp_device_api_head_t *bp_kernel_device_api;\n"
    "\n"
    "#define BP_HELPER static inline\n"
    "static inline float as_float(uint32_t u) {\n"
    "  float f;\n"
    "  memcpy(&f, &u, 4);\n"
    "  return f;\n"
    "}\n"
    "static inline uint32_t as_uint(float f) {\n"
    "  uint32_t u;\n"
    "  memcpy(&u, &f, 4);\n"
    "  return u;\n"
    "}\n";

static void emit_stage(lower_ctx_t *ctx, const te_tensor_t *stage) {
  ctx->stage = stage;
  te_text_printf(ctx->text, "/* stage %s */\n", stage->name);
  for (int d = 0; d < stage->rank; d++) {
    if (d == stage->rank - 1 && stage->rank > 1 &&
        !te_has_reduction(stage->expr))
      te_text_printf(ctx->text, "#pragma omp simd simdlen(%lld)\n",
                     (long long)ctx->vector_width);
    if (d == 0)
      te_text_printf(ctx->text,
                     "for (long a_%s = bp_lo; a_%s < bp_hi; a_%s++) {\n",
                     stage->axes[0], stage->axes[0], stage->axes[0]);
    else
      te_text_printf(ctx->text, "for (long a_%s = 0; a_%s < %lldL; a_%s++) {\n",
                     stage->axes[d], stage->axes[d], (long long)stage->shape[d],
                     stage->axes[d]);
  }
  te_emit_stage_body(ctx);
  for (int d = 0; d < stage->rank; d++)
    te_text_printf(ctx->text, "}\n");
}

static void emit_function(lower_ctx_t *ctx) {
  const te_function_t *function = ctx->function;
  te_text_t *text = ctx->text;
  int64_t outer = function->tensors[function->input_count].shape[0];
  te_text_printf(text,
                 "__attribute__((visibility(\"default\")))\n"
                 "unsigned int %s(void *param) {\n"
                 "const bp_generated_params_t *bp_p = param;\n"
                 "const uint32_t bp_launched = bp_kernel_device_api ? "
                 "bp_kernel_device_api->block_count() : 0;\n"
                 "const uint32_t bp_count = bp_launched ? bp_launched : 1;\n"
                 "const uint32_t bp_index = bp_launched ? "
                 "bp_kernel_device_api->block_index() : 0;\n"
                 "if (bp_index >= bp_count) return 1;\n",
                 function->name);
  if (function->splittable)
    te_text_printf(text,
                   "const long bp_lo = (long)(%lldLL * bp_index / "
                   "bp_count);\n"
                   "const long bp_hi = (long)(%lldLL * (bp_index + 1) "
                   "/ bp_count);\n",
                   (long long)outer, (long long)outer);
  else
    te_text_printf(text, "if (bp_index != 0) return 0;\n"
                         "const long bp_lo = 0;\n");
  for (size_t i = 0; i < function->input_count; i++)
    te_text_printf(text, "const %s *restrict t_%s = bp_p->tensors[%zu];\n",
                   te_storage_type(function->tensors[i].dtype),
                   function->tensors[i].name, i);
  for (size_t o = 0; o < function->output_count; o++) {
    const te_tensor_t *tensor = &function->tensors[function->outputs[o]];
    te_text_printf(text, "%s *restrict t_%s = bp_p->tensors[%zu];\n",
                   te_storage_type(tensor->dtype), tensor->name,
                   function->input_count + o);
  }
  /* Intermediate stages: the block's rows only, on the heap. */
  te_text_printf(text, "int bp_failed = 0;\n");
  for (size_t s = function->input_count; s < function->tensor_count; s++) {
    const te_tensor_t *tensor = &function->tensors[s];
    if (tensor->output >= 0)
      continue;
    int64_t row = 1;
    for (int d = 1; d < tensor->rank; d++)
      row *= tensor->shape[d];
    char rows[40];
    if (function->splittable)
      snprintf(rows, sizeof(rows), "bp_hi - bp_lo");
    else
      snprintf(rows, sizeof(rows), "%lldL", (long long)tensor->shape[0]);
    /* +1 row: a block may own no rows, and malloc(0) may return NULL. */
    te_text_printf(text,
                   "%s *restrict t_%s = malloc(sizeof(%s) * (size_t)%lldL * "
                   "(size_t)(%s + 1));\n"
                   "bp_failed |= t_%s == NULL;\n",
                   te_storage_type(tensor->dtype), tensor->name,
                   te_storage_type(tensor->dtype), (long long)row, rows,
                   tensor->name);
  }
  te_text_printf(text, "if (!bp_failed) {\n");
  for (size_t i = 0; i < function->tensor_count - function->input_count; i++) {
    const te_tensor_t *stage = &function->tensors[function->order[i]];
    if (!function->splittable)
      te_text_printf(text, "{\nconst long bp_hi = %lldL;\n",
                     (long long)stage->shape[0]);
    emit_stage(ctx, stage);
    if (!function->splittable)
      te_text_printf(text, "}\n");
  }
  te_text_printf(text, "}\n");
  for (size_t s = function->input_count; s < function->tensor_count; s++)
    if (function->tensors[s].output < 0)
      te_text_printf(text, "free(t_%s);\n", function->tensors[s].name);
  te_text_printf(text, "return bp_failed ? 2u : 0u;\n}\n\n");
}

bp_status_t te_lower_to_c(const te_module_t *module, int64_t vector_width,
                          char **out_source) {
  te_text_t text = {0};
  te_text_printf(&text,
                 "/* Generated by Backplane from tensor-expression "
                 "IR. */\n%s%s%s",
                 prelude, te_half_helpers, te_integer_helpers);
  for (size_t f = 0; f < module->function_count; f++) {
    lower_ctx_t ctx = {&text, &te_c_float_dialect, &module->functions[f],
                       NULL,  vector_width,        0,
                       {NULL}};
    emit_function(&ctx);
  }
  if (text.failed) {
    free(text.data);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory lowering to C");
  }
  *out_source = text.data;
  return BP_OK;
}
