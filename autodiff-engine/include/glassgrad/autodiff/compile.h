// The compile pipeline: fusion -> Contiguous copies where kernels need dense inputs ->
// dead-code elimination -> schedule -> memory plan -> Plan.
#pragma once
#include <cstddef>
#include <vector>

#include "glassgrad/autodiff/graph.h"
#include "glassgrad/autodiff/passes.h"
#include "glassgrad/autodiff/plan.h"

namespace glassgrad {

struct CompileOptions {
  std::vector<ValueId> outputs;   // empty: the graph's marked outputs
  WorkspaceFn workspace;          // per-step scratch sizes (from the runtime)
  size_t alignment = 64;
  bool fuse = true;               // fusion passes (fusion.h)
  bool inplace_reuse = true;      // elementwise steps may overwrite dying inputs
  bool recompute_cheap = true;    // recompute cheap saved activations in the backward (remat.h)
  // Bytes the plan may use per device for its arena plus its outputs (0: no limit). When the
  // plain plan needs more, activations are recomputed (remat.h) with as few segments as fit;
  // when nothing fits, OutOfMemoryError names the smallest budget that would.
  size_t memory_budget = 0;
  // How many times the plan's output buffers count against memory_budget: 2 where the runtime
  // replays the plan as a CUDA graph, whose captured outputs stay allocated beside the copies it
  // hands out (docs/architecture.md "Memory limits and CUDA graphs").
  int output_copies = 1;
};

Plan compile(const Graph& g, const CompileOptions& opts = {});

// Arena + output_copies x output bytes of a plan on its most demanding device: what
// memory_budget bounds.
size_t plan_budget_bytes(const Plan& p, int output_copies = 1);

}  // namespace glassgrad
