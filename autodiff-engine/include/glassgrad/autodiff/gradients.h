// Reverse-mode differentiation as a graph transformation. build_backward walks the forward
// graph in reverse topological order and calls each op's gradient rule, which *emits nodes*
// (e.g. Conv2D's rule emits Conv2DBackwardInput and Conv2DBackwardWeight). The result is a
// larger graph holding both passes; nothing is computed here.
//
// Invariants: a gradient has exactly the shape, dtype and device of its value; gradients of a
// value reached along several paths are summed with Add nodes; a rule is only asked for the
// inputs that need a gradient (needs_grad), so e.g. the image fed to the first conv never gets
// a Conv2DBackwardInput node.
//
// Undefined gradients (PyTorch's None, distinct from zeros) are the absence of a contribution:
// a value none reaches has gradient kNoValue, a rule's grad_output is kNoValue there, and a wrt
// value's result is kNoValue. Three things leave a gradient undefined without zeros being made:
// a rule that sets no gradient for an input, a node with the attribute `undefined_gradient`
// (no rule runs; its inputs get nothing from it), and a hook that returns kNoValue.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "glassgrad/autodiff/graph.h"

namespace glassgrad {

class GradContext {
 public:
  GradContext(Graph& g, NodeId node, std::vector<ValueId> grad_outputs,
              std::vector<bool> needs_grad);

  Graph& graph() { return g_; }
  const Node& node() const { return node_; }
  const Attrs& attrs() const { return node_.attrs; }
  int num_inputs() const { return static_cast<int>(node_.inputs.size()); }
  ValueId input(int i) const { return node_.inputs.at(static_cast<size_t>(i)); }
  ValueId output(int i) const { return node_.outputs.at(static_cast<size_t>(i)); }
  // By value: emitting nodes may move the graph's storage, so never hold references into it.
  TensorInfo info(ValueId v) const { return g_.value(v).info; }
  Shape shape(ValueId v) const { return g_.value(v).info.shape; }
  // The gradient flowing into output i, or kNoValue when none does (treat as zero).
  ValueId grad_output(int i) const { return grad_outputs_.at(static_cast<size_t>(i)); }
  bool needs_grad(int i) const { return needs_grad_.at(static_cast<size_t>(i)); }

  // Emit a backward node (scope and source copied from the forward node, role "backward").
  ValueId emit(const std::string& op, const std::vector<ValueId>& inputs, const Attrs& attrs = {});
  std::vector<ValueId> emit_multi(const std::string& op, const std::vector<ValueId>& inputs,
                                  const Attrs& attrs = {});
  // A scalar constant shaped like `like` would broadcast: Full of shape [] on like's device.
  ValueId scalar(double value, ValueId like);
  // Sums g over the axes that broadcasting added or stretched, so the result has `shape`.
  ValueId reduce_to(ValueId g, const Shape& shape);

  // Declare the gradient of input i. Checks that it matches the input's shape and dtype.
  void set_grad(int i, ValueId g);
  const std::vector<ValueId>& input_grads() const { return input_grads_; }

 private:
  Graph& g_;
  Node node_;  // a copy: emitting nodes may move the graph's storage
  std::vector<ValueId> grad_outputs_;
  std::vector<bool> needs_grad_;
  std::vector<ValueId> input_grads_;
};

// Appends the backward graph of `loss` to g and returns, for each value in wrt, the value
// holding d(loss)/d(wrt[i]) (kNoValue when loss does not depend on it). Without a seed, loss
// must hold one element and the seed is 1. Throws ValueError for a non-scalar loss without a
// seed, and UnsupportedError naming the op when a needed gradient rule is missing.
// With a reduction, the gradients of reduction->params are averaged across ranks by bucketed
// AllReduce nodes placed as early as the walk allows (gradient_buckets.h); the values returned
// for them are the reduced gradients.
struct GradientReduction;
// Gradient hooks (Tensor.register_hook, retain_grad): for each value of `values` computed by a
// node, `apply(value, grad)` is called once the value's gradient is complete (every path from
// the loss has added to it) and before it flows on to the value's producer; the gradient
// `apply` returns (grad itself, or a new value of the same shape and dtype) is what flows on,
// and kNoValue makes it undefined (an autograd.Function's backward returning None): nothing
// flows on from the value.
struct GradientHooks {
  std::vector<ValueId> values;
  std::function<ValueId(ValueId value, ValueId grad)> apply;
};
std::vector<ValueId> build_backward(Graph& g, ValueId loss, const std::vector<ValueId>& wrt,
                                    ValueId seed = kNoValue, const GradientReduction* reduction = nullptr,
                                    const GradientHooks* hooks = nullptr);

}  // namespace glassgrad
