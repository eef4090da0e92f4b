/* cuBLAS, opened at run time (libcublas.so.13, .12 or the unversioned
 * name) like the driver: the library builds with no cuBLAS to link against,
 * and only the functions below are used, with opaque handles. */
#ifndef BACKPLANE_CUDA_OPS_CUBLAS_H_
#define BACKPLANE_CUDA_OPS_CUBLAS_H_

typedef int co_cublas_status_t; /* cublasStatus_t: 0 is success */
enum { CO_CUBLAS_OP_N = 0, CO_CUBLAS_OP_T = 1 };

typedef struct co_cublas {
  co_cublas_status_t (*create)(void **handle);
  co_cublas_status_t (*set_stream)(void *handle, void *stream);
  co_cublas_status_t (*sgemm_strided_batched)(
      void *handle, int trans_a, int trans_b, int m, int n, int k,
      const float *alpha, const float *a, int lda, long long stride_a,
      const float *b, int ldb, long long stride_b, const float *beta, float *c,
      int ldc, long long stride_c, int batch);
  co_cublas_status_t (*sgemm)(void *handle, int trans_a, int trans_b, int m,
                              int n, int k, const float *alpha, const float *a,
                              int lda, const float *b, int ldb,
                              const float *beta, float *c, int ldc);
  const char *(*status_string)(co_cublas_status_t status); /* may be NULL */
} co_cublas_t;

/* The table, or NULL with the reason in *out_reason (static text).
 * Thread-safe; resolved once. */
const co_cublas_t *co_cublas(const char **out_reason);

#endif /* BACKPLANE_CUDA_OPS_CUBLAS_H_ */
