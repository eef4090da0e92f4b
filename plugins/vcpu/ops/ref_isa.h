/* The instruction set the reference library's hot float32 loops run with,
 * and the run-time dispatch between their per-ISA builds.
 *
 * On x86-64 each such loop is compiled three times (AVX-512: x86-64-v4;
 * AVX2 with FMA: x86-64-v3; the SSE2 baseline) and every call takes the
 * build of ref_isa(): the best the CPU runs, capped by the environment
 * variable BACKPLANE_OPS_ISA (`native`, the default; `avx512`; `avx2`;
 * `sse2`), read once per process. The cap lets an AVX-512 machine run
 * exactly what an AVX2-only one would. Elsewhere there is one build. */
#ifndef BACKPLANE_REF_OPS_ISA_H_
#define BACKPLANE_REF_OPS_ISA_H_

#include <stdbool.h> /* REF_ISA_DISPATCH_VOID_FMA's constants */

typedef enum ref_isa {
  REF_ISA_SSE2 = 0,
  REF_ISA_AVX2 = 1, /* with FMA (x86-64-v3) */
  REF_ISA_AVX512 = 2,
} ref_isa_t;

/* The ISA in force (see above). Thread-safe; cheap after the first call. */
ref_isa_t ref_isa(void);
/* "avx512", "avx2", "sse2". */
const char *ref_isa_name(ref_isa_t isa);

#if defined(__x86_64__) && defined(__GNUC__)
#define REF_ISA_MULTIVERSION 1
#define REF_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#define REF_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
#endif

/* Put REF_ISA_BODY before the body of a hot loop, named NAME_body, then
 * REF_ISA_DISPATCH(storage, ret, NAME, (params), (args)) (or
 * REF_ISA_DISPATCH_VOID for a void loop) defines NAME with those
 * parameters: one build of the body per ISA, the call going to ref_isa()'s. */
#define REF_ISA_BODY static inline __attribute__((always_inline))
/* (a, b) -> a, b: an argument list without its parentheses. */
#define REF_ISA_UNPAREN(...) __VA_ARGS__
#ifdef REF_ISA_MULTIVERSION
#define REF_ISA_DISPATCH(storage, ret, name, params, args)                     \
  REF_TARGET_AVX512 static ret name##_avx512 params {                          \
    return name##_body args;                                                   \
  }                                                                            \
  REF_TARGET_AVX2 static ret name##_avx2 params {                              \
    return name##_body args;                                                   \
  }                                                                            \
  static ret name##_sse2 params {                                              \
    return name##_body args;                                                   \
  }                                                                            \
  storage ret name params {                                                    \
    ref_isa_t isa = ref_isa();                                                 \
    return isa == REF_ISA_AVX512 ? name##_avx512 args                          \
           : isa == REF_ISA_AVX2 ? name##_avx2 args                            \
                                 : name##_sse2 args;                           \
  }
/* `storage void name params`, calling name_avx512, name_avx2 or name_sse2
 * by ref_isa(). */
#define REF_ISA_SELECT_VOID(storage, name, params, args)                       \
  storage void name params {                                                   \
    ref_isa_t isa = ref_isa();                                                 \
    if (isa == REF_ISA_AVX512)                                                 \
      name##_avx512 args;                                                      \
    else if (isa == REF_ISA_AVX2)                                              \
      name##_avx2 args;                                                        \
    else                                                                       \
      name##_sse2 args;                                                        \
  }
#define REF_ISA_DISPATCH_VOID(storage, name, params, args)                     \
  REF_TARGET_AVX512 static void name##_avx512 params {                         \
    name##_body args;                                                          \
  }                                                                            \
  REF_TARGET_AVX2 static void name##_avx2 params {                             \
    name##_body args;                                                          \
  }                                                                            \
  static void name##_sse2 params {                                             \
    name##_body args;                                                          \
  }                                                                            \
  REF_ISA_SELECT_VOID(storage, name, params, args)
/* As REF_ISA_DISPATCH_VOID, the body taking one more argument, a constant:
 * true in the AVX-512 and AVX2 builds, false in the SSE2 one (and where
 * there is one build); for a loop whose vector form pays only with FMA and
 * vectors of 4 doubles or more. */
#define REF_ISA_DISPATCH_VOID_FMA(storage, name, params, args)                 \
  REF_TARGET_AVX512 static void name##_avx512 params {                         \
    name##_body(REF_ISA_UNPAREN args, true);                                   \
  }                                                                            \
  REF_TARGET_AVX2 static void name##_avx2 params {                             \
    name##_body(REF_ISA_UNPAREN args, true);                                   \
  }                                                                            \
  static void name##_sse2 params {                                             \
    name##_body(REF_ISA_UNPAREN args, false);                                  \
  }                                                                            \
  REF_ISA_SELECT_VOID(storage, name, params, args)
/* As REF_ISA_DISPATCH, the AVX-512 build from its own body, NAME_wide_body:
 * for a loop whose best shape differs there (one 512-bit accumulator, where
 * the narrower builds need several in flight). */
#define REF_ISA_DISPATCH_WIDE(storage, ret, name, params, args)                \
  REF_TARGET_AVX512 static ret name##_wide params {                            \
    return name##_wide_body args;                                              \
  }                                                                            \
  REF_TARGET_AVX2 static ret name##_avx2 params {                              \
    return name##_body args;                                                   \
  }                                                                            \
  static ret name##_sse2 params {                                              \
    return name##_body args;                                                   \
  }                                                                            \
  storage ret name params {                                                    \
    ref_isa_t isa = ref_isa();                                                 \
    return isa == REF_ISA_AVX512 ? name##_wide args                            \
           : isa == REF_ISA_AVX2 ? name##_avx2 args                            \
                                 : name##_sse2 args;                           \
  }
/* As REF_ISA_DISPATCH, AVX-512 machines taking the AVX2 build: for a loop
 * that runs faster with several 256-bit accumulators side by side than
 * with 512-bit ones. */
#define REF_ISA_DISPATCH_256(storage, ret, name, params, args)                 \
  REF_TARGET_AVX2 static ret name##_avx2 params {                              \
    return name##_body args;                                                   \
  }                                                                            \
  static ret name##_sse2 params {                                              \
    return name##_body args;                                                   \
  }                                                                            \
  storage ret name params {                                                    \
    return ref_isa() >= REF_ISA_AVX2 ? name##_avx2 args : name##_sse2 args;    \
  }
#else
#define REF_ISA_DISPATCH(storage, ret, name, params, args)                     \
  storage ret name params {                                                    \
    return name##_body args;                                                   \
  }
#define REF_ISA_DISPATCH_WIDE(storage, ret, name, params, args)                \
  REF_ISA_DISPATCH(storage, ret, name, params, args)
#define REF_ISA_DISPATCH_256(storage, ret, name, params, args)                 \
  REF_ISA_DISPATCH(storage, ret, name, params, args)
#define REF_ISA_DISPATCH_VOID(storage, name, params, args)                     \
  storage void name params {                                                   \
    name##_body args;                                                          \
  }
#define REF_ISA_DISPATCH_VOID_FMA(storage, name, params, args)                 \
  storage void name params {                                                   \
    name##_body(REF_ISA_UNPAREN args, false);                                  \
  }
#endif

#endif /* BACKPLANE_REF_OPS_ISA_H_ */
