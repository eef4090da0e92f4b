/* The conformance kernels in OpenCL C, for plugins that build OpenCL C and
 * load no host shared objects (the opencl plugin). Same names and param
 * blocks as conformance_kernels.h, under the opencl plugin's contract: one
 * by-value struct, device pointers as 64-bit integers. OpenCL kernels return
 * no code and cannot wait for notifies, so there is no fail_kernel or
 * notify_kernel: the error-code check SKIPs, the notify check goes from
 * stream to stream. */

struct append_param {
  ulong log;
  ulong position; /* atomic int */
  int value;
};

struct block_param {
  ulong seen; /* one slot per block */
};

struct sleep_param {
  uint ms;
};

struct spin_param {
  ulong iterations; /* split between the blocks */
  ulong out;        /* double per block */
};

kernel void empty_kernel(void) {}

kernel void append_kernel(struct append_param p) {
  if (get_global_id(0) != 0)
    return;
  global int *log = (global int *)p.log;
  volatile global int *position = (volatile global int *)p.position;
  log[atomic_inc(position)] = p.value;
}

kernel void block_kernel(struct block_param p) {
  if (get_local_id(0) == 0)
    ((global int *)p.seen)[get_group_id(0)] =
        (int)(get_num_groups(0) * 1000 + get_group_id(0));
}

/* OpenCL C has no clock: about a million volatile stores per "ms", far
 * longer than that on a CPU device, which is all the checks need (the
 * timeout check only needs it to outlast 50 ms). */
kernel void sleep_kernel(struct sleep_param p) {
  volatile ulong sink = 0;
  if (get_global_id(0) == 0)
    for (ulong i = 0; i < (ulong)p.ms * 1000000ul; ++i)
      sink += i;
}

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Compute-bound work for the launch bench: each block's first work-item
 * runs its share of the iterations. */
kernel void spin_kernel(struct spin_param p) {
  if (get_local_id(0) != 0)
    return;
  ulong share = p.iterations / get_num_groups(0);
  double x = 1.0 + get_group_id(0);
  for (ulong i = 0; i < share; ++i)
    x = x * 1.0000001 + 1e-9;
  ((global double *)p.out)[get_group_id(0)] = x;
}
#endif
