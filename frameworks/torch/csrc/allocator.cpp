// c10::Allocator for PrivateUse1 over Backplane's caching allocator: each
// block is allocated and freed in the order of the stream current when it
// was allocated (bp_device_malloc_async / bp_device_free_async), as
// PyTorch's CUDA caching allocator does.
#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>

#include <cstdio>

#include "bridge.h"

namespace torch_backplane {
namespace {

struct Block {
  bp_device_t *device;
  bp_stream_t *stream;
  void *ptr;
};

void free_block(void *context) {
  auto *block = static_cast<Block *>(context);
  // A deleter cannot throw: report and go on.
  if (bp_device_free_async(block->device, block->ptr, block->stream) != BP_OK)
    std::fprintf(stderr, "backplane: freeing a tensor failed: %s\n",
                 bp_last_error());
  delete block;
}

double mib(uint64_t bytes) {
  return static_cast<double>(bytes) / 1048576.0;
}

[[noreturn]] void throw_out_of_memory(c10::DeviceIndex index, size_t size,
                                      const std::string &reason) {
  bp_device_t *d = device(index);
  bp_memory_stats_t stats{};
  bp_device_memory_stats(d, &stats);
  size_t total = 0, free_bytes = 0;
  bp_device_memory_info(d, &total, &free_bytes);
  char text[512];
  std::snprintf(text, sizeof text,
                "Backplane out of memory. Tried to allocate %.2f MiB "
                "(device %d; %.2f MiB total capacity; %.2f MiB already "
                "allocated; %.2f MiB free; %.2f MiB reserved in total by "
                "Backplane's caching allocator)",
                mib(size), static_cast<int>(index), mib(total),
                mib(stats.allocated_bytes.current), mib(free_bytes),
                mib(stats.reserved_bytes.current));
  TORCH_CHECK_WITH(OutOfMemoryError, false, text, ": ", reason);
}

class BackplaneAllocator final : public c10::Allocator {
public:
  c10::DataPtr allocate(size_t size) const override {
    c10::DeviceIndex index = current_device();
    c10::Device where(c10::DeviceType::PrivateUse1, index);
    if (size == 0)
      return c10::DataPtr(nullptr, where);
    bp_device_t *d = device(index);
    bp_stream_t *s = current_stream(index);
    void *ptr = nullptr;
    bp_status_t status = bp_device_malloc_async(d, size, s, &ptr);
    if (status == BP_ERR_OUT_OF_MEMORY)
      throw_out_of_memory(index, size, bp_last_error());
    check(status, "bp_device_malloc_async");
    return {ptr, new Block{d, s, ptr}, &free_block, where};
  }
  c10::DeleterFnPtr raw_deleter() const override {
    return nullptr;
  }
};

BackplaneAllocator allocator;

} // namespace

c10::Allocator *get_allocator() {
  return &allocator;
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &allocator)

} // namespace torch_backplane
