// The gradient rules of the softmax family's backward ops (softmax_second_order.cpp has the
// formulas): what a second backward through Softmax, LogSoftmax and CrossEntropy differentiates.
#pragma once
#include "op_helpers.h"

namespace glassgrad {
namespace ops {

// SoftmaxBackward(grad, y){dim} -> dx.
void softmax_backward_gradient(GradContext& c);
// LogSoftmaxBackward(grad, y){dim} -> dx.
void log_softmax_backward_gradient(GradContext& c);
// CrossEntropyBackward(grad_loss, logits, labels, weight?){reduction, ignore_index, label_smoothing} -> dlogits.
void cross_entropy_backward_gradient(GradContext& c);

}  // namespace ops
}  // namespace glassgrad
