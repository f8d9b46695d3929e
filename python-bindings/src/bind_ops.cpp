// Op and kernel registries, and eager single-op execution (glassgrad.kernels).
#include <pybind11/stl.h>

#include "bindings.h"
#include "glassgrad/autodiff/elementwise.h"
#include "glassgrad/autodiff/families/pool.h"
#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/runtime/cpu_features.h"
#include "glassgrad/runtime/conv_algorithm.h"
#include "glassgrad/runtime/cpu_peak.h"
#include "glassgrad/runtime/eager.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"
#include "glassgrad/runtime/settings.h"

namespace glassgrad {

void bind_ops(py::module_& m) {
  m.def("run_op",
        [](const std::string& op, const std::vector<Tensor>& inputs, const py::dict& attrs, const std::string& scope) {
          NodeMeta meta;
          meta.scope = scope;
          return run_op(op, inputs, attrs_from_dict(attrs), meta);
        },
        py::arg("op"), py::arg("inputs"), py::arg("attrs") = py::dict(), py::arg("scope") = "",
        "Runs one op's kernel on tensors and returns its outputs.");
  m.def("op_names", [] { return OpRegistry::instance().names(); });
  m.def("op_schema", [](const std::string& name) {
    const OpSchema& s = OpRegistry::instance().at(name);
    py::dict d;
    d["name"] = s.name;
    d["inputs"] = s.inputs;
    d["required_inputs"] = s.required_inputs();
    d["outputs"] = s.outputs;
    d["differentiable"] = static_cast<bool>(s.gradient);
    d["inplace"] = s.inplace;
    d["view_of"] = s.view_of;
    d["elementwise"] = s.elementwise;
    d["strided_inputs"] = s.strided_inputs;
    d["formula"] = s.formula;
    return d;
  });
  m.def("pooled_size", &pooled_size, py::arg("n"), py::arg("kernel"), py::arg("stride"), py::arg("padding"),
        py::arg("ceil_mode"), "The pool family's output size along one axis (families/pool.h).");
  m.def("elementwise_ops", [] {
    static const char* kinds[] = {"unary", "binary", "compare", "backward_x", "backward_y"};
    static const char* dtypes[] = {"float", "numeric", "any"};
    py::list out;
    for (int i = 0; i < kElementwiseOpCount; ++i) {
      const ElementwiseInfo& e = elementwise_table()[i];
      py::dict d;
      d["name"] = e.name;
      d["code"] = i;
      d["kind"] = kinds[static_cast<int>(e.kind)];
      d["dtypes"] = dtypes[static_cast<int>(e.dtypes)];
      d["scalar"] = e.scalar;
      d["arity"] = e.arity();
      d["fusible"] = e.fusible();
      out.append(d);
    }
    return out;
  }, "The rows of the elementwise op table (elementwise_ops.def), in op-code order");
  m.def("kernels", [] {
    std::vector<std::tuple<std::string, std::string, std::string>> out;
    for (const auto& k : KernelRegistry::instance().list()) {
      out.emplace_back(std::get<0>(k), std::get<1>(k) == DeviceType::CPU ? "cpu" : "cuda", dtype_name(std::get<2>(k)));
    }
    return out;
  }, "(op, device, dtype) of every registered kernel");
  m.def("cpu_isa", [] { return std::string(cpu_isa_name(cpu_isa())); });
  m.def("cpu_peak", [](int threads, double seconds, int repeats, int64_t copy_bytes) {
    const CpuPeak p = measure_cpu_peak(threads, seconds, repeats, copy_bytes);
    py::dict d;
    d["threads"] = p.threads;
    d["isa"] = std::string(p.isa);
    d["fma_flops"] = p.fma_flops;
    d["copy_bytes_per_s"] = p.copy_bytes_per_s;
    d["fma_iterations"] = p.fma_iterations;
    d["copy_bytes"] = p.copy_bytes;
    return d;
  }, py::arg("threads") = 0, py::arg("seconds") = 0.02, py::arg("repeats") = 5, py::arg("copy_bytes") = int64_t(64) << 20,
     "The CPU's measured float32 FMA rate and copy bandwidth on `threads` threads (cpu_peak.h)");
  m.def("cpu_conv_algorithm",
        [](const std::string& op, const Shape& input_shape, const Shape& weight_shape, const py::dict& attrs,
           const std::string& dtype) {
          return cpu::conv_algorithm(op, input_shape, weight_shape, attrs_from_dict(attrs), dtype_from_name(dtype));
        },
        "The algorithm the CPU kernel of a Conv2D op runs on these shapes (conv_algorithm.h)");
  m.def("cpu_set_conv_algo", &cpu::set_conv_algo);
  m.def("cpu_conv_algo", &cpu::conv_algo);
  m.def("set_conv_fast_winograd", &set_conv_fast_winograd);
  m.def("conv_fast_winograd", &conv_fast_winograd);
  m.def("get_num_threads", &get_num_threads);
  m.def("set_num_threads", &set_num_threads);
  m.def("parallel_backend", &parallel_backend,
        "What runs the CPU kernels' parallel loops: 'OpenMP (<module>), GOMP_SPINCOUNT=<n>' or 'serial (<why>)'");
}

}  // namespace glassgrad
