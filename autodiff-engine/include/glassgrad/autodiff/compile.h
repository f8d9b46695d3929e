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
};

Plan compile(const Graph& g, const CompileOptions& opts = {});

}  // namespace glassgrad
