/* The framework face of the caching allocator (backplane/allocator.h): each
 * call finds the device's allocator through the core and forwards; each is
 * a slice of the trace when traced (core/observer.h) and noted in the
 * allocator history while it records (core/memory_history_note.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/caching_allocator.h"
#include "base/status.h"
#include "core/active.h"
#include "core/device_table.h"
#include "core/memory_history_note.h"
#include "core/observer.h"
#include "core/stream_internal.h"

static __attribute__((noinline, cold)) bp_status_t
bad_device_or_stream(const char *function, const bp_device_t *device) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: device is NULL", function);
  return bp_error(BP_ERR_INVALID_ARGUMENT,
                  "%s: the stream belongs to another device than %s", function,
                  device->name);
}

/* The device's allocator (created on first use). Inlined: the async malloc
 * and free are hot paths. */
static inline __attribute__((always_inline)) bp_status_t
allocator_of(const char *function, bp_device_t *device,
             bp_caching_allocator_t **out) {
  if (!device)
    return bad_device_or_stream(function, device);
  /* The allocator exists after the first call: one load, no lock. */
  *out = bp_device_allocator_if_created(device);
  return *out ? BP_OK : bp_device_allocator_get(device, out);
}

/* allocator_of after resolving BP_STREAM_ACTIVE in *stream (the thread's
 * active stream of `device`). A stream-ordered allocation's stream (may be
 * NULL) must be a live stream of `device`; a free or record_stream may name
 * a stream of any device (`any_device`). */
static inline __attribute__((always_inline)) bp_status_t
allocator_for_stream(const char *function, bp_device_t *device,
                     bp_stream_t **stream, bool any_device,
                     bp_caching_allocator_t **out) {
  if (!device)
    return bad_device_or_stream(function, device);
  bp_status_t status = bp_stream_resolve(device, stream);
  if (status == BP_OK && !any_device) {
    if (*stream && (*stream)->device != device)
      return bad_device_or_stream(function, device);
    status = bp_stream_check(function, *stream);
  }
  return status != BP_OK ? status : allocator_of(function, device, out);
}

