#include "train_watch.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "train_error.h"

enum {
  POLL_MS = 10,        /* between looks at the children */
  TERM_GRACE_MS = 300, /* SIGTERM, then SIGKILL */
  STOP_GRACE_MS = 500, /* for the command to end on its own */
};

struct train_world_watch {
  pthread_t thread;
  pid_t *children;
  size_t size;
  atomic_bool stop;
  atomic_bool failed;
};

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

bool train_watch_report(size_t rank, pid_t pid, int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return false;
  if (WIFSIGNALED(status))
    fprintf(stderr,
            "backplane train: rank %zu (pid %ld) was killed by signal %d "
            "(%s)\n",
            rank, (long)pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    fprintf(stderr, "backplane train: rank %zu (pid %ld) exited with code %d\n",
            rank, (long)pid, WEXITSTATUS(status));
  fflush(stderr);
  return true;
}

/* SIGTERM to every child left, SIGKILL to those still there after the
 * grace; all reaped. */
static void stop_children(train_world_watch_t *w) {
  for (size_t r = 1; r < w->size; r++)
    if (w->children[r] > 0)
      kill(w->children[r], SIGTERM);
  for (long waited = 0;; waited += POLL_MS) {
    bool left = false;
    for (size_t r = 1; r < w->size; r++) {
      if (w->children[r] <= 0)
        continue;
      if (waitpid(w->children[r], NULL, WNOHANG) == w->children[r])
        w->children[r] = 0;
      else
        left = true;
    }
    if (!left)
      return;
    if (waited >= TERM_GRACE_MS)
      break;
    sleep_ms(POLL_MS);
  }
  for (size_t r = 1; r < w->size; r++)
    if (w->children[r] > 0) {
      kill(w->children[r], SIGKILL);
      waitpid(w->children[r], NULL, 0);
      w->children[r] = 0;
    }
}

static void *watch(void *arg) {
  train_world_watch_t *w = arg;
  while (!atomic_load(&w->stop)) {
    for (size_t r = 1; r < w->size; r++) {
      pid_t pid = w->children[r];
      int status;
      if (pid <= 0 || waitpid(pid, &status, WNOHANG) != pid)
        continue;
      w->children[r] = 0;
      if (!train_watch_report(r, pid, status))
        continue;
      atomic_store(&w->failed, true);
      stop_children(w);
      for (long waited = 0; waited < STOP_GRACE_MS; waited += POLL_MS) {
        if (atomic_load(&w->stop))
          return NULL;
        sleep_ms(POLL_MS);
      }
      _exit(1); /* the command's own rank did not notice: end it here */
    }
    sleep_ms(POLL_MS);
  }
  return NULL;
}

bp_status_t train_watch_start(pid_t *children, size_t size,
                              train_world_watch_t **out) {
  train_world_watch_t *w = calloc(1, sizeof *w);
  if (!w)
    return train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  w->children = children;
  w->size = size;
  int e = pthread_create(&w->thread, NULL, watch, w);
  if (e != 0) {
    free(w);
    return train_fail(BP_ERR_INTERNAL, "cannot start the rank watcher: %s",
                      strerror(e));
  }
  *out = w;
  return BP_OK;
}

bool train_watch_stop(train_world_watch_t *w) {
  if (!w)
    return false;
  atomic_store(&w->stop, true);
  pthread_join(w->thread, NULL);
  bool failed = atomic_load(&w->failed);
  free(w);
  return failed;
}
