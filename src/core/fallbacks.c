/* Every fallback for an optional plugin function. Each is installed only if
 * what it needs exists (e.g. the async copies need the sync copy). */
#include "core/fallbacks.h"

#include <stdlib.h>
#include <string.h>

#include "core/device_table.h"
#include "core/plugin_slots.h"

/* Host staging buffers are bounded: large copies go in chunks. */
#define BP_BOUNCE_CHUNK ((size_t)4 << 20)

static const C_DeviceInterface *dispatch_of(const C_Device device) {
  return &bp_plugin_of(device)->dispatch;
}

/* Waits for `stream`, or for the whole device when there is no stream. */
static C_Status drain(const C_Device device, C_Stream stream) {
  const C_DeviceInterface *d = dispatch_of(device);
  return stream ? d->synchronize_stream(device, stream)
                : d->synchronize_device(device);
}

/* No streams: the device is one queue and its stream handle is NULL. */
static C_Status fallback_create_stream(const C_Device device,
                                       C_Stream *stream) {
  (void)device;
  *stream = NULL;
  return C_SUCCESS;
}

static C_Status fallback_destroy_stream(const C_Device device,
                                        C_Stream stream) {
  (void)device;
  (void)stream;
  return C_SUCCESS;
}

static C_Status fallback_synchronize_stream(const C_Device device,
                                            C_Stream stream) {
  (void)stream;
  return dispatch_of(device)->synchronize_device(device);
}

/* Query by waiting: always "done" afterwards. */
static C_Status fallback_query_stream(const C_Device device, C_Stream stream) {
  return drain(device, stream);
}

static C_Status fallback_query_event(const C_Device device, C_Event event) {
  return dispatch_of(device)->synchronize_event(device, event);
}

/* A host-side wait: correct, but the caller blocks. */
static C_Status fallback_stream_wait_event(const C_Device device,
                                           C_Stream stream, C_Event event) {
  (void)stream;
  return dispatch_of(device)->synchronize_event(device, event);
}

/* Runs the callback on the caller once the stream has drained. */
static C_Status fallback_stream_add_callback(const C_Device device,
                                             C_Stream stream,
                                             C_Callback callback,
                                             void *user_data) {
  C_Status status = drain(device, stream);
  if (!BP_C_OK(status))
    return status;
  C_Status callback_status = C_SUCCESS;
  callback(device, stream, user_data, &callback_status);
  return C_SUCCESS;
}

typedef C_Status (*sync_copy_fn)(const C_Device device, void *dst,
                                 const void *src, size_t size);

/* An async copy without the plugin's async form: drain, then copy. */
static C_Status drain_then_copy(const C_Device device, C_Stream stream,
                                sync_copy_fn copy, void *dst, const void *src,
                                size_t size) {
  C_Status status = drain(device, stream);
  return BP_C_OK(status) ? copy(device, dst, src, size) : status;
}

static C_Status fallback_async_memory_copy_h2d(const C_Device device,
                                               C_Stream stream, void *dst,
                                               const void *src, size_t size) {
  return drain_then_copy(device, stream, dispatch_of(device)->memory_copy_h2d,
                         dst, src, size);
}

static C_Status fallback_async_memory_copy_d2h(const C_Device device,
                                               C_Stream stream, void *dst,
                                               const void *src, size_t size) {
  return drain_then_copy(device, stream, dispatch_of(device)->memory_copy_d2h,
                         dst, src, size);
}

static C_Status fallback_async_memory_copy_d2d(const C_Device device,
                                               C_Stream stream, void *dst,
                                               const void *src, size_t size) {
  return drain_then_copy(device, stream, dispatch_of(device)->memory_copy_d2d,
                         dst, src, size);
}

/* The stream may belong to either device: drain both, then copy. */
static C_Status fallback_async_memory_copy_p2p(const C_Device dst_device,
                                               const C_Device src_device,
                                               C_Stream stream, void *dst,
                                               const void *src, size_t size) {
  (void)stream;
  C_Status status = dispatch_of(src_device)->synchronize_device(src_device);
  if (BP_C_OK(status))
    status = dispatch_of(dst_device)->synchronize_device(dst_device);
  if (!BP_C_OK(status))
    return status;
  return dispatch_of(dst_device)
      ->memory_copy_p2p(dst_device, src_device, dst, src, size);
}

