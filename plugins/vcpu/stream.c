/* Stream workers and the stream entry points of the plugin table. */
#include "stream.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "base/park.h"
#include "event.h"
#include "trace.h"

#define STREAM_MAGIC 0x76637075u /* "vcpu" */
#define STREAM_QUEUE_CAPACITY 1024u

/* `magic` comes first in streams and events alike, so a handle of the wrong
 * kind is refused without reading past its allocation. */
struct C_Stream_st {
  uint32_t magic;
  vcpu_queue queue;
  vcpu_device *device;
  pthread_t worker;
  uint64_t jitter_state;           /* worker only */
  struct C_Stream_st *prev, *next; /* device->streams, under streams_lock */
};

vcpu_device *vcpu_stream_device(C_Stream stream) {
  return stream && stream->magic == STREAM_MAGIC ? stream->device : NULL;
}

C_Stream vcpu_stream_of(const vcpu_device *device, C_Stream stream) {
  return device && vcpu_stream_device(stream) == device ? stream : NULL;
}

void vcpu_stream_enqueue(C_Stream stream, const vcpu_command *command) {
  vcpu_queue_push(&stream->queue, command);
}

static void sleep_jitter(C_Stream stream, unsigned jitter_us) {
  /* xorshift64* */
  uint64_t x = stream->jitter_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  stream->jitter_state = x;
  uint64_t us = (x * 0x2545f4914f6cdd1dull >> 32) % ((uint64_t)jitter_us + 1);
  if (us == 0)
    return;
  struct timespec delay = {(time_t)(us / 1000000u),
                           (long)(us % 1000000u) * 1000};
  nanosleep(&delay, NULL);
}

static void run_command(C_Stream stream, const vcpu_runners_t *runners,
                        vcpu_command *command) {
  switch ((vcpu_command_kind)command->kind) {
  case VCPU_COMMAND_COPY:
    vcpu_copier_copy(command->copy.copier, command->copy.dst, command->copy.src,
                     command->copy.size);
    break;
  case VCPU_COMMAND_CALLBACK: {
    C_Status status = C_SUCCESS;
    command->callback.fn(command->callback.device, stream,
                         command->callback.user_data, &status);
    break;
  }
  case VCPU_COMMAND_COMM:
    runners->comm_task(&command->comm);
    break;
  case VCPU_COMMAND_RECORD:
    vcpu_event_complete(command->event.event, command->event.generation);
    vcpu_event_release(command->event.event);
    break;
  case VCPU_COMMAND_WAIT:
    vcpu_event_wait(command->event.event, command->event.generation);
    vcpu_event_release(command->event.event);
    break;
  case VCPU_COMMAND_STOP:
    break;
  }
}

static void *worker_main(void *arg) {
  C_Stream stream = arg;
  /* Fixed for the device's life; read once, away from its busier fields. */
  unsigned jitter_us = stream->device->jitter_us;
  vcpu_runners_t runners = stream->device->runners;
  if (jitter_us != 0)
    prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 µs: sleep what jitter asks */
  for (;;) {
    vcpu_command *command = vcpu_queue_front(&stream->queue);
    if (jitter_us != 0)
      sleep_jitter(stream, jitter_us);
    bool stop = command->kind == VCPU_COMMAND_STOP;
    uint64_t traced_at = vcpu_trace_begin(); /* trace.h: 0 unless tracing */
    run_command(stream, &runners, command);
    if (traced_at)
      vcpu_trace_command(stream->device->id, stream, command, traced_at);
    vcpu_queue_pop(&stream->queue);
    if (stop)
      return NULL;
  }
}

C_Status vcpu_create_stream(const C_Device device, C_Stream *out) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !out)
    return C_ERROR;
  C_Stream stream =
      aligned_alloc(_Alignof(struct C_Stream_st), sizeof(struct C_Stream_st));
  if (!stream)
    return C_FAILED;
  if (vcpu_queue_init(&stream->queue, STREAM_QUEUE_CAPACITY) != 0) {
    free(stream);
    return C_FAILED;
  }
  stream->magic = STREAM_MAGIC;
  stream->device = dev;
  stream->jitter_state = ((uint64_t)(uintptr_t)stream ^ vcpu_now_ns()) | 1u;
  if (pthread_create(&stream->worker, NULL, worker_main, stream) != 0) {
    vcpu_queue_destroy(&stream->queue);
    free(stream);
    return C_FAILED;
  }
  pthread_rwlock_wrlock(&dev->streams_lock);
  stream->prev = NULL;
  stream->next = dev->streams;
  if (dev->streams)
    dev->streams->prev = stream;
  dev->streams = stream;
  pthread_rwlock_unlock(&dev->streams_lock);
  *out = stream;
  return C_SUCCESS;
}

