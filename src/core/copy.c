/* bp_copy (every direction), bp_copy_async_unsafe and bp_memset; each a
 * slice of the trace when traced (core/observer.h). Copies on a stream
 * between a device and pageable host memory go through core/staging.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "alloc/live_ranges.h"
#include "base/status.h"
#include "core/active.h"
#include "core/copy_internal.h"
#include "core/copy_profiling.h"
#include "core/fallbacks.h"
#include "core/observer.h"
#include "core/released_ranges.h"
#include "core/runtime_internal.h"
#include "core/staging.h"
#include "core/stream_internal.h"

typedef C_Status (*sync_copy_fn)(const C_Device, void *, const void *, size_t);
typedef C_Status (*async_copy_fn)(const C_Device, C_Stream, void *,
                                  const void *, size_t);

static bp_status_t unsupported(const bp_device_t *device,
                               const char *function) {
  return bp_error(BP_ERR_UNSUPPORTED, "%s: %s is not provided (needed on %s)",
                  device->plugin->device_type, function, device->name);
}

static bool overflows(const void *ptr, size_t size) {
  return (uintptr_t)ptr > UINTPTR_MAX - size;
}

static __attribute__((noinline, cold)) bp_status_t
range_refused(bp_device_t *device, const char *call, const char *role,
              const void *ptr, size_t size, bp_range_verdict_t verdict,
              const bp_range_block_t *block) {
  bp_status_t status;
  if (verdict == BP_RANGE_FREED)
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: %s %p on %s is inside block %p, which was freed "
                      "(still cached by the allocator)",
                      call, role, ptr, device->name, (void *)block->addr);
  else
    status = bp_error(
        BP_ERR_INVALID_ARGUMENT,
        "%s: %s range [%p, +%zu) on %s runs %zu bytes past the end of block "
        "%p (%zu bytes)",
        call, role, ptr, size, device->name,
        (size_t)((uintptr_t)ptr + size - block->addr - block->requested),
        (void *)block->addr, block->requested);
  bp_api_refused(device, call);
  return status;
}

static __attribute__((noinline, cold)) bp_status_t
released_refused(bp_device_t *device, const char *call, const char *role,
                 const void *ptr) {
  bp_status_t status = bp_error(
      BP_ERR_INVALID_ARGUMENT,
      "%s: %s %p on %s is in memory the caching allocator gave back to the "
      "plugin (bp_device_empty_cache, or a retry after running out of "
      "memory): no live allocation covers it",
      call, role, ptr, device->name);
  bp_api_refused(device, call);
  return status;
}

/* The bounds check of a device-side range against the blocks of the
 * device's caching allocator: pointers it did not hand out pass, unless
 * they lie in memory it gave back to the plugin (core/released_ranges.h).
 * Off with bp_runtime_options_t.skip_range_checks. `size` ≥ 1, no
 * overflow. */
static inline bp_status_t check_range(bp_device_t *device, const char *call,
                                      const char *role, const void *ptr,
                                      size_t size) {
  if (!device || !device->plugin->runtime->check_ranges)
    return BP_OK;
  bp_caching_allocator_t *allocator = bp_device_allocator_if_created(device);
  if (!allocator)
    return BP_OK;
  bp_range_block_t block;
  bp_range_verdict_t verdict =
      bp_caching_allocator_check_range(allocator, ptr, size, &block);
  if (__builtin_expect(verdict == BP_RANGE_INSIDE, 1))
    return BP_OK;
  if (verdict == BP_RANGE_NOT_OURS)
    return bp_device_range_released(device, ptr)
               ? released_refused(device, call, role, ptr)
               : BP_OK;
  return range_refused(device, call, role, ptr, size, verdict, &block);
}

/* A copy that one device performs: h2d, d2h or d2d within the device. With a
 * plugin stream the async form; otherwise drain the stream (if any), then the
 * sync form. */