C_Status bp_bounce_copy(const C_Device dst_device, const C_Device src_device,
                        void *dst, const void *src, size_t size,
                        const char **out_failed_function) {
  *out_failed_function = NULL;
  size_t chunk = size < BP_BOUNCE_CHUNK ? size : BP_BOUNCE_CHUNK;
  unsigned char *buffer = malloc(chunk ? chunk : 1);
  if (!buffer) {
    *out_failed_function = "malloc";
    return C_FAILED;
  }
  C_Status status = C_SUCCESS;
  for (size_t offset = 0; offset < size && BP_C_OK(status); offset += chunk) {
    size_t n = size - offset < chunk ? size - offset : chunk;
    if (bp_device_enter((bp_device_t *)src_device) != BP_OK) {
      *out_failed_function = "set_device";
      status = C_ERROR;
      break;
    }
    status = dispatch_of(src_device)
                 ->memory_copy_d2h(src_device, buffer,
                                   (const unsigned char *)src + offset, n);
    if (!BP_C_OK(status)) {
      *out_failed_function = "memory_copy_d2h";
      break;
    }
    if (bp_device_enter((bp_device_t *)dst_device) != BP_OK) {
      *out_failed_function = "set_device";
      status = C_ERROR;
      break;
    }
    status = dispatch_of(dst_device)
                 ->memory_copy_h2d(dst_device, (unsigned char *)dst + offset,
                                   buffer, n);
    if (!BP_C_OK(status))
      *out_failed_function = "memory_copy_h2d";
  }
  free(buffer);
  return status;
}

static C_Status fallback_memory_copy_p2p(const C_Device dst_device,
                                         const C_Device src_device, void *dst,
                                         const void *src, size_t size) {
  const char *failed;
  return bp_bounce_copy(dst_device, src_device, dst, src, size, &failed);
}

/* memset a host buffer and copy it over, chunk by chunk. */
static C_Status fallback_device_memory_set(const C_Device device, void *ptr,
                                           unsigned char value, size_t size) {
  size_t chunk = size < BP_BOUNCE_CHUNK ? size : BP_BOUNCE_CHUNK;
  unsigned char *buffer = malloc(chunk ? chunk : 1);
  if (!buffer)
    return C_FAILED;
  memset(buffer, value, chunk);
  C_Status status = C_SUCCESS;
  for (size_t offset = 0; offset < size && BP_C_OK(status); offset += chunk) {
    size_t n = size - offset < chunk ? size - offset : chunk;
    status = dispatch_of(device)->memory_copy_h2d(
        device, (unsigned char *)ptr + offset, buffer, n);
  }
  free(buffer);
  return status;
}

/* When each fallback can work: the plugin functions it calls back. Every
 * FALLBACK row of core/plugin_slots.h needs a fallback_<slot> above and a
 * condition here (a missing one does not compile). */
#define FALLBACK_USABLE_create_stream(d) 1
#define FALLBACK_USABLE_destroy_stream(d) 1
#define FALLBACK_USABLE_query_stream(d) 1
#define FALLBACK_USABLE_stream_add_callback(d) 1
#define FALLBACK_USABLE_query_event(d) 1
#define FALLBACK_USABLE_synchronize_stream(d) 1
#define FALLBACK_USABLE_stream_wait_event(d) 1
#define FALLBACK_USABLE_device_memory_set(d) (d->memory_copy_h2d != NULL)
#define FALLBACK_USABLE_memory_copy_p2p(d)                                     \
  (d->memory_copy_d2h != NULL && d->memory_copy_h2d != NULL)
#define FALLBACK_USABLE_async_memory_copy_h2d(d) (d->memory_copy_h2d != NULL)
#define FALLBACK_USABLE_async_memory_copy_d2h(d) (d->memory_copy_d2h != NULL)
#define FALLBACK_USABLE_async_memory_copy_d2d(d) (d->memory_copy_d2d != NULL)
/* Tested after memory_copy_p2p's own fallback is in place: rows are
 * installed in layout order, where memory_copy_p2p comes first. */
#define FALLBACK_USABLE_async_memory_copy_p2p(d) (d->memory_copy_p2p != NULL)

void bp_fallbacks_install(C_DeviceInterface *d) {
#define BP_FALLBACK_INSTALL(name, need, layers, params, args)                  \
  BP_SLOT_IF_FALLBACK(need)                                                    \
  (if (!d->name && FALLBACK_USABLE_##name(d)) d->name = fallback_##name;)
  BP_PLUGIN_SLOTS(BP_FALLBACK_INSTALL)
#undef BP_FALLBACK_INSTALL
}
