/* CUDA C source to device code with NVRTC. Needs no GPU and no driver, so
 * the unit tests run it everywhere. */
#ifndef BACKPLANE_CUDA_NVRTC_COMPILE_H_
#define BACKPLANE_CUDA_NVRTC_COMPILE_H_

#include <stddef.h>

#include "backplane/device_ext.h"

/* Compiles the `size` bytes of CUDA C at `source` (need not end in NUL) for
 * `arch`: a real architecture ("sm_90") gives a cubin, a virtual one
 * ("compute_90") NUL-terminated PTX. On success *out_image (malloc'd; the
 * caller frees it) and *out_size (bytes, PTX's NUL included). C_ERROR when
 * the source does not compile, with "NVRTC could not compile <name> for
 * <arch>: <the build log>" in cu_last_error; C_FAILED when out of memory or
 * NVRTC fails otherwise. `name` names the source in the log. Thread-safe. */
C_Status cu_nvrtc_compile(const char *source, size_t size, const char *name,
                          const char *arch, char **out_image, size_t *out_size);

#endif /* BACKPLANE_CUDA_NVRTC_COMPILE_H_ */
