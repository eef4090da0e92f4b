/* A host stand-in for the device side of the cuda op library, so its ops
 * run without a GPU (cuda.ops_host): the kernels of
 * plugins/cuda/ops/kernels/co_kernels.cu compiled as C++ and launched as
 * one-thread blocks (their grid-stride loops then cover every element, and
 * a block sum is the thread's own value), cuBLAS replaced by a
 * column-major reference GEMM that also enforces cuBLAS's leading-dimension
 * rules, and co_exec.h's begin, launches and scratch on host memory. Only
 * the CUDA plumbing (NVRTC, modules, streams, the real cuBLAS) is left for
 * cuda.ops_device. Not thread-safe: one op at a time. */
#include <math.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

/* The CUDA C the kernels use, on the host. */
struct co_host_dim {
  unsigned x;
};
static co_host_dim blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __shared__ static
static inline float __shfl_down_sync(unsigned, float, int) {
  return 0.f; /* one thread per block: no other lane */
}
static inline void __syncthreads() {}
static inline float __int_as_float(int bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
static inline float atomicAdd(float *address, float value) {
  float old = *address;
  *address = old + value;
  return old;
}
#undef INFINITY /* co_kernels.cu spells its own */
#undef NAN

#include "kernels/co_kernel_args.h"
#include "kernels/co_kernels.cu"
#undef CO_BLOCK

extern "C" {
#include "co_cublas.h"
#include "co_exec.h"
}

template <class Args>
static void run(void (*kernel)(Args), const void *args, unsigned blocks) {
  Args a;
  std::memcpy(&a, args, sizeof a);
  blockDim.x = 1;
  gridDim.x = blocks;
  threadIdx.x = 0;
  for (unsigned b = 0; b < blocks; b++) {
    blockIdx.x = b;
    kernel(a);
  }
}

extern "C" diopiError_t co_begin(diopiContextHandle_t ctx, const char *op,
                                 const co_view_t *const *views, int count,
                                 co_exec_t *out) {
  (void)views;
  (void)count;
  *out = co_exec_t{op, ctx, nullptr, nullptr};
  return diopiSuccess;
}

extern "C" diopiError_t co_launch_blocks(const co_exec_t *x, co_kernel_t kernel,
                                         unsigned blocks, const void *args) {
  (void)x;
  if (blocks == 0)
    return diopiSuccess;
  switch (kernel) {
  case CO_K_STRIDED:
    run(co_strided, args, blocks);
    break;
  case CO_K_RELU:
    run(co_relu, args, blocks);
    break;
  case CO_K_THRESHOLD_BACKWARD:
    run(co_threshold_backward, args, blocks);
    break;
  case CO_K_BIAS_FILL:
    run(co_bias_fill, args, blocks);
    break;
  case CO_K_CHANNEL_SUM:
    run(co_channel_sum, args, blocks);
    break;
  case CO_K_CROSS_ENTROPY:
    run(co_cross_entropy, args, blocks);
    break;
  case CO_K_LOSS_REDUCE:
    run(co_loss_reduce, args, blocks);
    break;
  case CO_K_CROSS_ENTROPY_BACKWARD:
    run(co_cross_entropy_backward, args, blocks);
    break;
  case CO_K_ARGMAX:
    run(co_argmax, args, blocks);
    break;
  case CO_K_ADAMW:
    run(co_adamw, args, blocks);
    break;
  case CO_K_IM2COL:
    run(co_im2col, args, blocks);
    break;
  case CO_K_COL2IM:
    run(co_col2im, args, blocks);
    break;
  case CO_K_MAX_POOL:
    run(co_max_pool, args, blocks);
    break;
  case CO_K_MAX_POOL_BACKWARD:
    run(co_max_pool_backward, args, blocks);
    break;
  case CO_K_COUNT:
    std::abort();
  }
  return diopiSuccess;
}

/* A grid-stride loop needs one block of one thread for any count. */
extern "C" diopiError_t co_launch(const co_exec_t *x, co_kernel_t kernel,
                                  long long elements, const void *args) {
  return co_launch_blocks(x, kernel, elements > 0 ? 1 : 0, args);
}

/* Scratch lives until exit (a test runs a handful of ops), held here so the
 * leak checker sees it owned, and freed with the program's statics. */
static struct scratch_blocks {
  std::vector<void *> blocks;
  ~scratch_blocks() {
    for (void *block : blocks)
      std::free(block);
  }
} scratch;

extern "C" diopiError_t co_scratch(const co_exec_t *x, size_t bytes,
                                   void **out) {
  (void)x;
  *out = bytes ? std::calloc(1, bytes) : nullptr;
  if (*out)
    scratch.blocks.push_back(*out);
  return *out || !bytes ? diopiSuccess : diopiErrorOccurred;
}

static float element(const float *m, int ld, int trans, int i, int j) {
  return trans ? m[j + (long)i * ld] : m[i + (long)j * ld];
}

/* cuBLAS's column-major contract; status 7 (invalid value) for a leading
 * dimension cuBLAS would refuse. */
static co_cublas_status_t
reference_batched(void *handle, int ta, int tb, int m, int n, int k,
                  const float *alpha, const float *a, int lda, long long sa,
                  const float *b, int ldb, long long sb, const float *beta,
                  float *c, int ldc, long long sc, int batch) {
  (void)handle;
  int rows_a = ta ? k : m, rows_b = tb ? n : k;
  if (lda < (rows_a > 1 ? rows_a : 1) || ldb < (rows_b > 1 ? rows_b : 1) ||
      ldc < (m > 1 ? m : 1)) {
    std::fprintf(stderr, "sgemm: lda %d, ldb %d, ldc %d break cuBLAS's rules\n",
                 lda, ldb, ldc);
    return 7;
  }
  for (int p = 0; p < batch; p++)
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        double sum = 0;
        for (int l = 0; l < k; l++)
          sum += element(a + p * sa, lda, ta, i, l) *
                 element(b + p * sb, ldb, tb, l, j);
        float *out = c + p * sc + i + (long)j * ldc;
        *out = (float)(*alpha * sum + (*beta != 0 ? *beta * *out : 0));
      }
  return 0;
}

static co_cublas_status_t reference(void *handle, int ta, int tb, int m, int n,
                                    int k, const float *alpha, const float *a,
                                    int lda, const float *b, int ldb,
                                    const float *beta, float *c, int ldc) {
  return reference_batched(handle, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0,
                           beta, c, ldc, 0, 1);
}

extern "C" const co_cublas_t *co_cublas(const char **out_reason) {
  static const co_cublas_t table = {nullptr, nullptr, reference_batched,
                                    reference, nullptr};
  *out_reason = "";
  return &table;
}

extern "C" diopiError_t co_cublas_begin(const co_exec_t *x, void **handle) {
  (void)x;
  *handle = nullptr;
  return diopiSuccess;
}

extern "C" void co_cublas_end(const co_exec_t *x) {
  (void)x;
}
