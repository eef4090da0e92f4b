/* How the ranks of a training world find each other when they are several
 * processes: `--processes N` (this process is rank 0 and spawns ranks
 * 1..N-1 as copies of itself, on the shared-memory transport), a world that
 * mpirun started (OMPI_COMM_WORLD_*), or one that another launcher started
 * with RANK and WORLD_SIZE in each rank's environment (torchrun's
 * convention; the spawner sets RANK, WORLD_SIZE, LOCAL_RANK and
 * LOCAL_WORLD_SIZE for its ranks too). The communicator's unique id travels
 * in the environment (spawned ranks) or through a file in $TMPDIR named
 * after the job (other launchers).
 *
 * The spawner watches its ranks from a thread: when one dies (a signal or a
 * non-zero exit) it says which (rank, pid, signal or exit code), stops the
 * others and ends the command within a second, with status 1, whatever the
 * spawner's own rank was doing. Spawned ranks die with their spawner.
 * Otherwise not thread-safe: call from the command's thread. */
#ifndef BACKPLANE_TRAIN_WORLD_H_
#define BACKPLANE_TRAIN_WORLD_H_

#include <stddef.h>
#include <sys/types.h>

#include "train.h"

enum { TRAIN_WORLD_ID_MAX = 512, TRAIN_WORLD_MAX_PROCESSES = 64 };

typedef enum train_world_kind {
  TRAIN_WORLD_SINGLE = 0, /* one process, its devices are the ranks */
  TRAIN_WORLD_SPAWNER,    /* --processes N: rank 0, starts the others */
  TRAIN_WORLD_SPAWNED,    /* a rank process started by a spawner */
  TRAIN_WORLD_MPI,        /* a rank of an mpirun world */
  TRAIN_WORLD_LAUNCHED,   /* RANK and WORLD_SIZE from another launcher */
} train_world_kind_t;

typedef struct train_world {
  train_world_kind_t kind;
  size_t size, rank;
  unsigned char id[TRAIN_WORLD_ID_MAX];
  size_t id_size;
  pid_t children[TRAIN_WORLD_MAX_PROCESSES];
  struct train_world_watch *watch; /* the spawner's watcher, or NULL */
} train_world_t;

/* Which world this process belongs to, from `processes` (0: none asked)
 * and the environment. --processes beyond TRAIN_WORLD_MAX_PROCESSES or 4
 * per online core is BP_ERR_INVALID_ARGUMENT with a message. */
bp_status_t train_world_detect(size_t processes, train_world_t *out);

/* Gets the communicator id: a spawner and MPI rank 0 make it with `device`;
 * spawned ranks read it from the environment; other MPI ranks wait for rank
 * 0's file (up to 60 s). */
bp_status_t train_world_exchange_id(train_world_t *world, bp_device_t *device);

/* A spawner starts ranks 1..size-1: this program again with `argv` (the
 * command's words after argv[0]), their stdout discarded, and starts
 * watching them. */
bp_status_t train_world_spawn(train_world_t *world, char *const *argv);
/* Ends this process's part of the world. A spawner waits for its ranks
 * (kills them first when `failed`) and stops the watcher; rank 0 of an
 * mpirun or launcher world removes its id file (the run's collectives met
 * every rank, so each one read it; a failed run's file would only mislead a
 * later job of the same name). 0 when every spawned rank exited with 0,
 * else 1 (the watcher already said which one failed). */
int train_world_join(train_world_t *world, int failed);

#endif /* BACKPLANE_TRAIN_WORLD_H_ */
