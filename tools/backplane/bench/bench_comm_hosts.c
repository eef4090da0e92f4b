#include "bench_comm_hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_comm_ranks.h"
#include "cli/cli_format.h"
#include "cli/cli_output.h"

extern char **environ;

#define OUT_VARIABLE "BACKPLANE_BENCH_COMM_HOSTS_OUT"
#define HARNESS BP_SOURCE_DIR "/tests/comm/netns/mpirun_on_hosts.sh"

enum { MAX_ROWS = 16, SKIPPED = 77 };

typedef struct hosts_row {
  size_t bytes;
  double hybrid_us[2], flat_us[2], mpi_us[2]; /* out of place, in place */
  size_t wrong;
} hosts_row_t;

int bench_comm_hosts_is_inner(FILE **out) {
  const char *path = getenv(OUT_VARIABLE);
  if (path == NULL)
    return 0;
  *out = fopen(path, "w");
  return 1;
}

/* Runs argv with stdout and stderr into `log` and waits; -1 if it could not
 * start, else its exit status (128 + signal). */
static int run_logged(char **argv, int log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, log, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log, STDERR_FILENO);
  pid_t pid;
  int started = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0)
    return -1;
  int code = 0;
  while (waitpid(pid, &code, 0) < 0 && errno == EINTR)
    continue;
  return WIFEXITED(code) ? WEXITSTATUS(code) : 128 + WTERMSIG(code);
}

/* Copies the log to stderr, or only its "SKIP: " line when `skip_only`. */
static void show_log(int log, int skip_only) {
  FILE *in = fdopen(dup(log), "r");
  if (in == NULL)
    return;
  rewind(in);
  char line[1024];
  while (fgets(line, sizeof line, in))
    if (!skip_only || strncmp(line, "SKIP: ", 6) == 0)
      fprintf(stderr, "%s%s",
              skip_only ? "backplane bench comm --hosts: "
                          "skipped: "
                        : "",
              skip_only ? line + 6 : line);
  fclose(in);
}

/* A temporary file (unlinked by the caller) in TMPDIR, which the harness's
 * hosts share with this process; its path in `path`. */
static int temporary(char *path, size_t capacity, const char *what) {
  const char *directory = getenv("TMPDIR");
  snprintf(path, capacity, "%s/backplane-bench-hosts-%s-XXXXXX",
           directory && *directory ? directory : "/tmp", what);
  return mkstemp(path);
}

/* Runs this bench inside host 0 through the harness; its results file stays
 * open in *out_results (read from the start). BP_OK, or a skip
 * (*out_skipped), or BP_ERR_PLUGIN/_INTERNAL with the reason on stderr. */
static bp_status_t run_inner(const bench_ctx_t *ctx, FILE **out_results,
                             int *out_skipped) {
  char self[PATH_MAX], results[PATH_MAX], log_path[PATH_MAX];
  char hosts[16], per_host[16];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  int results_fd = temporary(results, sizeof results, "results");
  int log = temporary(log_path, sizeof log_path, "log");
  if (length <= 0 || results_fd < 0 || log < 0) {
    fprintf(stderr, "backplane bench comm --hosts: no temporary files: %s\n",
            strerror(errno));
    return BP_ERR_INTERNAL;
  }
  unlink(log_path);
  self[length] = '\0';
  snprintf(hosts, sizeof hosts, "%zu", ctx->comm.hosts);
  snprintf(per_host, sizeof per_host, "%zu", ctx->comm.ranks / ctx->comm.hosts);
  char *argv[96] = {"sh", HARNESS, hosts, per_host, "-t", "3600", "-l", self};
  bench_comm_rank_args(ctx, argv, 8, sizeof argv / sizeof *argv);
  setenv(OUT_VARIABLE, results, 1);
  int code = run_logged(argv, log);
  unsetenv(OUT_VARIABLE);
  *out_results = fdopen(results_fd, "r");
  unlink(results);
  bp_status_t status = BP_OK;
  if (code == SKIPPED) {
    show_log(log, 1);
    *out_skipped = 1;
  } else if (code != 0) {
    show_log(log, 0);
    fprintf(stderr,
            "backplane bench comm --hosts: the run across hosts failed (exit "
            "status %d; its output is above)\n",
            code);
    status = BP_ERR_PLUGIN;
  }
  close(log);
  return status;
}

/* Reads the inner run's results; the number of rows, or 0. */
static size_t read_results(FILE *in, double *latency_us, double *gbs,
                           hosts_row_t *rows) {
  size_t count = 0;
  if (fscanf(in, "link %lf %lf", latency_us, gbs) != 2)
    return 0;
  while (count < MAX_ROWS &&
         fscanf(in, "%zu %lf %lf %lf %lf %lf %lf %zu", &rows[count].bytes,
                &rows[count].hybrid_us[0], &rows[count].hybrid_us[1],
                &rows[count].flat_us[0], &rows[count].flat_us[1],
                &rows[count].mpi_us[0], &rows[count].mpi_us[1],
                &rows[count].wrong) == 8)
    count++;
  return count;
}

static double ratio(double baseline_us, double us) {
  return us > 0 && baseline_us > 0 ? baseline_us / us : 0;
}

