/* Events: a generation counter (records issued) and a progress counter
 * (highest generation completed), plus the timestamp of the latter.
 *
 * Lifetime: the handle and every queued RECORD or WAIT command hold a
 * reference. Callers that enqueue count the references they take on their
 * own cache line (`references_taken`); workers count drops on another
 * (`balance`, which they decrement), so recording in a loop does not bounce
 * one counter between the caller and the worker. destroy_event, after which
 * no reference is taken any more, adds the final number taken to `balance`
 * and drops the handle's reference in the same atomic add: before that add,
 * `balance` is minus the drops so far (never 0 after a drop), after it the
 * references still held. So whoever brings it to 0 frees the event, deciding
 * from the result of its own add alone, without touching the event after a
 * later dropper may have freed it. */
#include "event.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "base/park.h"
#include "base/progress.h"

#define EVENT_MAGIC 0x65766e74u /* "evnt" */

/* Fields are grouped on cache lines by who writes them. */
struct C_Event_st {
  uint32_t magic; /* first, as in streams */
  vcpu_device *device;
  struct C_Event_st *prev, *next; /* device->events, under events_lock */
  /* Written by callers recording or waiting. */
  _Alignas(64) atomic_uint_least64_t recorded; /* generations issued */
  atomic_uint_least64_t references_taken;      /* 1 (handle) + commands */
  /* Written by stream workers (and destroy_event, once). */
  _Alignas(64) atomic_uint_least64_t balance; /* modulo 2^64, see above */
  pthread_mutex_t lock;    /* completion order and timestamp */
  uint64_t timestamp_ns;   /* of the completed generation */
  vcpu_progress completed; /* highest completed generation */
};

static C_Event live_event(C_Event event) {
  return event && event->magic == EVENT_MAGIC ? event : NULL;
}

static C_Event event_of(const vcpu_device *device, C_Event event) {
  return device && live_event(event) && event->device == device ? event : NULL;
}

C_Status vcpu_create_event(const C_Device device, C_Event *out) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !out)
    return C_ERROR;
  C_Event event =
      aligned_alloc(_Alignof(struct C_Event_st), sizeof(struct C_Event_st));
  if (!event)
    return C_FAILED;
  vcpu_progress_init(&event->completed);
  event->magic = EVENT_MAGIC;
  event->device = dev;
  atomic_init(&event->recorded, 0);
  atomic_init(&event->references_taken, 1);
  atomic_init(&event->balance, 0);
  pthread_mutex_init(&event->lock, NULL);
  event->timestamp_ns = 0;
  pthread_mutex_lock(&dev->events_lock);
  event->prev = NULL;
  event->next = dev->events;
  if (dev->events)
    dev->events->prev = event;
  dev->events = event;
  pthread_mutex_unlock(&dev->events_lock);
  *out = event;
  return C_SUCCESS;
}

static void take_reference(C_Event event) {
  atomic_fetch_add_explicit(&event->references_taken, 1, memory_order_relaxed);
}

/* Adds `delta` to the balance; frees the event if that settles it. */
static void settle(C_Event event, uint64_t delta) {
  uint64_t before =
      atomic_fetch_add_explicit(&event->balance, delta, memory_order_acq_rel);
  if (before + delta != 0)
    return;
  event->magic = 0;
  pthread_mutex_destroy(&event->lock);
  free(event);
}

void vcpu_event_release(C_Event event) {
  settle(event, UINT64_MAX); /* - 1 */
}

/* Drops the handle's reference: no new records or waits after this. */
static void release_handle(C_Event event) {
  event->magic = 0;
  settle(event, atomic_load(&event->references_taken) - 1);
}

static void unlink_event(vcpu_device *dev, C_Event event) {
  if (event->prev)
    event->prev->next = event->next;
  else
    dev->events = event->next;
  if (event->next)
    event->next->prev = event->prev;
}