static bp_status_t one_device_copy(bp_device_t *device, bp_stream_t *stream,
                                   void *dst, const void *src, size_t size,
                                   sync_copy_fn sync, const char *sync_name,
                                   async_copy_fn async,
                                   const char *async_name) {
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  if (stream && stream->native) {
    if (!async)
      return unsupported(device, async_name);
    C_Status result = async(&device->c_device, stream->native, dst, src, size);
    return BP_C_OK(result) ? BP_OK
                           : bp_plugin_call_error(device, async_name, result);
  }
  if (!sync)
    return unsupported(device, sync_name);
  if (stream && (status = bp_stream_drain("bp_copy", stream)) != BP_OK)
    return status;
  uint64_t profiled = bp_copy_profile_begin(device);
  C_Status result = sync(&device->c_device, dst, src, size);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, sync_name, result);
  bp_copy_profile_end(device, stream, sync_name + strlen("memory_copy_"), size,
                      profiled);
  return BP_OK;
}

/* Between two devices of one plugin. */
static bp_status_t peer_copy(bp_device_t *dst_device, void *dst,
                             bp_device_t *src_device, const void *src,
                             size_t size, bp_stream_t *stream) {
  const C_DeviceInterface *d = &src_device->plugin->dispatch;
  /* Both must be initialized; the stream's device (else the source) ends up
   * bound to this thread. */
  bp_device_t *bound = stream ? stream->device : src_device;
  bp_device_t *other = bound == src_device ? dst_device : src_device;
  bp_status_t status = bp_device_enter(other);
  if (status == BP_OK)
    status = bp_device_enter(bound);
  if (status != BP_OK)
    return status;
  if (stream && stream->native) {
    if (!d->async_memory_copy_p2p)
      return unsupported(src_device, "async_memory_copy_p2p");
    C_Status result =
        d->async_memory_copy_p2p(&dst_device->c_device, &src_device->c_device,
                                 stream->native, dst, src, size);
    return BP_C_OK(result) ? BP_OK
                           : bp_plugin_call_error(
                                 src_device, "async_memory_copy_p2p", result);
  }
  if (!d->memory_copy_p2p)
    return unsupported(src_device, "memory_copy_p2p");
  if (stream && (status = bp_stream_drain("bp_copy", stream)) != BP_OK)
    return status;
  uint64_t profiled = bp_copy_profile_begin(src_device);
  C_Status result = d->memory_copy_p2p(&dst_device->c_device,
                                       &src_device->c_device, dst, src, size);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(src_device, "memory_copy_p2p", result);
  bp_copy_profile_end(src_device, stream, "p2p", size, profiled);
  return BP_OK;
}

/* Between plugins: through host memory, synchronously. */
static bp_status_t cross_plugin_copy(bp_device_t *dst_device, void *dst,
                                     bp_device_t *src_device, const void *src,
                                     size_t size, bp_stream_t *stream) {
  if (!src_device->plugin->dispatch.memory_copy_d2h)
    return unsupported(src_device, "memory_copy_d2h");
  if (!dst_device->plugin->dispatch.memory_copy_h2d)
    return unsupported(dst_device, "memory_copy_h2d");
  bp_status_t status = stream ? bp_stream_drain("bp_copy", stream) : BP_OK;
  if (status != BP_OK)
    return status;
  const char *failed = NULL;
  uint64_t profiled = bp_copy_profile_begin(src_device);
  uint64_t profiled_dst = bp_copy_profile_begin(dst_device);
  C_Status result = bp_bounce_copy(&dst_device->c_device, &src_device->c_device,
                                   dst, src, size, &failed);
  if (BP_C_OK(result)) { /* through the host: one copy out, one in */
    bp_copy_profile_end(src_device, NULL, "d2h", size, profiled);
    bp_copy_profile_end(dst_device, NULL, "h2d", size, profiled_dst);
    return BP_OK;
  }
  if (strcmp(failed, "malloc") == 0)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_copy %s -> %s: no host memory for the bounce buffer",
                    src_device->name, dst_device->name);
  if (strcmp(failed, "set_device") == 0)
    return BP_ERR_PLUGIN; /* bp_device_enter set the message */
  return bp_plugin_call_error(
      strcmp(failed, "memory_copy_d2h") == 0 ? src_device : dst_device, failed,
      result);
}

