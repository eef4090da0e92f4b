/* Stream workers and the stream entry points of the plugin table. */
#include "stream.h"

#include <stdbool.h>
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

/* The thread draining a stream. A watched command (vcpu_worker_watch) that
 * passes its deadline gets its worker abandoned by the watchdog: the thread
 * becomes the command's alone and a new worker, starting by skipping that
 * command, drains the rest. */
#define WORKER_ABANDONED UINT64_MAX
typedef struct vcpu_worker {
  _Atomic uint64_t deadline; /* 0 unwatched, WORKER_ABANDONED, else ns */
  void (*expired)(C_Stream stream, void *context); /* while watched */
  void *expired_context;
  pthread_t thread;
  C_Stream stream;
  bool skip_front; /* a replacement: the front command was abandoned */
} vcpu_worker;

static _Thread_local vcpu_worker *t_worker;

/* `magic` comes first in streams and events alike, so a handle of the wrong
 * kind is refused without reading past its allocation. */
struct C_Stream_st {
  uint32_t magic;
  vcpu_queue queue;
  vcpu_device *device;
  vcpu_worker *worker;             /* replaced under g_watch_lock */
  uint64_t jitter_state;           /* worker only */
  struct C_Stream_st *prev, *next; /* device->streams, under streams_lock */
  struct C_Stream_st *watch_prev, *watch_next; /* g_watched, g_watch_lock */
};

/* Every live stream, scanned by the watchdog thread (started by the first
 * watch, stopped by vcpu_streams_watchdog_stop) every WATCH_PERIOD_NS. */
#define WATCH_PERIOD_NS 2000000u
static pthread_mutex_t g_watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_watch_wake = PTHREAD_COND_INITIALIZER;
static C_Stream g_watched;
static bool g_watchdog_running, g_watchdog_stop;
static pthread_t g_watchdog;
static atomic_bool g_watchdog_started;

vcpu_device *vcpu_stream_device(C_Stream stream) {
  return stream && stream->magic == STREAM_MAGIC ? stream->device : NULL;
}

C_Stream vcpu_stream_of(const vcpu_device *device, C_Stream stream) {
  return device && vcpu_stream_device(stream) == device ? stream : NULL;
}

void vcpu_stream_enqueue(C_Stream stream, const vcpu_command *command) {
  vcpu_queue_push(&stream->queue, command);
}

void vcpu_stream_enqueue_filled(C_Stream stream, const vcpu_command *command,
                                void (*fill)(void *context,
                                             unsigned char *slot),
                                void *context) {
  vcpu_queue_push_filled(&stream->queue, command, fill, context);
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
  case VCPU_COMMAND_KERNEL:
    runners->kernel(stream, command, vcpu_queue_front_slot(&stream->queue));
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

static void *watchdog_main(void *arg);

static void *worker_main(void *arg) {
  vcpu_worker *self = arg;
  t_worker = self;
  C_Stream stream = self->stream;
  /* Fixed for the device's life; read once, away from its busier fields. */
  unsigned jitter_us = stream->device->jitter_us;
  vcpu_runners_t runners = stream->device->runners;
  if (jitter_us != 0)
    prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 µs: sleep what jitter asks */
  if (self->skip_front) {
    (void)vcpu_queue_front(&stream->queue);
    vcpu_queue_pop(&stream->queue);
  }
  for (;;) {
    vcpu_command *command = vcpu_queue_front(&stream->queue);
    if (jitter_us != 0)
      sleep_jitter(stream, jitter_us);
    bool stop = command->kind == VCPU_COMMAND_STOP;
    uint64_t traced_at = vcpu_trace_begin(); /* trace.h: 0 unless tracing */
    run_command(stream, &runners, command);
    if (atomic_load_explicit(&self->deadline, memory_order_acquire) ==
        WORKER_ABANDONED) { /* replaced: the stream is no longer ours */
      free(self);
      return NULL;
    }
    if (traced_at)
      vcpu_trace_command(stream->device->id, stream, command,
                         vcpu_queue_front_slot(&stream->queue), traced_at);
    if (command->kind == VCPU_COMMAND_KERNEL)
      runners.kernel_done(command);
    vcpu_queue_pop(&stream->queue);
    if (stop)
      return NULL;
  }
}

static vcpu_worker *start_worker(C_Stream stream, bool skip_front) {
  vcpu_worker *worker = calloc(1, sizeof *worker);
  if (!worker)
    return NULL;
  atomic_init(&worker->deadline, 0);
  worker->stream = stream;
  worker->skip_front = skip_front;
  if (pthread_create(&worker->thread, NULL, worker_main, worker) != 0) {
    free(worker);
    return NULL;
  }
  return worker;
}

void vcpu_worker_watch(uint64_t deadline_ns,
                       void (*expired)(C_Stream stream, void *context),
                       void *context) {
  vcpu_worker *self = t_worker;
  if (!atomic_load_explicit(&g_watchdog_started, memory_order_acquire)) {
    pthread_mutex_lock(&g_watch_lock);
    if (!g_watchdog_running) {
      g_watchdog_stop = false;
      g_watchdog_running =
          pthread_create(&g_watchdog, NULL, watchdog_main, NULL) == 0;
      atomic_store(&g_watchdog_started, g_watchdog_running);
    }
    pthread_mutex_unlock(&g_watch_lock);
  }
  self->expired = expired;
  self->expired_context = context;
  atomic_store_explicit(&self->deadline, deadline_ns ? deadline_ns : 1,
                        memory_order_release);
}

bool vcpu_worker_unwatch(void) {
  vcpu_worker *self = t_worker;
  uint64_t deadline =
      atomic_load_explicit(&self->deadline, memory_order_relaxed);
  return deadline != WORKER_ABANDONED &&
         atomic_compare_exchange_strong(&self->deadline, &deadline, 0);
}

/* Under g_watch_lock: abandons the worker of every stream whose watched
 * command passed its deadline. */
static void abandon_expired(uint64_t now) {
  for (C_Stream stream = g_watched; stream; stream = stream->watch_next) {
    vcpu_worker *worker = stream->worker;
    uint64_t deadline = atomic_load(&worker->deadline);
    if (deadline == 0 || deadline == WORKER_ABANDONED || now < deadline ||
        !atomic_compare_exchange_strong(&worker->deadline, &deadline,
                                        WORKER_ABANDONED))
      continue;
    /* The old thread is inside its command until it sees the CAS, so the
     * callback's context is still alive. */
    worker->expired(stream, worker->expired_context);
    vcpu_worker *replacement = start_worker(stream, true);
    pthread_detach(worker->thread);
    if (replacement)
      stream->worker = replacement;
    /* else: out of threads; the stream stays stuck (its error is set). */
  }
}

static void *watchdog_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&g_watch_lock);
  while (!g_watchdog_stop) {
    abandon_expired(vcpu_now_ns());
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += WATCH_PERIOD_NS;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_nsec -= 1000000000L;
      until.tv_sec++;
    }
    pthread_cond_timedwait(&g_watch_wake, &g_watch_lock, &until);
  }
  pthread_mutex_unlock(&g_watch_lock);
  return NULL;
}

