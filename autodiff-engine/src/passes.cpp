// Dead-code elimination, layout analysis and scheduling.
#include <algorithm>
#include <queue>
#include <utility>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/passes.h"

namespace glassgrad {

namespace {
bool side_effecting(const Node& n) { return n.schema->has_side_effects || !n.schema->inplace.empty(); }

// Every node, each after the producers of its inputs; recording order where that already holds.
// Node ids are not always topological: rematerialize appends recompute nodes that older
// backward nodes read, and such a reader may be a view of a recomputed view (remat.h).
std::vector<NodeId> producers_first(const Graph& g) {
  const size_t nn = static_cast<size_t>(g.num_nodes());
  std::vector<char> state(nn, 0);  // 0 unvisited, 1 on the stack, 2 emitted
  std::vector<NodeId> out;
  out.reserve(nn);
  std::vector<std::pair<NodeId, size_t>> stack;  // (node, next input to visit)
  for (NodeId root = 0; root < g.num_nodes(); ++root) {
    if (state[static_cast<size_t>(root)] != 0) continue;
    stack.emplace_back(root, 0);
    state[static_cast<size_t>(root)] = 1;
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      const std::vector<ValueId>& ins = g.node(n).inputs;
      if (next < ins.size()) {
        const NodeId p = g.value(ins[next++]).producer;
        if (p == kNoNode) continue;
        if (state[static_cast<size_t>(p)] == 1) throw InternalError("analyze_layouts: the graph has a cycle through " + g.node(p).op());
        if (state[static_cast<size_t>(p)] == 0) {
          state[static_cast<size_t>(p)] = 1;
          stack.emplace_back(p, 0);
        }
        continue;
      }
      state[static_cast<size_t>(n)] = 2;
      out.push_back(n);
      stack.pop_back();
    }
  }
  return out;
}
}  // namespace

std::vector<NodeId> live_nodes(const Graph& g, const std::vector<ValueId>& roots) {
  // Worklist from the roots' producers and every side-effecting node. Node ids need not be in
  // topological order (passes append nodes, e.g. Contiguous copies, after their consumers).
  std::vector<char> live(static_cast<size_t>(g.num_nodes()), 0);
  std::vector<NodeId> work;
  auto need = [&](ValueId v) {
    const NodeId p = g.value(v).producer;
    if (p != kNoNode && !live[static_cast<size_t>(p)]) {
      if (g.node(p).superseded) throw InternalError("live_nodes: " + g.node(p).op() + " was superseded but is still read");
      live[static_cast<size_t>(p)] = 1;
      work.push_back(p);
    }
  };
  for (ValueId r : roots) need(r);
  for (const Node& n : g.nodes()) {
    if (side_effecting(n) && !n.superseded && !live[static_cast<size_t>(n.id)]) {
      live[static_cast<size_t>(n.id)] = 1;
      work.push_back(n.id);
    }
  }
  while (!work.empty()) {
    const NodeId n = work.back();
    work.pop_back();
    for (ValueId in : g.node(n).inputs) need(in);
  }
  std::vector<NodeId> out;
  for (NodeId n = 0; n < g.num_nodes(); ++n) if (live[static_cast<size_t>(n)]) out.push_back(n);
  return out;
}

LayoutAnalysis analyze_layouts(const Graph& g) {
  LayoutAnalysis a;
  const size_t nv = static_cast<size_t>(g.num_values());
  a.base.resize(nv);
  a.layouts.resize(nv);
  a.is_view.assign(nv, 0);
  for (const Value& v : g.values()) {
    a.base[static_cast<size_t>(v.id)] = v.id;
    a.layouts[static_cast<size_t>(v.id)] = Layout::contiguous(v.info.shape);
  }
  // A view's layout composes its input's, so producers come first (not recording order:
  // producers_first says why).
  for (NodeId id : producers_first(g)) {
    const Node& n = g.node(id);
    const OpSchema& s = *n.schema;
    if (s.view_of >= 0) {
      const ValueId in = n.inputs.at(static_cast<size_t>(s.view_of));
      const ValueId out = n.outputs[0];
      Layout l;
      if (s.view(n.attrs, a.layouts[static_cast<size_t>(in)], g.value(out).info.shape, l)) {
        a.base[static_cast<size_t>(out)] = a.base[static_cast<size_t>(in)];
        a.layouts[static_cast<size_t>(out)] = l;
        a.is_view[static_cast<size_t>(out)] = 1;
      }
    }
    for (const auto& io : s.inplace) {
      const ValueId out = n.outputs.at(static_cast<size_t>(io.first));
      const ValueId in = n.inputs.at(static_cast<size_t>(io.second));
      a.base[static_cast<size_t>(out)] = a.base[static_cast<size_t>(in)];
      a.layouts[static_cast<size_t>(out)] = a.layouts[static_cast<size_t>(in)];
    }
  }
  return a;
}

