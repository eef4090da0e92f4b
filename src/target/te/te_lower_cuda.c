/* Lowering the tensor-expression IR to CUDA C: the kernel-per-stage layout
 * of te_lower_kernels.c in CUDA C, for NVRTC.
 *
 * The contract with the cuda plugin (docs/cuda.md, "Generated modules"): the
 * first line is BP_CUDA_GENERATED_MARKER, the second `//@bp arch <arch>`
 * (the target's, which NVRTC compiles for), then the descriptor lines of
 * te_lower_kernels.c. Every stage kernel is
 *
 *   extern "C" __global__ void <function>__s<i>(bp_generated_params_t bp_p,
 *                                                unsigned char *bp_scratch)
 *
 * taking the launch's parameter block by value (its words are device
 * pointers: CUDA's unified addressing needs no translation) and the
 * per-launch scratch buffer. Work-item e of a stage is thread threadIdx.x of
 * block blockIdx.x (e = blockIdx.x * blockDim.x + threadIdx.x), stepping by
 * gridDim.x * blockDim.x: the plugin launches each stage on the launch's
 * grid of `blocks` blocks with as many threads per block as it chooses. */
#include <stdlib.h>

#include "backplane/kernel_ext.h"
#include "base/status.h"
#include "target/te/te_lower_internal.h"

/* What te_lower_internal.h's helpers need, in CUDA C without headers
 * (NVRTC has none by default), and the parameter block. float16 and
 * bfloat16 are storage only: arithmetic is in float, as on the other
 * builders. */
static const char prelude[] =
    "typedef int int32_t;\n"
    "typedef unsigned int uint32_t;\n"
    "typedef unsigned short uint16_t;\n"
    "#define INT32_MIN (-2147483647 - 1)\n"
    "#define INT32_MAX 2147483647\n"
    "#ifndef INFINITY\n"
    "#define INFINITY __int_as_float(0x7f800000)\n"
    "#endif\n"
    "#define BP_HELPER static __device__ __forceinline__\n"
    "BP_HELPER float as_float(uint32_t u) { return __uint_as_float(u); }\n"
    "BP_HELPER uint32_t as_uint(float f) { return __float_as_uint(f); }\n"
    "#define rint rintf\n"
    "struct bp_generated_params_t {\n"
    "  void *tensors[16];\n"
    "};\n"
    "\n";

static void open_kernel(lower_ctx_t *ctx, size_t stage,
                        const int64_t *offsets) {
  const te_function_t *function = ctx->function;
  te_text_t *text = ctx->text;
  te_text_printf(text,
                 "extern \"C\" __global__ void %s__s%zu("
                 "bp_generated_params_t bp_p, unsigned char *bp_scratch) {\n",
                 function->name, stage);
  for (size_t p = 0; p < function->input_count + function->output_count; p++) {
    const te_tensor_t *tensor = te_kernel_parameter(function, p);
    const char *type = te_storage_type(tensor->dtype);
    const char *constness = p < function->input_count ? "const " : "";
    te_text_printf(text,
                   "%s%s *__restrict__ t_%s = (%s%s *)bp_p.tensors[%zu];\n",
                   constness, type, tensor->name, constness, type, p);
  }
  for (size_t t = 0; t < function->tensor_count; t++)
    if (offsets[t] >= 0)
      te_text_printf(
          text, "%s *__restrict__ t_%s = (%s *)(bp_scratch + %lldL);\n",
          te_storage_type(function->tensors[t].dtype),
          function->tensors[t].name,
          te_storage_type(function->tensors[t].dtype), (long long)offsets[t]);
}

static const te_kernel_language_t cuda_language = {
    .name = "CUDA C",
    .marker = BP_CUDA_GENERATED_MARKER,
    .prelude = prelude,
    .dialect = &te_c_float_dialect,
    .global_id = "(long)blockIdx.x * blockDim.x + threadIdx.x",
    .global_size = "(long)gridDim.x * blockDim.x",
    .open_kernel = open_kernel,
};

bp_status_t te_lower_to_cuda(const te_module_t *module, const char *arch,
                             char **out_source) {
  te_text_t header = {0};
  te_text_printf(&header, "//@bp arch %s\n", arch);
  if (header.failed)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory lowering to "
                                          "CUDA C");
  /* One accumulator per reduction: a thread runs its element's reduce axes,
   * and threads, not lanes, give the parallelism. */
  bp_status_t status =
      te_lower_kernels(module, 1, &cuda_language, header.data, out_source);
  free(header.data);
  return status;
}
