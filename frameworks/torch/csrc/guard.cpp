// DeviceGuardImplInterface for PrivateUse1: PyTorch's current device and
// stream are the bridge's per-thread ones (runtime.cpp), streams are bp
// streams (id 0: the default stream), events are bp events.
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <atomic>

#include "bridge.h"

namespace torch_backplane {
namespace {

constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

class BackplaneGuardImpl final : public c10::impl::DeviceGuardImplInterface {
public:
  c10::DeviceType type() const override {
    return kType;
  }
  c10::Device exchangeDevice(c10::Device d) const override {
    c10::Device old = getDevice();
    if (d.index() != old.index())
      set_current_device(d.index());
    return old;
  }
  c10::Device getDevice() const override {
    return {kType, current_device()};
  }
  void setDevice(c10::Device d) const override {
    set_current_device(d.index());
  }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    try {
      set_current_device(d.index());
    } catch (...) {
    }
  }
  c10::Stream getStream(c10::Device d) const noexcept override {
    c10::StreamId id = 0;
    try {
      id = current_stream_id(d.index());
    } catch (...) {
    }
    return c10::Stream(c10::Stream::UNSAFE, d, id);
  }
  c10::Stream getDefaultStream(c10::Device d) const override {
    return c10::Stream(c10::Stream::UNSAFE, d, 0);
  }
  c10::Stream getStreamFromGlobalPool(c10::Device d,
                                      bool /*high_priority*/) const override {
    static std::atomic<unsigned> next{0};
    c10::StreamId id = 1 + next++ % kStreamPoolSize;
    stream(d.index(), id);
    return c10::Stream(c10::Stream::UNSAFE, d, id);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    c10::Stream old = getStream(s.device());
    try {
      set_current_stream_id(s.device_index(), s.id());
    } catch (...) {
    }
    return old;
  }
  c10::DeviceIndex deviceCount() const noexcept override {
    try {
      return static_cast<c10::DeviceIndex>(device_count());
    } catch (...) {
      return 0;
    }
  }

  void record(void **event, const c10::Stream &s,
              const c10::DeviceIndex device_index,
              const c10::EventFlag /*flag*/) const override {
    TORCH_CHECK(device_index == -1 || device_index == s.device_index(),
                "backplane: event device ", static_cast<int>(device_index),
                " does not match the stream's device ",
                static_cast<int>(s.device_index()));
    if (!*event) {
      bp_event_t *e = nullptr;
      check(bp_event_create(device(s.device_index()), &e), "bp_event_create");
      *event = e;
    }
    check(bp_event_record(static_cast<bp_event_t *>(*event),
                          stream(s.device_index(), s.id())),
          "bp_event_record");
  }
  void block(void *event, const c10::Stream &s) const override {
    if (!event)
      return;
    check(bp_stream_wait_event(stream(s.device_index(), s.id()),
                               static_cast<bp_event_t *>(event)),
          "bp_stream_wait_event");
  }
  bool queryEvent(void *event) const override {
    if (!event)
      return true;
    bp_status_t status = bp_event_query(static_cast<bp_event_t *>(event));
    if (status == BP_ERR_NOT_READY)
      return false;
    check(status, "bp_event_query");
    return true;
  }
  void destroyEvent(void *event, const c10::DeviceIndex /*device_index*/)
      const noexcept override {
    if (event)
      bp_event_destroy(static_cast<bp_event_t *>(event));
  }
  bool queryStream(const c10::Stream &s) const override {
    bp_status_t status = bp_stream_query(stream(s.device_index(), s.id()));
    if (status == BP_ERR_NOT_READY)
      return false;
    check(status, "bp_stream_query");
    return true;
  }
  void synchronizeStream(const c10::Stream &s) const override {
    check(bp_stream_synchronize(stream(s.device_index(), s.id())),
          "bp_stream_synchronize");
  }
  void recordDataPtrOnStream(const c10::DataPtr &data,
                             const c10::Stream &s) const override {
    if (data.get())
      check(bp_device_record_stream(device(s.device_index()), data.get(),
                                    stream(s.device_index(), s.id())),
            "bp_device_record_stream");
  }
};

} // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, BackplaneGuardImpl);

} // namespace torch_backplane
