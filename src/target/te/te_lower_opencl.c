/* Lowering the tensor-expression IR to OpenCL C: one kernel per function,
 * taking the vcpu builder's parameter block by value (the tensors' device
 * addresses as 64-bit words), so one IR and one argument block run on both.
 * One work-item per output element, in a grid-stride loop over the stage's
 * elements (any launch size covers them); an element of a reduction runs
 * its reduce axes itself (te_emit.c, shared with the C lowering). A function
 * of several stages runs in work-group 0 only, with a barrier between
 * stages; its intermediate stages (not outputs) live in local memory, as
 * much as the target's max_shared_memory_per_block allows. */
#include <stdlib.h>

#include "base/status.h"
#include "target/te/te_lower_internal.h"

static const te_dialect_t opencl_dialect = {.calls = {[TE_EXP] = "exp",
                                                      [TE_LOG] = "log",
                                                      [TE_SQRT] = "sqrt",
                                                      [TE_TANH] = "tanh",
                                                      [TE_ERF] = "erf"},
                                            .fabs = "fabs",
                                            .fmax = "fmax(",
                                            .fmin = "fmin("};

/* The helpers te_lower_internal.h names, in OpenCL C, before
 * te_integer_helpers (float16 and bfloat16 are storage only: arithmetic is
 * in float, as in the C lowering). */
static const char prelude[] =
    "typedef int int32_t;\n"
    "typedef uint uint32_t;\n"
    "typedef ushort uint16_t;\n"
    "#define INT32_MIN INT_MIN\n"
    "#define INT32_MAX INT_MAX\n"
    "\n"
    "/* bp_generated_params_t of backplane/build.h: device addresses. */\n"
    "typedef struct bp_generated_params {\n"
    "  ulong tensors[16];\n"
    "} bp_generated_params_t;\n"
    "\n"
    "static inline float bp_f16_to_f32(uint16_t h) {\n"
    "  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;\n"
    "  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;\n"
    "  if (exponent == 0)\n"
    "    return as_float(as_uint((float)mantissa * 0x1p-24f) | sign);\n"
    "  if (exponent == 31)\n"
    "    return as_float(sign | 0x7f800000u | (mantissa << 13));\n"
    "  return as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));\n"
    "}\n"
    "static inline uint16_t bp_f32_to_f16(float f) {\n"
    "  uint32_t x = as_uint(f);\n"
    "  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);\n"
    "  uint32_t magnitude = x & 0x7fffffffu;\n"
    "  if (magnitude > 0x7f800000u) return sign | 0x7e00u;\n"
    "  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;\n"
    "  if (magnitude < 0x38800000u)\n"
    "    return sign | (uint16_t)(int)rint(as_float(magnitude) * 0x1p24f);\n"
    "  magnitude += 0xc8000fffu + ((magnitude >> 13) & 1u);\n"
    "  return sign | (uint16_t)(magnitude >> 13);\n"
    "}\n"
    "static inline float bp_bf16_to_f32(uint16_t h) {\n"
    "  return as_float((uint32_t)h << 16);\n"
    "}\n"
    "static inline uint16_t bp_f32_to_bf16(float f) {\n"
    "  uint32_t x = as_uint(f);\n"
    "  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | "
    "0x40u);\n"
    "  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);\n"
    "}\n";

static int64_t element_count(const te_tensor_t *tensor) {
  int64_t elements = 1;
  for (int d = 0; d < tensor->rank; d++)
    elements *= tensor->shape[d];
  return elements;
}

/* The stage's elements, bp_first, bp_first + bp_step, ..., each with its
 * axes bound from the flat element number. */
static void emit_stage(lower_ctx_t *ctx, const te_tensor_t *stage) {
  ctx->stage = stage;
  int64_t elements = element_count(stage);
  te_text_printf(ctx->text,
                 "/* stage %s */\n"
                 "for (long bp_e = bp_first; bp_e < %lldL; bp_e += bp_step) "
                 "{\n",
                 stage->name, (long long)elements);
  int64_t stride = 1;
  for (int d = stage->rank - 1; d >= 0; d--) {
    te_text_printf(ctx->text, "const long a_%s = bp_e / %lldL %% %lldL;\n",
                   stage->axes[d], (long long)stride,
                   (long long)stage->shape[d]);
    stride *= stage->shape[d];
  }
  te_emit_stage_body(ctx);
  te_text_printf(ctx->text, "}\n");
}

