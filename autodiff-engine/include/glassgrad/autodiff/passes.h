// Graph passes, each a pure function of a graph (or a schedule) that can be tested alone.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "glassgrad/autodiff/graph.h"
#include "glassgrad/autodiff/plan.h"

namespace glassgrad {

// Dead-code elimination: the nodes needed to compute `roots`, plus every node with side
// effects (in-place updates) and what those need, in recording order.
std::vector<NodeId> live_nodes(const Graph& g, const std::vector<ValueId>& roots);

// Topological order of `nodes` (a subset closed under dependencies). Stable: ties keep
// recording order. In-place rule: a node writing input v (OpSchema::inplace) comes after every
// other node in `nodes` that reads v. Throws InternalError on a cycle.
std::vector<NodeId> schedule(const Graph& g, const std::vector<NodeId>& nodes);

// Where each value's elements live: base[v] is the value whose buffer holds them (v itself,
// unless v is a view or an in-place output), layouts[v] the view over that buffer.
struct LayoutAnalysis {
  std::vector<ValueId> base;
  std::vector<Layout> layouts;
  std::vector<char> is_view;  // node output that aliases its base (no kernel runs for views)
};
LayoutAnalysis analyze_layouts(const Graph& g);

// Inserts Contiguous nodes in front of ops that need dense inputs (OpSchema::strided_inputs is
// false) where the input is a strided view. Returns how many were inserted.
int insert_contiguous_copies(Graph& g);

// Scratch bytes a step needs on its device (given by the runtime, which knows its kernels).
using WorkspaceFn = std::function<size_t(const Graph&, const Node&)>;

struct MemoryPlanOptions {
  size_t alignment = 64;
  WorkspaceFn workspace;
  // An elementwise step may write its output over an input buffer of the same shape and dtype
  // whose last reader is that step.
  bool inplace_reuse = true;
};

// Builds the steps and buffer table for a schedule: liveness analysis (first and last step of
// every value), views resolved to their base slot, in-place reuse for elementwise steps, then
// arena offsets packed per device: largest buffers first, each into the smallest free gap
// among the buffers alive at the same time (best fit).
Plan build_plan(const Graph& g, const std::vector<NodeId>& order, const std::vector<ValueId>& outputs,
                const MemoryPlanOptions& opts = {});

}  // namespace glassgrad
