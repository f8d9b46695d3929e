#include "glassgrad/autodiff/remat.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "glassgrad/autodiff/elementwise.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

namespace {
bool is_forward(const Graph& g, ValueId v) {
  const NodeId p = g.value(v).producer;
  return p != kNoNode && g.node(p).meta.role == NodeRole::Forward;
}
bool pure(const Node& n) { return n.schema->inplace.empty() && !n.schema->has_side_effects; }
}  // namespace

bool view_of_leaf(const Graph& g, ValueId v) {
  bool viewed = false;
  while (true) {
    const NodeId p = g.value(v).producer;
    if (p == kNoNode) return viewed;
    const Node& n = g.node(p);
    if (n.meta.role != NodeRole::Forward || n.schema->view_of < 0 || !pure(n)) return false;
    v = n.inputs[static_cast<size_t>(n.schema->view_of)];
    viewed = true;
  }
}

std::vector<ValueId> saved_activations(const Graph& g) {
  const auto consumers = g.consumers();
  std::vector<ValueId> out;
  for (const Value& v : g.values()) {
    if (!is_forward(g, v.id) || view_of_leaf(g, v.id)) continue;
    for (NodeId c : consumers[static_cast<size_t>(v.id)]) {
      if (g.node(c).meta.role == NodeRole::Backward) {
        out.push_back(v.id);
        break;
      }
    }
  }
  return out;
}

std::vector<ValueId> forward_separators(const Graph& g) {
  // Forward nodes in recording (topological) order, and each forward value's last forward reader.
  std::vector<NodeId> fwd;
  std::vector<int> pos(static_cast<size_t>(g.num_nodes()), -1);
  for (const Node& n : g.nodes()) {
    if (n.meta.role == NodeRole::Forward) {
      pos[static_cast<size_t>(n.id)] = static_cast<int>(fwd.size());
      fwd.push_back(n.id);
    }
  }
  std::vector<int> last(static_cast<size_t>(g.num_values()), -1);
  for (NodeId n : fwd) {
    for (ValueId in : g.node(n).inputs) {
      if (is_forward(g, in)) last[static_cast<size_t>(in)] = std::max(last[static_cast<size_t>(in)], pos[static_cast<size_t>(n)]);
    }
  }
  // crossing[i] = forward values produced at or before i and read after i.
  std::vector<int> delta(fwd.size() + 1, 0);
  for (NodeId n : fwd) {
    for (ValueId o : g.node(n).outputs) {
      const int p = pos[static_cast<size_t>(n)], l = last[static_cast<size_t>(o)];
      if (l > p) {
        delta[static_cast<size_t>(p)] += 1;
        delta[static_cast<size_t>(l)] -= 1;
      }
    }
  }
  std::vector<ValueId> out;
  int crossing = 0;
  for (size_t i = 0; i < fwd.size(); ++i) {
    crossing += delta[i];
    if (crossing != 1) continue;
    for (ValueId o : g.node(fwd[i]).outputs) {
      if (last[static_cast<size_t>(o)] > static_cast<int>(i)) out.push_back(o);
    }
  }
  return out;
}

std::vector<ValueId> segment_checkpoints(const Graph& g, const std::vector<ValueId>& saved, int segments,
                                         size_t small_bytes) {
  std::vector<ValueId> keep;
  for (ValueId v : saved) {
    if (g.value(v).info.nbytes() < small_bytes) keep.push_back(v);
  }
  if (segments <= 1) return keep;
  // Saved bytes produced before each separator decide where the segment boundaries fall.
  const std::vector<ValueId> seps = forward_separators(g);
  size_t total = 0;
  for (ValueId v : saved) total += g.value(v).info.nbytes();
  const double per = static_cast<double>(total) / segments;
  size_t si = 0;
  double acc = 0, next = per;
  for (ValueId v : saved) {
    acc += static_cast<double>(g.value(v).info.nbytes());
    while (si < seps.size() && seps[si] <= v) {
      if (acc >= next) {
        keep.push_back(seps[si]);
        while (next <= acc) next += per;
      }
      ++si;
    }
  }
  return keep;
}