static void print_table(const bench_ctx_t *ctx, double latency_us, double gbs,
                        const hosts_row_t *rows, size_t count) {
  FILE *out = cli_out();
  fprintf(out,
          "# all_reduce, %zu ranks on %zu hosts (network namespaces, Open "
          "MPI over TCP between them), float32 sum\n"
          "# link (MPI ping-pong, host 0 to host 1): latency %.1f us, "
          "bandwidth %.3f GB/s\n",
          ctx->comm.ranks, ctx->comm.hosts, latency_us, gbs);
  fprintf(out, "# %10s | %21s | %21s | %21s | %9s %9s %11s\n", "size",
          "hybrid (us, in place)", "flat mpi (us, in pl.)",
          "MPI_Allreduce (us)", "mpi/MPI", "hyb/MPI", "hyb vs flat");
  for (size_t i = 0; i < count; i++) {
    const hosts_row_t *r = &rows[i];
    fprintf(out,
            "  %10zu | %10.2f %10.2f | %10.2f %10.2f | %10.2f %10.2f | %9.2f "
            "%9.2f %11.2f\n",
            r->bytes, r->hybrid_us[0], r->hybrid_us[1], r->flat_us[0],
            r->flat_us[1], r->mpi_us[0], r->mpi_us[1],
            ratio(r->mpi_us[0], r->flat_us[0]),
            ratio(r->mpi_us[0], r->hybrid_us[0]),
            ratio(r->flat_us[0], r->hybrid_us[0]));
  }
  fflush(out);
}

/* GB/s of an all-reduce of `bytes` taking `us` (0 if none). */
static double algbw(size_t bytes, double us) {
  return us > 0 ? (double)bytes / (us * 1e3) : 0;
}

static void record(bench_ctx_t *ctx, double latency_us, double gbs,
                   const hosts_row_t *rows, size_t count) {
  char what[128], size[32];
  snprintf(what, sizeof what, "link %zu hosts latency", ctx->comm.hosts);
  bench_record(ctx, &(bench_result_t){
                        .bench_case = what, .value = latency_us, .unit = "us"});
  snprintf(what, sizeof what, "link %zu hosts bandwidth", ctx->comm.hosts);
  bench_record(
      ctx, &(bench_result_t){.bench_case = what, .value = gbs, .unit = "GB/s"});
  for (size_t i = 0; i < count; i++) {
    const hosts_row_t *r = &rows[i];
    cli_format_bytes(r->bytes, size, sizeof size);
    int judged = !ctx->quick && r->mpi_us[0] > 0;
    snprintf(what, sizeof what, "all_reduce %s %zu mpi %zu hosts", size,
             ctx->comm.ranks, ctx->comm.hosts);
    bench_record(
        ctx, &(bench_result_t){.bench_case = what,
                               .value = algbw(r->bytes, r->flat_us[0]),
                               .unit = "GB/s",
                               .baseline = "MPI_Allreduce",
                               .baseline_value = algbw(r->bytes, r->mpi_us[0]),
                               .budget = judged ? BENCH_BUDGET_MIN_RATIO
                                                : BENCH_BUDGET_NONE,
                               .limit = 0.9,
                               .budget_text = ">= 0.9x MPI_Allreduce"});
    snprintf(what, sizeof what, "all_reduce %s %zu hybrid %zu hosts", size,
             ctx->comm.ranks, ctx->comm.hosts);
    int large = !ctx->quick && r->bytes >= (1u << 20);
    bench_record(
        ctx, &(bench_result_t){.bench_case = what,
                               .value = algbw(r->bytes, r->hybrid_us[0]),
                               .unit = "GB/s",
                               .baseline = "flat mpi",
                               .baseline_value = algbw(r->bytes, r->flat_us[0]),
                               .budget = large ? BENCH_BUDGET_MIN_RATIO
                                               : BENCH_BUDGET_NONE,
                               .limit = 1.0,
                               .budget_text = "beats flat mpi at >= 1 MiB"});
  }
}

bp_status_t bench_comm_hosts(bench_ctx_t *ctx) {
  if (access(HARNESS, R_OK) != 0) {
    fprintf(stderr,
            "backplane bench comm --hosts: skipped: the hosts harness (%s) "
            "is not there: it comes with the source tree\n",
            HARNESS);
    return BP_OK;
  }
  FILE *results = NULL;
  int skipped = 0;
  bp_status_t status = run_inner(ctx, &results, &skipped);
  hosts_row_t rows[MAX_ROWS];
  double latency_us = 0, gbs = 0;
  size_t count = 0;
  if (status == BP_OK && !skipped && results != NULL)
    count = read_results(results, &latency_us, &gbs, rows);
  if (results != NULL)
    fclose(results);
  if (status != BP_OK || skipped)
    return status;
  if (count == 0) {
    fprintf(stderr, "backplane bench comm --hosts: the run across hosts "
                    "reported nothing\n");
    return BP_ERR_PLUGIN;
  }
  size_t wrong = 0;
  for (size_t i = 0; i < count; i++)
    wrong += rows[i].wrong;
  if (wrong != 0)
    fprintf(stderr, "backplane bench comm: %zu wrong elements\n", wrong);
  if (!ctx->json)
    print_table(ctx, latency_us, gbs, rows, count);
  record(ctx, latency_us, gbs, rows, count);
  return wrong == 0 ? BP_OK : BP_ERR_INTERNAL;
}
