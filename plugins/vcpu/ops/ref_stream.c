/* Streaming stores: the last-level cache's size and the per-ISA store
 * loops. */
#include "ref_stream.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_isa.h"

#ifdef REF_ISA_MULTIVERSION
#include <immintrin.h>
#endif

enum { DEFAULT_LLC_BYTES = 32 << 20, MAX_CACHE_INDEX = 8 };

/* The size of the highest-level cache cpu0 describes in sysfs ("32768K"),
 * or 0. (glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) can be the sum over a
 * socket's core complexes, not the cache one core sees.) */
static size_t sysfs_llc_bytes(void) {
  size_t best = 0;
  int best_level = 0;
  for (int i = 0; i < MAX_CACHE_INDEX; i++) {
    char path[96], text[32];
    int level = 0;
    unsigned long long size = 0;
    char unit = 0;
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    FILE *f = fopen(path, "r");
    if (!f)
      break;
    if (fscanf(f, "%d", &level) != 1)
      level = 0;
    fclose(f);
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    f = fopen(path, "r");
    if (!f)
      continue;
    if (fgets(text, sizeof text, f) &&
        sscanf(text, "%llu%c", &size, &unit) >= 1)
      size *= unit == 'K' ? 1024ull : unit == 'M' ? 1024ull * 1024 : 1;
    fclose(f);
    if (level > best_level && size) {
      best_level = level;
      best = (size_t)size;
    }
  }
  return best;
}

static size_t read_min_bytes(void) {
  const char *env = getenv("BACKPLANE_OPS_STREAM_BYTES");
  if (env && *env) {
    char *end;
    unsigned long long v = strtoull(env, &end, 10);
    if (*end == '\0' && v > 0)
      return (size_t)v;
  }
  size_t llc = sysfs_llc_bytes();
  return llc ? llc : DEFAULT_LLC_BYTES;
}

size_t ref_stream_min_bytes(void) {
  static _Atomic size_t chosen; /* 0: not read yet; racing reads agree */
  size_t v = atomic_load_explicit(&chosen, memory_order_relaxed);
  if (!v) {
    v = read_min_bytes();
    atomic_store_explicit(&chosen, v, memory_order_relaxed);
  }
  return v;
}

typedef enum binary { ADD, MUL, DIV } binary_t;

/* One element of a binary op, as the engine's float32 loops compute it. */
static inline float binary_one(binary_t op, float a, float b, float alpha) {
  return op == ADD ? a + alpha * b : op == MUL ? a * b : a / b;
}

#ifdef REF_ISA_MULTIVERSION
/* Ordinary stores up to dst's first `align`-byte boundary; returns how
 * many elements they took. */
static int64_t head(float *dst, const float *src, int64_t n, uintptr_t align) {
  int64_t k =
      (int64_t)(((align - ((uintptr_t)dst & (align - 1))) & (align - 1)) /
                sizeof(float));
  k = k < n ? k : n;
  if (dst != src)
    memmove(dst, src, (size_t)k * sizeof(float));
  return k;
}
static void tail(float *dst, const float *src, int64_t from, int64_t n) {
  if (dst != src && n > from)
    memmove(dst + from, src + from, (size_t)(n - from) * sizeof(float));
}

REF_TARGET_AVX512 static void store_avx512(float *dst, const float *src,
                                           int64_t n) {
  int64_t k = head(dst, src, n, 64);
  for (; k + 16 <= n; k += 16)
    _mm512_stream_ps(dst + k, _mm512_loadu_ps(src + k));
  tail(dst, src, k, n);
}
REF_TARGET_AVX2 static void store_avx2(float *dst, const float *src,
                                       int64_t n) {
  int64_t k = head(dst, src, n, 32);
  for (; k + 8 <= n; k += 8)
    _mm256_stream_ps(dst + k, _mm256_loadu_ps(src + k));
  tail(dst, src, k, n);
}
static void store_sse2(float *dst, const float *src, int64_t n) {
  int64_t k = head(dst, src, n, 16);
  for (; k + 4 <= n; k += 4)
    _mm_stream_ps(dst + k, _mm_loadu_ps(src + k));
  tail(dst, src, k, n);
}

/* The binary op's loop for one vector width: ordinary stores up to out's
 * first aligned address and after its last full vector, streaming ones
 * between. VEC, LOAD, SET1, ADD_, MUL_, DIV_, STREAM name the ISA's type
 * and intrinsics. */
