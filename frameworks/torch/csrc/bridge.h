// The PyTorch bridge's shared state: one Backplane runtime per process, its
// devices as PrivateUse1 devices, their streams, and the DIOPI op library.
// Every function throws c10::Error (Python: RuntimeError) carrying
// bp_last_error's text when Backplane fails. Thread-safe unless noted.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include <cstdint>
#include <string>

#include "backplane/backplane.h"
#include "backplane/ops.h"

namespace torch_backplane {

// The process's runtime, created on first use (never destroyed: tensors may
// outlive Python's atexit handlers).
bp_runtime_t *runtime();
// The devices PyTorch sees, in the runtime's order (after the core applied
// BACKPLANE_VISIBLE_DEVICES): those of the type BACKPLANE_TORCH_DEVICE_TYPE
// names; else every device when BACKPLANE_VISIBLE_DEVICES is set; else the
// vcpu devices.
int device_count();
// Throws if `index` is out of range.
bp_device_t *device(c10::DeviceIndex index);

// Streams: id 0 is the device's default stream, ids 1..kStreamPoolSize a
// pool created on first use (PyTorch's getStreamFromGlobalPool).
constexpr int kStreamPoolSize = 4;
bp_stream_t *stream(c10::DeviceIndex index, c10::StreamId id);
// Waits for every stream of the bridge's on the device (the default stream
// and the pool streams created so far): all the work PyTorch queued there.
void synchronize_streams(c10::DeviceIndex index);
// The calling thread's current device and stream (PyTorch's, mirrored into
// bp_stream_set_active so that Backplane calls without a stream agree).
c10::DeviceIndex current_device();
void set_current_device(c10::DeviceIndex index);
c10::StreamId current_stream_id(c10::DeviceIndex index);
void set_current_stream_id(c10::DeviceIndex index, c10::StreamId id);
inline bp_stream_t *current_stream(c10::DeviceIndex index) {
  return stream(index, current_stream_id(index));
}

// Throws c10::Error "<what>: <bp_last_error>" for a failed status.
[[noreturn]] void throw_status(const char *what, bp_status_t status);
inline void check(bp_status_t status, const char *what) {
  if (status != BP_OK)
    throw_status(what, status);
}

// The op library (BACKPLANE_OPS_LIBRARY, else the one the devices' plugin
// names, else the reference library beside libbackplane), opened on first
// use; RuntimeError when the devices need different libraries,
// NotImplementedError naming the op when it lacks `name`.
void *find_op(const char *name);
// Throws for a failed op: its name, the DIOPI error and the library's text.
void check_op(const char *name, diopiError_t error);
// A DIOPI context on (device, its current stream) for this thread, cleared
// of scratch by the caller after each op (OpContext does both).
diopiContextHandle_t context(c10::DeviceIndex index);

} // namespace torch_backplane
