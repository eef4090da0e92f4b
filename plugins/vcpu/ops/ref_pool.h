/* The op library's intra-op parallel-for: a small persistent pool of worker
 * threads that, with the calling thread, share [0, n) in contiguous chunks.
 *
 * Size: the CPUs the process may run on (its affinity mask), capped by the
 * environment variable BACKPLANE_OPS_THREADS (the total, caller included;
 * read once) and REF_POOL_MAX_THREADS. Work of at most `grain` items runs
 * on the caller alone, as does work arriving while another thread's job
 * holds the pool (several streams calling ops at once): nothing waits for a
 * busy pool. Above the grain, [0, n) is cut into at most
 * min(ceil(n / grain), 4 x threads) chunks of equal length (the last one
 * shorter), which the caller and the workers claim one at a time, each its
 * own contiguous run of them first: a worker the machine delays joins late
 * or not at all, and the others run what it left.
 * Thread-safe. */
#ifndef BACKPLANE_REF_OPS_POOL_H_
#define BACKPLANE_REF_OPS_POOL_H_

#include <stdint.h>

enum { REF_POOL_MAX_THREADS = 64 };

/* Runs fn(context, begin, end) on disjoint ranges covering [0, n), each
 * exactly once, possibly on several threads at once; returns when all have
 * run. fn must not call ref_parallel_for with the expectation of more
 * threads (a nested call runs inline). n <= 0: nothing runs. */
typedef void (*ref_range_fn_t)(void *context, int64_t begin, int64_t end);
void ref_parallel_for(int64_t n, int64_t grain, ref_range_fn_t fn,
                      void *context);

/* The total thread count (caller included) a parallel-for may use. */
int ref_pool_threads(void);

#endif /* BACKPLANE_REF_OPS_POOL_H_ */
