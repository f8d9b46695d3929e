// The optimizer family's attributes (ops in families/optimizer.def), read once, with their
// defaults (PyTorch's), for the shape rules (autodiff-engine/src/ops/optimizer.cpp) and both
// backends. lr, momentum, beta1 and step are 0-d tensor inputs, not attributes.
#pragma once
#include "glassgrad/autodiff/attrs.h"

namespace glassgrad {

struct OptimizerAttrs {
  double weight_decay = 0.0;
  double dampening = 0.0;              // SGD with momentum
  bool nesterov = false;               // SGD with momentum
  double beta2 = 0.999;                // Adam
  double eps = 1e-8;                   // Adam
  bool decoupled_weight_decay = false; // Adam: AdamW's decay

  static OptimizerAttrs from(const Attrs& attrs);
};

}  // namespace glassgrad
