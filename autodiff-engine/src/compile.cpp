#include "glassgrad/autodiff/compile.h"

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/fusion.h"

namespace glassgrad {

Plan compile(const Graph& graph, const CompileOptions& opts) {
  std::vector<ValueId> outputs = opts.outputs.empty() ? graph.outputs() : opts.outputs;
  for (ValueId v : outputs) {
    if (v < 0 || v >= graph.num_values()) throw ValueError("compile: output %" + std::to_string(v) + " is not in the graph");
  }
  Graph g = graph;  // passes rewrite a copy
  if (opts.fuse) {
    std::vector<std::pair<ValueId, ValueId>> remap;
    fuse_elementwise(g, outputs, &remap);
    for (auto& v : outputs) {
      for (const auto& r : remap) if (v == r.first) v = r.second;
    }
  }
  insert_contiguous_copies(g);
  const std::vector<NodeId> live = live_nodes(g, outputs);
  const std::vector<NodeId> order = schedule(g, live);
  MemoryPlanOptions mopts;
  mopts.alignment = opts.alignment;
  mopts.workspace = opts.workspace;
  mopts.inplace_reuse = opts.inplace_reuse;
  Plan plan = build_plan(g, order, outputs, mopts);
  uint64_t sig = hash_combine(graph.signature(), (opts.fuse ? 1u : 0u) | (opts.inplace_reuse ? 2u : 0u));
  for (ValueId v : outputs) sig = hash_combine(sig, static_cast<uint64_t>(v));
  plan.signature = sig;
  return plan;
}

}  // namespace glassgrad
