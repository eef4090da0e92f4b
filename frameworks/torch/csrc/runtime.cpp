// The runtime, devices, streams, op library and per-thread DIOPI contexts.
#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <c10/util/Exception.h>

#include "bridge.h"

namespace torch_backplane {
namespace {

constexpr int kMaxDevices = 64;

struct DeviceState {
  bp_device_t *device = nullptr;
  std::array<bp_stream_t *, kStreamPoolSize + 1> streams{};
};

struct Process {
  bp_runtime_t *runtime = nullptr;
  std::vector<DeviceState> devices;
  std::mutex stream_mutex; // guards lazy creation of pool streams
  bp_ops_library_t *ops = nullptr;
  std::once_flag ops_once;
  bp_status_t ops_status = BP_OK;
  std::string ops_error;
};

// Which of the runtime's devices PyTorch sees: those of the type
// BACKPLANE_TORCH_DEVICE_TYPE names; without it, every device the runtime
// shows when BACKPLANE_VISIBLE_DEVICES chose them (as the Paddle bridge
// does); without either, the vcpu devices.
bool visible_to_torch(bp_device_t *d) {
  const char *type = std::getenv("BACKPLANE_TORCH_DEVICE_TYPE");
  if (type && *type)
    return std::string(bp_device_type(d)) == type;
  const char *visible = std::getenv("BACKPLANE_VISIBLE_DEVICES");
  if (visible && *visible)
    return true;
  return std::string(bp_device_type(d)) == "vcpu";
}

Process &process() {
  // A failure throws, and the next call tries again.
  static Process *p = [] {
    auto state = std::make_unique<Process>();
    check(bp_runtime_create(nullptr, &state->runtime), "bp_runtime_create");
    size_t n = bp_device_count(state->runtime);
    for (size_t i = 0; i < n && state->devices.size() < kMaxDevices; i++) {
      bp_device_t *d = nullptr;
      check(bp_device_at(state->runtime, i, &d), "bp_device_at");
      if (visible_to_torch(d)) {
        DeviceState s;
        s.device = d;
        state->devices.push_back(s);
      }
    }
    return state.release();
  }();
  return *p;
}

struct ThreadState {
  c10::DeviceIndex device = 0;
  std::array<c10::StreamId, kMaxDevices> stream{};
  std::unordered_map<bp_stream_t *, diopiContextHandle_t> contexts;
  ~ThreadState() {
    for (auto &entry : contexts)
      bp_ops_context_destroy(entry.second);
  }
};
thread_local ThreadState thread_state;

std::string reference_ops_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&bp_runtime_create), &info) &&
      info.dli_fname) {
    std::string lib = info.dli_fname;
    return lib.substr(0, lib.rfind('/') + 1) +
           "backplane/ops/libbackplane_ops_ref.so";
  }
  return "libbackplane_ops_ref.so";
}

// The op library a device computes with: the one its plugin names
// (bp_ops_library_for_device), else the reference library, which serves
// devices whose memory the host can address (vcpu; OpenCL's shared virtual
// memory on a CPU).
std::string ops_path_for(bp_device_t *d) {
  const char *named = bp_ops_library_for_device(d);
  return named ? named : reference_ops_path();
}

// BACKPLANE_OPS_LIBRARY, else the library of the visible devices, which
// must agree: one process opens one op library. Sets *error and returns ""
// when they do not.
std::string ops_path(const std::vector<DeviceState> &devices,
                     std::string *error) {
  const char *env = std::getenv("BACKPLANE_OPS_LIBRARY");
  if (env && *env)
    return env;
  if (devices.empty())
    return reference_ops_path();
  std::string first = ops_path_for(devices[0].device);
  for (size_t i = 1; i < devices.size(); i++) {
    std::string other = ops_path_for(devices[i].device);
    if (other != first) {
      *error = std::string("privateuseone:0 (") +
               bp_device_name(devices[0].device) + ") computes with " + first +
               ", privateuseone:" + std::to_string(i) + " (" +
               bp_device_name(devices[i].device) + ") with " + other +
               "; a process opens one op library: choose the devices with "
               "BACKPLANE_VISIBLE_DEVICES or BACKPLANE_TORCH_DEVICE_TYPE";
      return "";
    }
  }
  return first;
}

} // namespace

