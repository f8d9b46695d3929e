// Geometry of one 2-D convolution: the single definition that the Conv2D schemas (shape rules),
// the CPU kernels and the CUDA launchers read. PyTorch's semantics:
//
//   input [N, C, H, W], weight [K, C / groups, R, S], output [N, K, Ho, Wo]
//   y[n, k, i, j] = b[k] + sum_{c' < C/groups, r < R, s < S}
//                     x[n, g*(C/groups) + c', i*sh + r*dh - pt, j*sw + s*dw - pl] * w[k, c', r, s]
//   with g = k / (K/groups) the group of output channel k (x is 0 outside the image), and
//   Ho = (H + pt + pb - dh*(R-1) - 1) / sh + 1,  Wo = (W + pl + pr - dw*(S-1) - 1) / sw + 1.
//
// Attributes of Conv2D, Conv2DBackwardInput and Conv2DBackwardWeight (all optional):
//   stride [sh, sw] (default 1), padding [pt, pb, pl, pr] (default 0), dilation [dh, dw]
//   (default 1), groups (default 1). The shape rules validate them (autodiff-engine/src/ops/conv.cpp);
//   from() trusts them.
#pragma once
#include <cstdint>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct Conv2DGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;      // input  [N, C, H, W]
  int64_t k = 0, r = 0, s = 0;             // weight [K, C / groups, R, S]
  int64_t groups = 1;
  int64_t sh = 1, sw = 1;                  // stride
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;  // padding top, bottom, left, right
  int64_t dh = 1, dw = 1;                  // dilation
  int64_t ho = 0, wo = 0;                  // output [N, K, Ho, Wo]

  int64_t cg() const { return c / groups; }  // input channels of one group (the weight's axis 1)
  int64_t kg() const { return k / groups; }  // output channels of one group
  int64_t crs() const { return cg() * r * s; }  // one output channel's weights: the GEMM depth
  int64_t hw() const { return h * w; }
  int64_t hwo() const { return ho * wo; }
  // Rows / columns of the input one output pixel's window spans: dilation * (kernel - 1) + 1.
  int64_t extent_h() const { return dh * (r - 1) + 1; }
  int64_t extent_w() const { return dw * (s - 1) + 1; }
  bool unpadded() const { return pt == 0 && pb == 0 && pl == 0 && pr == 0; }
  bool dilated() const { return dh != 1 || dw != 1; }
  bool grouped() const { return groups != 1; }

  // From the input and weight shapes and the op's attributes (already validated).
  static Conv2DGeometry from(const Shape& input, const Shape& weight, const Attrs& attrs);
};

// Output size along one axis: (in + pad_lo + pad_hi - dilation*(kernel-1) - 1) / stride + 1,
// or 0 when the dilated kernel does not fit the padded input.
int64_t conv_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_lo, int64_t pad_hi, int64_t dilation);

}  // namespace glassgrad
