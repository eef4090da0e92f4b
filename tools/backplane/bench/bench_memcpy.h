/* The benches' host memcpy baselines (no Backplane involved). */
#ifndef BACKPLANE_TOOLS_BENCH_MEMCPY_H_
#define BACKPLANE_TOOLS_BENCH_MEMCPY_H_

#include <stdbool.h>
#include <stddef.h>

/* Copies `size` bytes with two threads, one half each (the caller's thread
 * copies the first). False, having copied nothing, if the second thread
 * cannot start. */
bool bench_memcpy_two_threads(void *dst, const void *src, size_t size);

#endif /* BACKPLANE_TOOLS_BENCH_MEMCPY_H_ */
