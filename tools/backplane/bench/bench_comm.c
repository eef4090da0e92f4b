/* comm: collectives over the plugin's communicators (backplane/comm.h),
 * nccl-tests style: size, count, type, redop, then time, algbw, busbw and
 * #wrong out of place and in place; with, in the same run, Open MPI's
 * MPI_Allreduce on the same sizes (bin/backplane_mpi_allreduce under mpirun
 * beside ranks as threads or shm processes; ranks under mpirun call it
 * themselves between their own calls, bench_mpi_baseline.h) and the
 * percentage of the memory-bandwidth model of
 * reference/collectives_alloc.md §3: 2-thread memcpy read+write bandwidth B
 * over (3n-1), the single-copy ceiling, which both transports reach from
 * 64 KiB up (processes map each other's device arenas; below that they stage
 * through shared memory). B is measured by rank 0 right before each size is
 * timed, so that both see the machine in the same state (a shared VM's
 * memory bandwidth can change twofold from one minute to the next).
 *
 * Settings: ctx->comm (bench_comm_settings.h), from --op, --ranks and
 * --transport: threads (every rank a device of this process), shm (rank
 * r > 0 in a child process running the same bench with the same options) or
 * mpi (every rank a process under mpirun, bench_comm_mpi.h; this process
 * launches them, reads rank 0's rows and reports them like the others).
 * Budgets (DESIGN.md), all_reduce with 2 ranks as threads or shm processes:
 * 64-256 MiB at >= 2.5x Open MPI and >= 60 % of the model; 1 KiB no slower
 * than Open MPI. The mpi transport is Open MPI underneath: every size at
 * >= 0.9x its MPI_Allreduce. */
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "bench_comm_dead_peer.h"
#include "bench_comm_hosts.h"
#include "bench_comm_mpi.h"
#include "bench_comm_ranks.h"
#include "bench_memcpy.h"
#include "bench_mpi_baseline.h"
#include "cli/cli_format.h"
#include "cli/cli_output.h"
#include "cli/cli_timing.h"

extern char **environ;

enum { MAX_SIZES = 16 };

typedef struct comm_bench {
  bench_ctx_t *ctx;
  bench_comm_op_t op;
  size_t n; /* ranks in the world */
  bench_comm_transport_t transport;
  size_t local;   /* ranks this process drives */
  size_t my_rank; /* the first rank this process drives */
  pid_t children[BENCH_COMM_MAX_RANKS];
  bp_device_t *devices[BENCH_COMM_MAX_RANKS];
  bp_stream_t *streams[BENCH_COMM_MAX_RANKS];
  bp_comm_t *comms[BENCH_COMM_MAX_RANKS];
  float *send[BENCH_COMM_MAX_RANKS], *recv[BENCH_COMM_MAX_RANKS];
  size_t capacity; /* bytes of each send and recv buffer */
  /* A rank under mpirun: Open MPI's MPI_Allreduce in this process, timed
   * between the plugin's calls on the same buffers; and under --hosts a
   * second communicator with every rank over MPI (BACKPLANE_COMM_HYBRID=0)
   * beside the hybrid one in comms[0]. NULL otherwise. */
  const bench_mpi_baseline_t *mpi;
  bp_comm_t *flat;
} comm_bench_t;

/* One timing row, nccl-tests' columns plus the baselines. */
typedef struct row {
  size_t bytes;
  double us[2]; /* out of place, in place */
  size_t wrong[2];
  double mpi_us[2];  /* 0 when there is no baseline */
  double flat_us[2]; /* --hosts: every rank over MPI; else 0 */
  double model_gbs;  /* B / (3n - 1) just before the row was timed */
} row_t;

/* How the table and the records name the transport. */
static const char *transport_label(const comm_bench_t *b) {
  static const char *const labels[BENCH_COMM_TRANSPORT_COUNT] = {
      "threads", "procs", "mpi"};
  return labels[b->transport];
}

/* The sizes to time: 1 KiB to 256 MiB (two with --quick), up to
 * BACKPLANE_BENCH_COMM_MAX_BYTES when set (a slow link: two hosts over TCP);
 * the launcher and its ranks read the same environment. */
static size_t sizes_of(const bench_ctx_t *ctx, size_t *sizes) {
  static const size_t full[] = {1u << 10,  4u << 10,  64u << 10, 1u << 20,
                                16u << 20, 64u << 20, 256u << 20};
  static const size_t quick[] = {1u << 10, 64u << 10};
  const size_t *list = ctx->quick ? quick : full;
  size_t count = ctx->quick ? 2 : 7;
  const char *cap = getenv("BACKPLANE_BENCH_COMM_MAX_BYTES");
  size_t max = cap ? strtoull(cap, NULL, 10) : SIZE_MAX;
  size_t kept = 0;
  for (size_t i = 0; i < count; i++)
    if (list[i] <= max || i == 0) /* at least the smallest */
      sizes[kept++] = list[i];
  return kept;
}

static size_t iterations_for(const bench_ctx_t *ctx, size_t bytes) {
  if (ctx->quick)
    return 2;
  /* Small sizes run long enough (with a tenth of that as warm-up) to reach
   * the steady state of the ranks' stream workers, which start parked. */
  return bytes >= (64u << 20) ? 5 : bytes >= (1u << 20) ? 20 : 2000;
}

/* nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md). */
static double bus_factor(bench_comm_op_t op, size_t n) {
  switch (op) {
  case BENCH_COMM_ALL_REDUCE:
    return 2.0 * (double)(n - 1) / (double)n;
  case BENCH_COMM_ALL_GATHER:
  case BENCH_COMM_REDUCE_SCATTER:
    return (double)(n - 1) / (double)n;
  default:
    return 1.0;
  }
}

/* Elements each rank sends / receives for a collective of `bytes` total. */
static void counts_of(bench_comm_op_t op, size_t n, size_t bytes, size_t *send,
                      size_t *recv) {
  size_t total = bytes / sizeof(float);
  *send = *recv = total;
  if (op == BENCH_COMM_ALL_GATHER) {
    *send = total / n;
    *recv = *send * n; /* whole blocks when n does not divide the size */
  }
  if (op == BENCH_COMM_REDUCE_SCATTER)
    *recv = total / n;
}

/* One collective of local rank `local` on `comm`, its communicator or its
 * flat one. */
static bp_status_t call(comm_bench_t *b, size_t local, bp_comm_t *comm,
                        size_t bytes, int in_place) {
  size_t r = b->my_rank + local, send_count, recv_count;
  counts_of(b->op, b->n, bytes, &send_count, &recv_count);
  float *send = b->send[local], *recv = b->recv[local];
  bp_stream_t *stream = b->streams[local];
  switch (b->op) {
  case BENCH_COMM_ALL_REDUCE:
    return bp_comm_all_reduce(send, in_place ? send : recv, send_count,
                              BP_DTYPE_FLOAT32, BP_REDUCE_SUM, comm, stream);
  case BENCH_COMM_BROADCAST:
    return bp_comm_broadcast(send, send_count, BP_DTYPE_FLOAT32, 0, comm,
                             stream);
  case BENCH_COMM_REDUCE:
    return bp_comm_reduce(send, in_place ? send : recv, send_count,
                          BP_DTYPE_FLOAT32, BP_REDUCE_SUM, 0, comm, stream);
  case BENCH_COMM_ALL_GATHER:
    return bp_comm_all_gather(in_place ? recv + r * send_count : send, recv,
                              send_count, BP_DTYPE_FLOAT32, comm, stream);
  default:
    return bp_comm_reduce_scatter(send, in_place ? send + r * recv_count : recv,
                                  recv_count, BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                                  comm, stream);
  }
}

/* Waits for the local ranks' calls on `comms` (one per local rank). */
static bp_status_t sync_all(comm_bench_t *b, bp_comm_t *const *comms) {
  for (size_t l = 0; l < b->local; l++) {
    bp_status_t status = bp_stream_synchronize(b->streams[l]);
    if (status == BP_OK)
      status = bp_comm_async_error(comms[l]);
    if (status != BP_OK)
      return bench_error(b->ctx, "collective", status);
  }
  return BP_OK;
}

/* Microseconds per collective, `iters` back to back after a warm-up. */
static bp_status_t time_op(comm_bench_t *b, size_t bytes, int in_place,
                           double *out_us) {
  size_t iters = iterations_for(b->ctx, bytes);
  size_t warmup = iters / 10 > 2 ? iters / 10 : 2;
  bp_status_t status = BP_OK;
  uint64_t start = 0;
  for (size_t i = 0; i < iters + warmup && status == BP_OK; i++) {
    if (i == warmup) {
      status = sync_all(b, b->comms);
      start = cli_now_ns();
    }
    for (size_t l = 0; l < b->local && status == BP_OK; l++)
      status = call(b, l, b->comms[l], bytes, in_place);
  }
  if (status == BP_OK)
    status = sync_all(b, b->comms);
  *out_us = (double)(cli_now_ns() - start) / 1e3 / (double)iters;
  return status;
}

/* Fills every local rank's input with rank + 1, runs once on `comms`, and
 * counts the wrong elements of this process's results (nccl-tests'
 * #wrong). */
static bp_status_t count_wrong(comm_bench_t *b, bp_comm_t *const *comms,
                               size_t bytes, int in_place, size_t *out_wrong) {
  size_t send_count, recv_count;
  counts_of(b->op, b->n, bytes, &send_count, &recv_count);
  size_t host_count = send_count > recv_count ? send_count : recv_count;
  if (b->op == BENCH_COMM_REDUCE_SCATTER)
    host_count = recv_count * b->n;
  float *host = malloc(host_count * sizeof *host + 4);
  if (host == NULL)
    return bench_error(b->ctx, "allocating", BP_ERR_OUT_OF_MEMORY);
  bp_status_t status = BP_OK;
  for (size_t l = 0; l < b->local && status == BP_OK; l++) {
    size_t r = b->my_rank + l;
    size_t input =
        b->op == BENCH_COMM_REDUCE_SCATTER ? recv_count * b->n : send_count;
    for (size_t i = 0; i < input; i++)
      host[i] = (float)(r + 1);
    float *dst = b->op == BENCH_COMM_ALL_GATHER && in_place
                     ? b->recv[l] + r * send_count
                     : b->send[l];
    status =
        bp_copy(b->devices[l], dst, NULL, host, input * sizeof *host, NULL);
  }
  for (size_t l = 0; l < b->local && status == BP_OK; l++)
    status = call(b, l, comms[l], bytes, in_place);
  if (status == BP_OK)
    status = sync_all(b, comms);
  size_t wrong = 0;
  double sum = (double)(b->n * (b->n + 1) / 2);
  for (size_t l = 0; l < b->local && status == BP_OK; l++) {
    size_t r = b->my_rank + l;
    if (b->op == BENCH_COMM_REDUCE && r != 0)
      continue; /* only the root has a result */
    float *result =
        in_place || b->op == BENCH_COMM_BROADCAST ? b->send[l] : b->recv[l];
    if (b->op == BENCH_COMM_ALL_GATHER)
      result = b->recv[l];
    if (b->op == BENCH_COMM_REDUCE_SCATTER && in_place)
      result = b->send[l] + r * recv_count;
    status = bp_copy(NULL, host, b->devices[l], result,
                     recv_count * sizeof *host, NULL);
    for (size_t i = 0; i < recv_count && status == BP_OK; i++) {
      double want = b->op == BENCH_COMM_BROADCAST ? 1.0
                    : b->op == BENCH_COMM_ALL_GATHER
                        ? (double)(i / send_count + 1)
                        : sum;
      wrong += host[i] != (float)want;
    }
  }
  free(host);
  *out_wrong = wrong;
  return status;
}

