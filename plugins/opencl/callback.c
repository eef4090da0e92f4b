/* Stream callbacks on a worker thread per stream. */
#include "callback.h"

#include <stdbool.h>
#include <stdlib.h>

typedef struct callback_job {
  struct callback_job *next;
  ocl_callback_worker_t *worker;
  C_Callback callback;
  void *user_data;
  C_Device device;
  C_Stream stream;
  cl_event gate; /* the user event the stream waits on */
} callback_job_t;

struct ocl_callback_worker {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t ready;
  callback_job_t *head, *tail;
  bool stopping;
};

static void *work(void *arg) {
  ocl_callback_worker_t *worker = arg;
  pthread_mutex_lock(&worker->lock);
  for (;;) {
    while (!worker->head && !worker->stopping)
      pthread_cond_wait(&worker->ready, &worker->lock);
    callback_job_t *job = worker->head;
    if (!job)
      break;
    worker->head = job->next;
    if (!worker->head)
      worker->tail = NULL;
    pthread_mutex_unlock(&worker->lock);
    C_Status status = C_SUCCESS;
    job->callback(job->device, job->stream, job->user_data, &status);
    clSetUserEventStatus(job->gate, CL_COMPLETE);
    clReleaseEvent(job->gate);
    free(job);
    pthread_mutex_lock(&worker->lock);
  }
  pthread_mutex_unlock(&worker->lock);
  return NULL;
}

/* On a driver thread when the marker completes (or fails: the callback
 * still runs, as CUDA runs host functions of a failed stream): hand the job
 * over, never block. */
static void CL_CALLBACK on_marker(cl_event marker, cl_int status, void *arg) {
  (void)marker;
  (void)status;
  callback_job_t *job = arg;
  ocl_callback_worker_t *worker = job->worker;
  pthread_mutex_lock(&worker->lock);
  if (worker->tail)
    worker->tail->next = job;
  else
    worker->head = job;
  worker->tail = job;
  pthread_cond_signal(&worker->ready);
  pthread_mutex_unlock(&worker->lock);
}

static ocl_callback_worker_t *worker_create(void) {
  ocl_callback_worker_t *worker = calloc(1, sizeof *worker);
  if (!worker)
    return NULL;
  pthread_mutex_init(&worker->lock, NULL);
  pthread_cond_init(&worker->ready, NULL);
  if (pthread_create(&worker->thread, NULL, work, worker) != 0) {
    pthread_cond_destroy(&worker->ready);
    pthread_mutex_destroy(&worker->lock);
    free(worker);
    return NULL;
  }
  return worker;
}

void ocl_callback_worker_destroy(ocl_callback_worker_t *worker) {
  if (!worker)
    return;
  pthread_mutex_lock(&worker->lock);
  worker->stopping = true;
  pthread_cond_signal(&worker->ready);
  pthread_mutex_unlock(&worker->lock);
  pthread_join(worker->thread, NULL);
  pthread_cond_destroy(&worker->ready);
  pthread_mutex_destroy(&worker->lock);
  free(worker);
}

C_Status ocl_callback_enqueue(ocl_device_t *dev, C_Stream stream,
                              cl_command_queue queue,
                              ocl_callback_worker_t **worker,
                              C_Callback callback, void *user_data) {
  if (!*worker && !(*worker = worker_create()))
    return ocl_fail(C_FAILED,
                    "cannot start a callback thread for a stream "
                    "of %s",
                    dev->name);
  callback_job_t *job = calloc(1, sizeof *job);
  if (!job)
    return ocl_fail(C_FAILED, "out of host memory");
  *job = (callback_job_t){.worker = *worker,
                          .callback = callback,
                          .user_data = user_data,
                          .device = &dev->handle,
                          .stream = stream};
  cl_int error = CL_SUCCESS;
  cl_event marker = NULL;
  job->gate = clCreateUserEvent(dev->context, &error);
  if (job->gate)
    error = clEnqueueMarkerWithWaitList(queue, 0, NULL, &marker);
  if (error == CL_SUCCESS)
    error = clEnqueueBarrierWithWaitList(queue, 1, &job->gate, NULL);
  if (error == CL_SUCCESS)
    error = clSetEventCallback(marker, CL_COMPLETE, on_marker, job);
  if (marker)
    clReleaseEvent(marker);
  if (error != CL_SUCCESS) {
    if (job->gate) {
      /* Never leave the queue stuck behind a gate nobody opens. */
      clSetUserEventStatus(job->gate, CL_COMPLETE);
      clReleaseEvent(job->gate);
    }
    free(job);
    return ocl_fail(ocl_status_of(error), "enqueueing a callback on %s: %s",
                    dev->name, ocl_error_name(error));
  }
  clFlush(queue);
  return C_SUCCESS;
}
