/* The staging pool and the copies that use it (core/staging.h). */
#include "core/staging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "core/copy_profiling.h"
#include "core/stream_internal.h"

struct bp_staging_buffer {
  bp_staging_buffer_t *next;
  void *memory;      /* BP_COPY_STAGING_CHUNK bytes */
  bool pinned;       /* from host_memory_allocate, else from malloc */
  bp_event_t *event; /* recorded after the copy that reads `memory` */
};

void bp_staging_pool_init(bp_staging_pool_t *pool) {
  pthread_mutex_init(&pool->lock, NULL);
  pool->idle = pool->in_flight = pool->in_flight_tail = pool->held = NULL;
  pool->created = 0;
}

static void free_buffer(bp_device_t *device, bp_staging_buffer_t *buffer) {
  if (buffer->event)
    bp_event_destroy_internal(buffer->event);
  if (buffer->pinned)
    device->plugin->dispatch.host_memory_deallocate(
        &device->c_device, buffer->memory, BP_COPY_STAGING_CHUNK);
  else
    free(buffer->memory);
  free(buffer);
}

static void free_list(bp_device_t *device, bp_staging_buffer_t *buffer) {
  while (buffer) {
    bp_staging_buffer_t *next = buffer->next;
    free_buffer(device, buffer);
    buffer = next;
  }
}

void bp_staging_pool_release(bp_device_t *device) {
  bp_staging_pool_t *pool = &device->staging;
  free_list(device, pool->idle);
  free_list(device, pool->in_flight);
  free_list(device, pool->held);
  pthread_mutex_destroy(&pool->lock);
}

bool bp_host_memory_pinned(bp_device_t *device, const void *ptr, size_t size) {
  bp_plugin_t *plugin = device->plugin;
  /* The copy's own device first: that is where pinned buffers usually come
   * from. */
  for (size_t i = 0; i <= plugin->device_count; ++i) {
    bp_device_t *candidate = i == 0 ? device : &plugin->devices[i - 1];
    if (i > 0 && candidate == device)
      continue;
    if (!atomic_load_explicit(&candidate->pinned.count, memory_order_relaxed))
      continue;
    pthread_mutex_lock(&candidate->lock);
    bool inside = bp_host_ranges_contain(&candidate->pinned, ptr, size);
    pthread_mutex_unlock(&candidate->lock);
    if (inside)
      return true;
  }
  return false;
}

static bp_status_t create_buffer(bp_device_t *device,
                                 bp_staging_buffer_t **out_buffer) {
  bp_staging_buffer_t *buffer = calloc(1, sizeof *buffer);
  if (!buffer)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_copy on %s: no memory for a staging buffer",
                    device->name);
  const C_DeviceInterface *d = &device->plugin->dispatch;
  if (d->host_memory_allocate && d->host_memory_deallocate &&
      BP_C_OK(d->host_memory_allocate(&device->c_device, &buffer->memory,
                                      BP_COPY_STAGING_CHUNK)) &&
      buffer->memory)
    buffer->pinned = true;
  else
    buffer->memory = malloc(BP_COPY_STAGING_CHUNK);
  bp_status_t status =
      buffer->memory ? bp_event_create_internal(device, &buffer->event)
                     : bp_error(BP_ERR_OUT_OF_MEMORY,
                                "bp_copy on %s: no memory for a staging "
                                "buffer of %zu bytes",
                                device->name, (size_t)BP_COPY_STAGING_CHUNK);
  if (status != BP_OK) {
    if (buffer->memory)
      free_buffer(device, buffer);
    else
      free(buffer);
    return status;
  }
  *out_buffer = buffer;
  return BP_OK;
}

/* Moves the in-flight buffers whose copies have completed to `idle`, oldest
 * first, stopping at the first still pending (streams pass them in order of
 * release only per stream, so this is a cheap approximation). Under lock. */
static void reclaim_completed(bp_staging_pool_t *pool) {
  while (pool->in_flight &&
         bp_event_query_internal(pool->in_flight->event) == BP_OK) {
    bp_staging_buffer_t *done = pool->in_flight;
    pool->in_flight = done->next;
    if (!pool->in_flight)
      pool->in_flight_tail = NULL;
    done->next = pool->idle;
    pool->idle = done;
  }
}

/* A buffer the caller owns until it hands it back with give_back. */
static bp_status_t acquire(bp_device_t *device,
                           bp_staging_buffer_t **out_buffer) {
  bp_staging_pool_t *pool = &device->staging;
  pthread_mutex_lock(&pool->lock);
  if (!pool->idle)
    reclaim_completed(pool);
  bp_staging_buffer_t *buffer = pool->idle;
  if (buffer) {
    pool->idle = buffer->next;
    pthread_mutex_unlock(&pool->lock);
    *out_buffer = buffer;
    return BP_OK;
  }
  if (pool->created < BP_STAGING_BUFFERS || !pool->in_flight) {
    pool->created++;
    pthread_mutex_unlock(&pool->lock);
    bp_status_t status = create_buffer(device, out_buffer);
    if (status != BP_OK) {
      pthread_mutex_lock(&pool->lock);
      pool->created--;
      pthread_mutex_unlock(&pool->lock);
    }
    return status;
  }
  /* All in flight: wait for the oldest, outside the lock. */
  buffer = pool->in_flight;
  pool->in_flight = buffer->next;
  if (!pool->in_flight)
    pool->in_flight_tail = NULL;
  pthread_mutex_unlock(&pool->lock);
  bp_status_t status = bp_event_synchronize_internal(buffer->event);
  if (status != BP_OK) {
    free_buffer(device, buffer);
    pthread_mutex_lock(&pool->lock);
    pool->created--;
    pthread_mutex_unlock(&pool->lock);
    return status;
  }
  *out_buffer = buffer;
  return BP_OK;
}