/* The model's B: read+write GB/s of a 2-thread memcpy between two buffers
 * allocated (and faulted in) once. */
typedef struct model_probe {
  char *src, *dst;
  size_t bytes;
} model_probe_t;

static bp_status_t model_probe_open(model_probe_t *probe, size_t bytes) {
  probe->bytes = bytes;
  probe->src = malloc(bytes);
  probe->dst = malloc(bytes);
  if (probe->src == NULL || probe->dst == NULL)
    return BP_ERR_OUT_OF_MEMORY;
  memset(probe->src, 1, bytes);
  memset(probe->dst, 2, bytes);
  return BP_OK;
}

static void model_probe_close(model_probe_t *probe) {
  free(probe->src);
  free(probe->dst);
}

/* The best of three copies, in GB/s (0 if a thread cannot start). */
static double model_probe_bandwidth(const model_probe_t *probe) {
  size_t bytes = probe->bytes;
  double best = 0;
  for (int rep = 0; rep < 3; rep++) {
    uint64_t start = cli_now_ns();
    if (!bench_memcpy_two_threads(probe->dst, probe->src, bytes))
      break;
    double gbs = 2.0 * (double)bytes / (double)(cli_now_ns() - start);
    best = gbs > best ? gbs : best;
  }
  return best;
}

/* Runs Open MPI's MPI_Allreduce on the sizes; fills mpi_us (0 if mpirun or
 * the baseline program is missing). */
static void mpi_baseline(comm_bench_t *b, row_t *rows, size_t count) {
  char self[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0 || b->op != BENCH_COMM_ALL_REDUCE)
    return;
  self[length] = '\0';
  char *slash = strrchr(self, '/');
  if (slash)
    *slash = '\0';
  char command[PATH_MAX + 64 * MAX_SIZES + 256];
  int used = snprintf(command, sizeof command,
                      "mpirun --oversubscribe --bind-to none -np %zu "
                      "%s/backplane_mpi_allreduce%s",
                      b->n, self, b->ctx->quick ? " --quick" : "");
  for (size_t i = 0; i < count; i++)
    used += snprintf(command + used, sizeof command - (size_t)used, " %zu",
                     rows[i].bytes);
  snprintf(command + used, sizeof command - (size_t)used, " 2>/dev/null");
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  FILE *pipe = popen(command, "r");
  if (pipe == NULL)
    return;
  size_t bytes;
  double oop, ip;
  while (fscanf(pipe, "%zu %lf %lf", &bytes, &oop, &ip) == 3)
    for (size_t i = 0; i < count; i++)
      if (rows[i].bytes == bytes) {
        rows[i].mpi_us[0] = oop;
        rows[i].mpi_us[1] = ip;
      }
  pclose(pipe);
}

static void print_table(comm_bench_t *b, const row_t *rows, size_t count) {
  static const char *const hosts[BENCH_COMM_TRANSPORT_COUNT] = {
      "threads", "processes", "processes under mpirun"};
  double low = rows[0].model_gbs, high = rows[0].model_gbs;
  for (size_t i = 1; i < count; i++) {
    low = rows[i].model_gbs < low ? rows[i].model_gbs : low;
    high = rows[i].model_gbs > high ? rows[i].model_gbs : high;
  }
  fprintf(cli_out(),
          "# %s, %zu ranks as %s, float32 sum; model B/(3n-1) = %.2f-%.2f "
          "GB/s (measured before each size)\n",
          bench_comm_op_name(b->op), b->n, hosts[b->transport], low, high);
  fprintf(cli_out(),
          "# %10s %10s %6s %5s | %10s %8s %8s %6s | %10s %8s %8s %6s | %10s "
          "%8s %7s %7s\n",
          "size", "count", "type", "redop", "time(us)", "algbw", "busbw",
          "#wrong", "time(us)", "algbw", "busbw", "#wrong", "mpi(us)",
          "mpi algbw", "vs mpi", "%model");
  for (size_t i = 0; i < count; i++) {
    const row_t *r = &rows[i];
    double algbw[2], busbw[2];
    for (int p = 0; p < 2; p++) {
      algbw[p] = (double)r->bytes / (r->us[p] * 1e3);
      busbw[p] = algbw[p] * bus_factor(b->op, b->n);
    }
    double mpi_algbw =
        r->mpi_us[0] > 0 ? (double)r->bytes / (r->mpi_us[0] * 1e3) : 0;
    fprintf(cli_out(),
            "  %10zu %10zu %6s %5s | %10.2f %8.2f %8.2f %6zu | %10.2f %8.2f "
            "%8.2f %6zu | %10.2f %8.2f %7.2f %6.0f%%\n",
            r->bytes, r->bytes / sizeof(float), "float", "sum", r->us[0],
            algbw[0], busbw[0], r->wrong[0], r->us[1], algbw[1], busbw[1],
            r->wrong[1], r->mpi_us[0], mpi_algbw,
            mpi_algbw > 0 ? algbw[0] / mpi_algbw : 0,
            100 * algbw[0] / r->model_gbs);
  }
  fflush(cli_out());
}

