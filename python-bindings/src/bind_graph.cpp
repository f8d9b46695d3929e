// Graph IR, backward, compile and Plan/Executor: the static-graph API, for tests, teaching and
// for the lazy tracer.
#include <pybind11/stl.h>

#include "bindings.h"
#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/runtime/executor.h"

namespace glassgrad {

namespace {
ValueKind kind_from(const std::string& k) {
  if (k == "input") return ValueKind::Input;
  if (k == "parameter") return ValueKind::Parameter;
  if (k == "state") return ValueKind::State;
  if (k == "constant") return ValueKind::Constant;
  throw ValueError("leaf kind must be input, parameter, state or constant, got '" + k + "'");
}

py::dict info_dict(const TensorInfo& t) {
  py::dict d;
  d["shape"] = py::tuple(py::cast(t.shape));
  d["dtype"] = dtype_name(t.dtype);
  d["device"] = t.device.str();
  return d;
}
}  // namespace

void bind_graph(py::module_& m) {
  py::class_<Graph>(m, "Graph", "A static computation graph (the autodiff engine's IR).")
      .def(py::init<>())
      .def("add_leaf",
           [](Graph& g, const std::string& name, const py::handle& shape, const std::string& dtype,
              const std::string& device, const std::string& kind, bool requires_grad) {
             return g.add_leaf(name, TensorInfo{shape_from(shape), dtype_from_name(dtype), Device::parse(device)},
                               kind_from(kind), requires_grad);
           },
           py::arg("name"), py::arg("shape"), py::arg("dtype") = "float32", py::arg("device") = "cpu",
           py::arg("kind") = "input", py::arg("requires_grad") = false)
      .def("add",
           [](Graph& g, const std::string& op, const std::vector<ValueId>& inputs, const py::dict& attrs,
              const std::string& scope, const std::string& source, const std::string& role) {
             NodeMeta meta{scope, source, role_from_name(role)};
             return g.add_node(op, inputs, attrs_from_dict(attrs), meta);
           },
           py::arg("op"), py::arg("inputs"), py::arg("attrs") = py::dict(), py::arg("scope") = "",
           py::arg("source") = "", py::arg("role") = "forward")
      .def("backward", [](Graph& g, ValueId loss, const std::vector<ValueId>& wrt, ValueId seed) { return build_backward(g, loss, wrt, seed); },
           py::arg("loss"), py::arg("wrt"), py::arg("seed") = kNoValue)
      .def("mark_output", &Graph::mark_output)
      .def_property_readonly("outputs", &Graph::outputs)
      .def_property_readonly("num_nodes", &Graph::num_nodes)
      .def_property_readonly("num_values", &Graph::num_values)
      .def("value_info", [](const Graph& g, ValueId v) {
        const Value& val = g.value(v);
        py::dict d = info_dict(val.info);
        d["name"] = val.name;
        d["kind"] = value_kind_name(val.kind);
        d["producer"] = val.producer;
        d["requires_grad"] = val.requires_grad;
        return d;
      })
      .def("node_info", [](const Graph& g, NodeId n) {
        const Node& node = g.node(n);
        py::dict d;
        d["op"] = node.op();
        d["inputs"] = node.inputs;
        d["outputs"] = node.outputs;
        d["attrs"] = attrs_to_dict(node.attrs);
        d["scope"] = node.meta.scope;
        d["source"] = node.meta.source;
        d["role"] = role_name(node.meta.role);
        d["layer"] = node.meta.layer;
        return d;
      })
      .def("signature", &Graph::signature)
      .def("__str__", &Graph::str);

  py::class_<Plan, std::shared_ptr<Plan>>(m, "Plan", "Ordered steps + buffer table: the compiler's output.")
      .def("str", [](const Plan& p, bool buffers, int max_steps) { return p.str(PrintOptions{buffers, max_steps}); },
           py::arg("buffers") = true, py::arg("max_steps") = -1)
      .def("dot", &Plan::dot)
      .def("__str__", [](const Plan& p) { return p.str(); })
      .def_property_readonly("num_steps", [](const Plan& p) { return p.steps.size(); })
      .def_property_readonly("signature", [](const Plan& p) { return p.signature; })
      .def_property_readonly("notes", [](const Plan& p) { return p.notes; })
      .def_property_readonly("recomputed_steps", [](const Plan& p) { return p.recomputed_steps; })
      .def_property_readonly(
          "unlimited_need", [](const Plan& p) { return p.unlimited_need; },
          "A plan checkpointed to fit a memory budget: the bytes (arena + outputs) the plan without checkpointing "
          "needs; 0 for a plan not checkpointed.")
      .def_property_readonly("steps", [](const Plan& p) {
        py::list out;
        for (const auto& st : p.steps) {
          py::dict d;
          d["op"] = st.op();
          d["inputs"] = st.inputs;
          d["outputs"] = st.outputs;
          d["workspace"] = st.workspace;
          d["attrs"] = attrs_to_dict(st.attrs);
          d["scope"] = st.meta.scope;
          d["source"] = st.meta.source;
          d["role"] = role_name(st.meta.role);
          d["fusion_group"] = st.fusion_group;
          out.append(d);
        }
        return out;
      })
      .def_property_readonly("slots", [](const Plan& p) {
        py::list out;
        for (const auto& s : p.slots) {
          py::dict d = info_dict(s.info);
          d["id"] = s.id;
          d["kind"] = slot_kind_name(s.kind);
          d["bytes"] = s.bytes;
          d["offset"] = s.offset;
          d["base"] = s.base;
          d["first_step"] = s.first_step;
          d["last_step"] = s.last_step;
          d["name"] = s.name;
          d["value"] = s.value;
          out.append(d);
        }
        return out;
      })
      .def_property_readonly("input_values", [](const Plan& p) { return p.input_values; })
      .def_property_readonly("output_values", [](const Plan& p) { return p.output_values; })
      .def_property_readonly("arena_bytes", [](const Plan& p) {
        py::dict d;
        for (const auto& kv : p.arena_bytes) d[py::str(kv.first.str())] = kv.second;
        return d;
      })
      .def_property_readonly("peak_live_bytes", [](const Plan& p) {
        py::dict d;
        for (const auto& kv : p.peak_live_bytes) d[py::str(kv.first.str())] = kv.second;
        return d;
      })
      .def_property_readonly("external_bytes", [](const Plan& p) {
        py::dict d;
        for (const auto& kv : p.external_bytes) d[py::str(kv.first.str())] = kv.second;
        return d;
      })
      .def("predicted_peak_bytes", [](const Plan& p) { return p.predicted_peak_bytes(); })
      .def("budget_bytes", &plan_budget_bytes, py::arg("output_copies") = 1,
           "What a memory budget bounds: the largest arena + outputs of any device (compile.h)");

  m.def("compile",
        [](const Graph& g, const std::vector<ValueId>& outputs, bool fuse, bool inplace_reuse, size_t memory_budget) {
          CompileOptions o;
          o.memory_budget = memory_budget;
          o.outputs = outputs;
          o.fuse = fuse;
          o.inplace_reuse = inplace_reuse;
          o.workspace = Executor::workspace_fn();
          return std::make_shared<Plan>(compile(g, o));
        },
        py::arg("graph"), py::arg("outputs") = std::vector<ValueId>{}, py::arg("fuse") = true,
        py::arg("inplace_reuse") = true, py::arg("memory_budget") = 0);

  py::class_<Executor, std::shared_ptr<Executor>>(m, "Executor", "Runs a Plan with the registered kernels.")
      .def(py::init([](std::shared_ptr<Plan> p, bool poison) {
             return std::make_shared<Executor>(p, ExecutorOptions{poison});
           }),
           py::arg("plan"), py::arg("poison_freed") = false)
      .def("run", [](Executor& e, const std::vector<Tensor>& inputs, py::object wanted) {
             std::vector<char> w;
             if (!wanted.is_none()) {
               for (auto b : wanted) w.push_back(b.cast<bool>() ? 1 : 0);
             }
             py::list out;
             for (const Tensor& t : e.run(inputs, wanted.is_none() ? nullptr : &w)) {
               out.append(t.defined() ? py::cast(t) : py::none());
             }
             return out;
           },
           py::arg("inputs"), py::arg("wanted") = py::none(),
           "Runs the plan; with `wanted` (one bool per output), unwanted outputs may come back as None.")
      .def_property_readonly("graph_captured", &Executor::graph_captured)
      .def_property_readonly("graph_replays", &Executor::graph_replays)
      .def_property_readonly("graph_captures", &Executor::graph_captures)
      .def_property_readonly("output_ready_steps", &Executor::output_ready_steps,
                             "Per output: the last step writing it (-1: none); its early host read goes after it.")
      .def_property_readonly("early_read_states", &Executor::early_read_states,
                             "Per output: '' (no candidate), 'idle', 'wanted', 'made' or 'read' (docs/cuda.md).");
  m.def("set_cuda_graphs", &set_cuda_graphs);
  m.def("cuda_graphs_enabled", &cuda_graphs_enabled);
  m.def("set_early_reads", &set_early_reads, "Early host reads of small GPU outputs on or off (docs/cuda.md).");
  m.def("early_reads_enabled", &early_reads_enabled);
  m.def("set_lent_outputs", &set_lent_outputs,
        "CUDA graph replays lend their outputs (views of the graph's buffers) on or off (docs/cuda.md).");
  m.def("lent_outputs_enabled", &lent_outputs_enabled);

  m.def("format_bytes", &format_bytes);
  m.def("set_poison_freed", &set_poison_freed);
  m.def("poison_freed", &poison_freed);
}

}  // namespace glassgrad
