// Exporting a lazy graph to the engine's IR: what the roots need, in the order the program
// created it, so the same trace always exports to the same graph and the same signature.
#include <algorithm>

#include "glassgrad/autodiff/errors.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

Export export_graph(const std::vector<ValuePtr>& roots, bool stop_at_computed) {
  // Phase 1: collect the leaves and nodes the roots need (iterative, so long chains cannot
  // overflow the stack).
  // Realize stops at computed values; backward at leaves, new versions of leaves written in
  // place included (Value::leaf).
  auto is_leaf = [&](const Value* v) { return !v->producer || (stop_at_computed ? v->realized() : v->leaf); };
  std::unordered_map<const Value*, char> seen;
  std::unordered_map<const Node*, uint64_t> node_key;  // creation order of the node
  std::vector<Node*> nodes;
  std::vector<ValuePtr> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    ValuePtr v = std::move(stack.back());
    stack.pop_back();
    if (!seen.emplace(v.get(), 1).second) continue;
    if (is_leaf(v.get())) {
      if (!v->invalid.empty()) {
        if (stop_at_computed) throw_invalid(*v);
        throw_modified(*v);  // backward: a saved value overwritten in place since
      }
      continue;
    }
    Node* node = v->producer.get();
    if (node->in_flight) throw_in_flight(*v);
    const uint64_t key = v->seq - static_cast<uint64_t>(v->output_index);
    auto it = node_key.find(node);
    if (it != node_key.end()) {
      it->second = std::min(it->second, key);
      continue;
    }
    node_key.emplace(node, key);
    nodes.push_back(node);
    for (const auto& in : node->inputs) stack.push_back(in);
  }
  // Phase 2: emit in creation order, i.e. the program's own order (values are created after
  // their inputs, so this is topological). The scheduler follows it, so e.g. a weight
  // gradient runs right after the input gradient it was recorded with, not at the end.
  std::sort(nodes.begin(), nodes.end(), [&](const Node* a, const Node* b) { return node_key.at(a) < node_key.at(b); });
  Export ex;
  // Leaves in order of first use, which depends only on the program's structure (not on when
  // each leaf was created), so every step of a loop exports the same signature.
  auto add_leaf = [&](const ValuePtr& v) {
    if (ex.id.count(v.get())) return;
    const ValueKind kind = v->producer ? ValueKind::Input : v->kind;
    const ValueId id = ex.graph.add_leaf(v->name, v->info, kind, v->requires_grad);
    ex.id[v.get()] = id;
    ex.by_id.resize(static_cast<size_t>(id) + 1);
    ex.by_id[static_cast<size_t>(id)] = v;
  };
  for (Node* node : nodes) {
    for (const auto& in : node->inputs) {
      if (is_leaf(in.get())) add_leaf(in);
    }
  }
  for (const auto& r : roots) {
    if (is_leaf(r.get())) add_leaf(r);
  }
  for (Node* node : nodes) {
    std::vector<ValueId> ins;
    ins.reserve(node->inputs.size());
    for (const auto& in : node->inputs) ins.push_back(ex.id.at(in.get()));
    const std::vector<ValueId> outs = ex.graph.add_node(node->schema->name, ins, node->attrs, node->meta);
    ex.nodes.push_back(node->shared_from_this());
    ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
    for (size_t k = 0; k < outs.size(); ++k) {
      if (ValuePtr o = node->outputs[k].lock()) {
        ex.id[o.get()] = outs[k];
        ex.by_id[static_cast<size_t>(outs[k])] = o;
        if (!o->name.empty()) ex.graph.set_name(outs[k], o->name);  // e.g. "conv1.weight.grad" in plans and logs
      }
    }
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

InspectedGraph inspect_graph(const std::vector<ValuePtr>& roots) {
  Export ex = export_graph(roots, true);
  InspectedGraph out;
  out.leaves.resize(static_cast<size_t>(ex.graph.num_values()));
  for (ValueId id = 0; id < ex.graph.num_values(); ++id) {
    if (ex.graph.value(id).producer == kNoNode) out.leaves[static_cast<size_t>(id)] = ex.by_id[static_cast<size_t>(id)];
  }
  out.outputs = ex.outputs;
  out.graph = std::move(ex.graph);
  return out;
}

}  // namespace lazy
}  // namespace glassgrad
