// Allocator accounting, allocation log and memory limits per device.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/executor.h"

namespace glassgrad {

void bind_memory(py::module_& m) {
  m.def("memory_stats", [](const std::string& device) {
    const MemoryStats s = allocator_for(Device::parse(device)).stats();
    py::dict d;
    d["current"] = s.current;
    d["peak"] = s.peak;
    d["limit"] = s.limit;
    d["num_allocs"] = s.num_allocs;
    d["num_frees"] = s.num_frees;
    d["cached"] = s.cached;
    return d;
  }, py::arg("device") = "cpu");
  m.def("reset_peak", [](const std::string& device) { allocator_for(Device::parse(device)).reset_peak(); },
        py::arg("device") = "cpu");
  m.def("set_memory_limit", [](const std::string& device, size_t bytes, const std::string& as_given) {
    allocator_for(Device::parse(device)).set_limit(bytes, as_given);
  }, py::arg("device"), py::arg("bytes"), py::arg("as_given") = "");
  m.def("memory_limit", [](const std::string& device) { return allocator_for(Device::parse(device)).limit(); },
        py::arg("device") = "cpu");
  m.def("parse_bytes", &parse_bytes);
  m.def("set_allocation_logging", [](const std::string& device, bool on) {
    allocator_for(Device::parse(device)).set_logging(on);
  }, py::arg("device"), py::arg("on"));
  m.def("take_allocation_log", [](const std::string& device) {
    py::list out;
    for (const auto& r : allocator_for(Device::parse(device)).take_log()) {
      py::dict d;
      d["seq"] = r.seq;
      d["event"] = r.is_alloc ? "alloc" : "free";
      d["bytes"] = r.bytes;
      d["name"] = r.name;
      d["device"] = r.device.str();
      d["current"] = r.current_after;
      out.append(d);
    }
    return out;
  }, py::arg("device") = "cpu");
  m.def("empty_cache", [](const std::string& device) {
    release_arenas();
    allocator_for(Device::parse(device)).empty_cache();
  }, py::arg("device") = "cpu");
}

}  // namespace glassgrad