#define STREAM_BINARY(name, target, VEC, WIDTH, LOAD, SET1, ADD_, MUL_, DIV_,  \
                      STREAM)                                                  \
  target static inline __attribute__((always_inline)) void name(               \
      binary_t op, float *out, const float *a, const float *b, float alpha,    \
      int64_t n) {                                                             \
    int64_t k = (int64_t)(((WIDTH * 4 - ((uintptr_t)out & (WIDTH * 4 - 1))) &  \
                           (WIDTH * 4 - 1)) /                                  \
                          sizeof(float));                                      \
    k = k < n ? k : n;                                                         \
    for (int64_t i = 0; i < k; i++)                                            \
      out[i] = binary_one(op, a[i], b[i], alpha);                              \
    VEC va = SET1(alpha);                                                      \
    for (; k + WIDTH <= n; k += WIDTH) {                                       \
      VEC x = LOAD(a + k), y = LOAD(b + k);                                    \
      STREAM(out + k, op == ADD   ? ADD_(x, MUL_(va, y))                       \
                      : op == MUL ? MUL_(x, y)                                 \
                                  : DIV_(x, y));                               \
    }                                                                          \
    for (; k < n; k++)                                                         \
      out[k] = binary_one(op, a[k], b[k], alpha);                              \
  }
STREAM_BINARY(binary_avx512, REF_TARGET_AVX512, __m512, 16, _mm512_loadu_ps,
              _mm512_set1_ps, _mm512_add_ps, _mm512_mul_ps, _mm512_div_ps,
              _mm512_stream_ps)
STREAM_BINARY(binary_avx2, REF_TARGET_AVX2, __m256, 8, _mm256_loadu_ps,
              _mm256_set1_ps, _mm256_add_ps, _mm256_mul_ps, _mm256_div_ps,
              _mm256_stream_ps)
STREAM_BINARY(binary_sse2, , __m128, 4, _mm_loadu_ps, _mm_set1_ps, _mm_add_ps,
              _mm_mul_ps, _mm_div_ps, _mm_stream_ps)

/* One build per ISA and op, so that each loop is compiled for its op. */
#define STREAM_BINARY_OP(fn, op)                                               \
  REF_TARGET_AVX512 static void fn##_avx512(                                   \
      float *out, const float *a, const float *b, float alpha, int64_t n) {    \
    binary_avx512(op, out, a, b, alpha, n);                                    \
  }                                                                            \
  REF_TARGET_AVX2 static void fn##_avx2(                                       \
      float *out, const float *a, const float *b, float alpha, int64_t n) {    \
    binary_avx2(op, out, a, b, alpha, n);                                      \
  }                                                                            \
  static void fn##_sse2(float *out, const float *a, const float *b,            \
                        float alpha, int64_t n) {                              \
    binary_sse2(op, out, a, b, alpha, n);                                      \
  }                                                                            \
  void ref_stream_##fn##_f32(float *out, const float *const *in, int64_t n,    \
                             const double *params) {                           \
    float alpha = (float)params[0];                                            \
    ref_isa_t isa = ref_isa();                                                 \
    if (isa == REF_ISA_AVX512)                                                 \
      fn##_avx512(out, in[0], in[1], alpha, n);                                \
    else if (isa == REF_ISA_AVX2)                                              \
      fn##_avx2(out, in[0], in[1], alpha, n);                                  \
    else                                                                       \
      fn##_sse2(out, in[0], in[1], alpha, n);                                  \
  }
STREAM_BINARY_OP(add, ADD)
STREAM_BINARY_OP(mul, MUL)
STREAM_BINARY_OP(div, DIV)

void ref_stream_store(float *dst, const float *src, int64_t n) {
  ref_isa_t isa = ref_isa();
  if (isa == REF_ISA_AVX512)
    store_avx512(dst, src, n);
  else if (isa == REF_ISA_AVX2)
    store_avx2(dst, src, n);
  else
    store_sse2(dst, src, n);
}

void ref_stream_fence(void) {
  _mm_sfence();
}
#else
static void binary_plain(binary_t op, float *out, const float *const *in,
                         int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++)
    out[i] = binary_one(op, in[0][i], in[1][i], alpha);
}
void ref_stream_add_f32(float *out, const float *const *in, int64_t n,
                        const double *params) {
  binary_plain(ADD, out, in, n, (float)params[0]);
}
void ref_stream_mul_f32(float *out, const float *const *in, int64_t n,
                        const double *params) {
  binary_plain(MUL, out, in, n, (float)params[0]);
}
void ref_stream_div_f32(float *out, const float *const *in, int64_t n,
                        const double *params) {
  binary_plain(DIV, out, in, n, (float)params[0]);
}

void ref_stream_store(float *dst, const float *src, int64_t n) {
  if (dst != src)
    memmove(dst, src, (size_t)n * sizeof(float));
}

void ref_stream_fence(void) {
  atomic_thread_fence(memory_order_seq_cst);
}
#endif
