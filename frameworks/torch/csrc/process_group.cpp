// torch.distributed backend "backplane": a c10d::ProcessGroup whose
// collectives are bp_comm calls, enqueued on the current stream of the
// tensors' device (one device per process, the current device when the
// group is made). Ranks meet through the c10d Store: rank 0 publishes the
// communicator's unique id, the others read it. A Work is done when its
// stream passes the collective (a bp event); wait() orders the caller's
// current stream after it, as NCCL's does, and reports the communicator's
// asynchronous errors.
#include <ATen/ops/empty.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/csrc/utils/pybind.h>

#include <vector>

#include "bridge.h"
#include "python_bindings.h"
#include "storage_view.h"

namespace torch_backplane {
namespace {

constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;
const char kIdKey[] = "backplane/comm_unique_id";

bp_dtype_t comm_dtype(at::ScalarType type) {
  switch (type) {
  case at::kFloat:
    return BP_DTYPE_FLOAT32;
  case at::kDouble:
    return BP_DTYPE_FLOAT64;
  case at::kHalf:
    return BP_DTYPE_FLOAT16;
  case at::kBFloat16:
    return BP_DTYPE_BFLOAT16;
  case at::kLong:
    return BP_DTYPE_INT64;
  case at::kInt:
    return BP_DTYPE_INT32;
  case at::kShort:
    return BP_DTYPE_INT16;
  case at::kChar:
    return BP_DTYPE_INT8;
  case at::kByte:
    return BP_DTYPE_UINT8;
  case at::kBool:
    return BP_DTYPE_BOOL;
  default:
    break;
  }
  TORCH_CHECK(false, "ProcessGroupBackplane: dtype ", type,
              " has no collective");
}

bp_reduce_op_t comm_op(const c10d::ReduceOp &op) {
  switch (static_cast<c10d::ReduceOp::RedOpType>(op)) {
  case c10d::ReduceOp::SUM:
    return BP_REDUCE_SUM;
  case c10d::ReduceOp::AVG:
    return BP_REDUCE_AVG;
  case c10d::ReduceOp::PRODUCT:
    return BP_REDUCE_PRODUCT;
  case c10d::ReduceOp::MIN:
    return BP_REDUCE_MIN;
  case c10d::ReduceOp::MAX:
    return BP_REDUCE_MAX;
  default:
    break;
  }
  TORCH_CHECK(false, "ProcessGroupBackplane: reduce op ",
              static_cast<int>(static_cast<c10d::ReduceOp::RedOpType>(op)),
              " is not supported (SUM, AVG, PRODUCT, MIN, MAX are)");
}

class BackplaneWork final : public c10d::Work {
public:
  BackplaneWork(int rank, c10d::OpType type, bp_comm_t *comm,
                c10::DeviceIndex index, std::vector<at::Tensor> outputs)
      : Work(rank, type), comm_(comm), index_(index) {
    check(bp_event_create(device(index), &event_), "bp_event_create");
    check(bp_event_record(event_, current_stream(index)), "bp_event_record");
    future_ = c10::make_intrusive<c10::ivalue::Future>(
        c10::ListType::ofTensors(),
        std::vector<c10::Device>{c10::Device(kType, index)});
    future_->markCompleted(c10::IValue(std::move(outputs)));
  }
  ~BackplaneWork() override {
    bp_event_destroy(event_);
  }

  bool isCompleted() override {
    bp_status_t status = bp_event_query(event_);
    if (status == BP_ERR_NOT_READY)
      return false;
    check(status, "bp_event_query");
    return true;
  }
  bool isSuccess() const override {
    return bp_comm_async_error(comm_) == BP_OK;
  }
  bool wait(std::chrono::milliseconds /*timeout*/) override {
    check(bp_stream_wait_event(current_stream(index_), event_),
          "bp_stream_wait_event");
    check(bp_comm_async_error(comm_), "ProcessGroupBackplane collective");
    return true;
  }
  void synchronize() override {
    wait(kNoTimeout);
  }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override {
    return future_;
  }

private:
  bp_comm_t *comm_;
  c10::DeviceIndex index_;
  bp_event_t *event_ = nullptr;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

class ProcessGroupBackplane final : public c10d::ProcessGroup {
public:
  ProcessGroupBackplane(const c10::intrusive_ptr<c10d::Store> &store, int rank,
                        int size)
      : ProcessGroup(rank, size), index_(current_device()) {
    bp_device_t *d = device(index_);
    size_t id_size = 0;
    check(bp_comm_unique_id_size(d, &id_size), "bp_comm_unique_id_size");
    std::vector<uint8_t> id(id_size);
    if (rank == 0) {
      check(bp_comm_get_unique_id(d, id.data(), id.size()),
            "bp_comm_get_unique_id");
      store->set(kIdKey, id);
    } else {
      id = store->get(kIdKey);
    }
    check(bp_comm_init_rank(d, static_cast<size_t>(size), id.data(), id.size(),
                            static_cast<size_t>(rank), &comm_),
          "bp_comm_init_rank");
  }
  ~ProcessGroupBackplane() override {
    bp_stream_synchronize(current_stream(index_));
    bp_comm_destroy(comm_);
  }

