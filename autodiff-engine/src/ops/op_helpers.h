// Helpers shared by the op families' shape and gradient rules (internal to the engine).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "glassgrad/autodiff/gradients.h"
#include "glassgrad/autodiff/op_schema.h"

namespace glassgrad {
namespace ops {

inline TensorInfo with_dtype(TensorInfo t, DType dt) {
  t.dtype = dt;
  return t;
}
inline TensorInfo with_shape(TensorInfo t, Shape s) {
  t.shape = std::move(s);
  return t;
}

// Broadcast shape of inputs a and b, with a message naming both shapes on failure.
Shape broadcast_or_fail(const ShapeContext& ctx, int a, int b);
// Broadcast shape of the inputs, taken in order as PyTorch's TensorIterator takes its operands:
// the first line of a failure is PyTorch's sentence for the shape so far against the next input
// (tensor a and tensor b), the detail names every input's shape.
Shape broadcast_inputs_or_fail(const ShapeContext& ctx, std::initializer_list<int> inputs);
// Normalized, sorted, de-duplicated axes from attribute `key` (absent or empty: all axes).
std::vector<int64_t> axes_attr(const ShapeContext& ctx, const char* key, int rank);
// Shape after reducing `axes` (kept as 1 when keepdim).
Shape reduced_shape(const Shape& in, const std::vector<int64_t>& axes, bool keepdim);
// Attribute check with a ready message: "<where>: <name> must be <what>, got <value>".
[[noreturn]] void bad_attr(const ShapeContext& ctx, const std::string& name, const std::string& what,
                           const std::string& got, const std::string& fix = "");
// The fused-activation attribute (fusion.h, fused_relu) of Conv2D and BatchNorm2D*: absent,
// "none" or "relu".
void check_activation_attr(const ShapeContext& ctx);
// Inputs a and b (named an, bn in the message) must have the same shape.
void expect_same_shape(const ShapeContext& ctx, int a, int b, const char* an, const char* bn);
// Every input has input 0's dtype and device (ops that lay their inputs out as one buffer: Concat,
// BucketPack); `cause` says why the op needs it, `fix` how to get there. A dtype mismatch fails as
// a type error, a device mismatch as a value error.
void expect_one_dtype_and_device(const ShapeContext& ctx, const char* cause, const char* fix);
// Dtype from a "dtype" string attribute.
DType dtype_attr(const ShapeContext& ctx, const char* key = "dtype");
// A gradient rule's zeros shaped, typed and placed like value `like` (one Full node).
ValueId zeros_like(GradContext& c, ValueId like);

}  // namespace ops
}  // namespace glassgrad
