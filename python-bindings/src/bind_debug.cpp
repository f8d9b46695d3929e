// Debugging aids (glue only: logic in core-runtime/src/debug/, Python's face is glassgrad/debug/):
// tensor statistics, the anomaly switch, step observers for Python hooks, plan buffer labels
// and the memory check, the NonFiniteError exception, and the per-phase host times.
#include <pybind11/stl.h>

#include <memory>

#include "bindings.h"
#include "glassgrad/runtime/debug.h"
#include "glassgrad/runtime/host_times.h"

namespace glassgrad {

namespace {
py::dict stats_dict(const debug::TensorStats& s) {
  py::dict d;
  d["shape"] = py::tuple(py::cast(s.info.shape));
  d["dtype"] = dtype_name(s.info.dtype);
  d["device"] = s.info.device.str();
  d["count"] = s.count;
  d["finite"] = s.finite;
  d["nan"] = s.nan;
  d["inf"] = s.inf();
  d["pos_inf"] = s.pos_inf;
  d["neg_inf"] = s.neg_inf;
  d["min"] = s.min;
  d["max"] = s.max;
  d["mean"] = s.mean;
  d["std"] = s.std;
  d["text"] = s.str();
  return d;
}
}  // namespace

void bind_debug(py::module_& m) {
  py::object builtins = py::module_::import("builtins");
  py::dict ns;
  ns["__module__"] = "glassgrad.debug";
  ns["__doc__"] = "A computation produced NaN or Inf (anomaly mode, check_nan_gradients).";
  static py::handle nonfinite =
      builtins.attr("type")("NonFiniteError", py::make_tuple(m.attr("GlassgradError"), builtins.attr("FloatingPointError")), ns)
          .release();
  m.attr("NonFiniteError") = nonfinite;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const NonFiniteError& e) {
      PyErr_SetString(nonfinite.ptr(), e.what());
    }
  });

  m.def("tensor_stats", [](const Tensor& t) { return stats_dict(debug::stats_of(t)); });
  m.def("set_detect_anomaly", &debug::set_detect_anomaly);
  m.def("set_host_timing", &set_host_timing, py::arg("on"));
  m.def("host_timing", &host_timing);
  m.def("reset_host_times", &reset_host_times);
  m.def("host_times", [] {  // {phase: (seconds, calls)}, plus "realizes"
    const HostTimes t = host_times();
    py::dict d;
    for (int i = 0; i < kHostPhases; ++i) {
      d[host_phase_name(static_cast<HostPhase>(i))] = py::make_tuple(t.seconds[static_cast<size_t>(i)], t.calls[static_cast<size_t>(i)]);
    }
    d["realizes"] = t.realizes;
    return d;
  });
  m.def("detect_anomaly", &debug::detect_anomaly);
  m.def("add_step_observer", [](py::function fn) {
    // Dropped without the GIL at interpreter exit: only release it while Python is alive.
    std::shared_ptr<py::function> f(new py::function(std::move(fn)), [](py::function* p) {
      if (Py_IsInitialized()) {
        py::gil_scoped_acquire gil;
        delete p;
      } else {
        (void)p->release();
        delete p;
      }
    });
    return debug::add_step_observer([f](size_t index, const Plan& plan, const PlanStep& st,
                                        const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
      py::gil_scoped_acquire gil;
      (*f)(index, st.op(), st.meta.scope, role_name(st.meta.role), st.meta.source, inputs, outputs);
    });
  }, py::arg("fn"), "fn(index, op, scope, role, source, inputs, outputs) after each executed step.");
  m.def("remove_step_observer", &debug::remove_step_observer);
  m.def("last_step_seconds", &debug::last_step_seconds,
        "Inside a step observer: the host wall time of that step's kernel call, in seconds.");
  m.def("buffer_labels", [](const std::shared_ptr<Plan>& p) { return debug::buffer_labels(*p); });
  m.def("largest_buffers", [](const std::shared_ptr<Plan>& p, const std::string& device, size_t k) {
    py::list out;
    for (const auto& u : debug::largest_buffers(*p, Device::parse(device), k)) {
      py::dict d;
      d["slot"] = u.slot;
      d["bytes"] = u.bytes;
      d["label"] = u.label;
      d["where"] = u.where;
      out.append(d);
    }
    return out;
  }, py::arg("plan"), py::arg("device") = "cpu", py::arg("k") = 5);
  m.def("predicted_need", [](const std::shared_ptr<Plan>& p, const std::string& device) {
    return debug::predicted_need(*p, Device::parse(device));
  }, py::arg("plan"), py::arg("device") = "cpu");
  py::class_<debug::MemoryNeed>(m, "MemoryNeed", "What running a plan would hold at its peak (debug.h)")
      .def_readonly("held", &debug::MemoryNeed::held)
      .def_readonly("arena_freed", &debug::MemoryNeed::arena_freed)
      .def_readonly("arena_new", &debug::MemoryNeed::arena_new)
      .def_readonly("outputs", &debug::MemoryNeed::outputs)
      .def_readonly("graph_outputs", &debug::MemoryNeed::graph_outputs)
      .def_property_readonly("total", &debug::MemoryNeed::total);
  m.def("memory_need", [](const std::shared_ptr<Plan>& p, const std::string& device, size_t held) {
    return debug::memory_need(*p, Device::parse(device), held);
  }, py::arg("plan"), py::arg("device"), py::arg("held"));
  m.def("check_memory_limit", [](const std::shared_ptr<Plan>& p) { debug::check_memory_limit(*p); });
  m.def("describe_step", [](const std::shared_ptr<Plan>& p, size_t i) { return debug::describe_step(*p, i); });
}

}  // namespace glassgrad