static int64_t storage_bytes(te_dtype_t dtype) {
  return dtype == TE_F32 || dtype == TE_I32 ? 4 : 2;
}

/* The intermediate stages as local arrays, within `local_bytes`. */
static bp_status_t emit_intermediates(lower_ctx_t *ctx, int64_t local_bytes) {
  const te_function_t *function = ctx->function;
  int64_t used = 0;
  for (size_t s = function->input_count; s < function->tensor_count; s++) {
    const te_tensor_t *tensor = &function->tensors[s];
    if (tensor->output >= 0)
      continue;
    int64_t bytes = element_count(tensor) * storage_bytes(tensor->dtype);
    if (bytes > local_bytes - used)
      return bp_error(BP_ERR_UNSUPPORTED,
                      "IR: function '%s': intermediate stage '%s' (%lld "
                      "bytes) does not fit the %lld bytes of local memory "
                      "left of the target's max_shared_memory_per_block "
                      "(%lld); make it an output",
                      function->name, tensor->name, (long long)bytes,
                      (long long)(local_bytes - used), (long long)local_bytes);
    used += bytes;
    te_text_printf(ctx->text, "local %s t_%s[%lld];\n",
                   te_storage_type(tensor->dtype), tensor->name,
                   (long long)element_count(tensor));
  }
  return BP_OK;
}

static bp_status_t emit_kernel(lower_ctx_t *ctx, int64_t local_bytes) {
  const te_function_t *function = ctx->function;
  te_text_t *text = ctx->text;
  size_t stages = function->tensor_count - function->input_count;
  te_text_printf(text, "kernel void %s(bp_generated_params_t bp_p) {\n",
                 function->name);
  for (size_t i = 0; i < function->input_count; i++)
    te_text_printf(text,
                   "global const %s *restrict t_%s = (global const %s "
                   "*)bp_p.tensors[%zu];\n",
                   te_storage_type(function->tensors[i].dtype),
                   function->tensors[i].name,
                   te_storage_type(function->tensors[i].dtype), i);
  for (size_t o = 0; o < function->output_count; o++) {
    const te_tensor_t *tensor = &function->tensors[function->outputs[o]];
    te_text_printf(
        text, "global %s *restrict t_%s = (global %s *)bp_p.tensors[%zu];\n",
        te_storage_type(tensor->dtype), tensor->name,
        te_storage_type(tensor->dtype), function->input_count + o);
  }
  bp_status_t status = emit_intermediates(ctx, local_bytes);
  if (status != BP_OK)
    return status;
  /* Intermediate stages are whole: their rows start at 0. */
  te_text_printf(text, "const long bp_lo = 0;\n(void)bp_lo;\n");
  if (stages == 1)
    te_text_printf(text, "const long bp_first = get_global_id(0);\n"
                         "const long bp_step = get_global_size(0);\n");
  else /* stages read each other: one work-group, barriers between them */
    te_text_printf(text, "if (get_group_id(0) != 0) return;\n"
                         "const long bp_first = get_local_id(0);\n"
                         "const long bp_step = get_local_size(0);\n");
  for (size_t i = 0; i < stages; i++) {
    if (i > 0)
      te_text_printf(text,
                     "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n");
    emit_stage(ctx, &function->tensors[function->order[i]]);
  }
  te_text_printf(text, "}\n\n");
  return BP_OK;
}

bp_status_t te_lower_to_opencl(const te_module_t *module, int64_t vector_width,
                               int64_t local_bytes, char **out_source) {
  te_text_t text = {0};
  te_text_printf(
      &text, "/* Generated by Backplane from tensor-expression IR. */\n%s%s",
      prelude, te_integer_helpers);
  bp_status_t status = BP_OK;
  for (size_t f = 0; status == BP_OK && f < module->function_count; f++) {
    lower_ctx_t ctx = {&text, &opencl_dialect, &module->functions[f],
                       NULL,  vector_width,    0,
                       {NULL}};
    status = emit_kernel(&ctx, local_bytes);
  }
  if (status == BP_OK && text.failed)
    status = bp_error(BP_ERR_OUT_OF_MEMORY,
                      "IR: out of memory lowering to OpenCL C");
  if (status != BP_OK) {
    free(text.data);
    return status;
  }
  *out_source = text.data;
  return BP_OK;
}
