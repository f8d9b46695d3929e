#include "glassgrad/autodiff/compile.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/fusion.h"
#include "glassgrad/autodiff/remat.h"

namespace glassgrad {

size_t plan_budget_bytes(const Plan& p, int output_copies) {
  std::map<Device, size_t> need;
  for (const auto& kv : p.arena_bytes) need[kv.first] += kv.second;
  for (const auto& s : p.slots) {
    if (s.kind == SlotKind::Output) need[s.info.device] += s.bytes * static_cast<size_t>(std::max(1, output_copies));
  }
  size_t most = 0;
  for (const auto& kv : need) most = std::max(most, kv.second);
  return most;
}

namespace {

// The pipeline after any rematerialization: fusion, copies, DCE, schedule, memory plan.
Plan lower(Graph g, std::vector<ValueId> outputs, const CompileOptions& opts) {
  if (opts.fuse) fuse_all(g, outputs);
  insert_contiguous_copies(g);
  const std::vector<NodeId> live = live_nodes(g, outputs);
  const std::vector<NodeId> order = schedule(g, live);
  MemoryPlanOptions mopts;
  mopts.alignment = opts.alignment;
  mopts.workspace = opts.workspace;
  mopts.inplace_reuse = opts.inplace_reuse;
  Plan plan = build_plan(g, order, outputs, mopts);
  for (const auto& st : plan.steps) plan.recomputed_steps += st.meta.role == NodeRole::Recompute ? 1 : 0;
  return plan;
}

// Segment counts to try, from many (little recomputation) to few.
std::vector<int> segment_counts(int n) {
  std::set<int, std::greater<int>> s;
  for (double k = n; k >= 1; k /= 1.35) s.insert(std::max(1, static_cast<int>(std::lround(k))));
  s.insert(std::max(1, static_cast<int>(std::lround(std::sqrt(static_cast<double>(n))))));
  return {s.begin(), s.end()};
}

}  // namespace

Plan compile(const Graph& graph, const CompileOptions& opts) {
  std::vector<ValueId> outputs = opts.outputs.empty() ? graph.outputs() : opts.outputs;
  for (ValueId v : outputs) {
    if (v < 0 || v >= graph.num_values()) throw ValueError("compile: output %" + std::to_string(v) + " is not in the graph");
  }
  uint64_t sig = hash_combine(graph.signature(),
                              (opts.fuse ? 1u : 0u) | (opts.inplace_reuse ? 2u : 0u) | (opts.recompute_cheap ? 4u : 0u));
  for (ValueId v : outputs) sig = hash_combine(sig, static_cast<uint64_t>(v));

  // Saved activations that are cheaper to recompute than to keep are recomputed in the first
  // plan (remat.h, cheap_recomputes); when that one is over budget, checkpointing below picks
  // its own checkpoints.
  const std::vector<ValueId> saved = saved_activations(graph);
  std::set<ValueId> cheap;
  if (opts.recompute_cheap) {
    for (ValueId v : cheap_recomputes(graph, saved)) cheap.insert(v);
  }
  Plan plan;
  if (cheap.empty()) {
    plan = lower(graph, outputs, opts);
  } else {
    Graph g = graph;
    std::vector<ValueId> checkpoints;
    for (ValueId v : saved) {
      if (!cheap.count(v)) checkpoints.push_back(v);
    }
    rematerialize(g, checkpoints);
    plan = lower(std::move(g), outputs, opts);
  }
  plan.signature = sig;
  const size_t plain_need = plan_budget_bytes(plan, opts.output_copies);
  if (opts.memory_budget == 0 || plain_need <= opts.memory_budget) return plan;

  // Over budget: checkpoint. Try many segments first (the fewest recomputed activations).
  size_t best_need = plain_need;
  int best_segments = 0;
  for (int segments : segment_counts(static_cast<int>(saved.size()))) {
    Graph g = graph;
    // Checkpoints as before: a cheap value's inputs need not be checkpoints here, so recomputing
    // it could reach further back than keeping it.
    const std::vector<ValueId> checkpoints = segment_checkpoints(graph, saved, segments);
    const int added = rematerialize(g, checkpoints);
    if (added == 0) continue;
    Plan p = lower(std::move(g), outputs, opts);
    const size_t need = plan_budget_bytes(p, opts.output_copies);
    if (need < best_need) best_need = need, best_segments = segments;  // the smallest seen
    if (need <= opts.memory_budget) {
      p.signature = sig;
      p.unlimited_need = plain_need;
      size_t kept = 0;
      for (ValueId v : checkpoints) kept += graph.value(v).info.nbytes() >= 64 * 1024 ? 1 : 0;
      p.notes = "checkpointing: " + std::to_string(kept) + " checkpoints, " + std::to_string(p.recomputed_steps) +
                " steps recomputed; needs " + format_bytes(need) + " instead of " + format_bytes(plain_need) +
                " (budget " + format_bytes(opts.memory_budget) + ")";
      return p;
    }
  }
  ErrorMessage m("this step does not fit in its memory budget of " + format_bytes(opts.memory_budget));
  m.detail("without checkpointing it needs " + format_bytes(plain_need) + " (arena + outputs)");
  if (best_segments > 0) {
    m.detail("with checkpointing the least it needs is " + format_bytes(best_need) + " (" +
             std::to_string(best_segments) + " segments): the smallest budget that fits");
  } else {
    m.detail("checkpointing cannot help: the activations the backward pass reads are few, small (< 64 KiB) "
             "or cannot be recomputed");
  }
  m.cause("the batch's activations are too large for the limit");
  m.fix("a smaller batch, micro-batches (glassgrad.backward_in_micro_batches), or a limit of at least " +
        format_bytes(best_need));
  throw OutOfMemoryError(m.str());
}

}  // namespace glassgrad
