/* Two-thread copies. The job hand-off is a pair of progress counters: the
 * caller writes the job, advances `posted`, copies its half, waits on `done`.
 */
#include "copier.h"

#include <stdint.h>
#include <string.h>

void vcpu_copier_init(vcpu_copier *copier) {
  pthread_mutex_init(&copier->start_lock, NULL);
  copier->started = false;
  copier->stopping = false;
  atomic_flag_clear(&copier->busy);
  copier->job_dst = NULL;
  copier->job_src = NULL;
  copier->job_size = 0;
  vcpu_progress_init(&copier->posted);
  vcpu_progress_init(&copier->done);
}

static void *helper_main(void *arg) {
  vcpu_copier *copier = arg;
  for (uint64_t job = 1;; ++job) {
    vcpu_progress_wait(&copier->posted, job);
    if (copier->stopping)
      return NULL;
    memcpy(copier->job_dst, copier->job_src, copier->job_size);
    vcpu_progress_advance(&copier->done, job);
  }
}

static bool ensure_started(vcpu_copier *copier) {
  pthread_mutex_lock(&copier->start_lock);
  if (!copier->started)
    copier->started =
        pthread_create(&copier->helper, NULL, helper_main, copier) == 0;
  bool started = copier->started;
  pthread_mutex_unlock(&copier->start_lock);
  return started;
}

void vcpu_copier_shutdown(vcpu_copier *copier) {
  pthread_mutex_lock(&copier->start_lock);
  if (copier->started) {
    copier->stopping = true;
    vcpu_progress_advance(&copier->posted,
                          vcpu_progress_get(&copier->posted) + 1);
    pthread_join(copier->helper, NULL);
    copier->started = false;
  }
  pthread_mutex_unlock(&copier->start_lock);
  pthread_mutex_destroy(&copier->start_lock);
}

static bool overlaps(const char *dst, const char *src, size_t size) {
  return dst < src + size && src < dst + size;
}

void vcpu_copier_copy(vcpu_copier *copier, void *dst, const void *src,
                      size_t size) {
  char *d = dst;
  const char *s = src;
  if (overlaps(d, s, size)) {
    memmove(d, s, size);
    return;
  }
  if (size < VCPU_COPY_SPLIT_MIN || atomic_flag_test_and_set(&copier->busy)) {
    memcpy(d, s, size);
    return;
  }
  if (!ensure_started(copier)) {
    atomic_flag_clear(&copier->busy);
    memcpy(d, s, size);
    return;
  }
  size_t half = (size / 2) & ~(size_t)4095;
  copier->job_dst = d + half;
  copier->job_src = s + half;
  copier->job_size = size - half;
  uint64_t job = vcpu_progress_get(&copier->posted) + 1;
  vcpu_progress_advance(&copier->posted, job);
  memcpy(d, s, half);
  vcpu_progress_wait(&copier->done, job);
  atomic_flag_clear(&copier->busy);
}
