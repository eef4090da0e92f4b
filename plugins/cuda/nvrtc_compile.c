/* NVRTC compilation. */
#include "nvrtc_compile.h"

#include <nvrtc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu.h"

static C_Status nvrtc_failed(nvrtcResult r, const char *what) {
  return cu_fail(r == NVRTC_ERROR_OUT_OF_MEMORY ? C_FAILED : C_INTERNAL_ERROR,
                 "%s: %s", what, nvrtcGetErrorString(r));
}

/* The build log of a failed compilation as the calling thread's message. */
static C_Status compile_failed(nvrtcProgram program, const char *name,
                               const char *arch) {
  size_t log_size = 0;
  char *log = NULL;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS &&
      (log = malloc(log_size + 1)) != NULL &&
      nvrtcGetProgramLog(program, log) == NVRTC_SUCCESS)
    log[log_size] = '\0';
  C_Status status = cu_fail(C_ERROR, "NVRTC could not compile %s for %s: %s",
                            name, arch, log ? log : "(no build log)");
  free(log);
  return status;
}

/* The compiled image: a cubin for sm_*, PTX otherwise. */
static C_Status take_image(nvrtcProgram program, bool cubin, char **out_image,
                           size_t *out_size) {
  size_t size = 0;
  nvrtcResult r = cubin ? nvrtcGetCUBINSize(program, &size)
                        : nvrtcGetPTXSize(program, &size);
  if (r != NVRTC_SUCCESS)
    return nvrtc_failed(r, "nvrtcGet*Size");
  char *image = malloc(size ? size : 1);
  if (!image)
    return cu_fail(C_FAILED, "out of host memory");
  r = cubin ? nvrtcGetCUBIN(program, image) : nvrtcGetPTX(program, image);
  if (r != NVRTC_SUCCESS) {
    free(image);
    return nvrtc_failed(r, cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX");
  }
  *out_image = image;
  *out_size = size;
  return C_SUCCESS;
}

C_Status cu_nvrtc_compile(const char *source, size_t size, const char *name,
                          const char *arch, char **out_image,
                          size_t *out_size) {
  if (!source || !arch || !out_image || !out_size)
    return cu_fail(C_ERROR, "cuda: NVRTC compile: %s is NULL",
                   !source ? "source"
                   : !arch ? "arch"
                           : "an out-pointer");
  char *text = malloc(size + 1); /* NVRTC reads a NUL-terminated string */
  if (!text)
    return cu_fail(C_FAILED, "out of host memory");
  memcpy(text, source, size);
  text[size] = '\0';
  nvrtcProgram program = NULL;
  nvrtcResult r = nvrtcCreateProgram(&program, text, name ? name : "module.cu",
                                     0, NULL, NULL);
  free(text);
  if (r != NVRTC_SUCCESS)
    return nvrtc_failed(r, "nvrtcCreateProgram");
  char arch_option[64];
  snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", arch);
  const char *options[] = {arch_option, "--std=c++17"};
  r = nvrtcCompileProgram(program, 2, options);
  C_Status status =
      r == NVRTC_SUCCESS ? take_image(program, strncmp(arch, "sm_", 3) == 0,
                                      out_image, out_size)
      : r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION
          ? compile_failed(program, name ? name : "module.cu", arch)
          : nvrtc_failed(r, "nvrtcCompileProgram");
  nvrtcDestroyProgram(&program);
  return status;
}
