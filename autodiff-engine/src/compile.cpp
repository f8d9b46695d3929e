#include "glassgrad/autodiff/compile.h"

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

Plan compile(const Graph& graph, const CompileOptions& opts) {
  std::vector<ValueId> outputs = opts.outputs.empty() ? graph.outputs() : opts.outputs;
  for (ValueId v : outputs) {
    if (v < 0 || v >= graph.num_values()) throw ValueError("compile: output %" + std::to_string(v) + " is not in the graph");
  }
  Graph g = graph;  // passes rewrite a copy
  insert_contiguous_copies(g);
  const std::vector<NodeId> live = live_nodes(g, outputs);
  const std::vector<NodeId> order = schedule(g, live);
  MemoryPlanOptions mopts;
  mopts.alignment = opts.alignment;
  mopts.workspace = opts.workspace;
  Plan plan = build_plan(g, order, outputs, mopts);
  uint64_t sig = graph.signature();
  for (ValueId v : outputs) sig = hash_combine(sig, static_cast<uint64_t>(v));
  plan.signature = sig;
  return plan;
}

}  // namespace glassgrad