static void push_idle(bp_staging_pool_t *pool, bp_staging_buffer_t *buffer) {
  pthread_mutex_lock(&pool->lock);
  buffer->next = pool->idle;
  pool->idle = buffer;
  pthread_mutex_unlock(&pool->lock);
}

/* give_back's failure: `status` (the record's, with its message) names
 * what failed. */
static __attribute__((noinline, cold)) bp_status_t
record_failed(bp_device_t *device, bp_staging_buffer_t *buffer,
              bp_stream_t *stream, bp_status_t status) {
  char why[512];
  snprintf(why, sizeof why, "%s", bp_last_error());
  bool drained = bp_stream_drain("bp_copy", stream) == BP_OK;
  if (drained) {
    push_idle(&device->staging, buffer);
  } else { /* the stream may still read it: freed only at teardown */
    pthread_mutex_lock(&device->staging.lock);
    buffer->next = device->staging.held;
    device->staging.held = buffer;
    pthread_mutex_unlock(&device->staging.lock);
  }
  return bp_error(status,
                  "bp_copy to %s: recording the event that hands a staging "
                  "buffer back to the pool failed (%s); %s",
                  device->name, why,
                  drained ? "the stream was drained instead, the data landed"
                          : "draining the stream failed too, the copy's "
                            "outcome is unknown");
}

/* Returns `buffer` to the pool once `stream` has passed the work enqueued
 * so far. If the event cannot be recorded, the copy fails with that error:
 * the buffer goes back only after waiting for the stream (which may be
 * reading it), and stays out of the pool if even that fails. */
static bp_status_t give_back(bp_device_t *device, bp_staging_buffer_t *buffer,
                             bp_stream_t *stream) {
  bp_staging_pool_t *pool = &device->staging;
  bp_status_t status =
      bp_event_record_internal("bp_copy", buffer->event, stream);
  if (__builtin_expect(status != BP_OK, 0))
    return record_failed(device, buffer, stream, status);
  buffer->next = NULL;
  pthread_mutex_lock(&pool->lock);
  if (pool->in_flight_tail)
    pool->in_flight_tail->next = buffer;
  else
    pool->in_flight = buffer;
  pool->in_flight_tail = buffer;
  pthread_mutex_unlock(&pool->lock);
  return BP_OK;
}

static bool stream_idle(bp_device_t *device, bp_stream_t *stream) {
  return BP_C_OK(
      device->plugin->dispatch.query_stream(&device->c_device, stream->native));
}

bp_status_t bp_staged_copy_h2d(bp_device_t *device, bp_stream_t *stream,
                               void *dst, const void *src, size_t size) {
  const C_DeviceInterface *d = &device->plugin->dispatch;
  bp_status_t entered = bp_device_enter(device);
  if (entered != BP_OK)
    return entered;
  /* Nothing to order after: copying now is the stream's order. Only for
   * one chunk: a larger copy is pipelined, the device taking each chunk
   * while the caller fills the next. */
  if (size <= BP_COPY_STAGING_CHUNK && d->memory_copy_h2d &&
      stream_idle(device, stream)) {
    uint64_t profiled = bp_copy_profile_begin(device);
    C_Status result = d->memory_copy_h2d(&device->c_device, dst, src, size);
    if (!BP_C_OK(result))
      return bp_plugin_call_error(device, "memory_copy_h2d", result);
    bp_copy_profile_end(device, stream, "h2d", size, profiled);
    return BP_OK;
  }
  for (size_t done = 0; done < size;) {
    size_t chunk = size - done < BP_COPY_STAGING_CHUNK ? size - done
                                                       : BP_COPY_STAGING_CHUNK;
    bp_staging_buffer_t *buffer = NULL;
    bp_status_t status = acquire(device, &buffer);
    if (status != BP_OK)
      return status;
    memcpy(buffer->memory, (const char *)src + done, chunk);
    /* acquire may have waited on another device's behalf: bind again. */
    status = bp_device_enter(device);
    C_Status result = status == BP_OK
                          ? d->async_memory_copy_h2d(
                                &device->c_device, stream->native,
                                (char *)dst + done, buffer->memory, chunk)
                          : C_SUCCESS;
    if (status != BP_OK || !BP_C_OK(result)) {
      push_idle(&device->staging, buffer);
      return status != BP_OK ? status
                             : bp_plugin_call_error(
                                   device, "async_memory_copy_h2d", result);
    }
    if ((status = give_back(device, buffer, stream)) != BP_OK)
      return status;
    done += chunk;
  }
  return BP_OK;
}

bp_status_t bp_waited_copy_d2h(bp_device_t *device, bp_stream_t *stream,
                               void *dst, const void *src, size_t size) {
  const C_DeviceInterface *d = &device->plugin->dispatch;
  bp_status_t status = bp_stream_drain("bp_copy", stream);
  if (status != BP_OK)
    return status;
  if (d->memory_copy_d2h) {
    uint64_t profiled = bp_copy_profile_begin(device);
    C_Status result = d->memory_copy_d2h(&device->c_device, dst, src, size);
    if (!BP_C_OK(result))
      return bp_plugin_call_error(device, "memory_copy_d2h", result);
    bp_copy_profile_end(device, stream, "d2h", size, profiled);
    return BP_OK;
  }
  C_Status result = d->async_memory_copy_d2h(&device->c_device, stream->native,
                                             dst, src, size);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, "async_memory_copy_d2h", result);
  return bp_stream_drain("bp_copy", stream);
}