BP_API_BODY bp_status_t malloc_async(bp_device_t *device, size_t size,
                                     bp_stream_t *stream, void **out_ptr) {
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_for_stream("bp_device_malloc_async", device,
                                            &stream, false, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_malloc(a, size, stream, out_ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_malloc_async(bp_device_t *device, size_t size, bp_stream_t *stream,
                    void **out_ptr) {
  BP_TRACE_CALL(device, "bp_device_malloc_async",
                malloc_async(device, size, stream, out_ptr),
                ",\"size\":%zu,\"stream\":\"%p\",\"ptr\":\"%p\"", size,
                (void *)stream, status == BP_OK ? *out_ptr : NULL);
}

/* The history names the stream the call resolved BP_STREAM_ACTIVE to. */
static bp_stream_t *resolved_stream(bp_device_t *device, bp_stream_t *stream) {
  return bp_stream_resolve(device, &stream) == BP_OK ? stream : NULL;
}

static __attribute__((noinline, cold)) bp_status_t
watched_malloc_async(bp_device_t *device, size_t size, bp_stream_t *stream,
                     void **out_ptr, const void *caller) {
  bp_status_t status = BP_OBSERVED(device)
                           ? traced_malloc_async(device, size, stream, out_ptr)
                           : malloc_async(device, size, stream, out_ptr);
  if (status == BP_OK || status == BP_ERR_OUT_OF_MEMORY)
    bp_memory_history_note_malloc(device, status, size,
                                  status == BP_OK ? *out_ptr : NULL,
                                  resolved_stream(device, stream), caller);
  return status;
}

BP_API bp_status_t bp_device_malloc_async(bp_device_t *device, size_t size,
                                          bp_stream_t *stream, void **out_ptr) {
  if (device != NULL && BP_MEMORY_WATCHED(device))
    return watched_malloc_async(device, size, stream, out_ptr,
                                __builtin_return_address(0));
  return malloc_async(device, size, stream, out_ptr);
}

/* A free or record_stream may name a stream of any device: a peer device
 * reading the block on its own stream (a P2P copy) is the normal case. */
BP_API_BODY bp_status_t free_async(bp_device_t *device, void *ptr,
                                   bp_stream_t *stream) {
  if (!ptr)
    return BP_OK;
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_for_stream("bp_device_free_async", device, &stream, true, &a);
  if (status != BP_OK)
    return status;
  status = bp_caching_allocator_free_on_stream(a, ptr, stream);
  if (__builtin_expect(status == BP_ERR_INVALID_ARGUMENT, 0))
    bp_api_refused(device, "bp_device_free_async");
  return status;
}

static __attribute__((noinline, cold)) bp_status_t
traced_free_async(bp_device_t *device, void *ptr, bp_stream_t *stream) {
  BP_TRACE_CALL(device, "bp_device_free_async", free_async(device, ptr, stream),
                ",\"ptr\":\"%p\",\"stream\":\"%p\"", ptr, (void *)stream);
}

static __attribute__((noinline, cold)) bp_status_t
watched_free_async(bp_device_t *device, void *ptr, bp_stream_t *stream,
                   const void *caller) {
  size_t size = bp_memory_history_size_of(device, ptr);
  bp_status_t status = BP_OBSERVED(device)
                           ? traced_free_async(device, ptr, stream)
                           : free_async(device, ptr, stream);
  if (status == BP_OK)
    bp_memory_history_note_free(device, status, ptr, size,
                                resolved_stream(device, stream), caller);
  return status;
}

BP_API bp_status_t bp_device_free_async(bp_device_t *device, void *ptr,
                                        bp_stream_t *stream) {
  if (device != NULL && BP_MEMORY_WATCHED(device))
    return watched_free_async(device, ptr, stream, __builtin_return_address(0));
  return free_async(device, ptr, stream);
}

BP_API_BODY bp_status_t record_stream(bp_device_t *device, void *ptr,
                                      bp_stream_t *stream) {
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_for_stream("bp_device_record_stream", device,
                                            &stream, true, &a);
  if (status != BP_OK)
    return status;
  status = bp_caching_allocator_record_stream(a, ptr, stream);
  if (__builtin_expect(status == BP_ERR_INVALID_ARGUMENT, 0))
    bp_api_refused(device, "bp_device_record_stream");
  return status;
}

static __attribute__((noinline, cold)) bp_status_t
traced_record_stream(bp_device_t *device, void *ptr, bp_stream_t *stream) {
  BP_TRACE_CALL(device, "bp_device_record_stream",
                record_stream(device, ptr, stream),
                ",\"ptr\":\"%p\",\"stream\":\"%p\"", ptr, (void *)stream);
}

BP_API bp_status_t bp_device_record_stream(bp_device_t *device, void *ptr,
                                           bp_stream_t *stream) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_record_stream(device, ptr, stream);
  return record_stream(device, ptr, stream);
}

BP_API_BODY bp_status_t workspace_alloc(bp_device_t *device, size_t size,
                                        bp_stream_t *stream, void **out_ptr) {
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_for_stream("bp_device_workspace_alloc", device,
                                            &stream, false, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_workspace_alloc(a, size, stream, out_ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_workspace_alloc(bp_device_t *device, size_t size, bp_stream_t *stream,
                       void **out_ptr) {
  BP_TRACE_CALL(device, "bp_device_workspace_alloc",
                workspace_alloc(device, size, stream, out_ptr),
                ",\"size\":%zu,\"stream\":\"%p\",\"ptr\":\"%p\"", size,
                (void *)stream, status == BP_OK ? *out_ptr : NULL);
}

BP_API bp_status_t bp_device_workspace_alloc(bp_device_t *device, size_t size,
                                             bp_stream_t *stream,
                                             void **out_ptr) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_workspace_alloc(device, size, stream, out_ptr);
  return workspace_alloc(device, size, stream, out_ptr);
}

BP_API_BODY bp_status_t workspace_free(bp_device_t *device, bp_stream_t *stream,
                                       void *ptr) {
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_for_stream("bp_device_workspace_free", device,
                                            &stream, false, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_workspace_free(a, stream, ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_workspace_free(bp_device_t *device, bp_stream_t *stream, void *ptr) {
  BP_TRACE_CALL(device, "bp_device_workspace_free",
                workspace_free(device, stream, ptr),
                ",\"ptr\":\"%p\",\"stream\":\"%p\"", ptr, (void *)stream);
}

BP_API bp_status_t bp_device_workspace_free(bp_device_t *device,
                                            bp_stream_t *stream, void *ptr) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_workspace_free(device, stream, ptr);
  return workspace_free(device, stream, ptr);
}

BP_API_BODY bp_status_t empty_cache(bp_device_t *device) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_empty_cache: device is NULL");
  bp_caching_allocator_t *a = bp_device_allocator_if_created(device);
  return a ? bp_caching_allocator_empty_cache(a, NULL) : BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_empty_cache(bp_device_t *device) {
  BP_TRACE_CALL(device, "bp_device_empty_cache", empty_cache(device), "%s", "");
}

BP_API bp_status_t bp_device_empty_cache(bp_device_t *device) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_empty_cache(device);
  return empty_cache(device);
}

BP_API_BODY bp_status_t memory_stats(bp_device_t *device,
                                     bp_memory_stats_t *out_stats) {
  if (!out_stats)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_memory_stats: out_stats is NULL");
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_of("bp_device_memory_stats", device, &a);
  if (status != BP_OK)
    return status;
  bp_caching_allocator_stats(a, out_stats);
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_memory_stats(bp_device_t *device, bp_memory_stats_t *out_stats) {
  BP_TRACE_CALL(device, "bp_device_memory_stats",
                memory_stats(device, out_stats), "%s", "");
}

BP_API bp_status_t bp_device_memory_stats(bp_device_t *device,
                                          bp_memory_stats_t *out_stats) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_memory_stats(device, out_stats);
  return memory_stats(device, out_stats);
}

BP_API_BODY bp_status_t reset_peak_memory_stats(bp_device_t *device) {
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_of("bp_device_reset_peak_memory_stats", device, &a);
  if (status != BP_OK)
    return status;
  bp_caching_allocator_reset_peaks(a);
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_reset_peak_memory_stats(bp_device_t *device) {
  BP_TRACE_CALL(device, "bp_device_reset_peak_memory_stats",
                reset_peak_memory_stats(device), "%s", "");
}

BP_API bp_status_t bp_device_reset_peak_memory_stats(bp_device_t *device) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_reset_peak_memory_stats(device);
  return reset_peak_memory_stats(device);
}

BP_API_BODY bp_status_t allocator_config(bp_device_t *device,
                                         bp_allocator_config_t *out) {
  if (!out)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_allocator_config: out is NULL");
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_of("bp_device_allocator_config", device, &a);
  if (status != BP_OK)
    return status;
  bp_caching_allocator_config(a, out);
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_allocator_config(bp_device_t *device, bp_allocator_config_t *out) {
  BP_TRACE_CALL(device, "bp_device_allocator_config",
                allocator_config(device, out), "%s", "");
}

BP_API bp_status_t bp_device_allocator_config(bp_device_t *device,
                                              bp_allocator_config_t *out) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_allocator_config(device, out);
  return allocator_config(device, out);
}

BP_API_BODY bp_status_t memory_snapshot(bp_device_t *device, char **out_json) {
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_of("bp_device_memory_snapshot", device, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_snapshot_json(a, out_json);
}

static __attribute__((noinline, cold)) bp_status_t
traced_memory_snapshot(bp_device_t *device, char **out_json) {
  BP_TRACE_CALL(device, "bp_device_memory_snapshot",
                memory_snapshot(device, out_json), "%s", "");
}

BP_API bp_status_t bp_device_memory_snapshot(bp_device_t *device,
                                             char **out_json) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_memory_snapshot(device, out_json);
  return memory_snapshot(device, out_json);
}

BP_API_BODY bp_status_t memory_snapshot_file(bp_device_t *device,
                                             const char *path) {
  if (!path)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_memory_snapshot_file: path is NULL");
  char *json;
  bp_status_t status = memory_snapshot(device, &json);
  if (status != BP_OK)
    return status;
  FILE *file = fopen(path, "w");
  bool written = file && fputs(json, file) >= 0;
  if (file && fclose(file) != 0)
    written = false;
  free(json);
  if (!written)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_memory_snapshot_file: cannot write %s: %s", path,
                    strerror(errno));
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_memory_snapshot_file(bp_device_t *device, const char *path) {
  BP_TRACE_CALL(device, "bp_device_memory_snapshot_file",
                memory_snapshot_file(device, path), ",\"path\":\"%s\"",
                path ? path : "");
}

BP_API bp_status_t bp_device_memory_snapshot_file(bp_device_t *device,
                                                  const char *path) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_memory_snapshot_file(device, path);
  return memory_snapshot_file(device, path);
}
