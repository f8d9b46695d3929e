// The collective family's attributes (ops in families/collective.def), read once, with their
// defaults, for the shape rules (autodiff-engine/src/ops/collective.cpp) and both backends:
//   group       the communicator (glassgrad/runtime/communicator.h) the op talks through (required)
//   op          "sum" (default) or "average" (divided by world_size)
//   world_size  the ranks of the group (AllReduce; required there)
//   bucket      the gradient bucket whose all-reduce may still be in flight when AllReduce
//               returns, joined by the AllReduceWait of the same bucket; -1 (default): none
#pragma once
#include <cstdint>

#include "glassgrad/autodiff/attrs.h"

namespace glassgrad {

struct CollectiveAttrs {
  int64_t group = 0;
  bool average = false;
  int64_t world_size = 1;
  int64_t bucket = -1;

  static CollectiveAttrs from(const Attrs& attrs);
};

}  // namespace glassgrad