static void record_rows(comm_bench_t *b, const row_t *rows, size_t count) {
  for (size_t i = 0; i < count; i++) {
    const row_t *r = &rows[i];
    char size_text[32], what[96];
    cli_format_bytes(r->bytes, size_text, sizeof size_text);
    int budgeted = b->op == BENCH_COMM_ALL_REDUCE && b->n == 2 &&
                   !b->ctx->quick && b->transport != BENCH_COMM_MPI;
    int large = budgeted && r->bytes >= (64u << 20);
    int tiny = budgeted && r->bytes == 1024;
    int has_mpi = r->mpi_us[0] > 0;
    /* The mpi transport is Open MPI underneath: within 0.9x of it. */
    int over_mpi = b->op == BENCH_COMM_ALL_REDUCE && !b->ctx->quick &&
                   b->transport == BENCH_COMM_MPI && has_mpi;
    double algbw = (double)r->bytes / (r->us[0] * 1e3);
    snprintf(what, sizeof what, "%s %s %zu %s", bench_comm_op_name(b->op),
             size_text, b->n, transport_label(b));
    if (tiny) {
      bench_record(b->ctx, &(bench_result_t){
                               .bench_case = what,
                               .value = r->us[0],
                               .unit = "us",
                               .baseline = has_mpi ? "MPI_Allreduce" : NULL,
                               .baseline_value = r->mpi_us[0],
                               .budget = has_mpi ? BENCH_BUDGET_MAX_EXTRA
                                                 : BENCH_BUDGET_NONE,
                               .limit = 0,
                               .budget_text = "<= Open MPI latency",
                           });
      continue;
    }
    bench_record(b->ctx,
                 &(bench_result_t){
                     .bench_case = what,
                     .value = algbw,
                     .unit = "GB/s",
                     .baseline = has_mpi ? "MPI_Allreduce" : NULL,
                     .baseline_value =
                         has_mpi ? (double)r->bytes / (r->mpi_us[0] * 1e3) : 0,
                     .budget = (large || over_mpi) && has_mpi
                                   ? BENCH_BUDGET_MIN_RATIO
                                   : BENCH_BUDGET_NONE,
                     .limit = over_mpi ? 0.9 : 2.5,
                     .budget_text = over_mpi ? ">= 0.9x MPI_Allreduce"
                                             : ">= 2.5x Open MPI",
                 });
    if (large) {
      snprintf(what, sizeof what, "%s %s %zu %s model",
               bench_comm_op_name(b->op), size_text, b->n, transport_label(b));
      bench_record(b->ctx, &(bench_result_t){
                               .bench_case = what,
                               .value = 100 * algbw / r->model_gbs,
                               .unit = "%",
                               .budget = BENCH_BUDGET_MIN_VALUE,
                               .limit = 60,
                               .budget_text = ">= 60% of the model",
                           });
    }
  }
}

/* Rank r > 0 of a process world (shm): `backplane bench comm` again, with
 * the same plugin (and --plugin-path words) and settings, the id and rank in
 * its environment, and its output discarded. */
static bp_status_t spawn_children(comm_bench_t *b, const unsigned char *id,
                                  size_t id_size) {
  static char program[PATH_MAX];
  FILE *cmdline = fopen("/proc/self/cmdline", "r");
  size_t length = cmdline ? fread(program, 1, sizeof program - 1, cmdline) : 0;
  if (cmdline)
    fclose(cmdline);
  program[length] = '\0'; /* argv[0], as this process was started */
  char *argv[64] = {program};
  bench_comm_rank_args(b->ctx, argv, 1, sizeof argv / sizeof *argv);
  bench_comm_id_export(id, id_size);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY,
                                   0);
  bp_status_t status = BP_OK;
  for (size_t r = 1; r < b->n && status == BP_OK; r++) {
    char rank[24];
    snprintf(rank, sizeof rank, "%zu", r);
    setenv("BACKPLANE_BENCH_COMM_RANK", rank, 1);
    if (posix_spawn(&b->children[r], "/proc/self/exe", &quiet, NULL, argv,
                    environ) != 0)
      status = bench_error(b->ctx, "starting a rank process", BP_ERR_INTERNAL);
  }
  posix_spawn_file_actions_destroy(&quiet);
  unsetenv("BACKPLANE_BENCH_COMM_RANK");
  unsetenv(BENCH_COMM_ID_VARIABLE);
  return status;
}

/* A fresh unique id from `device`'s plugin into id (capacity bytes). */
static bp_status_t make_unique_id(comm_bench_t *b, bp_device_t *device,
                                  unsigned char *id, size_t capacity,
                                  size_t *out_size) {
  bp_status_t status = bp_comm_unique_id_size(device, out_size);
  if (status == BP_OK && *out_size > capacity)
    status = BP_ERR_UNSUPPORTED;
  if (status == BP_OK)
    status = bp_comm_get_unique_id(device, id, *out_size);
  return status == BP_OK ? BP_OK
                         : bench_error(b->ctx, "making the unique id", status);
}