/* Whether bp_copy may read or write host memory after it returns. */
typedef enum host_buffer_use {
  HOST_FREE_ON_RETURN, /* bp_copy: only pinned memory is used later */
  HOST_KEPT_BY_CALLER, /* bp_copy_async_unsafe */
} host_buffer_use_t;

/* With a plugin stream, whether a host buffer must be captured or waited for
 * before the return (core/staging.h). */
static bool needs_staging(host_buffer_use_t use, bp_device_t *device,
                          bp_stream_t *stream, const void *host, size_t size) {
  return use == HOST_FREE_ON_RETURN && stream && stream->native &&
         !bp_host_memory_pinned(device, host, size);
}

BP_API_BODY bp_status_t copy(bp_device_t *dst_device, void *dst,
                             bp_device_t *src_device, const void *src,
                             size_t size, bp_stream_t *stream,
                             host_buffer_use_t use) {
  bp_status_t resolved =
      bp_stream_resolve(dst_device ? dst_device : src_device, &stream);
  if (resolved != BP_OK)
    return resolved;
  bp_status_t checked = bp_stream_check("bp_copy", stream);
  if (checked != BP_OK)
    return checked;
  if (stream && stream->device != dst_device && stream->device != src_device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_copy: the stream belongs to %s, which is neither the "
                    "source (%s) nor the destination (%s)",
                    stream->device->name,
                    src_device ? src_device->name : "host",
                    dst_device ? dst_device->name : "host");
  if (size == 0)
    return BP_OK;
  if (!dst || !src)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_copy: %s pointer is NULL (size %zu)",
                    dst ? "source" : "destination", size);
  if (overflows(dst, size) || overflows(src, size))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_copy: %s pointer %p + %zu bytes overflows",
                    overflows(dst, size) ? "destination" : "source",
                    overflows(dst, size) ? dst : src, size);
  if ((checked = check_range(dst_device, "bp_copy", "destination", dst,
                             size)) != BP_OK ||
      (checked = check_range(src_device, "bp_copy", "source", src, size)) !=
          BP_OK)
    return checked;
  if (!dst_device && !src_device) {
    memmove(dst, src, size);
    return BP_OK;
  }
  if (!src_device) {
    const C_DeviceInterface *d = &dst_device->plugin->dispatch;
    if (d->async_memory_copy_h2d &&
        needs_staging(use, dst_device, stream, src, size))
      return bp_staged_copy_h2d(dst_device, stream, dst, src, size);
    return one_device_copy(dst_device, stream, dst, src, size,
                           d->memory_copy_h2d, "memory_copy_h2d",
                           d->async_memory_copy_h2d, "async_memory_copy_h2d");
  }
  if (!dst_device) {
    const C_DeviceInterface *d = &src_device->plugin->dispatch;
    if (d->async_memory_copy_d2h &&
        needs_staging(use, src_device, stream, dst, size))
      return bp_waited_copy_d2h(src_device, stream, dst, src, size);
    return one_device_copy(src_device, stream, dst, src, size,
                           d->memory_copy_d2h, "memory_copy_d2h",
                           d->async_memory_copy_d2h, "async_memory_copy_d2h");
  }
  if (dst_device == src_device) {
    const C_DeviceInterface *d = &src_device->plugin->dispatch;
    return one_device_copy(src_device, stream, dst, src, size,
                           d->memory_copy_d2d, "memory_copy_d2d",
                           d->async_memory_copy_d2d, "async_memory_copy_d2d");
  }
  if (dst_device->plugin == src_device->plugin)
    return peer_copy(dst_device, dst, src_device, src, size, stream);
  return cross_plugin_copy(dst_device, dst, src_device, src, size, stream);
}

bp_status_t bp_copy_internal(bp_device_t *dst_device, void *dst,
                             bp_device_t *src_device, const void *src,
                             size_t size, bp_stream_t *stream) {
  return copy(dst_device, dst, src_device, src, size, stream,
              HOST_FREE_ON_RETURN);
}

