// Exporting a lazy graph to the engine's IR. Post-order DFS from the roots (iterative, so long
// chains cannot overflow the stack); graph ids follow first-visit order, so the same trace
// always exports to the same graph and the same signature.
#include "glassgrad/autodiff/errors.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

Export export_graph(const std::vector<ValuePtr>& roots, bool stop_at_computed) {
  Export ex;
  std::unordered_map<const Node*, std::vector<ValueId>> node_outputs;
  auto is_leaf = [&](const ValuePtr& v) { return !v->producer || (stop_at_computed && v->realized()); };
  auto add_leaf = [&](const ValuePtr& v) {
    if (!v->invalid.empty()) throw_invalid(*v);
    const ValueKind kind = v->producer ? ValueKind::Input : v->kind;
    const ValueId id = ex.graph.add_leaf(v->name, v->info, kind, v->requires_grad);
    ex.id[v.get()] = id;
    if (ex.by_id.size() <= static_cast<size_t>(id)) ex.by_id.resize(static_cast<size_t>(id) + 1);
    ex.by_id[static_cast<size_t>(id)] = v;
  };
  struct Frame {
    ValuePtr v;
    bool expanded;
  };
  std::vector<Frame> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, false});
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    if (ex.id.count(f.v.get())) continue;
    if (is_leaf(f.v)) {
      add_leaf(f.v);
      continue;
    }
    Node* node = f.v->producer.get();
    auto done = node_outputs.find(node);
    if (done == node_outputs.end()) {
      if (!f.expanded) {
        stack.push_back({f.v, true});
        for (auto it = node->inputs.rbegin(); it != node->inputs.rend(); ++it) {
          if (!ex.id.count(it->get())) stack.push_back({*it, false});
        }
        continue;
      }
      std::vector<ValueId> ins;
      ins.reserve(node->inputs.size());
      for (const auto& in : node->inputs) ins.push_back(ex.id.at(in.get()));
      const std::vector<ValueId> outs = ex.graph.add_node(node->schema->name, ins, node->attrs, node->meta);
      done = node_outputs.emplace(node, outs).first;
      if (ex.nodes.size() <= static_cast<size_t>(ex.graph.num_nodes())) ex.nodes.resize(static_cast<size_t>(ex.graph.num_nodes()));
      ex.nodes[static_cast<size_t>(ex.graph.num_nodes() - 1)] = node->shared_from_this();
      ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
      for (size_t k = 0; k < outs.size(); ++k) {
        if (ValuePtr o = node->outputs[k].lock()) {
          ex.id[o.get()] = outs[k];
          ex.by_id[static_cast<size_t>(outs[k])] = o;
          if (!o->name.empty()) ex.graph.set_name(outs[k], o->name);  // e.g. "conv1.weight.grad" in plans and logs
        }
      }
    }
    if (!ex.id.count(f.v.get())) ex.id[f.v.get()] = done->second.at(static_cast<size_t>(f.v->output_index));
  }
  for (const auto& r : roots) {
    const ValueId id = ex.id.at(r.get());
    ex.outputs.push_back(id);
    ex.graph.mark_output(id);
  }
  return ex;
}

const ValuePtr& value_of(Export& ex, ValueId id) {
  if (ex.by_id.size() < static_cast<size_t>(ex.graph.num_values())) ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
  ValuePtr& slot = ex.by_id.at(static_cast<size_t>(id));
  if (slot) return slot;
  const glassgrad::Value& gv = ex.graph.value(id);
  if (gv.producer == kNoNode || static_cast<size_t>(gv.producer) >= ex.nodes.size()) {
    throw InternalError("lazy export: graph value %" + std::to_string(id) + " has no lazy counterpart");
  }
  Node* node = ex.nodes[static_cast<size_t>(gv.producer)].get();
  auto v = std::make_shared<Value>();
  v->seq = next_seq();
  v->info = gv.info;
  v->producer = node->shared_from_this();
  v->output_index = gv.output_index;
  node->outputs[static_cast<size_t>(gv.output_index)] = v;
  slot = v;
  return slot;
}

std::string pending_graph_str(const ValuePtr& v) { return export_graph({v}, true).graph.str(); }

}  // namespace lazy
}  // namespace glassgrad
