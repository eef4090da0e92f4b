/* A small persistent worker pool: ref_parallel_for splits [0, n) among the
 * calling thread and the pool's threads (one per extra core, at most 7;
 * BACKPLANE_OPS_THREADS sets the total). Work below `grain` items per thread,
 * or a pool already busy with another stream's op, runs on the caller alone.
 * Thread-safe. */
#ifndef BACKPLANE_REF_OPS_POOL_H_
#define BACKPLANE_REF_OPS_POOL_H_

#include <stdint.h>

typedef void (*ref_range_fn_t)(void *context, int64_t begin, int64_t end);

void ref_parallel_for(int64_t n, int64_t grain, ref_range_fn_t fn,
                      void *context);

/* The total thread count (caller included) ops use. */
int ref_pool_threads(void);

#endif /* BACKPLANE_REF_OPS_POOL_H_ */
