// Communicators (glassgrad/runtime/communicator.h) for glassgrad.distributed: a trampoline so
// that a Python class (the MPI backend over mpi4py) can implement one, the registry behind
// AllReduce's `group`, NCCL where the runtime has CUDA, and backward with gradient buckets.
#include <pybind11/stl.h>

#include "bindings.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/communicator.h"
#include "glassgrad/runtime/lazy.h"
#include "glassgrad/runtime/nccl_communicator.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

namespace {

const char* op_name(ReduceOp op) { return op == ReduceOp::Sum ? "sum" : "average"; }

// Calls the Python subclass's method. Buffers travel as addresses (int) plus count and dtype
// name: the Python side wraps them without copying (numpy over ctypes for CPU memory).
class PyCommunicator : public Communicator {
 public:
  int rank() const override { PYBIND11_OVERRIDE_PURE(int, Communicator, rank, ); }
  int size() const override { PYBIND11_OVERRIDE_PURE(int, Communicator, size, ); }
  std::string backend() const override { PYBIND11_OVERRIDE_PURE(std::string, Communicator, backend, ); }
  void all_reduce(void* data, int64_t count, DType dtype, ReduceOp op, void* stream) override {
    call("all_reduce", reinterpret_cast<uintptr_t>(data), count, std::string(dtype_name(dtype)),
         std::string(op_name(op)), reinterpret_cast<uintptr_t>(stream));
  }
  void broadcast(void* data, int64_t count, DType dtype, int root, void* stream) override {
    call("broadcast", reinterpret_cast<uintptr_t>(data), count, std::string(dtype_name(dtype)), root,
         reinterpret_cast<uintptr_t>(stream));
  }

 private:
  template <typename... Args>
  void call(const char* name, Args&&... args) {
    py::gil_scoped_acquire gil;  // kernels may run with the GIL released
    py::function f = py::get_override(static_cast<const Communicator*>(this), name);
    if (!f) throw InternalError(std::string("Communicator subclass does not define ") + name + "()");
    f(std::forward<Args>(args)...);
  }
};

}  // namespace

void bind_distributed(py::module_& m) {
  py::class_<Communicator, PyCommunicator, std::shared_ptr<Communicator>>(
      m, "Communicator",
      "Base of the communicators behind AllReduce nodes. Subclasses define rank(), size(), backend(), "
      "all_reduce(address, count, dtype, op, stream) and broadcast(address, count, dtype, root, stream).")
      .def(py::init<>())
      .def("rank", &Communicator::rank)
      .def("size", &Communicator::size)
      .def("backend", &Communicator::backend);
  m.def("register_communicator", &register_communicator, py::arg("communicator"),
        "Registers a communicator; returns the group id that AllReduce nodes name.");
  m.def("unregister_communicator", &unregister_communicator, py::arg("group"));
  m.def("communicator_broadcast",
        [](int64_t group, const Tensor& t, int root) {
          if (!t.is_contiguous()) throw ValueError("communicator_broadcast: the tensor must be contiguous");
          auto comm = communicator(group, "broadcast");
          py::gil_scoped_release release;  // a Python communicator takes it back; others block here
          comm->broadcast(t.data_ptr(), t.numel(), t.dtype(), root, nullptr);
        },
        py::arg("group"), py::arg("tensor"), py::arg("root") = 0,
        "Rank root's contents of the (realized, contiguous) tensor, in place on every rank; on CUDA, "
        "synchronize the device before and after (it is ordered on the legacy default stream).");
  m.def("nccl_available", [] { return nccl::library_status(); },
        "(loaded, reason): whether libnccl.so.2 could be loaded, and why not.");
  m.def("nccl_unique_id", [] { return py::bytes(nccl::unique_id()); },
        "A new NCCL unique id (rank 0 makes it and shares it with the others).");
  m.def("nccl_communicator",
        [](const std::string& id, int rank, int size, int device) -> std::shared_ptr<Communicator> {
          py::gil_scoped_release release;  // ncclCommInitRank blocks until every rank joins
          return nccl::make_communicator(id, rank, size, device);
        },
        py::arg("unique_id"), py::arg("rank"), py::arg("size"), py::arg("device"));
  m.def("lazy_backward_synced",
        [](const lazy::Handle& loss, lazy::Handle* seed, const std::vector<lazy::Handle*>& params, int64_t group,
           int64_t world_size, int64_t bucket_cap_bytes, const std::string& scope, bool retain_graph) {
          lazy::GradientSync sync;
          for (auto* p : params) sync.params.push_back(p->value());
          sync.group = group;
          sync.world_size = world_size;
          sync.bucket_cap_bytes = bucket_cap_bytes;
          sync.scope = scope;
          lazy::backward(loss.value(), seed ? seed->value() : nullptr, &sync, retain_graph);
        },
        py::arg("loss"), py::arg("seed").none(true), py::arg("params"), py::arg("group"), py::arg("world_size"),
        py::arg("bucket_cap_bytes"), py::arg("scope") = "ddp", py::arg("retain_graph") = false,
        "backward() whose parameter gradients are averaged over the group by bucketed AllReduce nodes.");
}

}  // namespace glassgrad
