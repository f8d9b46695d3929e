// The gradient rules of batch normalization's backward ops (norm_second_order.cpp has the
// formulas): what a second backward through BatchNorm and InstanceNorm differentiates.
#pragma once
#include "glassgrad/autodiff/families/norm.h"
#include "op_helpers.h"

namespace glassgrad {
namespace ops {

// BatchNorm2DBackward(grad_y, x, gamma, mean, var[, grad_mean, grad_var]) -> (dx, dgamma, dbeta).
void batch_norm_backward_gradient(GradContext& c);
// BatchNorm2DInferenceBackward(grad_y, x, gamma, running_mean, running_var)
// -> (dx, dgamma, dbeta, drunning_mean, drunning_var).
void batch_norm_inference_backward_gradient(GradContext& c);

}  // namespace ops
}  // namespace glassgrad
