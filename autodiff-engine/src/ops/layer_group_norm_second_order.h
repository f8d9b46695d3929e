// The gradient rules of LayerNormBackward and GroupNormBackward (layer_group_norm_second_order.cpp
// has the formulas): what a second backward through layer and group normalization differentiates.
#pragma once
#include "op_helpers.h"

namespace glassgrad {
namespace ops {

// LayerNormBackward(grad_y, x, mean, rstd[, weight]) -> (dx, dweight, dbias).
void layer_norm_backward_gradient(GradContext& c);
// GroupNormBackward(grad_y, x, mean, rstd[, weight]) -> (dx, dweight, dbias).
void group_norm_backward_gradient(GradContext& c);

}  // namespace ops
}  // namespace glassgrad