  const std::string getBackendName() const override {
    return "backplane";
  }

  c10::intrusive_ptr<c10d::Work>
  broadcast(std::vector<at::Tensor> &tensors,
            const c10d::BroadcastOptions &opts) override {
    at::Tensor &t = single(tensors, "broadcast");
    check(
        bp_comm_broadcast(t.data_ptr(), t.numel(), comm_dtype(t.scalar_type()),
                          static_cast<size_t>(opts.rootRank), comm_, stream()),
        "bp_comm_broadcast");
    return work(c10d::OpType::BROADCAST, tensors);
  }

  c10::intrusive_ptr<c10d::Work>
  allreduce(std::vector<at::Tensor> &tensors,
            const c10d::AllreduceOptions &opts) override {
    at::Tensor &t = single(tensors, "allreduce");
    check(bp_comm_all_reduce(t.data_ptr(), t.data_ptr(), t.numel(),
                             comm_dtype(t.scalar_type()),
                             comm_op(opts.reduceOp), comm_, stream()),
          "bp_comm_all_reduce");
    return work(c10d::OpType::ALLREDUCE, tensors);
  }

  c10::intrusive_ptr<c10d::Work>
  allreduce_coalesced(std::vector<at::Tensor> &tensors,
                      const c10d::AllreduceCoalescedOptions &opts) override {
    for (at::Tensor &t : tensors) {
      std::vector<at::Tensor> one{t};
      allreduce(one, opts);
    }
    return work(c10d::OpType::ALLREDUCE_COALESCED, tensors);
  }

  c10::intrusive_ptr<c10d::Work>
  allgather(std::vector<std::vector<at::Tensor>> &outputs,
            std::vector<at::Tensor> &inputs,
            const c10d::AllgatherOptions &opts) override {
    at::Tensor &in = single(inputs, "allgather");
    TORCH_CHECK(outputs.size() == 1 &&
                    outputs[0].size() == static_cast<size_t>(getSize()),
                "ProcessGroupBackplane: allgather takes one list of ",
                getSize(), " output tensors");
    std::vector<int64_t> shape{getSize()};
    shape.insert(shape.end(), in.sizes().begin(), in.sizes().end());
    at::Tensor flat = at::empty(shape, in.options());
    _allgather_base(flat, in, opts);
    for (int r = 0; r < getSize(); r++)
      outputs[0][r].copy_(flat[r]);
    return work(c10d::OpType::ALLGATHER, outputs[0]);
  }

  c10::intrusive_ptr<c10d::Work>
  _allgather_base(at::Tensor &output, at::Tensor &input,
                  const c10d::AllgatherOptions & /*opts*/) override {
    dense(input, "_allgather_base");
    dense(output, "_allgather_base");
    TORCH_CHECK(output.numel() == input.numel() * getSize(),
                "ProcessGroupBackplane: _allgather_base output has ",
                output.numel(), " elements, expected ",
                input.numel() * getSize());
    check(bp_comm_all_gather(input.data_ptr(), output.data_ptr(), input.numel(),
                             comm_dtype(input.scalar_type()), comm_, stream()),
          "bp_comm_all_gather");
    std::vector<at::Tensor> out{output};
    return work(c10d::OpType::_ALLGATHER_BASE, out);
  }

  c10::intrusive_ptr<c10d::Work>
  reduce_scatter(std::vector<at::Tensor> &outputs,
                 std::vector<std::vector<at::Tensor>> &inputs,
                 const c10d::ReduceScatterOptions &opts) override {
    at::Tensor &out = single(outputs, "reduce_scatter");
    TORCH_CHECK(inputs.size() == 1 &&
                    inputs[0].size() == static_cast<size_t>(getSize()),
                "ProcessGroupBackplane: reduce_scatter takes one list of ",
                getSize(), " input tensors");
    std::vector<int64_t> shape{getSize()};
    shape.insert(shape.end(), out.sizes().begin(), out.sizes().end());
    at::Tensor flat = at::empty(shape, out.options());
    for (int r = 0; r < getSize(); r++)
      flat[r].copy_(inputs[0][r]);
    return _reduce_scatter_base(out, flat, opts);
  }