int insert_contiguous_copies(Graph& g) {
  int inserted = 0;
  const int original_nodes = g.num_nodes();
  // Inserting copies changes no existing value's layout, so one analysis serves every node.
  const LayoutAnalysis a = analyze_layouts(g);
  for (NodeId n = 0; n < original_nodes; ++n) {
    if (g.node(n).schema->strided_inputs) continue;
    const std::vector<ValueId> inputs = g.node(n).inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ValueId v = inputs[i];
      if (a.layouts[static_cast<size_t>(v)].is_contiguous()) continue;
      const Node& node = g.node(n);
      for (const auto& io : node.schema->inplace) {
        if (io.second != static_cast<int>(i)) continue;
        // A copy would receive the update and the viewed buffer would keep its old value.
        const std::string where = node_where(node.op(), node.meta.scope);
        throw ValueError(ErrorMessage(where + ": the tensor it updates in place, " + g.value_str(v) +
                                      ", is a strided view " + shape_str(g.value(v).info.shape) + " strides " +
                                      shape_str(a.layouts[static_cast<size_t>(v)].strides))
                             .cause("this op needs dense memory, and updating a copy would lose the update")
                             .fix("update the original (contiguous) tensor, or make it contiguous first and "
                                  "keep using that tensor: w = w.contiguous()")
                             .str());
      }
      NodeMeta meta = node.meta;
      const ValueId c = g.add("Contiguous", {v}, {}, meta);
      g.set_schedule_key(g.value(c).producer, g.node(n).key() - 1e-7);  // right before its reader
      g.replace_input(n, static_cast<int>(i), c);
      ++inserted;
    }
  }
  return inserted;
}

std::vector<NodeId> schedule(const Graph& g, const std::vector<NodeId>& nodes) {
  const size_t nn = static_cast<size_t>(g.num_nodes());
  std::vector<char> in_set(nn, 0);
  for (NodeId n : nodes) in_set[static_cast<size_t>(n)] = 1;
  std::vector<std::vector<NodeId>> succ(nn);
  std::vector<int> indeg(nn, 0);
  auto edge = [&](NodeId a, NodeId b) {
    succ[static_cast<size_t>(a)].push_back(b);
    ++indeg[static_cast<size_t>(b)];
  };
  for (NodeId n : nodes) {
    for (ValueId in : g.node(n).inputs) {
      const NodeId p = g.value(in).producer;
      if (p != kNoNode && in_set[static_cast<size_t>(p)]) edge(p, n);
    }
  }
  // In-place writes: every other reader of the overwritten buffer (through any view of it)
  // runs first, unless it needs the written value, which would be a read-after-overwrite.
  bool has_inplace = false;
  for (NodeId n : nodes) has_inplace = has_inplace || !g.node(n).schema->inplace.empty();
  if (has_inplace) {
    const LayoutAnalysis a = analyze_layouts(g);
    for (NodeId w : nodes) {
      const Node& writer = g.node(w);
      for (const auto& io : writer.schema->inplace) {
        const ValueId target = a.base[static_cast<size_t>(writer.inputs.at(static_cast<size_t>(io.second)))];
        // Nodes downstream of the writer.
        std::vector<char> after(nn, 0);
        std::vector<NodeId> stack{w};
        while (!stack.empty()) {
          const NodeId x = stack.back();
          stack.pop_back();
          for (NodeId y : succ[static_cast<size_t>(x)]) {
            if (!after[static_cast<size_t>(y)]) after[static_cast<size_t>(y)] = 1, stack.push_back(y);
          }
        }
        for (NodeId r : nodes) {
          if (r == w) continue;
          const Node& reader = g.node(r);
          bool reads = false;
          for (ValueId in : reader.inputs) {
            // Reading the old version of the target (a value whose base is the target and which
            // is not itself produced by an in-place write downstream of w).
            if (a.base[static_cast<size_t>(in)] != target) continue;
            const NodeId p = g.value(in).producer;
            if (p == w || (p != kNoNode && after[static_cast<size_t>(p)])) continue;
            reads = true;
          }
          if (!reads) continue;
          if (after[static_cast<size_t>(r)]) {
            auto where = [](const Node& n) {
              return node_where(n.op(), n.meta.scope);
            };
            throw ValueError(ErrorMessage(where(reader) + " reads " + g.value_str(target) +
                                          " after " + where(writer) + " overwrote it in place")
                                 .cause("the old value is used after the update in the same step")
                                 .fix("compute what needs the old value before the update, or "
                                      "copy it first with x.clone()")
                                 .str());
          }
          edge(r, w);
        }
      }
    }
  }
  // Ready nodes run in order of their schedule key (recording order unless a pass set one).
  auto later = [&g](NodeId a, NodeId b) {
    const double ka = g.node(a).key(), kb = g.node(b).key();
    return ka != kb ? ka > kb : a > b;
  };
  std::priority_queue<NodeId, std::vector<NodeId>, decltype(later)> ready(later);
  for (NodeId n : nodes) if (indeg[static_cast<size_t>(n)] == 0) ready.push(n);
  std::vector<NodeId> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    const NodeId n = ready.top();
    ready.pop();
    order.push_back(n);
    for (NodeId s : succ[static_cast<size_t>(n)]) {
      if (--indeg[static_cast<size_t>(s)] == 0) ready.push(s);
    }
  }
  if (order.size() != nodes.size()) throw InternalError("schedule: the graph has a cycle");
  return order;
}

}  // namespace glassgrad
