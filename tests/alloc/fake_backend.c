#include "alloc/fake_backend.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/status.h"

typedef struct fake_event {
  fake_stream_t *stream;
  size_t ticket; /* complete once stream->completed >= ticket */
} fake_event_t;

void fake_device_init(fake_device_t *device, size_t capacity) {
  *device = (fake_device_t){.capacity = capacity,
                            .report_memory_info = true,
                            .next_address = (size_t)1 << 32};
  pthread_mutex_init(&device->mu, NULL);
}

static bp_status_t raw_allocate(void *self, size_t size, void **out_ptr) {
  fake_device_t *d = self;
  pthread_mutex_lock(&d->mu);
  d->allocate_calls++;
  d->last_allocate_size = size;
  if (size > d->capacity - d->used || d->live_count == FAKE_MAX_LIVE) {
    pthread_mutex_unlock(&d->mu);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "fake: device full");
  }
  d->used += size;
  size_t addr = d->next_address;
  d->next_address += (size + 4095) / 4096 * 4096 + 4096;
  d->live[d->live_count].addr = addr;
  d->live[d->live_count].size = size;
  d->live_count++;
  pthread_mutex_unlock(&d->mu);
  *out_ptr = (void *)(uintptr_t)addr;
  return BP_OK;
}

static void raw_free(void *self, void *ptr, size_t size) {
  fake_device_t *d = self;
  pthread_mutex_lock(&d->mu);
  d->free_calls++;
  for (size_t i = 0; i < d->live_count; i++)
    if (d->live[i].addr == (uintptr_t)ptr && d->live[i].size == size) {
      d->used -= size;
      d->live[i] = d->live[--d->live_count];
      break;
    }
  pthread_mutex_unlock(&d->mu);
}

static bp_status_t memory_info(void *self, size_t *out_total,
                               size_t *out_free) {
  fake_device_t *d = self;
  pthread_mutex_lock(&d->mu);
  bool known = d->report_memory_info;
  *out_total = d->capacity;
  *out_free = d->capacity - d->used;
  pthread_mutex_unlock(&d->mu);
  return known ? BP_OK : BP_ERR_UNSUPPORTED;
}

static bp_status_t event_create(void *self, void **out_event) {
  fake_device_t *d = self;
  fake_event_t *e = calloc(1, sizeof *e);
  if (!e)
    return BP_ERR_OUT_OF_MEMORY;
  pthread_mutex_lock(&d->mu);
  d->events_created++;
  pthread_mutex_unlock(&d->mu);
  *out_event = e;
  return BP_OK;
}

static bp_status_t event_record(void *self, void *event, void *stream) {
  fake_device_t *d = self;
  fake_event_t *e = event;
  fake_stream_t *s = stream;
  pthread_mutex_lock(&d->mu);
  e->stream = s;
  e->ticket = ++s->recorded;
  if (s->immediate)
    s->completed = s->recorded;
  pthread_mutex_unlock(&d->mu);
  return BP_OK;
}

static bp_status_t event_query(void *self, void *event) {
  fake_device_t *d = self;
  fake_event_t *e = event;
  pthread_mutex_lock(&d->mu);
  bool done = !e->stream || e->stream->completed >= e->ticket;
  pthread_mutex_unlock(&d->mu);
  return done ? BP_OK : BP_ERR_NOT_READY;
}

static void event_destroy(void *self, void *event) {
  fake_device_t *d = self;
  pthread_mutex_lock(&d->mu);
  d->events_destroyed++;
  pthread_mutex_unlock(&d->mu);
  free(event);
}

bp_alloc_backend_t fake_backend(fake_device_t *device, bool events) {
  bp_alloc_backend_t b = {
      .self = device,
      .name = "fake:0",
      .raw_allocate = raw_allocate,
      .raw_free = raw_free,
      .memory_info = memory_info,
  };
  if (events) {
    b.event_create = event_create;
    b.event_record = event_record;
    b.event_query = event_query;
    b.event_destroy = event_destroy;
  }
  return b;
}

void fake_stream_complete(fake_device_t *device, fake_stream_t *stream) {
  pthread_mutex_lock(&device->mu);
  stream->completed = stream->recorded;
  pthread_mutex_unlock(&device->mu);
}

size_t fake_live_size(fake_device_t *device, const void *ptr) {
  size_t size = 0;
  pthread_mutex_lock(&device->mu);
  for (size_t i = 0; i < device->live_count; i++)
    if (device->live[i].addr == (uintptr_t)ptr)
      size = device->live[i].size;
  pthread_mutex_unlock(&device->mu);
  return size;
}