/* This process's first rank: 0 unless it is a rank process (shm child or
 * mpi rank). */
static bp_status_t place_this_process(comm_bench_t *b) {
  if (b->transport == BENCH_COMM_MPI)
    return bench_comm_mpi_rank(b->ctx, &b->my_rank);
  const char *child_rank = getenv("BACKPLANE_BENCH_COMM_RANK");
  b->my_rank = child_rank ? strtoull(child_rank, NULL, 10) : 0;
  return BP_OK;
}

/* A rank under mpirun, once its communicator is made: Open MPI's
 * MPI_Allreduce in this process and, under --hosts, the flat communicator
 * (every rank over MPI), with an id rank 0 makes and broadcasts. */
static bp_status_t open_mpi_contenders(comm_bench_t *b) {
  b->mpi = bench_comm_mpi_baseline();
  if (b->mpi == NULL)
    return BP_ERR_NOT_FOUND; /* the loader said why */
  if (b->ctx->comm.hosts == 0)
    return BP_OK;
  unsigned char id[BENCH_COMM_ID_BYTES_MAX] = {0};
  size_t id_size = 0;
  bp_status_t status =
      b->my_rank == 0
          ? make_unique_id(b, b->devices[0], id, sizeof id, &id_size)
          : bp_comm_unique_id_size(b->devices[0], &id_size);
  if (status == BP_OK &&
      (id_size > sizeof id || b->mpi->broadcast(id, id_size, 0) != 0))
    status = bench_error(b->ctx, "broadcasting the flat communicator's id",
                         BP_ERR_INTERNAL);
  if (status != BP_OK)
    return status;
  const char *hybrid = getenv("BACKPLANE_COMM_HYBRID");
  char *saved = hybrid ? strdup(hybrid) : NULL;
  setenv("BACKPLANE_COMM_HYBRID", "0", 1);
  status =
      bp_comm_init_rank(b->devices[0], b->n, id, id_size, b->my_rank, &b->flat);
  if (saved)
    setenv("BACKPLANE_COMM_HYBRID", saved, 1);
  else
    unsetenv("BACKPLANE_COMM_HYBRID");
  free(saved);
  return status == BP_OK
             ? BP_OK
             : bench_error(b->ctx, "bp_comm_init_rank (flat)", status);
}

/* Devices, streams, buffers and communicators of the ranks this process
 * drives. */
static bp_status_t open_ranks(comm_bench_t *b, size_t max_bytes) {
  bench_ctx_t *ctx = b->ctx;
  int threads = b->transport == BENCH_COMM_THREADS;
  b->local = threads ? b->n : 1;
  b->capacity = max_bytes;
  bp_status_t status = place_this_process(b);
  if (status != BP_OK)
    return status;
  for (size_t l = 0; l < b->local && status == BP_OK; l++) {
    status = bp_device_get(ctx->runtime, ctx->plugin_name, threads ? l : 0,
                           &b->devices[l]);
    if (status == BP_OK)
      status = bp_stream_create(b->devices[l], &b->streams[l]);
    if (status == BP_OK)
      status = bp_device_malloc(b->devices[l], max_bytes, (void **)&b->send[l]);
    if (status == BP_OK)
      status = bp_device_malloc(b->devices[l], max_bytes, (void **)&b->recv[l]);
    if (status == BP_OK)
      status = bp_memset(b->devices[l], b->send[l], 0, max_bytes, NULL);
    if (status == BP_OK)
      status = bp_memset(b->devices[l], b->recv[l], 0, max_bytes, NULL);
  }
  if (status != BP_OK)
    return bench_error(ctx, "preparing the ranks' devices", status);
  if (threads)
    return (status = bp_comm_init_all(b->devices, b->n, b->comms)) == BP_OK
               ? BP_OK
               : bench_error(ctx, "bp_comm_init_all", status);
  unsigned char id[BENCH_COMM_ID_BYTES_MAX];
  size_t id_size = 0;
  if (b->my_rank != 0 || b->transport == BENCH_COMM_MPI) {
    id_size = bench_comm_id_import(id, sizeof id);
  } else {
    status = make_unique_id(b, b->devices[0], id, sizeof id, &id_size);
    if (status == BP_OK)
      status = spawn_children(b, id, id_size);
    if (status != BP_OK)
      return status;
  }
  status = bp_comm_init_rank(b->devices[0], b->n, id, id_size, b->my_rank,
                             &b->comms[0]);
  if (status != BP_OK)
    return bench_error(ctx, "bp_comm_init_rank", status);
  return b->transport == BENCH_COMM_MPI ? open_mpi_contenders(b) : BP_OK;
}

static bp_status_t close_ranks(comm_bench_t *b) {
  bp_status_t status = BP_OK;
  for (size_t l = 0; l < b->local; l++) {
    if (b->streams[l])
      bp_stream_synchronize(b->streams[l]);
    bp_comm_destroy(b->comms[l]);
    if (l == 0 && b->flat)
      bp_comm_destroy(b->flat);
    if (b->send[l])
      bp_device_free(b->devices[l], b->send[l]);
    if (b->recv[l])
      bp_device_free(b->devices[l], b->recv[l]);
    bp_stream_destroy(b->streams[l]);
  }
  for (size_t r = 1;
       r < b->n && b->transport == BENCH_COMM_SHM && b->my_rank == 0; r++) {
    int code = 0;
    if (b->children[r] > 0 &&
        (waitpid(b->children[r], &code, 0) != b->children[r] ||
         !WIFEXITED(code) || WEXITSTATUS(code) != 0)) {
      fprintf(stderr, "backplane bench comm: rank %zu failed\n", r);
      status = BP_ERR_PLUGIN;
    }
  }
  return status;
}