void vcpu_streams_watchdog_stop(void) {
  pthread_mutex_lock(&g_watch_lock);
  bool running = g_watchdog_running;
  g_watchdog_stop = true;
  g_watchdog_running = false;
  atomic_store(&g_watchdog_started, false);
  pthread_cond_broadcast(&g_watch_wake);
  pthread_mutex_unlock(&g_watch_lock);
  if (running)
    pthread_join(g_watchdog, NULL);
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
  pthread_mutex_lock(&g_watch_lock);
  stream->worker = start_worker(stream, false);
  if (stream->worker) {
    stream->watch_prev = NULL;
    stream->watch_next = g_watched;
    if (g_watched)
      g_watched->watch_prev = stream;
    g_watched = stream;
  }
  pthread_mutex_unlock(&g_watch_lock);
  if (!stream->worker) {
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

/* Drains, joins and frees a stream already unlinked from its device. The
 * drain may see its worker replaced; the one that ran STOP is final. */
static void stop_stream(C_Stream stream) {
  vcpu_command stop = {.kind = VCPU_COMMAND_STOP};
  uint64_t ticket = vcpu_queue_push(&stream->queue, &stop);
  vcpu_progress_wait(&stream->queue.completed, ticket + 1);
  pthread_mutex_lock(&g_watch_lock);
  if (stream->watch_prev)
    stream->watch_prev->watch_next = stream->watch_next;
  else
    g_watched = stream->watch_next;
  if (stream->watch_next)
    stream->watch_next->watch_prev = stream->watch_prev;
  vcpu_worker *worker = stream->worker;
  pthread_mutex_unlock(&g_watch_lock);
  pthread_join(worker->thread, NULL);
  free(worker);
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

C_Status vcpu_stream_run_callback_if_idle(const C_Device device,
                                          C_Stream stream, C_Callback callback,
                                          void *user_data) {
  if (!vcpu_stream_of(vcpu_device_get(device), stream) || !callback)
    return C_ERROR;
  uint64_t place;
  if (!vcpu_stream_claim_idle(stream, 0, &place))
    return C_FAILED;
  vcpu_command command = {.kind = VCPU_COMMAND_CALLBACK,
                          .callback = {callback, user_data, device}};
  uint64_t traced_at = vcpu_trace_begin();
  run_command(stream, &stream->device->runners, &command);
  if (traced_at) /* a callback's report reads no slot */
    vcpu_trace_command(stream->device->id, stream, &command, NULL, traced_at);
  vcpu_queue_complete_claimed(&stream->queue, place);
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

bool vcpu_stream_claim_idle(C_Stream stream, uint64_t own_pending,
                            uint64_t *out_place) {
  vcpu_device *device = vcpu_stream_device(stream);
  if (device == NULL || device->jitter_us != 0)
    return false;
  vcpu_queue *queue = &stream->queue;
  uint64_t done = vcpu_progress_get(&queue->completed);
  uint64_t pending = vcpu_queue_issued(queue) - done;
  if (pending != 0 && pending <= own_pending) {
    vcpu_spin spin = vcpu_spin_start();
    while (vcpu_progress_get(&queue->completed) < vcpu_queue_issued(queue) &&
           vcpu_spin_again(&spin))
      continue;
  }
  return vcpu_queue_claim_idle(queue, out_place);
}

void vcpu_stream_end_claim(C_Stream stream, uint64_t place,
                           const vcpu_comm_task_t *task) {
  if (task == NULL) {
    vcpu_queue_complete_claimed(&stream->queue, place);
    return;
  }
  vcpu_command command = {.kind = VCPU_COMMAND_COMM, .comm = *task};
  vcpu_queue_publish_claimed(&stream->queue, place, &command);
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
