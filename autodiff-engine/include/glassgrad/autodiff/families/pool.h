// The pool family's geometry (ops in families/pool.def): the one reading of the attributes,
// with their defaults, for the shape rules (autodiff-engine/src/ops/pool.cpp), the CPU kernels
// and the CUDA launchers. PyTorch's semantics:
//
//   input [N, C, H, W], window [kh, kw] (attribute kernel), stride [sh, sw] (stride, default:
//   the window), symmetric zero padding [ph, pw] (padding, default [0, 0]), output [N, C, Ho, Wo]:
//   Ho = floor((H + 2*ph - kh) / sh) + 1                 (ceil_mode false, the default)
//   Ho = ceil((H + 2*ph - kh) / sh) + 1, minus 1 if the last window would start at or past
//        H + ph (it must start inside the input or its left padding)      (ceil_mode true)
//   and the same for Wo. The window of output (i, j) starts at (i*sh - ph, j*sw - pw).
//   AvgPool2D's divisor: divisor_override when > 0 (default 0: none); else with
//   count_include_pad (default true) the window's size clipped to the padded input, else its
//   count of real elements.
//
// The shape rules validate the attributes; the kernels read geometries of validated attributes.
#pragma once
#include <cstdint>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct Pool2DGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;      // input [N, C, H, W]
  int64_t kh = 1, kw = 1;                  // window
  int64_t sh = 1, sw = 1;                  // stride
  int64_t ph = 0, pw = 0;                  // padding, both sides
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;            // > 0: AvgPool2D divides by it
  int64_t ho = 0, wo = 0;                  // output [N, C, Ho, Wo]

  int64_t planes() const { return n * c; }
  // From an NCHW input shape and the op's attributes. The output size is left 0 while a
  // window, stride or padding is out of range (the shape rule reports those).
  static Pool2DGeometry from(const Shape& input, const Attrs& attrs);
};

// Output size along one axis of n values (window k, stride s >= 1, padding p): floor or ceil mode;
// 0 when the window is wider than the padded input.
int64_t pooled_size(int64_t n, int64_t k, int64_t s, int64_t p, bool ceil_mode);

}  // namespace glassgrad
