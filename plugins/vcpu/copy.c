/* Copy entry points: validate, then copy now or enqueue a COPY command. */
#include "copy.h"

#include <stdbool.h>

#include "device.h"
#include "stream.h"

/* Where each side of a copy must live: on the host (anywhere) or in the
 * memory of a given device. */
typedef struct copy_plan {
  vcpu_device *dst_device; /* NULL: host */
  vcpu_device *src_device; /* NULL: host */
  vcpu_device *engine;     /* whose copy helper does the work */
} copy_plan;

static bool side_ok(const vcpu_device *device, const void *ptr, size_t size) {
  return ptr && (!device || vcpu_arena_contains(&device->arena, ptr, size));
}

static bool valid(const copy_plan *plan, void *dst, const void *src,
                  size_t size) {
  return plan->engine && (size == 0 || (side_ok(plan->dst_device, dst, size) &&
                                        side_ok(plan->src_device, src, size)));
}

static C_Status copy_now(const copy_plan *plan, void *dst, const void *src,
                         size_t size) {
  if (!valid(plan, dst, src, size))
    return C_ERROR;
  if (size != 0)
    vcpu_copier_copy(&plan->engine->copier, dst, src, size);
  return C_SUCCESS;
}

static C_Status copy_later(const copy_plan *plan, C_Stream stream, void *dst,
                           const void *src, size_t size) {
  vcpu_device *owner = vcpu_stream_device(stream);
  bool stream_ok =
      owner && (owner == plan->engine || owner == plan->dst_device ||
                owner == plan->src_device);
  if (!stream_ok || !valid(plan, dst, src, size))
    return C_ERROR;
  if (size != 0) {
    vcpu_command command = {.kind = VCPU_COMMAND_COPY,
                            .copy = {dst, src, size, &plan->engine->copier}};
    vcpu_stream_enqueue(stream, &command);
  }
  return C_SUCCESS;
}

static copy_plan h2d(const C_Device device) {
  vcpu_device *dev = vcpu_device_get(device);
  return (copy_plan){dev, NULL, dev};
}

static copy_plan d2h(const C_Device device) {
  vcpu_device *dev = vcpu_device_get(device);
  return (copy_plan){NULL, dev, dev};
}

static copy_plan d2d(const C_Device device) {
  vcpu_device *dev = vcpu_device_get(device);
  return (copy_plan){dev, dev, dev};
}

static copy_plan p2p(const C_Device dst_device, const C_Device src_device) {
  vcpu_device *dst = vcpu_device_get(dst_device);
  vcpu_device *src = vcpu_device_get(src_device);
  return (copy_plan){dst, src, dst && src ? dst : NULL};
}

C_Status vcpu_memory_copy_h2d(const C_Device device, void *dst, const void *src,
                              size_t size) {
  copy_plan plan = h2d(device);
  return copy_now(&plan, dst, src, size);
}

C_Status vcpu_memory_copy_d2h(const C_Device device, void *dst, const void *src,
                              size_t size) {
  copy_plan plan = d2h(device);
  return copy_now(&plan, dst, src, size);
}

C_Status vcpu_memory_copy_d2d(const C_Device device, void *dst, const void *src,
                              size_t size) {
  copy_plan plan = d2d(device);
  return copy_now(&plan, dst, src, size);
}

C_Status vcpu_memory_copy_p2p(const C_Device dst_device,
                              const C_Device src_device, void *dst,
                              const void *src, size_t size) {
  copy_plan plan = p2p(dst_device, src_device);
  return copy_now(&plan, dst, src, size);
}

C_Status vcpu_async_memory_copy_h2d(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size) {
  copy_plan plan = h2d(device);
  return copy_later(&plan, stream, dst, src, size);
}

C_Status vcpu_async_memory_copy_d2h(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size) {
  copy_plan plan = d2h(device);
  return copy_later(&plan, stream, dst, src, size);
}

C_Status vcpu_async_memory_copy_d2d(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size) {
  copy_plan plan = d2d(device);
  return copy_later(&plan, stream, dst, src, size);
}

C_Status vcpu_async_memory_copy_p2p(const C_Device dst_device,
                                    const C_Device src_device, C_Stream stream,
                                    void *dst, const void *src, size_t size) {
  copy_plan plan = p2p(dst_device, src_device);
  return copy_later(&plan, stream, dst, src, size);
}
