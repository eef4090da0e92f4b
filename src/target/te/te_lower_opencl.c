/* Lowering the tensor-expression IR to OpenCL C: the kernel-per-stage layout
 * of te_lower_kernels.c in OpenCL C.
 *
 * The contract with the plugin that loads the source (docs/plugin-guide.md,
 * "Generated OpenCL modules"): the first line is BP_OPENCL_GENERATED_MARKER,
 * then the descriptor lines of te_lower_kernels.c. Every stage kernel takes,
 * for each of the n tensors of the parameter block (inputs, then outputs), a
 * `global uchar *` and a `ulong` byte offset, then one `global uchar *`
 * scratch buffer. The plugin maps each parameter word (a device pointer) to
 * an SVM pointer or to a (cl_mem, offset) pair, so the same param block
 * works on the SVM and the buffer memory path. */
#include "backplane/kernel_ext.h"
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
                              "#define BP_HELPER static inline\n"
                              "\n";

static void open_kernel(lower_ctx_t *ctx, size_t stage,
                        const int64_t *offsets) {
  const te_function_t *function = ctx->function;
  te_text_t *text = ctx->text;
  size_t params = function->input_count + function->output_count;
  te_text_printf(text, "kernel void %s__s%zu(", function->name, stage);
  for (size_t p = 0; p < params; p++)
    te_text_printf(text, "global uchar *bp_b%zu, ulong bp_o%zu, ", p, p);
  te_text_printf(text, "global uchar *bp_scratch) {\n");
  for (size_t p = 0; p < params; p++) {
    const te_tensor_t *tensor = te_kernel_parameter(function, p);
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
}

static const te_kernel_language_t opencl_language = {
    .name = "OpenCL C",
    .marker = BP_OPENCL_GENERATED_MARKER,
    .prelude = prelude,
    .dialect = &opencl_dialect,
    .global_id = "get_global_id(0)",
    .global_size = "get_global_size(0)",
    .open_kernel = open_kernel,
};

bp_status_t te_lower_to_opencl(const te_module_t *module, int64_t vector_width,
                               char **out_source) {
  return te_lower_kernels(module, vector_width, &opencl_language, "",
                          out_source);
}
