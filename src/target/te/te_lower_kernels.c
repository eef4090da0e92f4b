/* The kernel-per-stage layout the device lowerings share (OpenCL C in
 * te_lower_opencl.c, CUDA C in te_lower_cuda.c): a kernel per stage, run in
 * order on one in-order stream by the plugin that loads the source, so one
 * IR and one argument block (bp_generated_params_t) run on the vcpu builder
 * and on every device builder.
 *
 * After the language's marker line, a descriptor line per function names
 * what one launch of it runs (docs/plugin-guide.md, "Generated OpenCL
 * modules"; the cuda plugin reads the same lines):
 *
 *   //@bp function <name> params <n> <bytes>... scratch <bytes> stages <k>
 *   //@bp stage <kernel> items <elements>        (k lines, in run order)
 *
 * The first n words of the parameter block are the tensors (inputs, then
 * outputs) of the given sizes; the intermediate stages (not outputs) live in
 * one scratch buffer of <bytes> that the plugin allocates per launch, at
 * 256-byte aligned offsets the kernels know. A stage runs one work-item per
 * output element (a reduction's element runs its reduce axes itself,
 * te_emit.c), in a grid-stride loop, so any launch size covers it. */
#include <stdlib.h>

#include "base/status.h"
#include "target/te/te_lower_internal.h"

static int64_t element_count(const te_tensor_t *tensor) {
  int64_t elements = 1;
  for (int d = 0; d < tensor->rank; d++)
    elements *= tensor->shape[d];
  return elements;
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

const te_tensor_t *te_kernel_parameter(const te_function_t *function,
                                       size_t p) {
  return p < function->input_count
             ? &function->tensors[p]
             : &function->tensors[function->outputs[p - function->input_count]];
}

static void emit_descriptor(te_text_t *text, const te_function_t *function,
                            int64_t scratch) {
  size_t params = function->input_count + function->output_count;
  te_text_printf(text, "//@bp function %s params %zu", function->name, params);
  for (size_t p = 0; p < params; p++) {
    const te_tensor_t *tensor = te_kernel_parameter(function, p);
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

/* The stage's elements, bp_first, bp_first + bp_step, ..., each with its
 * axes bound from the flat element number. */
static void emit_stage_loop(lower_ctx_t *ctx,
                            const te_kernel_language_t *language) {
  const te_tensor_t *stage = ctx->stage;
  te_text_printf(ctx->text,
                 "const long bp_first = %s;\n"
                 "const long bp_step = %s;\n"
                 "for (long bp_e = bp_first; bp_e < %lldL; bp_e += bp_step) "
                 "{\n",
                 language->global_id, language->global_size,
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

static bp_status_t emit_function(lower_ctx_t *ctx,
                                 const te_kernel_language_t *language) {
  const te_function_t *function = ctx->function;
  int64_t *offsets = calloc(function->tensor_count, sizeof(*offsets));
  if (!offsets)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory lowering to %s",
                    language->name);
  emit_descriptor(ctx->text, function, place_intermediates(function, offsets));
  for (size_t i = 0; i < function->tensor_count - function->input_count; i++) {
    language->open_kernel(ctx, i, offsets);
    /* Intermediate stages are whole: their rows start at 0. */
    te_text_printf(ctx->text, "const long bp_lo = 0;\n(void)bp_lo;\n");
    ctx->stage = &function->tensors[function->order[i]];
    emit_stage_loop(ctx, language);
    te_text_printf(ctx->text, "}\n\n");
  }
  free(offsets);
  return BP_OK;
}

bp_status_t te_lower_kernels(const te_module_t *module, int64_t vector_width,
                             const te_kernel_language_t *language,
                             const char *header, char **out_source) {
  te_text_t text = {0};
  te_text_printf(&text,
                 "%s\n%s/* Generated by Backplane from tensor-expression IR. "
                 "*/\n%s%s%s",
                 language->marker, header, language->prelude, te_half_helpers,
                 te_integer_helpers);
  bp_status_t status = BP_OK;
  for (size_t f = 0; status == BP_OK && f < module->function_count; f++) {
    lower_ctx_t ctx = {&text, language->dialect, &module->functions[f],
                       NULL,  vector_width,      0,
                       {NULL}};
    status = emit_function(&ctx, language);
  }
  if (status == BP_OK && text.failed)
    status = bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory lowering to %s",
                      language->name);
  if (status != BP_OK) {
    free(text.data);
    return status;
  }
  *out_source = text.data;
  return BP_OK;
}
