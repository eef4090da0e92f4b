/* `backplane env`: every BACKPLANE_ variable the runtime, the plugins, the op
 * library, the tools and the Python package read, with its effective value
 * and where it came from (the environment, or the default). The table is
 * the one of docs/configuration.md; tests/tools/test_env_table.py fails when
 * the sources read a variable this table lacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_output.h"
#include "commands.h"

typedef struct env_variable {
  const char *name;
  const char *fallback; /* the default, as the value or <what it is> */
  const char *reader;   /* who reads it */
  const char *meaning;
} env_variable_t;

static const env_variable_t variables[] = {
    /* Runtime. */
    {"BACKPLANE_PLUGIN_PATH", "", "runtime",
     "colon-separated plugin directories or .so files, searched first"},
    {"BACKPLANE_VISIBLE_DEVICES", "<every device>", "runtime",
     "the devices every API sees and their order: type:index and type "
     "entries, comma-separated"},
    {"BACKPLANE_ALLOW_INSECURE_PLUGINS", "0", "runtime",
     "1: load plugins writable by group or others"},
    {"BACKPLANE_LAYERS", "", "runtime",
     "layers between the runtime and the plugins: validation, trace, fault "
     "(comma-separated)"},
    {"BACKPLANE_TRACE_FILE", "backplane-trace.json", "trace layer",
     "the Chrome trace written when the runtime is destroyed"},
    {"BACKPLANE_FAULT", "", "fault layer",
     "faults to inject: function:N or function:p=P entries, seed=S"},
    {"BACKPLANE_VALIDATION_ABORT", "0", "validation layer",
     "1: abort on the first report"},
    {"BACKPLANE_VALIDATION_LOG", "<stderr>", "validation layer",
     "the file reports are appended to"},
    {"BACKPLANE_LOG", "warn", "runtime, layers",
     "diagnostics shown: off, error, warn, info or debug, optionally "
     ":SUBSYSTEM,... (plugins, alloc, devices, memory, trace)"},
    {"BACKPLANE_LOG_FILE", "<stderr>", "runtime, layers",
     "the file diagnostics are appended to (%p: the process id)"},
    {"BACKPLANE_MEMORY_HISTORY", "", "runtime",
     "records the allocator history from bp_runtime_create and writes it to "
     "this file at bp_runtime_destroy"},
    {"BACKPLANE_MEMORY_HISTORY_EVENTS", "65536", "runtime",
     "the history's ring: the last N events are kept, 1 to 16777216"},
    {"BACKPLANE_CACHE_DIR", "<$XDG_CACHE_HOME/backplane>", "bp_build",
     "the build cache root (else ~/.cache/backplane)"},
    {"BACKPLANE_CC", "cc", "bp_build",
     "the C compiler command (words split at spaces)"},
    /* vcpu plugin and its collectives. */
    {"BACKPLANE_VCPU_DEVICES", "2", "vcpu", "number of devices, 1 to 64"},
    {"BACKPLANE_VCPU_MEMORY", "1G", "vcpu",
     "memory per device (K/M/G suffix), 1M to 1T"},
    {"BACKPLANE_VCPU_CORES", "<online CPUs>", "vcpu",
     "the multiprocessor count each device reports, 1 to 4096"},
    {"BACKPLANE_VCPU_JITTER_US", "0", "vcpu",
     "random delay of up to N us before each stream command"},
    {"BACKPLANE_VCPU_MPI_MODULE",
     "<libbackplane_vcpu_mpi.so beside the "
     "plugins>",
     "vcpu collectives", "the Open MPI transport module"},
    {"BACKPLANE_COMM_TRANSPORT", "auto", "vcpu collectives",
     "mpi, or auto: shared memory unless the id was made on another host"},
    {"BACKPLANE_COMM_HYBRID", "1", "vcpu collectives",
     "0: MPI for every rank, no shared memory within a host"},
    {"BACKPLANE_COMM_MPI_MAILBOX", "1", "vcpu collectives",
     "0: small messages between ranks of one host over MPI, not the mpi "
     "transport's shared-memory mailbox"},
    {"BACKPLANE_COMM_RANKS_PER_HOST", "<the real hosts>", "vcpu collectives",
     "K: rank r counts as on host r / K (to try the hybrid on one host)"},
    {"BACKPLANE_COMM_SHM_SLOT_BYTES", "4194304", "vcpu collectives",
     "bytes of each rank's shared-memory slot"},
    {"BACKPLANE_COMM_TIMEOUT_MS", "60000", "collectives",
     "the deadline of every wait inside a collective"},
    /* OpenCL plugin. */
    {"BACKPLANE_OPENCL_DEVICES", "<every device>", "opencl",
     "fnmatch patterns on the device type, platform or device name, "
     "comma-separated"},
    {"BACKPLANE_OPENCL_MEMORY", "auto", "opencl",
     "auto (SVM where the device has it), svm, or buffer"},
    {"BACKPLANE_OPENCL_MEMORY_LIMIT", "<CL_DEVICE_GLOBAL_MEM_SIZE>", "opencl",
     "a cap on each device's memory (bytes, K/M/G suffix)"},
    /* Op library. */
    {"BACKPLANE_OPS_LIBRARY", "<the reference library beside libbackplane>",
     "Python backplane.ops", "the DIOPI operator library ops are called in"},
    {"BACKPLANE_OPS_THREADS", "<the CPUs it may run on, at most 64>",
     "reference op library", "threads an op uses, the caller's included"},
    {"BACKPLANE_OPS_ISA", "native", "reference op library",
     "the most its hot float32 loops use: native, avx512, avx2, sse2"},
    {"BACKPLANE_OPS_STREAM_BYTES", "<the last-level cache's size>",
     "reference op library",
     "the float32 copy/add/sub/mul/div output size (bytes) from which "
     "stores stream"},
    /* Framework bridges. */
    {"BACKPLANE_PADDLE_DEBUG", "0", "Paddle bridge",
     "1: print each failed Backplane call of the bridge on stderr"},
    {"BACKPLANE_PADDLE_FALLBACKS", "0", "Paddle bridge",
     "1: count and print each kernel Paddle runs on its CPU instead "
     "(needs GLOG_minloglevel=0)"},
    {"BACKPLANE_TORCH_DEVICE_TYPE", "vcpu", "PyTorch bridge",
     "the device type whose devices are privateuseone:0..n-1"},
    {"BACKPLANE_TORCH_FALLBACKS", "", "PyTorch bridge",
     "ops without a kernel: unset warns once per op, 1 prints each call, "
     "error raises NotImplementedError"},
    /* Tools. */
    {"BACKPLANE_CHECK_GATE_MS", "15000", "backplane check",
     "how long a held stream waits for the checker"},
    {"BACKPLANE_CHECK_KERNELS",
     "<libbackplane_check_kernels.so beside the "
     "plugins>",
     "backplane check", "the kernel library of the kernel checks"},
    {"BACKPLANE_PYTHON", "/usr/bin/python3",
     "backplane bench python, ops, train, torch",
     "the interpreter of the benches' Python halves and PyTorch baselines "
     "(python -m backplane sets its own)"},
    {"BACKPLANE_BENCH_OPS", "", "backplane bench ops",
     "comma-separated words: only the cases whose name contains one run"},
    {"BACKPLANE_BENCH_COMM_OP", "all_reduce", "backplane bench comm",
     "the collective, when --op is absent"},
    {"BACKPLANE_BENCH_COMM_RANKS", "2", "backplane bench comm",
     "the ranks, when --ranks is absent"},
    {"BACKPLANE_BENCH_COMM_TRANSPORT", "threads", "backplane bench comm",
     "threads or shm, when --transport is absent"},
    {"BACKPLANE_BENCH_COMM_HOSTS", "", "backplane bench comm",
     "H hosts (network namespaces, root), when --hosts is absent"},
    {"BACKPLANE_BENCH_COMM_MAX_BYTES", "<all sizes>", "backplane bench comm",
     "the largest size timed (a slow link between hosts)"},
    {"BACKPLANE_BENCH_COMM_ID", "", "backplane bench comm",
     "internal: the unique id handed to the rank processes"},
    {"BACKPLANE_BENCH_COMM_RANK", "", "backplane bench comm",
     "internal: a rank process's rank"},
    {"BACKPLANE_BENCH_COMM_ROWS", "", "backplane bench comm",
     "internal: the result file of mpirun's ranks"},
    {"BACKPLANE_BENCH_COMM_HOSTS_OUT", "", "backplane bench comm",
     "internal: the result file of a --hosts run inside host 0"},
    {"BACKPLANE_BENCH_PADDLE_CUSTOM_CPU", "", "backplane bench paddle",
     "a built libpaddle-custom-cpu.so: the 1-element add on custom_cpu too, "
     "the floor of any plugin"},
    {"BACKPLANE_BENCH_ALLOC_CHILD", "", "backplane bench alloc",
     "internal: marks the re-run that measures jemalloc"},
    {"BACKPLANE_TRAIN_JOB", "", "backplane train",
     "names the file rank 0 hands the world's id through when another "
     "launcher set RANK and WORLD_SIZE"},
    {"BACKPLANE_TRAIN_PARENT", "", "backplane train",
     "internal: the pid of the process that started a rank process"},
    {"BACKPLANE_TRAIN_COMM_ID", "", "backplane train",
     "internal: the unique id handed to the rank processes"},
};

int cmd_env(int argc, char **argv) {
  (void)argv;
  if (argc > 0) {
    fprintf(stderr, "backplane env: takes no arguments (got '%s')\n", argv[0]);
    return 2;
  }
  FILE *out = cli_out();
  for (size_t i = 0; i < sizeof variables / sizeof *variables; i++) {
    const env_variable_t *v = &variables[i];
    const char *set = getenv(v->name);
    fprintf(out, "%s=%s\n    %s; %s: %s\n", v->name, set ? set : v->fallback,
            set ? "environment" : "default", v->reader, v->meaning);
  }
  return 0;
}
