/* The op library's kernels: their CUDA C source (kernels/co_kernel_args.h
 * then kernels/co_kernels.cu, embedded at build time as co_kernel_source)
 * and their names, which the device code spells `extern "C"`. */
#ifndef BACKPLANE_CUDA_OPS_KERNELS_H_
#define BACKPLANE_CUDA_OPS_KERNELS_H_

#include <stddef.h>

typedef enum co_kernel {
  CO_K_STRIDED,
  CO_K_RELU,
  CO_K_THRESHOLD_BACKWARD,
  CO_K_BIAS_FILL,
  CO_K_CHANNEL_SUM,
  CO_K_CROSS_ENTROPY,
  CO_K_LOSS_REDUCE,
  CO_K_CROSS_ENTROPY_BACKWARD,
  CO_K_ARGMAX,
  CO_K_ADAMW,
  CO_K_IM2COL,
  CO_K_COL2IM,
  CO_K_MAX_POOL,
  CO_K_MAX_POOL_BACKWARD,
  CO_K_COUNT
} co_kernel_t;

/* "co_strided", ...: entry k names kernel k. */
extern const char *const co_kernel_names[CO_K_COUNT];

/* NUL-terminated; co_kernel_source_size excludes the NUL. */
extern const char co_kernel_source[];
extern const size_t co_kernel_source_size;

#endif /* BACKPLANE_CUDA_OPS_KERNELS_H_ */