  c10::intrusive_ptr<c10d::Work>
  _reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                       const c10d::ReduceScatterOptions &opts) override {
    dense(input, "_reduce_scatter_base");
    dense(output, "_reduce_scatter_base");
    TORCH_CHECK(input.numel() == output.numel() * getSize(),
                "ProcessGroupBackplane: _reduce_scatter_base input has ",
                input.numel(), " elements, expected ",
                output.numel() * getSize());
    check(bp_comm_reduce_scatter(input.data_ptr(), output.data_ptr(),
                                 output.numel(),
                                 comm_dtype(output.scalar_type()),
                                 comm_op(opts.reduceOp), comm_, stream()),
          "bp_comm_reduce_scatter");
    std::vector<at::Tensor> out{output};
    return work(c10d::OpType::_REDUCE_SCATTER_BASE, out);
  }

  // Blocks the calling thread until every rank has arrived.
  c10::intrusive_ptr<c10d::Work>
  barrier(const c10d::BarrierOptions & /*opts*/) override {
    c10::DeviceGuard guard(c10::Device(kType, index_));
    at::Tensor one = at::empty({1}, at::TensorOptions()
                                        .dtype(at::kFloat)
                                        .device(c10::Device(kType, index_)));
    std::vector<at::Tensor> tensors{one};
    auto w = allreduce(tensors, c10d::AllreduceOptions());
    check(bp_stream_synchronize(stream()), "bp_stream_synchronize");
    check(bp_comm_async_error(comm_), "ProcessGroupBackplane barrier");
    return w;
  }

private:
  bp_stream_t *stream() {
    return current_stream(index_);
  }

  void dense(const at::Tensor &t, const char *what) {
    TORCH_CHECK(t.device() == c10::Device(kType, index_),
                "ProcessGroupBackplane: ", what, " takes tensors on ",
                c10::Device(kType, index_), " (the group's device), got ",
                t.device());
    TORCH_CHECK(t.is_contiguous(), "ProcessGroupBackplane: ", what,
                " takes contiguous tensors");
  }

  at::Tensor &single(std::vector<at::Tensor> &tensors, const char *what) {
    TORCH_CHECK(tensors.size() == 1, "ProcessGroupBackplane: ", what,
                " takes one tensor per process (one device each), got ",
                tensors.size());
    dense(tensors[0], what);
    return tensors[0];
  }

  c10::intrusive_ptr<c10d::Work> work(c10d::OpType type,
                                      std::vector<at::Tensor> outputs) {
    return c10::make_intrusive<BackplaneWork>(getRank(), type, comm_, index_,
                                              std::move(outputs));
  }

  c10::DeviceIndex index_;
  bp_comm_t *comm_ = nullptr;
};

} // namespace
} // namespace torch_backplane

// torch_backplane._C: the process group's Python class (the kernels and
// allocator register themselves when this library is loaded).
PYBIND11_MODULE(_C, m) {
  namespace py = pybind11;
  py::module_::import("torch._C._distributed_c10d");
  py::class_<torch_backplane::ProcessGroupBackplane, c10d::ProcessGroup,
             c10::intrusive_ptr<torch_backplane::ProcessGroupBackplane>>(
      m, "ProcessGroupBackplane")
      .def(py::init([](const c10::intrusive_ptr<c10d::Store> &store, int rank,
                       int size) {
             return c10::make_intrusive<torch_backplane::ProcessGroupBackplane>(
                 store, rank, size);
           }),
           py::arg("store"), py::arg("rank"), py::arg("size"),
           py::call_guard<py::gil_scoped_release>());
  m.def(
      "_tensor_of_storage",
      [](py::handle storage, py::object dtype, int64_t offset,
         std::vector<int64_t> size, std::vector<int64_t> stride) {
        TORCH_CHECK(THPDtype_Check(dtype.ptr()),
                    "backplane: expected a torch.dtype");
        return torch_backplane::tensor_of_storage(
            storage.ptr(),
            reinterpret_cast<THPDtype *>(dtype.ptr())->scalar_type, offset,
            size, stride);
      },
      py::arg("storage"), py::arg("dtype"), py::arg("offset"), py::arg("size"),
      py::arg("stride"));
  torch_backplane::bind_generators(m);
}