std::vector<ValueId> cheap_recomputes(const Graph& g, const std::vector<ValueId>& saved, size_t small_bytes) {
  const std::unordered_set<ValueId> kept(saved.begin(), saved.end());
  auto cheap_op = [](const std::string& op) {
    const ElementwiseInfo* e = find_elementwise(op);
    return e != nullptr ? e->kind == ElementwiseKind::Unary : op == "LayerNorm" || op == "Reshape";
  };
  // A leaf, a saved activation, or a view (no memory of its own) of one of those.
  auto kept_anyway = [&](ValueId v) {
    while (true) {
      const NodeId p = g.value(v).producer;
      if (p == kNoNode || kept.count(v)) return true;
      const Node& n = g.node(p);
      if (!is_forward(g, v) || n.schema->view_of < 0 || !pure(n)) return false;
      v = n.inputs[static_cast<size_t>(n.schema->view_of)];
    }
  };
  std::vector<ValueId> out;
  for (ValueId v : saved) {
    if (g.value(v).info.nbytes() < small_bytes) continue;
    const Node& p = g.node(g.value(v).producer);
    if (!cheap_op(p.op()) || !pure(p)) continue;
    // A ReLU after Conv2D or BatchNorm2D* is folded into that op by fuse_activations
    // (docs/architecture.md, "From Python to kernels"): kept, it costs nothing; recomputed,
    // it would be a pass of its own.
    const NodeId in0 = g.value(p.inputs[0]).producer;
    const std::string& before = in0 == kNoNode ? std::string() : g.node(in0).op();
    if (p.op() == "ReLU" && (before == "Conv2D" || before.rfind("BatchNorm2D", 0) == 0)) continue;
    if (std::all_of(p.inputs.begin(), p.inputs.end(), kept_anyway)) out.push_back(v);
  }
  return out;
}

int rematerialize(Graph& g, const std::vector<ValueId>& checkpoints) {
  const std::vector<ValueId> saved = saved_activations(g);
  const std::unordered_set<ValueId> keep(checkpoints.begin(), checkpoints.end());
  const auto consumers = g.consumers();
  const NodeId first_new = g.num_nodes();
  std::unordered_map<ValueId, ValueId> memo;

  // The recomputed twin of v (v itself when it is kept, a leaf, or not recomputable).
  // Iterative post-order over producers so deep chains cannot overflow the stack.
  auto clone = [&](ValueId root) -> ValueId {
    std::vector<std::pair<ValueId, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [v, expanded] = stack.back();
      stack.pop_back();
      if (memo.count(v)) continue;
      const NodeId p = g.value(v).producer;
      if (keep.count(v) || !is_forward(g, v) || !pure(g.node(p)) || view_of_leaf(g, v)) {
        memo[v] = v;
        continue;
      }
      const Node node = g.node(p);  // a copy: add_node may move the node storage
      if (!expanded) {
        stack.push_back({v, true});
        for (ValueId in : node.inputs) if (!memo.count(in)) stack.push_back({in, false});
        continue;
      }
      std::vector<ValueId> ins;
      for (ValueId in : node.inputs) ins.push_back(memo.at(in));
      NodeMeta meta = node.meta;
      meta.role = NodeRole::Recompute;
      const std::vector<ValueId> outs = g.add_node(node.op(), ins, node.attrs, meta);
      for (size_t k = 0; k < outs.size(); ++k) memo[node.outputs[k]] = outs[k];
    }
    return memo.at(root);
  };

  for (ValueId v : saved) {
    if (keep.count(v)) continue;
    const ValueId twin = clone(v);
    if (twin == v) continue;
    for (NodeId c : consumers[static_cast<size_t>(v)]) {
      if (g.node(c).meta.role != NodeRole::Backward) continue;
      const std::vector<ValueId> ins = g.node(c).inputs;
      for (size_t k = 0; k < ins.size(); ++k) {
        if (ins[k] == v) g.replace_input(c, static_cast<int>(k), twin);
      }
    }
  }
  // Just in time: each recompute node runs right before the first node that reads it
  // (recompute nodes were created producers-first, so a reverse walk sees readers first).
  const auto readers = g.consumers();
  for (NodeId n = g.num_nodes() - 1; n >= first_new; --n) {
    double key = -1;
    for (ValueId o : g.node(n).outputs) {
      for (NodeId c : readers[static_cast<size_t>(o)]) {
        const double k = g.node(c).key();
        if (key < 0 || k < key) key = k;
      }
    }
    if (key >= 0) g.set_schedule_key(n, key - 1e-6);
  }
  return g.num_nodes() - first_new;
}

}  // namespace glassgrad
