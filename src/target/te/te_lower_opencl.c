/* Lowering the tensor-expression IR to OpenCL C: a kernel per stage, run
 * in order on one in-order queue, so one IR and one argument block
 * (bp_generated_params_t) run on both the vcpu and the opencl builder.
 *
 * The contract with the plugin that loads the source (docs/plugin-guide.md,
 * "Generated OpenCL modules"): the first line is BP_OPENCL_GENERATED_MARKER,
 * and a descriptor line per function names what one launch of it runs:
 *
 *   //@bp function <name> params <n> <bytes>... scratch <bytes> stages <k>
 *   //@bp stage <kernel> items <elements>        (k lines, in run order)
 *
 * Every stage kernel takes, for each of the n tensors of the parameter
 * block (inputs, then outputs), a `global uchar *` and a `ulong` byte
 * offset, then one `global uchar *` scratch buffer of <bytes> that holds
 * the intermediate stages (not outputs) at offsets the kernel knows. The
 * plugin maps each parameter word (a device pointer) to an SVM pointer or
 * to a (cl_mem, offset) pair, so the same param block works on the SVM and
 * the buffer memory path, and allocates the scratch per launch.
 *
 * A stage runs one work-item per output element (a reduction's element
 * runs its reduce axes itself, te_emit.c), in a grid-stride loop, so any
 * launch size covers it. */
#include <stdlib.h>

#include "backplane/kernel_ext.h"
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

/* The types te_lower_internal.h's helpers need, in OpenCL C, before
 * te_half_helpers and te_integer_helpers (float16 and bfloat16 are storage
 * only: arithmetic is in float, as in the C lowering). */
static const char prelude[] = "typedef int int32_t;\n"
                              "typedef uint uint32_t;\n"
                              "typedef ushort uint16_t;\n"
                              "#define INT32_MIN INT_MIN\n"
                              "#define INT32_MAX INT_MAX\n"
                              "\n";

static int64_t element_count(const te_tensor_t *tensor) {
  int64_t elements = 1;
  for (int d = 0; d < tensor->rank; d++)
    elements *= tensor->shape[d];
  return elements;
}

/* The stage's elements, bp_first, bp_first + bp_step, ..., each with its
 * axes bound from the flat element number. */
static void emit_stage_loop(lower_ctx_t *ctx) {
  const te_tensor_t *stage = ctx->stage;
  te_text_printf(ctx->text,
                 "const long bp_first = get_global_id(0);\n"
                 "const long bp_step = get_global_size(0);\n"
                 "for (long bp_e = bp_first; bp_e < %lldL; bp_e += bp_step) "
                 "{\n",
                 (long long)element_count(stage));
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

/* Where each intermediate stage starts in the scratch buffer (256-byte
 * aligned; -1 for inputs and outputs); returns the scratch size. */
static int64_t place_intermediates(const te_function_t *function,
                                   int64_t *offsets) {
  int64_t used = 0;
  for (size_t t = 0; t < function->tensor_count; t++) {
    const te_tensor_t *tensor = &function->tensors[t];
    offsets[t] = -1;
    if (t < function->input_count || tensor->output >= 0)
      continue;
    offsets[t] = used;
    used += (element_count(tensor) * storage_bytes(tensor->dtype) + 255) / 256 *
            256;
  }
  return used;
}

/* The tensor behind parameter word `p` (inputs, then outputs). */
static const te_tensor_t *parameter(const te_function_t *function, size_t p) {
  return p < function->input_count
             ? &function->tensors[p]
             : &function->tensors[function->outputs[p - function->input_count]];
}

static void emit_descriptor(te_text_t *text, const te_function_t *function,
                            int64_t scratch) {
  size_t params = function->input_count + function->output_count;
  te_text_printf(text, "//@bp function %s params %zu", function->name, params);
  for (size_t p = 0; p < params; p++) {
    const te_tensor_t *tensor = parameter(function, p);
    te_text_printf(
        text, " %lld",
        (long long)(element_count(tensor) * storage_bytes(tensor->dtype)));
  }
  size_t stages = function->tensor_count - function->input_count;
  te_text_printf(text, " scratch %lld stages %zu\n", (long long)scratch,
                 stages);
  for (size_t i = 0; i < stages; i++)
    te_text_printf(
        text, "//@bp stage %s__s%zu items %lld\n", function->name, i,
        (long long)element_count(&function->tensors[function->order[i]]));
}

/* Stage `i` of the function: the tensors from the arguments, then its loop. */
static void emit_stage_kernel(lower_ctx_t *ctx, size_t i,
                              const int64_t *offsets) {
  const te_function_t *function = ctx->function;
  te_text_t *text = ctx->text;
  size_t params = function->input_count + function->output_count;
  te_text_printf(text, "kernel void %s__s%zu(", function->name, i);
  for (size_t p = 0; p < params; p++)
    te_text_printf(text, "global uchar *bp_b%zu, ulong bp_o%zu, ", p, p);
  te_text_printf(text, "global uchar *bp_scratch) {\n");
  for (size_t p = 0; p < params; p++) {
    const te_tensor_t *tensor = parameter(function, p);
    const char *type = te_storage_type(tensor->dtype);
    const char *constness = p < function->input_count ? "const " : "";
    te_text_printf(text,
                   "global %s%s *restrict t_%s = (global %s%s *)(bp_b%zu + "
                   "bp_o%zu);\n",
                   constness, type, tensor->name, constness, type, p, p);
  }
  for (size_t t = 0; t < function->tensor_count; t++)
    if (offsets[t] >= 0)
      te_text_printf(text,
                     "global %s *restrict t_%s = (global %s *)(bp_scratch + "
                     "%lldL);\n",
                     te_storage_type(function->tensors[t].dtype),
                     function->tensors[t].name,
                     te_storage_type(function->tensors[t].dtype),
                     (long long)offsets[t]);
  /* Intermediate stages are whole: their rows start at 0. */
  te_text_printf(text, "const long bp_lo = 0;\n(void)bp_lo;\n");
  ctx->stage = &function->tensors[function->order[i]];
  emit_stage_loop(ctx);
  te_text_printf(text, "}\n\n");
}

static bp_status_t emit_function(lower_ctx_t *ctx) {
  const te_function_t *function = ctx->function;
  int64_t *offsets = calloc(function->tensor_count, sizeof(*offsets));
  if (!offsets)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "IR: out of memory lowering to OpenCL C");
  emit_descriptor(ctx->text, function, place_intermediates(function, offsets));
  for (size_t i = 0; i < function->tensor_count - function->input_count; i++)
    emit_stage_kernel(ctx, i, offsets);
  free(offsets);
  return BP_OK;
}

bp_status_t te_lower_to_opencl(const te_module_t *module, int64_t vector_width,
                               char **out_source) {
  te_text_t text = {0};
  te_text_printf(&text,
                 "%s\n/* Generated by Backplane from tensor-expression IR. "
                 "*/\n%s%s%s",
                 BP_OPENCL_GENERATED_MARKER, prelude, te_half_helpers,
                 te_integer_helpers);
  bp_status_t status = BP_OK;
  for (size_t f = 0; status == BP_OK && f < module->function_count; f++) {
    lower_ctx_t ctx = {&text, &opencl_dialect, &module->functions[f],
                       NULL,  vector_width,    0,
                       {NULL}};
    status = emit_function(&ctx);
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
