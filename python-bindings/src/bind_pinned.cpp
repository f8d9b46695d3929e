// Pinned host memory (pinned_memory.h): availability, statistics and the cache.
#include "bindings.h"
#include "glassgrad/runtime/pinned_memory.h"

namespace glassgrad {

void bind_pinned(py::module_& m) {
  m.def("pinned_memory_available", &pinned_memory_available);
  m.def("pinned_memory_stats", [] {
    const PinnedMemoryStats s = pinned_memory_stats();
    py::dict d;
    d["blocks"] = s.blocks;
    d["bytes_in_use"] = s.bytes_in_use;
    d["bytes_cached"] = s.bytes_cached;
    d["allocations"] = s.allocations;
    return d;
  });
  m.def("empty_pinned_cache", &empty_pinned_cache);
  m.def(
      "wait_pinned_reads",
      [](const Tensor& t) {
        const void* host = t.defined() && t.device().is_cpu() ? t.storage()->data() : nullptr;
        py::gil_scoped_release release;  // the copies may wait behind the GPU's queued work
        wait_pinned_reads(host);
      },
      py::arg("tensor"));
  m.def(
      "wait_pinned_reads_at",
      [](uintptr_t address) {
        py::gil_scoped_release release;
        wait_pinned_reads(reinterpret_cast<const void*>(address));
      },
      py::arg("address"));
  m.def(
      "register_pinned_range",
      [](uintptr_t address, size_t nbytes) {
        py::gil_scoped_release release;  // locking pages takes the driver a while
        return register_pinned_range(reinterpret_cast<void*>(address), nbytes);
      },
      py::arg("address"), py::arg("nbytes"));
  m.def(
      "unregister_pinned_range",
      [](uintptr_t address) {
        py::gil_scoped_release release;
        unregister_pinned_range(reinterpret_cast<void*>(address));
      },
      py::arg("address"));
}

}  // namespace glassgrad
