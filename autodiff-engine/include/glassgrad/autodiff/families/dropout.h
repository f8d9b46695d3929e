// The dropout family's geometry (ops in families/dropout.def): the one reading of its attribute,
// with its default, for the shape and gradient rules (autodiff-engine/src/ops/dropout.cpp), the
// CPU kernels and the CUDA launchers.
//
//   p   the probability of dropping an element, in [0, 1] (required; the shape rule checks it)
//
// The mask of element i depends on the seed input and i alone (core-runtime/kernels/dropout_rules.h).
#pragma once
#include "glassgrad/autodiff/attrs.h"

namespace glassgrad {

struct DropoutAttrs {
  double p = 0.0;

  static DropoutAttrs from(const Attrs& attrs);
};

}  // namespace glassgrad
