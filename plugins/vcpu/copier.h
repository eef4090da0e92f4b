/* The copy engine of one device: copies of at least VCPU_COPY_SPLIT_MIN bytes
 * are split in two halves, one copied by the calling thread (a stream worker
 * or a synchronous caller), the other by the device's helper thread, so one
 * large copy gets two threads' memcpy bandwidth. The helper starts on first
 * use, spins briefly after each job, then parks. If the helper is busy with
 * another copy, the caller copies everything itself. Overlapping ranges are
 * moved (memmove) by the caller alone. Thread-safe.
 */
#ifndef BACKPLANE_VCPU_COPIER_H_
#define BACKPLANE_VCPU_COPIER_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/progress.h"

#define VCPU_COPY_SPLIT_MIN ((size_t)8 << 20)

typedef struct vcpu_copier {
  pthread_mutex_t start_lock;
  bool started;  /* under start_lock */
  bool stopping; /* written before the final `posted` advance */
  pthread_t helper;
  atomic_flag busy; /* held by the caller that owns the current job */
  char *job_dst;    /* job fields: published by `posted` */
  const char *job_src;
  size_t job_size;
  vcpu_progress posted; /* jobs handed to the helper */
  vcpu_progress done;   /* jobs it finished */
} vcpu_copier;

void vcpu_copier_init(vcpu_copier *copier);

/* Stops and joins the helper. No copy may be in flight. */
void vcpu_copier_shutdown(vcpu_copier *copier);

/* Copies `size` bytes and returns when all of them are in place. */
void vcpu_copier_copy(vcpu_copier *copier, void *dst, const void *src,
                      size_t size);

#endif /* BACKPLANE_VCPU_COPIER_H_ */
