/* Generated functions (generated_module.h): a launch runs the stage kernels
 * in order on the stream, each over min(blocks, what its elements need)
 * blocks of its threads, all taking the launch's parameter block by value
 * and one scratch buffer for the intermediate stages. The scratch comes
 * from the device's stream-ordered pool (cudaMallocAsync) and goes back in
 * stream order after the last stage, so two launches of one function, on
 * one stream or several, never share it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_internal.h"

C_Status cu_generated_function(const cu_driver_t *driver,
                               struct BP_KernelModule_st *module,
                               const char *name,
                               struct BP_KernelFunction_st **out) {
  const cu_generated_function_t *generated = NULL;
  for (size_t f = 0; f < module->generated.function_count && !generated; ++f)
    if (strcmp(module->generated.functions[f].name, name) == 0)
      generated = &module->generated.functions[f];
  if (!generated)
    return cu_fail(C_FAILED, "cuda: the generated module has no function %s",
                   name);
  struct BP_KernelFunction_st *function =
      calloc(1, sizeof *function + strlen(name) + 1);
  cu_kernel_t *stages =
      function ? calloc(generated->stage_count, sizeof *stages) : NULL;
  if (!stages) {
    free(function);
    return cu_fail(C_FAILED, "out of host memory");
  }
  C_Status status = C_SUCCESS;
  for (size_t s = 0; status == C_SUCCESS && s < generated->stage_count; ++s)
    status =
        cu_kernel_find(driver, module, generated->stages[s].kernel, &stages[s]);
  if (status != C_SUCCESS) {
    free(stages);
    free(function);
    return status;
  }
  function->generated = generated;
  function->stages = stages;
  strcpy(function->name, name);
  *out = function;
  return C_SUCCESS;
}

/* The parameter block as the stage kernels take it, by value: the first
 * param_count words of the host's block, the rest zero. */
typedef struct stage_params {
  uint64_t words[CU_GENERATED_MAX_PARAMS];
} stage_params_t;

static C_Status read_params(const cu_generated_function_t *generated,
                            const void *args, size_t args_size,
                            stage_params_t *params) {
  memset(params, 0, sizeof *params);
  if (args_size < generated->param_count * sizeof(uint64_t))
    return cu_fail(C_ERROR,
                   "cuda launch %s: the param block has %zu bytes, but the "
                   "function takes %zu device pointers "
                   "(bp_generated_params_t)",
                   generated->name, args_size, generated->param_count);
  memcpy(params->words, args, generated->param_count * sizeof(uint64_t));
  for (size_t p = 0; p < generated->param_count; ++p)
    if (params->words[p] == 0)
      return cu_fail(C_ERROR,
                     "cuda launch %s: tensor %zu of the param block (%llu "
                     "bytes) is NULL",
                     generated->name, p,
                     (unsigned long long)generated->param_bytes[p]);
  return C_SUCCESS;
}

C_Status cu_generated_launch(const cu_driver_t *driver,
                             struct C_Stream_st *stream,
                             const struct BP_KernelFunction_st *function,
                             uint32_t blocks, const void *args,
                             size_t args_size) {
  const cu_generated_function_t *generated = function->generated;
  stage_params_t params;
  C_Status status = read_params(generated, args, args_size, &params);
  if (status != C_SUCCESS)
    return status;
  void *scratch = NULL;
  if (generated->scratch_bytes) {
    cudaError_t e = cudaMallocAsync(&scratch, (size_t)generated->scratch_bytes,
                                    stream->stream);
    if (e != cudaSuccess) {
      char what[256];
      snprintf(what, sizeof what,
               "cuda launch %s: cudaMallocAsync of its %llu bytes of scratch",
               generated->name, (unsigned long long)generated->scratch_bytes);
      return cu_fail_cuda(e, what);
    }
  }
  void *kernel_params[] = {&params, &scratch};
  CUresult r = CUDA_SUCCESS;
  size_t s = 0;
  for (; r == CUDA_SUCCESS && s < generated->stage_count; ++s) {
    const cu_kernel_t *stage = &function->stages[s];
    uint64_t needed =
        (generated->stages[s].items + stage->threads - 1) / stage->threads;
    unsigned grid = needed == 0       ? 1
                    : needed < blocks ? (unsigned)needed
                                      : blocks;
    r = driver->launch_kernel(stage->function, grid, 1, 1, stage->threads, 1, 1,
                              0, (CUstream)stream->stream, kernel_params, NULL);
  }
  if (scratch)
    (void)cudaFreeAsync(scratch, stream->stream); /* after the stages */
  if (r != CUDA_SUCCESS) {
    char what[256];
    snprintf(what, sizeof what, "cuda launch %s: cuLaunchKernel of %s",
             generated->name, generated->stages[s - 1].kernel);
    return cu_fail_driver(driver, r, what);
  }
  return C_SUCCESS;
}