[[noreturn]] void throw_status(const char *what, bp_status_t status) {
  TORCH_CHECK(false, what, " failed (", bp_status_name(status),
              "): ", bp_last_error());
}

bp_runtime_t *runtime() {
  return process().runtime;
}

int device_count() {
  return static_cast<int>(process().devices.size());
}

bp_device_t *device(c10::DeviceIndex index) {
  auto &devices = process().devices;
  TORCH_CHECK(index >= 0 && static_cast<size_t>(index) < devices.size(),
              "backplane: device index ", static_cast<int>(index),
              " is out of range: ", devices.size(), " device(s) are visible");
  return devices[index].device;
}

bp_stream_t *stream(c10::DeviceIndex index, c10::StreamId id) {
  bp_device_t *d = device(index);
  TORCH_CHECK(id >= 0 && id <= kStreamPoolSize, "backplane: stream id ", id,
              " is out of range 0..", kStreamPoolSize);
  Process &p = process();
  std::lock_guard<std::mutex> lock(p.stream_mutex);
  bp_stream_t *&s = p.devices[index].streams[id];
  if (!s) {
    if (id == 0)
      check(bp_stream_get_default(d, &s), "bp_stream_get_default");
    else
      check(bp_stream_create(d, &s), "bp_stream_create");
  }
  return s;
}

void synchronize_streams(c10::DeviceIndex index) {
  device(index); // validates
  Process &p = process();
  std::array<bp_stream_t *, kStreamPoolSize + 1> streams;
  {
    std::lock_guard<std::mutex> lock(p.stream_mutex);
    streams = p.devices[index].streams;
  }
  for (bp_stream_t *s : streams)
    if (s)
      check(bp_stream_synchronize(s), "bp_stream_synchronize");
}

c10::DeviceIndex current_device() {
  return thread_state.device;
}

void set_current_device(c10::DeviceIndex index) {
  device(index); // validates
  thread_state.device = index;
}

c10::StreamId current_stream_id(c10::DeviceIndex index) {
  device(index);
  return thread_state.stream[index];
}

void set_current_stream_id(c10::DeviceIndex index, c10::StreamId id) {
  bp_stream_t *s = stream(index, id);
  check(bp_stream_set_active(device(index), s), "bp_stream_set_active");
  thread_state.stream[index] = id;
}

void *find_op(const char *name) {
  Process &p = process();
  std::call_once(p.ops_once, [&p] {
    std::string path = ops_path(p.devices, &p.ops_error);
    if (path.empty()) {
      p.ops_status = BP_ERR_INVALID_ARGUMENT;
      return;
    }
    p.ops_status = bp_ops_library_open(path.c_str(), &p.ops);
    if (p.ops_status != BP_OK)
      p.ops_error = bp_last_error();
  });
  TORCH_CHECK(p.ops, "backplane: cannot open the DIOPI op library (",
              bp_status_name(p.ops_status), "): ", p.ops_error);
  void *fn = nullptr;
  bp_status_t s = bp_ops_library_find(p.ops, name, &fn);
  TORCH_CHECK_NOT_IMPLEMENTED(
      s == BP_OK, "backplane: ", name, " is not in the op library ",
      bp_ops_library_path(p.ops), ": ", bp_last_error());
  return fn;
}

void check_op(const char *name, diopiError_t error) {
  if (error == diopiSuccess)
    return;
  const char *text =
      process().ops ? bp_ops_library_last_error(process().ops) : "";
  TORCH_CHECK_NOT_IMPLEMENTED(error != diopiNoImplement, "backplane: ", name,
                              ": diopiNoImplement: ", text);
  TORCH_CHECK(false, "backplane: ", name, " failed (", bp_ops_error_name(error),
              "): ", text);
}

diopiContextHandle_t context(c10::DeviceIndex index) {
  bp_stream_t *s = current_stream(index);
  auto &contexts = thread_state.contexts;
  auto it = contexts.find(s);
  if (it != contexts.end())
    return it->second;
  diopiContextHandle_t ctx = nullptr;
  check(bp_ops_context_create(device(index), s, &ctx), "bp_ops_context_create");
  contexts.emplace(s, ctx);
  return ctx;
}

} // namespace torch_backplane
