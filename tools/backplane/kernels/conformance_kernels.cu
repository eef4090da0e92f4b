/* The conformance kernels in CUDA C, for the cuda plugin (NVRTC compiles
 * them for the device when check loads this file). Same names and param
 * blocks as conformance_kernels.h, under the cuda plugin's contract: one
 * struct passed by value, device pointers as plain pointers, `blocks` as the
 * grid with many threads per block (thread 0 of each block does the work).
 * A CUDA kernel reports a code through a status word, a last parameter
 * past its param block (fail_kernel). CUDA kernels cannot wait for
 * notifies, so there is no notify_kernel: the notify check SKIPs with the
 * plugin's reason (notifies are unsupported on cuda). */

struct append_param {
  int *log;
  int *position; /* atomic int */
  int value;
};

struct block_param {
  int *seen; /* one slot per block */
};

struct fail_param {
  unsigned code;
};

struct sleep_param {
  unsigned ms;
};

struct spin_param {
  unsigned long long iterations; /* split between the blocks */
  double *out;                   /* one per block */
};

extern "C" __global__ void empty_kernel() {}

extern "C" __global__ void append_kernel(append_param p) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    p.log[atomicAdd(p.position, 1)] = p.value;
}

extern "C" __global__ void block_kernel(block_param p) {
  if (threadIdx.x == 0)
    p.seen[blockIdx.x] = (int)(gridDim.x * 1000 + blockIdx.x);
}

/* Every block reports `code`; the plugin makes it the stream's error. */
extern "C" __global__ void fail_kernel(fail_param p, unsigned *status) {
  if (threadIdx.x == 0)
    atomicCAS(status, 0u, p.code);
}

/* The GPU's nanosecond clock. */
static __device__ unsigned long long now_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

extern "C" __global__ void sleep_kernel(sleep_param p) {
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  unsigned long long end = now_ns() + p.ms * 1000000ull;
  while (now_ns() < end)
    __nanosleep(100000);
}

/* Compute-bound work for the launch bench: each block's first thread runs
 * its share of the iterations. */
extern "C" __global__ void spin_kernel(spin_param p) {
  if (threadIdx.x != 0)
    return;
  unsigned long long share = p.iterations / gridDim.x;
  double x = 1.0 + blockIdx.x;
  for (unsigned long long i = 0; i < share; ++i)
    x = x * 1.0000001 + 1e-9;
  p.out[blockIdx.x] = x;
}
