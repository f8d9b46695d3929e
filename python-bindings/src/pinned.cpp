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
}

}  // namespace glassgrad