static double lower(double kept, double candidate) {
  return kept == 0 || (candidate > 0 && candidate < kept) ? candidate : kept;
}

/* Ranks as threads or shm processes: times one size (out of place, then in
 * place) `repetitions` times, keeping the best, and checks its results once.
 * Rank 0 runs Open MPI's baseline after each repetition, also keeping the
 * best. (Ranks under mpirun: time_row_beside_mpi.) */
static bp_status_t time_row(comm_bench_t *b, row_t *row, int repetitions) {
  int baseline =
      b->my_rank == 0 && b->transport != BENCH_COMM_MPI && !b->ctx->quick;
  bp_status_t status = BP_OK;
  for (int rep = 0; rep < repetitions && status == BP_OK; rep++) {
    for (int in_place = 0; in_place < 2 && status == BP_OK; in_place++) {
      double us = 0;
      status = time_op(b, row->bytes, in_place, &us);
      row->us[in_place] = lower(row->us[in_place], us);
      if (status == BP_OK && rep == 0)
        status = count_wrong(b, b->comms, row->bytes, in_place,
                             &row->wrong[in_place]);
    }
    if (status != BP_OK || !baseline)
      continue;
    row_t mpi = {.bytes = row->bytes};
    mpi_baseline(b, &mpi, 1);
    for (int p = 0; p < 2; p++)
      row->mpi_us[p] = lower(row->mpi_us[p], mpi.mpi_us[p]);
  }
  return status;
}

/* What a timing under mpirun runs: the plugin's collective on the rank's
 * communicator, on its flat one (--hosts), or Open MPI's MPI_Allreduce. */
typedef enum contender {
  CONTENDER_PLUGIN,
  CONTENDER_FLAT,
  CONTENDER_MPI,
  CONTENDER_COUNT
} contender_t;

enum { MAX_ROUNDS = 9 };

/* Rounds per size under mpirun (each times every contender once), and
 * calls per contender in a round. */
static size_t rounds_beside_mpi(const bench_ctx_t *ctx, size_t bytes) {
  if (ctx->quick)
    return 1;
  return bytes >= (64u << 20) ? 3 : bytes >= (1u << 20) ? 5 : 7;
}

static size_t iterations_beside_mpi(const bench_ctx_t *ctx, size_t bytes) {
  if (ctx->quick)
    return 2;
  return bytes >= (64u << 20) ? 2 : bytes >= (1u << 20) ? 10 : 500;
}

/* One call of `who` on the rank's own buffers. */
static bp_status_t contend(comm_bench_t *b, contender_t who, size_t bytes,
                           int in_place) {
  if (who != CONTENDER_MPI)
    return call(b, 0, who == CONTENDER_FLAT ? b->flat : b->comms[0], bytes,
                in_place);
  float *send = b->send[0];
  return b->mpi->all_reduce(send, in_place ? send : b->recv[0],
                            bytes / sizeof(float)) == 0
             ? BP_OK
             : bench_error(b->ctx, "MPI_Allreduce", BP_ERR_INTERNAL);
}

/* Waits for `who`'s calls to end (MPI_Allreduce returns once done). */
static bp_status_t settle(comm_bench_t *b, contender_t who) {
  if (who == CONTENDER_MPI)
    return BP_OK;
  return sync_all(b, who == CONTENDER_FLAT ? &b->flat : b->comms);
}

/* Microseconds per call of `who`, the slowest rank's: `iters` calls back to
 * back, after a tenth of that (at least one) as warm-up and a barrier. */
static bp_status_t time_contender(comm_bench_t *b, contender_t who,
                                  size_t bytes, int in_place, size_t iters,
                                  double *out_us) {
  size_t warmup = iters / 10 > 1 ? iters / 10 : 1;
  bp_status_t status = BP_OK;
  for (size_t i = 0; i < warmup && status == BP_OK; i++)
    status = contend(b, who, bytes, in_place);
  if (status == BP_OK)
    status = settle(b, who);
  if (status == BP_OK && b->mpi->barrier() != 0)
    status = bench_error(b->ctx, "MPI_Barrier", BP_ERR_INTERNAL);
  uint64_t start = cli_now_ns();
  for (size_t i = 0; i < iters && status == BP_OK; i++)
    status = contend(b, who, bytes, in_place);
  if (status == BP_OK)
    status = settle(b, who);
  double mine = (double)(cli_now_ns() - start) / 1e3 / (double)iters;
  if (status == BP_OK)
    *out_us = b->mpi->largest(mine);
  return status;
}

