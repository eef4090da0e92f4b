// The C functions the Python package calls through ctypes (torch_backplane/
// _native.py). Each returns 0, or -1 with the reason in
// torch_backplane_last_error() (per thread); none throws.
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <string>

#include "bridge.h"
#include "fallback.h"

namespace {

thread_local std::string last_error;

template <typename F> int guarded(F f) {
  try {
    f();
    return 0;
  } catch (const c10::Error &e) {
    last_error = e.what_without_backtrace();
  } catch (const std::exception &e) {
    last_error = e.what();
  }
  return -1;
}

using torch_backplane::check;
using torch_backplane::device;

// Streams and events through the registered device guard, so Python sees
// exactly what PyTorch's own code (autograd, DDP) sees.
const c10::impl::VirtualGuardImpl &guard() {
  static const c10::impl::VirtualGuardImpl impl(c10::DeviceType::PrivateUse1);
  return impl;
}

c10::Stream stream_of(int index, int64_t id) {
  device(index); // validates
  return c10::Stream(c10::Stream::UNSAFE,
                     c10::Device(c10::DeviceType::PrivateUse1, index), id);
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) const char *
torch_backplane_last_error(void) {
  return last_error.c_str();
}

__attribute__((visibility("default"))) int
torch_backplane_device_count(int *out) {
  return guarded([&] { *out = torch_backplane::device_count(); });
}

__attribute__((visibility("default"))) int
torch_backplane_device_name(int index, const char **out) {
  return guarded([&] { *out = bp_device_name(device(index)); });
}

__attribute__((visibility("default"))) int
torch_backplane_current_device(int *out) {
  return guarded([&] { *out = torch_backplane::current_device(); });
}

__attribute__((visibility("default"))) int
torch_backplane_set_device(int index) {
  return guarded([&] { torch_backplane::set_current_device(index); });
}

// Waits for the work PyTorch queued on the device (every bridge stream);
// cheaper than bp_device_synchronize, which drains more than that.
__attribute__((visibility("default"))) int
torch_backplane_synchronize(int index) {
  return guarded([&] { torch_backplane::synchronize_streams(index); });
}

// out[16]: allocated (current, peak, total, freed), reserved (the same),
// active (current, peak), requested (current, peak), alloc retries, OOMs,
// device allocations, device frees.
__attribute__((visibility("default"))) int
torch_backplane_memory_stats(int index, uint64_t *out) {
  return guarded([&] {
    bp_memory_stats_t s{};
    check(bp_device_memory_stats(device(index), &s), "bp_device_memory_stats");
    const uint64_t values[16] = {
        s.allocated_bytes.current,   s.allocated_bytes.peak,
        s.allocated_bytes.allocated, s.allocated_bytes.freed,
        s.reserved_bytes.current,    s.reserved_bytes.peak,
        s.reserved_bytes.allocated,  s.reserved_bytes.freed,
        s.active_bytes.current,      s.active_bytes.peak,
        s.requested_bytes.current,   s.requested_bytes.peak,
        s.num_alloc_retries,         s.num_ooms,
        s.num_device_alloc,          s.num_device_free};
    std::memcpy(out, values, sizeof values);
  });
}

__attribute__((visibility("default"))) int
torch_backplane_reset_peak(int index) {
  return guarded([&] {
    check(bp_device_reset_peak_memory_stats(device(index)),
          "bp_device_reset_peak_memory_stats");
  });
}

__attribute__((visibility("default"))) int
torch_backplane_empty_cache(int index) {
  return guarded([&] {
    check(bp_device_synchronize(device(index)), "bp_device_synchronize");
    check(bp_device_empty_cache(device(index)), "bp_device_empty_cache");
  });
}

__attribute__((visibility("default"))) int
torch_backplane_stream_from_pool(int index, int64_t *out_id) {
  return guarded([&] {
    device(index);
    *out_id = guard()
                  .getStreamFromGlobalPool(
                      c10::Device(c10::DeviceType::PrivateUse1, index))
                  .id();
  });
}

__attribute__((visibility("default"))) int
torch_backplane_current_stream(int index, int64_t *out_id) {
  return guarded(
      [&] { *out_id = guard().getStream(stream_of(index, 0).device()).id(); });
}

// Makes stream `id` of the device current for this thread; *out_previous
// receives the one it replaces.
__attribute__((visibility("default"))) int
torch_backplane_set_stream(int index, int64_t id, int64_t *out_previous) {
  return guarded([&] {
    torch_backplane::stream(index, id); // validates
    *out_previous = guard().exchangeStream(stream_of(index, id)).id();
  });
}

__attribute__((visibility("default"))) int
torch_backplane_stream_query(int index, int64_t id, int *out_done) {
  return guarded(
      [&] { *out_done = guard().queryStream(stream_of(index, id)); });
}

__attribute__((visibility("default"))) int
torch_backplane_stream_synchronize(int index, int64_t id) {
  return guarded([&] { guard().synchronizeStream(stream_of(index, id)); });
}

// Records *event (created on first record) on stream `id`.
__attribute__((visibility("default"))) int
torch_backplane_event_record(void **event, int index, int64_t id) {
  return guarded([&] {
    guard().record(event, stream_of(index, id), index,
                   c10::EventFlag::PYTORCH_DEFAULT);
  });
}

// Makes stream `id` wait for the event.
__attribute__((visibility("default"))) int
torch_backplane_event_block(void *event, int index, int64_t id) {
  return guarded([&] { guard().block(event, stream_of(index, id)); });
}

__attribute__((visibility("default"))) int
torch_backplane_event_query(void *event, int *out_done) {
  return guarded([&] { *out_done = guard().queryEvent(event); });
}

__attribute__((visibility("default"))) int
torch_backplane_event_synchronize(void *event) {
  return guarded([&] {
    if (event)
      check(bp_event_synchronize(static_cast<bp_event_t *>(event)),
            "bp_event_synchronize");
  });
}

__attribute__((visibility("default"))) int
torch_backplane_event_destroy(void *event, int index) {
  return guarded([&] { guard().destroyEvent(event, index); });
}

// Writes fallback_counts() into buf (NUL-terminated, truncated to cap) and
// its full length to *out_length.
__attribute__((visibility("default"))) int
torch_backplane_fallback_counts(char *buf, size_t cap, size_t *out_length) {
  return guarded([&] {
    std::string s = torch_backplane::fallback_counts();
    *out_length = s.size();
    if (cap > 0) {
      size_t n = s.size() < cap - 1 ? s.size() : cap - 1;
      std::memcpy(buf, s.data(), n);
      buf[n] = '\0';
    }
  });
}

__attribute__((visibility("default"))) int
torch_backplane_reset_fallback_counts(void) {
  return guarded([] { torch_backplane::reset_fallback_counts(); });
}

} // extern "C"
