/* membarrier(2) behind the asymmetric fences (contract in the header). */
#include "alloc/asymmetric_fence.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_once_t registration = PTHREAD_ONCE_INIT;
static atomic_bool registered;

static void register_membarrier(void) {
  bool ok = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
                    0, 0) == 0;
  atomic_store_explicit(&registered, ok, memory_order_relaxed);
}

bool bp_fence_is_asymmetric(void) {
  pthread_once(&registration, register_membarrier);
  return atomic_load_explicit(&registered, memory_order_relaxed);
}

void bp_fence_heavy(void) {
  /* Once registered, the call cannot fail; the fence keeps this side's own
   * ordering either way. */
  if (bp_fence_is_asymmetric())
    syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  atomic_thread_fence(memory_order_seq_cst);
}
