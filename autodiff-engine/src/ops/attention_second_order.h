// The gradient rule of ScaledDotProductAttentionBackward (attention_second_order.cpp has the
// formulas): what a second backward through scaled dot-product attention differentiates.
#pragma once
#include "op_helpers.h"

namespace glassgrad {
namespace ops {

// ScaledDotProductAttentionBackward(g, q, k, v, out, lse[, mask][, seed]) -> (dq, dk, dv, dmask).
void attention_backward_gradient(GradContext& c);

}  // namespace ops
}  // namespace glassgrad
