// The reduction family's attributes (ops in families/reduction.def), read once, with their
// defaults, for the shape and gradient rules (autodiff-engine/src/ops/reduction.cpp) and both
// backends:
//   dims        the reduced axes, negative ones counting from the end; absent or empty: every
//               axis (Sum, Mean, Max, Var)
//   dim         ArgMax's one axis (required)
//   keepdim     reduced axes kept as size 1 (default false)
//   correction  Var divides by max(0, count - correction) (default 1: the unbiased variance), as
//               PyTorch: with no degrees of freedom left it divides by 0 (NaN where every
//               deviation is 0, inf elsewhere)
// The shape rules validate them; the kernels read attributes the rules accepted.
#pragma once
#include <cstdint>
#include <vector>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct ReductionAttrs {
  std::vector<int64_t> axes;  // the reduced axes of a rank-`rank` input, in [0, rank), as given
  bool keepdim = false;
  int64_t correction = 1;

  // argmax: the one axis of attribute dim (else dims).
  static ReductionAttrs from(const Attrs& attrs, int rank, bool argmax = false);
  // Axis d is reduced.
  bool reduces(int d) const;
  // Elements reduced into each output element of an input of shape `in`.
  int64_t count(const Shape& in) const;
  // Var's divisor for `count` reduced elements: max(0, count - correction).
  int64_t var_divisor(int64_t count) const { return count > correction ? count - correction : 0; }
};

}  // namespace glassgrad
