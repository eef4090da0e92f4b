#include "bench_comm_mpi.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_comm_ranks.h"
#include "cli/cli_paths.h"

extern char **environ;

#define ROWS_VARIABLE "BACKPLANE_BENCH_COMM_ROWS"

int bench_comm_mpi_is_rank(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") != NULL;
}

static bp_status_t usage_failure(const char *reason) {
  fprintf(stderr, "backplane bench comm: %s\n", reason);
  return BP_ERR_INVALID_ARGUMENT;
}

bp_status_t bench_comm_mpi_rank(const bench_ctx_t *ctx, size_t *out_rank) {
  unsigned char id[BENCH_COMM_ID_BYTES_MAX];
  if (bench_comm_id_import(id, sizeof id) == 0 || !getenv(ROWS_VARIABLE))
    return usage_failure(
        "--transport mpi under an mpirun the bench did not start: run it "
        "without mpirun, it starts mpirun itself");
  const char *size = getenv("OMPI_COMM_WORLD_SIZE");
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (strtoull(size, NULL, 10) != ctx->comm.ranks || rank == NULL)
    return usage_failure("the mpirun world does not have --ranks processes");
  *out_rank = strtoull(rank, NULL, 10);
  return BP_OK;
}

const bench_mpi_baseline_t *bench_comm_mpi_baseline(void) {
  static const bench_mpi_baseline_t *loaded;
  if (loaded != NULL)
    return loaded;
  char path[PATH_MAX];
  cli_path_beside_binary(BENCH_MPI_BASELINE_FILE, path, sizeof path);
  void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  void *symbol = module ? dlsym(module, BENCH_MPI_BASELINE_SYMBOL) : NULL;
  bench_mpi_baseline_fn_t entry = NULL;
  memcpy(&entry, &symbol, sizeof entry);
  loaded = entry ? entry() : NULL;
  if (loaded == NULL)
    fprintf(stderr,
            "backplane bench comm: no MPI_Allreduce baseline in the ranks: "
            "%s\n",
            module == NULL  ? dlerror()
            : entry == NULL ? "the module lacks " BENCH_MPI_BASELINE_SYMBOL
                            : "MPI lacks MPI_THREAD_MULTIPLE");
  return loaded;
}

FILE *bench_comm_mpi_rows_output(void) {
  const char *path = getenv(ROWS_VARIABLE);
  return path ? fopen(path, "w") : NULL;
}

/* A temporary file for rank 0's rows, open for reading; its path in `path`. */
static FILE *rows_file(char *path, size_t capacity) {
  const char *directory = getenv("TMPDIR");
  snprintf(path, capacity, "%s/backplane-bench-comm-XXXXXX",
           directory && *directory ? directory : "/tmp");
  int fd = mkstemp(path);
  FILE *file = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (fd >= 0 && file == NULL)
    close(fd);
  return file;
}

/* Runs argv with stdout discarded (ranks other than the reporter print
 * nothing useful; errors come on stderr) and waits; -1 if it could not
 * start (errno set), else its wait status. */
static int run_quietly(char **argv) {
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY,
                                   0);
  pid_t pid;
  int started = posix_spawnp(&pid, argv[0], &quiet, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (started != 0) {
    errno = started;
    return -1;
  }
  int code = 0;
  while (waitpid(pid, &code, 0) < 0 && errno == EINTR)
    continue;
  return code;
}

/* Sets `name` to `value` and returns its previous value (a copy, NULL if it
 * was unset), for restore_variable. */
static char *replace_variable(const char *name, const char *value) {
  const char *old = getenv(name);
  char *saved = old ? strdup(old) : NULL;
  setenv(name, value, 1);
  return saved;
}

static void restore_variable(const char *name, char *saved) {
  if (saved)
    setenv(name, saved, 1);
  else
    unsetenv(name);
  free(saved);
}

bp_status_t bench_comm_mpi_launch(const bench_ctx_t *ctx,
                                  const unsigned char *id, size_t id_size,
                                  FILE **out_rows) {
  char self[PATH_MAX], rows_path[PATH_MAX], ranks[24];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  FILE *rows = length > 0 ? rows_file(rows_path, sizeof rows_path) : NULL;
  if (rows == NULL) {
    fprintf(stderr, "backplane bench comm: no file for rank 0's rows: %s\n",
            strerror(errno));
    return BP_ERR_INTERNAL;
  }
  self[length] = '\0';
  snprintf(ranks, sizeof ranks, "%zu", ctx->comm.ranks);
  /* The ranks end without MPI_Finalize (the plugin's module initializes
   * MPI, the bench knows nothing of it): Open MPI must not call that an
   * abnormal end. A rank's non-zero exit still fails the job. */
  char *argv[128] = {"mpirun",
                     "--oversubscribe",
                     "--bind-to",
                     "none",
                     "--mca",
                     "orte_allowed_exit_without_sync",
                     "1",
                     "-np",
                     ranks,
                     "-x",
                     BENCH_COMM_ID_VARIABLE,
                     "-x",
                     ROWS_VARIABLE,
                     "-x",
                     "BACKPLANE_COMM_TRANSPORT",
                     self};
  bench_comm_rank_args(ctx, argv, 16, sizeof argv / sizeof *argv);
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  bench_comm_id_export(id, id_size);
  setenv(ROWS_VARIABLE, rows_path, 1);
  char *transport = replace_variable("BACKPLANE_COMM_TRANSPORT", "mpi");
  int code = run_quietly(argv);
  int started = errno;
  restore_variable("BACKPLANE_COMM_TRANSPORT", transport);
  unsetenv(ROWS_VARIABLE);
  unsetenv(BENCH_COMM_ID_VARIABLE);
  unlink(rows_path);
  bp_status_t status = BP_OK;
  if (code < 0 && started == ENOENT) {
    fprintf(stderr, "backplane bench comm: mpirun is not on PATH: --transport "
                    "mpi needs Open MPI's mpirun (Debian: openmpi-bin)\n");
    status = BP_ERR_NOT_FOUND;
  } else if (code < 0) {
    fprintf(stderr, "backplane bench comm: mpirun cannot start: %s\n",
            strerror(started));
    status = BP_ERR_INTERNAL;
  } else if (!WIFEXITED(code) || WEXITSTATUS(code) != 0) {
    fprintf(stderr,
            "backplane bench comm: the ranks under mpirun failed (exit status "
            "%d; their messages are above)\n",
            WIFEXITED(code) ? WEXITSTATUS(code) : 128 + WTERMSIG(code));
    status = BP_ERR_PLUGIN;
  }
  if (status != BP_OK) {
    fclose(rows);
    return status;
  }
  *out_rows = rows;
  return BP_OK;
}