C_Status vcpu_destroy_event(const C_Device device, C_Event event) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!event_of(dev, event))
    return C_ERROR;
  pthread_mutex_lock(&dev->events_lock);
  unlink_event(dev, event);
  pthread_mutex_unlock(&dev->events_lock);
  release_handle(event);
  return C_SUCCESS;
}

size_t vcpu_events_destroy_all(vcpu_device *device) {
  pthread_mutex_lock(&device->events_lock);
  C_Event event = device->events;
  device->events = NULL;
  pthread_mutex_unlock(&device->events_lock);
  size_t count = 0;
  while (event) {
    C_Event next = event->next;
    release_handle(event);
    event = next;
    ++count;
  }
  return count;
}

bool vcpu_event_record_command(const vcpu_device *device, C_Event event,
                               vcpu_command *command) {
  if (!event_of(device, event))
    return false;
  take_reference(event);
  uint64_t generation = atomic_fetch_add(&event->recorded, 1) + 1;
  *command =
      (vcpu_command){.kind = VCPU_COMMAND_RECORD, .event = {event, generation}};
  return true;
}

void vcpu_event_complete(C_Event event, uint64_t generation) {
  pthread_mutex_lock(&event->lock);
  /* Records on different streams may finish out of order: keep the newest. */
  if (generation > vcpu_progress_get(&event->completed)) {
    event->timestamp_ns = vcpu_now_ns();
    vcpu_progress_advance(&event->completed, generation);
  }
  pthread_mutex_unlock(&event->lock);
}

void vcpu_event_wait(C_Event event, uint64_t generation) {
  vcpu_progress_wait(&event->completed, generation);
}

static bool is_complete(C_Event event) {
  return vcpu_progress_get(&event->completed) >=
         atomic_load_explicit(&event->recorded, memory_order_acquire);
}

C_Status vcpu_query_event(const C_Device device, C_Event event) {
  if (!event_of(vcpu_device_get(device), event))
    return C_ERROR;
  return is_complete(event) ? C_SUCCESS : C_FAILED;
}

C_Status vcpu_synchronize_event(const C_Device device, C_Event event) {
  if (!event_of(vcpu_device_get(device), event))
    return C_ERROR;
  vcpu_progress_wait(&event->completed, atomic_load(&event->recorded));
  return C_SUCCESS;
}

C_Status vcpu_event_wait_command(C_Event event, vcpu_command *command,
                                 bool *needed) {
  if (!live_event(event))
    return C_ERROR;
  uint64_t generation = atomic_load(&event->recorded);
  *needed = vcpu_progress_get(&event->completed) < generation;
  if (*needed) {
    take_reference(event);
    *command =
        (vcpu_command){.kind = VCPU_COMMAND_WAIT, .event = {event, generation}};
  }
  return C_SUCCESS;
}

/* Reads a completed event's timestamp: C_ERROR if never recorded, C_FAILED
 * if its latest record is still pending. */
static C_Status completed_timestamp(C_Event event, uint64_t *timestamp_ns) {
  pthread_mutex_lock(&event->lock);
  uint64_t recorded = atomic_load(&event->recorded);
  C_Status status = C_SUCCESS;
  if (recorded == 0)
    status = C_ERROR;
  else if (vcpu_progress_get(&event->completed) < recorded)
    status = C_FAILED;
  else
    *timestamp_ns = event->timestamp_ns;
  pthread_mutex_unlock(&event->lock);
  return status;
}

C_Status vcpu_event_elapsed_time(const C_Device device, C_Event start,
                                 C_Event end, float *milliseconds) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!event_of(dev, start) || !event_of(dev, end) || !milliseconds)
    return C_ERROR;
  uint64_t start_ns = 0, end_ns = 0;
  C_Status start_status = completed_timestamp(start, &start_ns);
  C_Status end_status = completed_timestamp(end, &end_ns);
  if (start_status == C_ERROR || end_status == C_ERROR)
    return C_ERROR;
  if (start_status != C_SUCCESS || end_status != C_SUCCESS)
    return C_FAILED;
  *milliseconds = (float)((double)((int64_t)(end_ns - start_ns)) / 1e6);
  return C_SUCCESS;
}