static double median(double *values, size_t count) {
  for (size_t i = 1; i < count; i++)
    for (size_t j = i; j > 0 && values[j - 1] > values[j]; j--) {
      double kept = values[j];
      values[j] = values[j - 1];
      values[j - 1] = kept;
    }
  return count % 2 ? values[count / 2]
                   : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* A size under mpirun: its results checked on each communicator, then
 * rounds that each time every contender, out of place then in place, the
 * order turning by one each round, so that all see the machine in the same
 * states (a shared VM changes speed from one minute to the next); the
 * median of each. */
static bp_status_t time_row_beside_mpi(comm_bench_t *b, row_t *row) {
  contender_t who[CONTENDER_COUNT];
  size_t contenders = 0;
  who[contenders++] = CONTENDER_PLUGIN;
  if (b->flat)
    who[contenders++] = CONTENDER_FLAT;
  if (b->op == BENCH_COMM_ALL_REDUCE)
    who[contenders++] = CONTENDER_MPI;
  bp_status_t status = BP_OK;
  for (int in_place = 0; in_place < 2 && status == BP_OK; in_place++) {
    size_t flat_wrong = 0;
    status =
        count_wrong(b, b->comms, row->bytes, in_place, &row->wrong[in_place]);
    if (status == BP_OK && b->flat)
      status = count_wrong(b, &b->flat, row->bytes, in_place, &flat_wrong);
    row->wrong[in_place] += flat_wrong;
  }
  size_t rounds = rounds_beside_mpi(b->ctx, row->bytes);
  size_t iters = iterations_beside_mpi(b->ctx, row->bytes);
  double us[CONTENDER_COUNT][2][MAX_ROUNDS] = {{{0}}};
  for (size_t round = 0; round < rounds && status == BP_OK; round++)
    for (size_t k = 0; k < contenders && status == BP_OK; k++) {
      contender_t c = who[(round + k) % contenders];
      for (int in_place = 0; in_place < 2 && status == BP_OK; in_place++)
        status = time_contender(b, c, row->bytes, in_place, iters,
                                &us[c][in_place][round]);
    }
  for (int p = 0; p < 2 && status == BP_OK; p++) {
    row->us[p] = median(us[CONTENDER_PLUGIN][p], rounds);
    row->flat_us[p] = b->flat ? median(us[CONTENDER_FLAT][p], rounds) : 0;
    row->mpi_us[p] = b->op == BENCH_COMM_ALL_REDUCE
                         ? median(us[CONTENDER_MPI][p], rounds)
                         : 0;
  }
  return status;
}

/* Times and checks every size with the ranks this process drives. A shared
 * VM changes speed from one minute to the next, so each size is compared
 * with baselines taken in the same state: rank 0 measures the model's
 * bandwidth right before it, and sizes below 1 MiB (milliseconds each) are
 * timed three times alternating with Open MPI's baseline, the best of each
 * kept. */
static bp_status_t measure(comm_bench_t *b, const size_t *sizes, size_t count,
                           row_t *rows) {
  model_probe_t probe = {0};
  bp_status_t status = BP_OK;
  if (b->my_rank == 0)
    status =
        model_probe_open(&probe, b->ctx->quick ? (4u << 20) : (256u << 20));
  if (status == BP_OK)
    status = open_ranks(b, sizes[count - 1]);
  double discarded; /* a first round wakes everything up, untimed */
  if (status == BP_OK)
    status = time_op(b, sizes[0], 0, &discarded);
  for (size_t i = 0; i < count && status == BP_OK; i++) {
    rows[i].bytes = sizes[i];
    if (b->my_rank == 0)
      rows[i].model_gbs =
          model_probe_bandwidth(&probe) / (3.0 * (double)b->n - 1.0);
    int repetitions = b->ctx->quick || sizes[i] >= (1u << 20) ? 1 : 3;
    status = b->transport == BENCH_COMM_MPI
                 ? time_row_beside_mpi(b, &rows[i])
                 : time_row(b, &rows[i], repetitions);
  }
  model_probe_close(&probe);
  bp_status_t closed = close_ranks(b);
  return status != BP_OK ? status : closed;
}

/* The rows as rank 0 of an mpi world hands them to its launcher: one line
 * "bytes us us wrong wrong model mpi_us mpi_us flat_us flat_us" per size. */
static int write_rows(FILE *out, const row_t *rows, size_t count) {
  int failed = out == NULL;
  for (size_t i = 0; i < count && !failed; i++) {
    const row_t *r = &rows[i];
    failed =
        fprintf(out, "%zu %.17g %.17g %zu %zu %.17g %.17g %.17g %.17g %.17g\n",
                r->bytes, r->us[0], r->us[1], r->wrong[0], r->wrong[1],
                r->model_gbs, r->mpi_us[0], r->mpi_us[1], r->flat_us[0],
                r->flat_us[1]) < 0;
  }
  if (out != NULL && fclose(out) != 0)
    failed = 1;
  return failed;
}

/* The launcher of an mpi world: the id, mpirun, then rank 0's rows. */
static bp_status_t measure_under_mpirun(comm_bench_t *b, row_t *rows,
                                        size_t count) {
  unsigned char id[BENCH_COMM_ID_BYTES_MAX];
  size_t id_size = 0;
  FILE *in = NULL;
  bp_status_t status =
      make_unique_id(b, b->ctx->device, id, sizeof id, &id_size);
  if (status == BP_OK)
    status = bench_comm_mpi_launch(b->ctx, id, id_size, &in);
  if (status != BP_OK)
    return status;
  size_t read = 0;
  for (row_t *r = rows; read < count; r = &rows[++read])
    if (fscanf(in, "%zu %lf %lf %zu %zu %lf %lf %lf %lf %lf", &r->bytes,
               &r->us[0], &r->us[1], &r->wrong[0], &r->wrong[1], &r->model_gbs,
               &r->mpi_us[0], &r->mpi_us[1], &r->flat_us[0],
               &r->flat_us[1]) != 10)
      break;
  fclose(in);
  if (read == count)
    return BP_OK;
  fprintf(stderr,
          "backplane bench comm: rank 0 reported %zu of %zu sizes under "
          "mpirun\n",
          read, count);
  return BP_ERR_PLUGIN;
}

/* The link between hosts 0 and 1 (one rank on each): Open MPI's ping-pong
 * (bin/backplane_mpi_allreduce --ping-pong); zeros if it cannot run. */
static void link_probe(double *out_latency_us, double *out_gbs) {
  *out_latency_us = *out_gbs = 0;
  char self[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0)
    return;
  self[length] = '\0';
  char *slash = strrchr(self, '/');
  if (slash)
    *slash = '\0';
  char command[PATH_MAX + 160];
  snprintf(command, sizeof command,
           "mpirun --oversubscribe --bind-to none --map-by node -np 2 "
           "%s/backplane_mpi_allreduce --ping-pong 2>/dev/null",
           self);
  FILE *pipe = popen(command, "r");
  if (pipe == NULL)
    return;
  if (fscanf(pipe, "%lf %lf", out_latency_us, out_gbs) != 2)
    *out_latency_us = *out_gbs = 0;
  pclose(pipe);
}

/* The inner run of --hosts (bench_comm_hosts.h), inside host 0: the link,
 * then one mpirun whose ranks time the hybrid, every rank over MPI and Open
 * MPI's MPI_Allreduce in turn at each size, all written to `out`. */
static bp_status_t measure_on_hosts(comm_bench_t *b, row_t *rows, size_t count,
                                    FILE *out) {
  double latency_us = 0, gbs = 0;
  /* The hosts share this machine's cores while each hostfile entry claims
   * its own: Open MPI's blocking calls would spin without ever yielding. */
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  link_probe(&latency_us, &gbs);
  setenv("BACKPLANE_COMM_HYBRID", "1", 1);
  bp_status_t status = measure_under_mpirun(b, rows, count);
  int failed = fprintf(out, "link %.17g %.17g\n", latency_us, gbs) < 0;
  for (size_t i = 0; i < count && status == BP_OK && !failed; i++)
    failed =
        fprintf(out, "%zu %.17g %.17g %.17g %.17g %.17g %.17g %zu\n",
                rows[i].bytes, rows[i].us[0], rows[i].us[1], rows[i].flat_us[0],
                rows[i].flat_us[1], rows[i].mpi_us[0], rows[i].mpi_us[1],
                rows[i].wrong[0] + rows[i].wrong[1]) < 0;
  if (fclose(out) != 0 || failed) {
    fprintf(stderr, "backplane bench comm: cannot write the results of the "
                    "run across hosts\n");
    return status == BP_OK ? BP_ERR_INTERNAL : status;
  }
  return status;
}

/* A rank process that does not report ends here: shm ranks > 0, and every
 * mpi rank (rank 0 hands its rows to the launcher). The exit code says
 * whether this process's results were right. */
static _Noreturn void end_rank_process(const comm_bench_t *b, const row_t *rows,
                                       size_t count) {
  int failed = 0;
  for (size_t i = 0; i < count; i++)
    failed |= rows[i].wrong[0] || rows[i].wrong[1];
  if (b->transport == BENCH_COMM_MPI && b->my_rank == 0 &&
      write_rows(bench_comm_mpi_rows_output(), rows, count)) {
    fprintf(stderr, "backplane bench comm: rank 0 cannot write its rows\n");
    failed = 1;
  }
  fflush(cli_out());
  exit(failed);
}

bp_status_t bench_comm(bench_ctx_t *ctx) {
  if (ctx->comm.dead_peer)
    return bench_comm_dead_peer(ctx);
  comm_bench_t b = {.ctx = ctx,
                    .op = ctx->comm.op,
                    .n = ctx->comm.ranks,
                    .transport = ctx->comm.transport};
  size_t sizes[MAX_SIZES];
  size_t count = sizes_of(ctx, sizes);
  row_t rows[MAX_SIZES] = {{0}};
  FILE *hosts_out = NULL;
  if (ctx->comm.hosts && !bench_comm_mpi_is_rank()) {
    if (!bench_comm_hosts_is_inner(&hosts_out))
      return bench_comm_hosts(ctx);
    if (hosts_out == NULL) {
      fprintf(stderr, "backplane bench comm: cannot open the results file of "
                      "the run across hosts\n");
      return BP_ERR_INTERNAL;
    }
    for (size_t i = 0; i < count; i++)
      rows[i].bytes = sizes[i];
    return measure_on_hosts(&b, rows, count, hosts_out);
  }
  int launcher = b.transport == BENCH_COMM_MPI && !bench_comm_mpi_is_rank();
  bp_status_t status = launcher ? measure_under_mpirun(&b, rows, count)
                                : measure(&b, sizes, count, rows);
  if (status != BP_OK)
    return status;
  if (!launcher && (b.my_rank != 0 || b.transport == BENCH_COMM_MPI))
    end_rank_process(&b, rows, count);
  size_t wrong = 0;
  for (size_t i = 0; i < count; i++)
    wrong += rows[i].wrong[0] + rows[i].wrong[1];
  if (wrong != 0)
    fprintf(stderr, "backplane bench comm: %zu wrong elements\n", wrong);
  if (!ctx->json)
    print_table(&b, rows, count);
  record_rows(&b, rows, count);
  return wrong == 0 ? BP_OK : BP_ERR_INTERNAL;
}
