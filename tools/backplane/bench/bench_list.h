/* The benches of `backplane bench`, in the order `all` runs them.
 * BP_BENCH(name, summary): one line per bench, implemented as
 * `bp_status_t bench_<name>(bench_ctx_t *ctx)` in bench_<name>.c.
 * No include guard: included once per expansion. */
BP_BENCH(dispatch, "runtime call vs the same plugin function called directly")
BP_BENCH(copy, "host<->device copies vs memcpy (1 and 2 threads)")
BP_BENCH(stream, "stream round trip vs spin hand-off; enqueue throughput")
BP_BENCH(alloc,
         "cached alloc+free vs glibc/jemalloc/mimalloc/raw; trace replay")
BP_BENCH(launch, "empty kernel launch vs stream round trip; launches/s; "
                 "blocks = 2 vs 1; 10000-op manifest load and lookup")
BP_BENCH(comm, "collectives (nccl-tests columns) vs Open MPI MPI_Allreduce")
BP_BENCH(codegen, "generated kernels vs hand-written C -O3; cached build")
BP_BENCH(ops, "reference ops vs OpenBLAS sgemm, memcpy and PyTorch CPU")
BP_BENCH(train, "data-parallel training samples/s on 1/2/4 devices vs DDP")
BP_BENCH(python, "calls from Python: no-op, DLPack round trip vs PyTorch")
