#include "ref_isa.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ref_tensor.h"

static ref_isa_t cpu_isa(void) {
#ifdef REF_ISA_MULTIVERSION
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return REF_ISA_AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return REF_ISA_AVX2;
#endif
  return REF_ISA_SSE2;
}

/* The cap BACKPLANE_OPS_ISA names; REF_ISA_AVX512 (no cap) for `native`,
 * unset or a value it does not know. */
static ref_isa_t cap_isa(void) {
  const char *cap = getenv("BACKPLANE_OPS_ISA");
  if (cap && !strcmp(cap, "sse2"))
    return REF_ISA_SSE2;
  if (cap && !strcmp(cap, "avx2"))
    return REF_ISA_AVX2;
  return REF_ISA_AVX512;
}

ref_isa_t ref_isa(void) {
  static atomic_int chosen = -1; /* racing first calls agree */
  int isa = atomic_load_explicit(&chosen, memory_order_relaxed);
  if (isa < 0) {
    ref_isa_t cpu = cpu_isa(), cap = cap_isa();
    isa = (int)(cap < cpu ? cap : cpu);
    atomic_store_explicit(&chosen, isa, memory_order_relaxed);
  }
  return (ref_isa_t)isa;
}

const char *ref_isa_name(ref_isa_t isa) {
  return isa == REF_ISA_AVX512 ? "avx512"
         : isa == REF_ISA_AVX2 ? "avx2"
                               : "sse2";
}

/* For `backplane bench ops` and other tools: the ISA of the hot loops, as
 * ref_isa_name gives it. Not a DIOPI function. */
REF_EXPORT const char *bpRefOpsInstructionSet(void) {
  return ref_isa_name(ref_isa());
}