/* Traced on the destination device, or the source's for a copy to host. */
static __attribute__((noinline, cold)) bp_status_t
traced_copy(const char *name, bp_device_t *dst_device, void *dst,
            bp_device_t *src_device, const void *src, size_t size,
            bp_stream_t *stream, host_buffer_use_t use) {
  bp_api_call_t call =
      bp_api_call_begin(dst_device ? dst_device : src_device, name);
  bp_status_t status =
      copy(dst_device, dst, src_device, src, size, stream, use);
  bp_api_call_end(
      &call, status,
      ",\"size\":%zu,\"dst\":\"%p\",\"src\":\"%p\",\"stream\":\"%p\"", size,
      dst, src, (void *)stream);
  return status;
}

BP_API bp_status_t bp_copy(bp_device_t *dst_device, void *dst,
                           bp_device_t *src_device, const void *src,
                           size_t size, bp_stream_t *stream) {
  bp_device_t *observed = dst_device ? dst_device : src_device;
  if (observed != NULL && BP_OBSERVED(observed))
    return traced_copy("bp_copy", dst_device, dst, src_device, src, size,
                       stream, HOST_FREE_ON_RETURN);
  return copy(dst_device, dst, src_device, src, size, stream,
              HOST_FREE_ON_RETURN);
}

BP_API bp_status_t bp_copy_async_unsafe(bp_device_t *dst_device, void *dst,
                                        bp_device_t *src_device,
                                        const void *src, size_t size,
                                        bp_stream_t *stream) {
  bp_device_t *observed = dst_device ? dst_device : src_device;
  if (observed != NULL && BP_OBSERVED(observed))
    return traced_copy("bp_copy_async_unsafe", dst_device, dst, src_device, src,
                       size, stream, HOST_KEPT_BY_CALLER);
  return copy(dst_device, dst, src_device, src, size, stream,
              HOST_KEPT_BY_CALLER);
}

BP_API_BODY bp_status_t memset_device(bp_device_t *device, void *ptr,
                                      unsigned char value, size_t size,
                                      bp_stream_t *stream) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_memset: device is NULL");
  bp_status_t resolved = bp_stream_resolve(device, &stream);
  if (resolved != BP_OK)
    return resolved;
  bp_status_t checked = bp_stream_check("bp_memset", stream);
  if (checked != BP_OK)
    return checked;
  if (stream && stream->device != device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memset: the stream belongs to %s, the memory to %s",
                    stream->device->name, device->name);
  if (size == 0)
    return BP_OK;
  if (!ptr)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memset: pointer is NULL (size %zu on %s)", size,
                    device->name);
  if (overflows(ptr, size))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memset: %p + %zu bytes overflows", ptr, size);
  if ((checked = check_range(device, "bp_memset", "pointer", ptr, size)) !=
      BP_OK)
    return checked;
  const C_DeviceInterface *d = &device->plugin->dispatch;
  if (!d->device_memory_set)
    return unsupported(device, "device_memory_set");
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  /* The ABI has no stream-ordered memset: order it by draining first. */
  if (stream && (status = bp_stream_drain("bp_memset", stream)) != BP_OK)
    return status;
  C_Status result = d->device_memory_set(&device->c_device, ptr, value, size);
  return BP_C_OK(result)
             ? BP_OK
             : bp_plugin_call_error(device, "device_memory_set", result);
}

static __attribute__((noinline, cold)) bp_status_t
traced_memset_device(bp_device_t *device, void *ptr, unsigned char value,
                     size_t size, bp_stream_t *stream) {
  BP_TRACE_CALL(device, "bp_memset",
                memset_device(device, ptr, value, size, stream),
                ",\"size\":%zu,\"ptr\":\"%p\",\"value\":%u,\"stream\":\"%p\"",
                size, ptr, (unsigned)value, (void *)stream);
}

BP_API bp_status_t bp_memset(bp_device_t *device, void *ptr,
                             unsigned char value, size_t size,
                             bp_stream_t *stream) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_memset_device(device, ptr, value, size, stream);
  return memset_device(device, ptr, value, size, stream);
}