/* Drains, joins and frees a stream already unlinked from its device. */
static void stop_stream(C_Stream stream) {
  vcpu_command stop = {.kind = VCPU_COMMAND_STOP};
  vcpu_queue_push(&stream->queue, &stop);
  pthread_join(stream->worker, NULL);
  vcpu_queue_destroy(&stream->queue);
  stream->magic = 0;
  free(stream);
}

static void unlink_stream(vcpu_device *dev, C_Stream stream) {
  if (stream->prev)
    stream->prev->next = stream->next;
  else
    dev->streams = stream->next;
  if (stream->next)
    stream->next->prev = stream->prev;
}

C_Status vcpu_destroy_stream(const C_Device device, C_Stream stream) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!vcpu_stream_of(dev, stream))
    return C_ERROR;
  pthread_rwlock_wrlock(&dev->streams_lock);
  unlink_stream(dev, stream);
  pthread_rwlock_unlock(&dev->streams_lock);
  stop_stream(stream);
  return C_SUCCESS;
}

size_t vcpu_streams_destroy_all(vcpu_device *device) {
  pthread_rwlock_wrlock(&device->streams_lock);
  C_Stream stream = device->streams;
  device->streams = NULL;
  pthread_rwlock_unlock(&device->streams_lock);
  size_t count = 0;
  while (stream) {
    C_Stream next = stream->next;
    stop_stream(stream);
    stream = next;
    ++count;
  }
  return count;
}

C_Status vcpu_query_stream(const C_Device device, C_Stream stream) {
  if (!vcpu_stream_of(vcpu_device_get(device), stream))
    return C_ERROR;
  uint64_t issued = vcpu_queue_issued(&stream->queue);
  return vcpu_progress_get(&stream->queue.completed) >= issued ? C_SUCCESS
                                                               : C_FAILED;
}

static void drain(C_Stream stream) {
  vcpu_progress_wait(&stream->queue.completed,
                     vcpu_queue_issued(&stream->queue));
}

C_Status vcpu_synchronize_stream(const C_Device device, C_Stream stream) {
  if (!vcpu_stream_of(vcpu_device_get(device), stream))
    return C_ERROR;
  drain(stream);
  return C_SUCCESS;
}

C_Status vcpu_synchronize_device(const C_Device device) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev)
    return C_ERROR;
  pthread_rwlock_rdlock(&dev->streams_lock);
  for (C_Stream stream = dev->streams; stream; stream = stream->next)
    drain(stream);
  pthread_rwlock_unlock(&dev->streams_lock);
  return C_SUCCESS;
}

C_Status vcpu_stream_add_callback(const C_Device device, C_Stream stream,
                                  C_Callback callback, void *user_data) {
  if (!vcpu_stream_of(vcpu_device_get(device), stream) || !callback)
    return C_ERROR;
  vcpu_command command = {.kind = VCPU_COMMAND_CALLBACK,
                          .callback = {callback, user_data, device}};
  vcpu_queue_push(&stream->queue, &command);
  return C_SUCCESS;
}

C_Status vcpu_stream_enqueue_comm(C_Stream stream,
                                  const vcpu_comm_task_t *task) {
  if (!vcpu_stream_device(stream) || !task)
    return C_ERROR;
  vcpu_command command = {.kind = VCPU_COMMAND_COMM, .comm = *task};
  vcpu_queue_push(&stream->queue, &command);
  return C_SUCCESS;
}

C_Status vcpu_record_event(const C_Device device, C_Stream stream,
                           C_Event event) {
  vcpu_device *dev = vcpu_device_get(device);
  vcpu_command command;
  if (!vcpu_stream_of(dev, stream) ||
      !vcpu_event_record_command(dev, event, &command))
    return C_ERROR;
  vcpu_queue_push(&stream->queue, &command);
  return C_SUCCESS;
}

C_Status vcpu_stream_wait_event(const C_Device device, C_Stream stream,
                                C_Event event) {
  if (!vcpu_stream_of(vcpu_device_get(device), stream))
    return C_ERROR;
  vcpu_command command;
  bool needed = false;
  C_Status status = vcpu_event_wait_command(event, &command, &needed);
  if (status == C_SUCCESS && needed)
    vcpu_queue_push(&stream->queue, &command);
  return status;
}
