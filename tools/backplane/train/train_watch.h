/* The spawner's watch over its rank processes (train_world.h): a thread
 * that reaps them as they end and, when one fails (a signal or a non-zero
 * exit), prints which one on stderr ("rank 1 (pid 4242) was killed by
 * signal 9 (Killed)"), stops the others (SIGTERM, SIGKILL after 300 ms) and,
 * unless the command reaches train_watch_stop within the next 500 ms, ends
 * the process with status 1. */
#ifndef BACKPLANE_TRAIN_WATCH_H_
#define BACKPLANE_TRAIN_WATCH_H_

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backplane/backplane.h"

typedef struct train_world_watch train_world_watch_t;

/* Watches children[1..size-1] (pids; 0: none). The watcher reaps what it
 * sees end and zeroes its entry; the array must outlive the watch and is
 * the watcher's until train_watch_stop returns. */
bp_status_t train_watch_start(pid_t *children, size_t size,
                              train_world_watch_t **out_watch);
/* True when `status` (from waitpid) of rank `rank`'s process `pid` is a
 * failure; then says which on stderr, as the watcher does. */
bool train_watch_report(size_t rank, pid_t pid, int status);
/* Stops and frees the watch; true when it saw a rank fail. NULL: false. */
bool train_watch_stop(train_world_watch_t *watch);

#endif /* BACKPLANE_TRAIN_WATCH_H_ */
