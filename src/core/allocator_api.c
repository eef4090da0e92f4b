/* The framework face of the caching allocator (backplane/allocator.h): each
 * call finds the device's allocator through the core and forwards; each is
 * a slice of the trace when traced (core/api_trace.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/caching_allocator.h"
#include "core/api_trace.h"
#include "core/device_table.h"
#include "base/status.h"
#include "core/stream_internal.h"

static __attribute__((noinline, cold)) bp_status_t
bad_device_or_stream(const char *function, const bp_device_t *device) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: device is NULL", function);
  return bp_error(BP_ERR_INVALID_ARGUMENT,
                  "%s: the stream belongs to another device than %s", function,
                  device->name);
}

/* The device's allocator (created on first use), after checking that
 * `stream` (may be NULL) belongs to `device`. Inlined: the async malloc and
 * free are hot paths. */
static inline __attribute__((always_inline)) bp_status_t
allocator_of(const char *function, bp_device_t *device, bp_stream_t *stream,
             bp_caching_allocator_t **out) {
  if (!device || (stream && stream->device != device))
    return bad_device_or_stream(function, device);
  /* The allocator exists after the first call: one load, no lock. */
  *out = bp_device_allocator_if_created(device);
  return *out ? BP_OK : bp_device_allocator_get(device, out);
}

BP_API_BODY bp_status_t malloc_async(bp_device_t *device, size_t size,
                                     bp_stream_t *stream, void **out_ptr) {
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_of("bp_device_malloc_async", device, stream, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_malloc(a, size, stream, out_ptr);
}

BP_API_ENTRY(bp_device_malloc_async, malloc_async,
             (bp_device_t * device, size_t size, bp_stream_t *stream,
              void **out_ptr),
             (device, size, stream, out_ptr), device, device,
             ",\"size\":%zu,\"stream\":\"%p\",\"ptr\":\"%p\"", size,
             (void *)stream, bp_api_status == BP_OK ? *out_ptr : NULL)

BP_API_BODY bp_status_t free_async(bp_device_t *device, void *ptr,
                                   bp_stream_t *stream) {
  if (!ptr)
    return BP_OK;
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_of("bp_device_free_async", device, stream, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_free_on_stream(a, ptr, stream);
}

BP_API_ENTRY(bp_device_free_async, free_async,
             (bp_device_t * device, void *ptr, bp_stream_t *stream),
             (device, ptr, stream), device, device,
             ",\"ptr\":\"%p\",\"stream\":\"%p\"", ptr, (void *)stream)

BP_API_BODY bp_status_t record_stream(bp_device_t *device, void *ptr,
                                      bp_stream_t *stream) {
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_of("bp_device_record_stream", device, stream, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_record_stream(a, ptr, stream);
}

BP_API_ENTRY(bp_device_record_stream, record_stream,
             (bp_device_t * device, void *ptr, bp_stream_t *stream),
             (device, ptr, stream), device, device,
             ",\"ptr\":\"%p\",\"stream\":\"%p\"", ptr, (void *)stream)

BP_API_BODY bp_status_t workspace_alloc(bp_device_t *device, size_t size,
                                        bp_stream_t *stream, void **out_ptr) {
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_of("bp_device_workspace_alloc", device, stream, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_workspace_alloc(a, size, stream, out_ptr);
}

BP_API_ENTRY(bp_device_workspace_alloc, workspace_alloc,
             (bp_device_t * device, size_t size, bp_stream_t *stream,
              void **out_ptr),
             (device, size, stream, out_ptr), device, device,
             ",\"size\":%zu,\"stream\":\"%p\",\"ptr\":\"%p\"", size,
             (void *)stream, bp_api_status == BP_OK ? *out_ptr : NULL)

BP_API_BODY bp_status_t workspace_free(bp_device_t *device, bp_stream_t *stream,
                                       void *ptr) {
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_of("bp_device_workspace_free", device, stream, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_workspace_free(a, stream, ptr);
}

BP_API_ENTRY(bp_device_workspace_free, workspace_free,
             (bp_device_t * device, bp_stream_t *stream, void *ptr),
             (device, stream, ptr), device, device,
             ",\"ptr\":\"%p\",\"stream\":\"%p\"", ptr, (void *)stream)

BP_API_BODY bp_status_t empty_cache(bp_device_t *device) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_empty_cache: device is NULL");
  bp_caching_allocator_t *a = bp_device_allocator_if_created(device);
  return a ? bp_caching_allocator_empty_cache(a, NULL) : BP_OK;
}

BP_API_ENTRY(bp_device_empty_cache, empty_cache, (bp_device_t * device),
             (device), device, device, BP_API_NO_DETAIL)

BP_API_BODY bp_status_t memory_stats(bp_device_t *device,
                                     bp_memory_stats_t *out_stats) {
  if (!out_stats)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_memory_stats: out_stats is NULL");
  bp_caching_allocator_t *a;
  bp_status_t status = allocator_of("bp_device_memory_stats", device, NULL, &a);
  if (status != BP_OK)
    return status;
  bp_caching_allocator_stats(a, out_stats);
  return BP_OK;
}

BP_API_ENTRY(bp_device_memory_stats, memory_stats,
             (bp_device_t * device, bp_memory_stats_t *out_stats),
             (device, out_stats), device, device, BP_API_NO_DETAIL)

BP_API_BODY bp_status_t reset_peak_memory_stats(bp_device_t *device) {
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_of("bp_device_reset_peak_memory_stats", device, NULL, &a);
  if (status != BP_OK)
    return status;
  bp_caching_allocator_reset_peaks(a);
  return BP_OK;
}

BP_API_ENTRY(bp_device_reset_peak_memory_stats, reset_peak_memory_stats,
             (bp_device_t * device), (device), device, device, BP_API_NO_DETAIL)

BP_API_BODY bp_status_t allocator_config(bp_device_t *device,
                                         bp_allocator_config_t *out) {
  if (!out)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_allocator_config: out is NULL");
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_of("bp_device_allocator_config", device, NULL, &a);
  if (status != BP_OK)
    return status;
  bp_caching_allocator_config(a, out);
  return BP_OK;
}

BP_API_ENTRY(bp_device_allocator_config, allocator_config,
             (bp_device_t * device, bp_allocator_config_t *out), (device, out),
             device, device, BP_API_NO_DETAIL)

BP_API_BODY bp_status_t memory_snapshot(bp_device_t *device, char **out_json) {
  bp_caching_allocator_t *a;
  bp_status_t status =
      allocator_of("bp_device_memory_snapshot", device, NULL, &a);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_snapshot_json(a, out_json);
}

BP_API_ENTRY(bp_device_memory_snapshot, memory_snapshot,
             (bp_device_t * device, char **out_json), (device, out_json),
             device, device, BP_API_NO_DETAIL)

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

BP_API_ENTRY(bp_device_memory_snapshot_file, memory_snapshot_file,
             (bp_device_t * device, const char *path), (device, path), device,
             device, ",\"path\":\"%s\"", path ? path : "")
