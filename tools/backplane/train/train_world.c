#include "train_world.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "train_error.h"
#include "train_watch.h"

extern char **environ;

#define ID_VARIABLE "BACKPLANE_TRAIN_COMM_ID"
#define PARENT_VARIABLE "BACKPLANE_TRAIN_PARENT"

static size_t env_size(const char *name) {
  const char *text = getenv(name);
  return text && *text ? (size_t)strtoull(text, NULL, 10) : 0;
}

bp_status_t train_world_detect(size_t processes, train_world_t *out) {
  memset(out, 0, sizeof *out);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  size_t limit = (size_t)(cores > 0 ? cores : 1) * 4;
  if (limit > TRAIN_WORLD_MAX_PROCESSES)
    limit = TRAIN_WORLD_MAX_PROCESSES;
  if (getenv(ID_VARIABLE)) {
    out->kind = TRAIN_WORLD_SPAWNED;
    out->size = env_size("WORLD_SIZE");
    out->rank = env_size("RANK");
    /* Dies with the spawner, even if it is SIGKILLed. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if ((size_t)getppid() != env_size(PARENT_VARIABLE))
      return train_fail(BP_ERR_INVALID_ARGUMENT,
                        "the process that started rank %zu is gone", out->rank);
  } else if (getenv("OMPI_COMM_WORLD_SIZE")) {
    out->kind = TRAIN_WORLD_MPI;
    out->size = env_size("OMPI_COMM_WORLD_SIZE");
    out->rank = env_size("OMPI_COMM_WORLD_RANK");
    if (processes)
      return train_fail(BP_ERR_INVALID_ARGUMENT,
                        "--processes under mpirun: mpirun already made %zu "
                        "processes; drop --processes",
                        out->size);
  } else if (getenv("RANK") && getenv("WORLD_SIZE")) {
    out->kind = TRAIN_WORLD_LAUNCHED;
    out->size = env_size("WORLD_SIZE");
    out->rank = env_size("RANK");
    if (processes)
      return train_fail(BP_ERR_INVALID_ARGUMENT,
                        "--processes with RANK and WORLD_SIZE set: a launcher "
                        "already made %zu processes; drop --processes",
                        out->size);
  } else if (processes) {
    if (processes > limit)
      return train_fail(BP_ERR_INVALID_ARGUMENT,
                        "--processes %zu: this machine runs at most %zu rank "
                        "processes (%ld cores, 4 per core, at most %d)",
                        processes, limit, cores, TRAIN_WORLD_MAX_PROCESSES);
    out->kind = TRAIN_WORLD_SPAWNER;
    out->size = processes;
  }
  if (out->kind != TRAIN_WORLD_SINGLE &&
      (out->size < 1 || out->rank >= out->size ||
       out->size > TRAIN_WORLD_MAX_PROCESSES))
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "rank %zu of a world of %zu processes is not possible",
                      out->rank, out->size);
  return BP_OK;
}

static void to_hex(const unsigned char *id, size_t size, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < size; i++) {
    out[2 * i] = digits[id[i] >> 4];
    out[2 * i + 1] = digits[id[i] & 15];
  }
  out[2 * size] = '\0';
}

static size_t from_hex(const char *text, unsigned char *out, size_t cap) {
  size_t n = strlen(text);
  if (n % 2 || n / 2 > cap)
    return 0;
  for (size_t i = 0; i < n / 2; i++) {
    unsigned v;
    if (sscanf(text + 2 * i, "%2x", &v) != 1)
      return 0;
    out[i] = (unsigned char)v;
  }
  return n / 2;
}

/* The file rank 0 of a world another launcher made leaves its id in, named
 * after the job (BACKPLANE_TRAIN_JOB, else the launcher's job id) and, under
 * Open MPI 4, after the mpirun that started it (OMPI_MCA_orte_hnp_uri, the
 * same in every rank, with the ports mpirun listens on): Open MPI numbers
 * jobs from mpirun's pid, so a later mpirun given a recycled pid has the
 * same job id, and its rank 1 could read an id a killed job's rank 0 left
 * (and wait for a world no one else joins). */
static void mpi_id_path(char *out, size_t size) {
  static const char *const jobs[] = {"BACKPLANE_TRAIN_JOB", "PMIX_NAMESPACE",
                                     "OMPI_MCA_orte_ess_jobid",
                                     "TORCHELASTIC_RUN_ID", "MASTER_PORT"};
  size_t named = 0;
  const char *job = NULL;
  while (!job && named < sizeof jobs / sizeof jobs[0])
    job = getenv(jobs[named++]);
  const char *launch = named > 1 ? getenv("OMPI_MCA_orte_hnp_uri") : NULL;
  uint64_t hash = 14695981039346656037u; /* FNV-1a */
  for (const char *c = launch; c && *c; c++)
    hash = (hash ^ (unsigned char)*c) * 1099511628211u;
  const char *tmp = getenv("TMPDIR");
  int n = snprintf(out, size, "%s/backplane-train-%s",
                   tmp && *tmp ? tmp : "/tmp", job ? job : "mpirun");
  if (n > 0 && (size_t)n < size)
    snprintf(out + n, size - (size_t)n, launch ? "-%016" PRIx64 ".id" : ".id",
             hash);
}

static bp_status_t make_id(train_world_t *world, bp_device_t *device) {
  bp_status_t s = bp_comm_unique_id_size(device, &world->id_size);
  if (!s && world->id_size > TRAIN_WORLD_ID_MAX)
    return train_fail(BP_ERR_UNSUPPORTED, "a %zu-byte unique id is too long",
                      world->id_size);
  if (!s)
    s = bp_comm_get_unique_id(device, world->id, world->id_size);
  return s ? train_fail_call(s, "bp_comm_get_unique_id") : BP_OK;
}

bp_status_t train_world_exchange_id(train_world_t *world, bp_device_t *device) {
  char hex[2 * TRAIN_WORLD_ID_MAX + 1], path[PATH_MAX], tmp[PATH_MAX + 8];
  switch (world->kind) {
  case TRAIN_WORLD_SINGLE:
    return BP_OK;
  case TRAIN_WORLD_SPAWNER:
    return make_id(world, device);
  case TRAIN_WORLD_SPAWNED: {
    const char *text = getenv(ID_VARIABLE);
    world->id_size = text ? from_hex(text, world->id, sizeof world->id) : 0;
    return world->id_size ? BP_OK
                          : train_fail(BP_ERR_INVALID_ARGUMENT,
                                       "%s is missing or not hex", ID_VARIABLE);
  }
  case TRAIN_WORLD_MPI:
  case TRAIN_WORLD_LAUNCHED:
    break;
  }
  mpi_id_path(path, sizeof path);
  if (world->rank == 0) {
    bp_status_t s = make_id(world, device);
    if (s)
      return s;
    to_hex(world->id, world->id_size, hex);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *file = fopen(tmp, "w");
    if (!file || fputs(hex, file) < 0 || fclose(file) != 0 ||
        rename(tmp, path) != 0)
      return train_fail(BP_ERR_INVALID_ARGUMENT, "cannot write %s: %s", path,
                        strerror(errno));
    return BP_OK;
  }
  for (int tries = 0; tries < 6000; tries++) {
    FILE *file = fopen(path, "r");
    if (file) {
      size_t n = fread(hex, 1, sizeof hex - 1, file);
      fclose(file);
      hex[n] = '\0';
      world->id_size = from_hex(hex, world->id, sizeof world->id);
      if (world->id_size)
        return BP_OK;
    }
    struct timespec ten_ms = {0, 10000000};
    nanosleep(&ten_ms, NULL);
  }
  return train_fail(BP_ERR_TIMEOUT, "rank 0 never wrote the id to %s", path);
}

static void set_size(const char *name, size_t value) {
  char text[24];
  snprintf(text, sizeof text, "%zu", value);
  setenv(name, text, 1);
}

bp_status_t train_world_spawn(train_world_t *world, char *const *argv) {
  char hex[2 * TRAIN_WORLD_ID_MAX + 1];
  to_hex(world->id, world->id_size, hex);
  setenv(ID_VARIABLE, hex, 1);
  set_size(PARENT_VARIABLE, (size_t)getpid());
  set_size("WORLD_SIZE", world->size);
  set_size("LOCAL_WORLD_SIZE", world->size);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY,
                                   0);
  bp_status_t status = BP_OK;
  for (size_t r = 1; r < world->size && !status; r++) {
    set_size("RANK", r);
    set_size("LOCAL_RANK", r);
    int e = posix_spawn(&world->children[r], "/proc/self/exe", &quiet, NULL,
                        argv, environ);
    if (e != 0)
      status = train_fail(BP_ERR_INTERNAL, "cannot start rank process %zu: %s",
                          r, strerror(e));
  }
  posix_spawn_file_actions_destroy(&quiet);
  /* This process is rank 0 of the same world. */
  unsetenv(ID_VARIABLE);
  unsetenv(PARENT_VARIABLE);
  set_size("RANK", 0);
  set_size("LOCAL_RANK", 0);
  if (!status)
    status = train_watch_start(world->children, world->size, &world->watch);
  return status;
}

int train_world_join(train_world_t *world, int failed) {
  int bad = train_watch_stop(world->watch);
  world->watch = NULL;
  /* Ranks that ended on their own (the command may have failed because one
   * died): each one that failed is named. */
  for (size_t r = 1; r < world->size; r++) {
    pid_t pid = world->children[r];
    int status;
    if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
      bad |= train_watch_report(r, pid, status);
      world->children[r] = 0;
    }
  }
  for (size_t r = 1; r < world->size; r++)
    if (failed && world->children[r] > 0)
      kill(world->children[r], SIGTERM);
  for (size_t r = 1; r < world->size; r++) {
    int status;
    if (world->children[r] <= 0)
      continue;
    while (waitpid(world->children[r], &status, 0) < 0 && errno == EINTR) {
    }
    /* Stopped for the command's own failure: nothing to say. */
    bad |= failed ? !WIFEXITED(status) || WEXITSTATUS(status) != 0
                  : train_watch_report(r, world->children[r], status);
    world->children[r] = 0;
  }
  if ((world->kind == TRAIN_WORLD_MPI || world->kind == TRAIN_WORLD_LAUNCHED) &&
      world->rank == 0) {
    char path[PATH_MAX];
    mpi_id_path(path, sizeof path);
    unlink(path);
  }
  return bad;
}
