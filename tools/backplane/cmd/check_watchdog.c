/* The watchdog thread of `backplane check`. */
#include "check_watchdog.h"
#include "cli/cli_output.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static struct {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  pthread_t thread;
  int stop;
  int armed;
  int fail_line_on_stdout;
  struct timespec deadline;
  const char *plugin, *check;
  unsigned seconds;
} watchdog = {.mutex = PTHREAD_MUTEX_INITIALIZER};

static void *watch(void *unused) {
  (void)unused;
  pthread_mutex_lock(&watchdog.mutex);
  while (!watchdog.stop) {
    if (!watchdog.armed) {
      pthread_cond_wait(&watchdog.cond, &watchdog.mutex);
      continue;
    }
    if (pthread_cond_timedwait(&watchdog.cond, &watchdog.mutex,
                               &watchdog.deadline) == ETIMEDOUT &&
        watchdog.armed) {
      if (watchdog.fail_line_on_stdout) {
        fprintf(cli_out(),
                "  %-12s %-28s did not finish within %u s: the plugin %s "
                "hung\n",
                "FAIL", watchdog.check, watchdog.seconds, watchdog.plugin);
        fflush(cli_out());
      }
      fprintf(stderr, "backplane check: %s: %s did not finish within %u s\n",
              watchdog.plugin, watchdog.check, watchdog.seconds);
      _exit(1);
    }
  }
  pthread_mutex_unlock(&watchdog.mutex);
  return NULL;
}

int check_watchdog_start(int fail_line_on_stdout) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&watchdog.cond, &attr);
  pthread_condattr_destroy(&attr);
  watchdog.stop = 0;
  watchdog.armed = 0;
  watchdog.fail_line_on_stdout = fail_line_on_stdout;
  if (pthread_create(&watchdog.thread, NULL, watch, NULL) != 0) {
    pthread_cond_destroy(&watchdog.cond);
    return -1;
  }
  return 0;
}

void check_watchdog_arm(const char *plugin, const char *check,
                        unsigned seconds) {
  pthread_mutex_lock(&watchdog.mutex);
  clock_gettime(CLOCK_MONOTONIC, &watchdog.deadline);
  watchdog.deadline.tv_sec += seconds;
  watchdog.plugin = plugin;
  watchdog.check = check;
  watchdog.seconds = seconds;
  watchdog.armed = 1;
  pthread_cond_signal(&watchdog.cond);
  pthread_mutex_unlock(&watchdog.mutex);
}

void check_watchdog_disarm(void) {
  pthread_mutex_lock(&watchdog.mutex);
  watchdog.armed = 0;
  pthread_cond_signal(&watchdog.cond);
  pthread_mutex_unlock(&watchdog.mutex);
}

void check_watchdog_stop(void) {
  pthread_mutex_lock(&watchdog.mutex);
  watchdog.stop = 1;
  pthread_cond_signal(&watchdog.cond);
  pthread_mutex_unlock(&watchdog.mutex);
  pthread_join(watchdog.thread, NULL);
  pthread_cond_destroy(&watchdog.cond);
}
