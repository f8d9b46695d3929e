// Eager execution of a single op on tensors: shape rule, output allocation, kernel call.
// This is what glassgrad.kernels calls (tests and teaching) and what the executor does per step.
#pragma once
#include <string>
#include <vector>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// Runs `op` on `inputs` and returns its outputs. View ops return views; in-place outputs are
// the input tensors themselves (written in place). Errors name the op, layer, shapes, devices.
std::vector<Tensor> run_op(const std::string& op, const std::vector<Tensor>& inputs,
                           const Attrs& attrs = {}, const NodeMeta& meta = {});

}  // namespace glassgrad
