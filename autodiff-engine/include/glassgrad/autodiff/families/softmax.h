// The softmax family's attributes and geometry (ops in families/softmax.def), read once, with
// their defaults, for the shape and gradient rules (autodiff-engine/src/ops/softmax.cpp) and
// both backends:
//   dim              the softmax axis, negative counting from the end (default -1)
//   reduction        cross-entropy: "mean" (default), "sum" or "none"
//   ignore_index     cross-entropy: rows with this label count for nothing (default -100)
//   label_smoothing  cross-entropy: e in [0, 1] (default 0)
// The shape rules validate them; the kernels read attributes the rules accepted.
#pragma once
#include <cstdint>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

// The kernels' codes of the cross-entropy reductions.
enum class CEReduction : int { None = 0, Sum = 1, Mean = 2 };

struct SoftmaxAttrs {
  int64_t dim = -1;
  CEReduction reduction = CEReduction::Mean;
  int64_t ignore_index = -100;
  double label_smoothing = 0.0;

  static SoftmaxAttrs from(const Attrs& attrs);
};

// A tensor around the softmax axis: [outer, d, inner] (a 0-d tensor as [1, 1, 1]).
struct SoftmaxAxis {
  int64_t outer = 1, d = 1, inner = 1;

  static SoftmaxAxis from(const Shape& shape, const Attrs& attrs);
};

}  // namespace glassgrad
