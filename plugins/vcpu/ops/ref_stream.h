/* Streaming (non-temporal) stores for outputs too large to stay in the
 * last-level cache. An ordinary store first reads the line it writes (write
 * allocate): an op writing far more than the cache holds moves each output
 * line twice. A streaming store writes the line without reading it, and
 * without keeping it cached; the elementwise engine's float32 copies
 * (copy, cast), add, sub, mul, div and sigmoid (ref_f32_sigmoid_stream)
 * use them for outputs of at least ref_stream_min_bytes(). */
#ifndef BACKPLANE_REF_OPS_STREAM_H_
#define BACKPLANE_REF_OPS_STREAM_H_

#include <stddef.h>
#include <stdint.h>

/* The output size from which ops stream their stores: the environment
 * variable BACKPLANE_OPS_STREAM_BYTES when set to a positive count, else
 * the last-level cache's size (Linux's sysfs cache description; 32 MiB when
 * it cannot be read). Read once per process; thread-safe. */
size_t ref_stream_min_bytes(void);

/* dst[0, n) = src[0, n) through streaming stores (ordinary ones for the
 * few elements before dst's first vector-aligned address and after its
 * last). dst and src do not overlap, or dst == src. The stores are weakly
 * ordered: the thread calls ref_stream_fence() before another thread may
 * read dst. Thread-safe. */
void ref_stream_store(float *dst, const float *src, int64_t n);

/* The float32 binary ops of the elementwise engine through streaming
 * stores, with its f32 signature: out[i] = in[0][i] OP in[1][i] for i in
 * [0, n). add: in[0] + params[0] * in[1] (no fused multiply-add, as the
 * engine's own loop rounds it); div: params[1] must be no rounding mode.
 * Same ordering rule as ref_stream_store. Thread-safe. */
void ref_stream_add_f32(float *out, const float *const *in, int64_t n,
                        const double *params);
void ref_stream_mul_f32(float *out, const float *const *in, int64_t n,
                        const double *params);
void ref_stream_div_f32(float *out, const float *const *in, int64_t n,
                        const double *params);

/* Orders the calling thread's streaming stores before its later stores
 * (and the release that publishes its work). */
void ref_stream_fence(void);

#endif /* BACKPLANE_REF_OPS_STREAM_H_ */
