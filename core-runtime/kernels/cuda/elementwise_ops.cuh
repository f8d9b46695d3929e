// The elementwise ops on the device, by op code: a switch over the rows of elementwise_ops.def
// calling each row's scalar function (glassgrad/autodiff/elementwise_scalar.h, the very
// expressions the CPU kernels run). Shared by the elementwise kernels and the fused
// register-program kernel (fused.cu), so all of them compute exactly the same thing. The
// switch is uniform across the grid (one op per launch or per instruction): no divergence.
#pragma once
#include "common.cuh"
#include "glassgrad/autodiff/elementwise_scalar.h"

namespace gg_ew {

using glassgrad::Elementwise;
using glassgrad::ElementwiseKind;
using glassgrad::ElementwiseOp;

// True when row OP takes ARITY operands of type T and (COMPARE) writes bool.
template <ElementwiseOp OP, typename T, int ARITY, bool COMPARE>
struct Runs {
  using E = Elementwise<OP>;
  static constexpr bool value = glassgrad::ElementwiseAccepts<E::dtypes, T>::value && E::arity == ARITY &&
                                (E::kind == ElementwiseKind::Compare) == COMPARE;
};

// Binary and backward-map rows: out = f(a, b, s).
template <typename T>
__device__ __forceinline__ T binary(int op, T a, T b, double s) {
  switch (op) {
#define GG_ELEMENTWISE(Name, ...)                                                    \
  case (int)ElementwiseOp::Name:                                                     \
    if constexpr (Runs<ElementwiseOp::Name, T, 2, false>::value)                     \
      return (T)Elementwise<ElementwiseOp::Name>::f(a, b, T(s));                     \
    break;
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
  }
  return T(0);
}

// Comparison rows: out = (a ? b) as one byte, 0 or 1.
template <typename T>
__device__ __forceinline__ unsigned char compare(int op, T a, T b) {
  switch (op) {
#define GG_ELEMENTWISE(Name, ...)                                                    \
  case (int)ElementwiseOp::Name:                                                     \
    if constexpr (Runs<ElementwiseOp::Name, T, 2, true>::value)                      \
      return (unsigned char)Elementwise<ElementwiseOp::Name>::f(a, b, T(0));         \
    break;
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
  }
  return 0;
}

// Unary rows (with or without a scalar attribute s): out = f(x, s).
template <typename T>
__device__ __forceinline__ T unary(int op, T x, double s) {
  switch (op) {
#define GG_ELEMENTWISE(Name, ...)                                                    \
  case (int)ElementwiseOp::Name:                                                     \
    if constexpr (Runs<ElementwiseOp::Name, T, 1, false>::value)                     \
      return (T)Elementwise<ElementwiseOp::Name>::f(x, T(0), T(s));                  \
    break;
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
  }
  return x;
}

}  // namespace gg_ew
