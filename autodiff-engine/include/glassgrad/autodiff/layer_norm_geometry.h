// Geometry of layer normalization (Ba et al. 2016; PyTorch's F.layer_norm): the one definition
// that the LayerNorm schemas (shape rules), the CPU kernels and the CUDA launchers read.
//
//   x [*outer, *normalized_shape] (the last len(normalized_shape) axes), seen as a dense
//   [rows, cols] matrix with rows = prod(outer) and cols = prod(normalized); per row r:
//     mean_r = sum_c x[r, c] / cols,   var_r = sum_c (x[r, c] - mean_r)^2 / cols   (biased)
//     rstd_r = 1 / sqrt(var_r + eps),  xhat[r, c] = (x[r, c] - mean_r) * rstd_r
//     y[r, c] = xhat[r, c] * weight[c] + bias[c]            (weight 1, bias 0 when absent)
//
// Attributes (the rules validate them; from() trusts them):
//   normalized_shape ints, at least one, each >= 0: x's trailing axes, normalized together
//   eps              float >= 0, default 1e-5
//   weight, bias     bool, default false: whether the weight / bias input is present
//   stat_grads       bool, default false (backward only): grad_mean and grad_rstd are inputs
//
// Inputs: LayerNorm(x[, weight][, bias]) -> (y, mean, rstd),
//         LayerNormBackward(grad_y, x, mean, rstd[, weight][, grad_mean, grad_rstd])
//             -> (dx, dweight, dbias)   (dweight / dbias are [0] when that parameter is absent).
// mean and rstd have x's outer shape ([] for a normalized x of one row).
#pragma once
#include <cstdint>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct LayerNormGeometry {
  Shape outer;        // x's axes before the normalized ones: the shape of mean and rstd
  Shape normalized;   // normalized_shape: x's trailing axes, the shape of weight and bias
  int64_t rows = 0;   // prod(outer)
  int64_t cols = 0;   // prod(normalized)
  double eps = 1e-5;
  bool weight = false;
  bool bias = false;
  bool stat_grads = false;

  // Where the optional inputs sit (-1 when absent): the forward's after x, the backward's
  // after grad_y, x, mean and rstd.
  int weight_input(bool backward) const { return weight ? (backward ? 4 : 1) : -1; }
  int bias_input() const { return bias ? (weight ? 2 : 1) : -1; }
  int grad_mean_input() const { return stat_grads ? 4 + (weight ? 1 : 0) : -1; }

  // From x's shape (ending in normalized_shape, already validated) and the attributes.
  static LayerNormGeometry from(const Shape& x, const Attrs& a) {
    LayerNormGeometry g;
    g.normalized = a.ints("normalized_shape");
    g.outer.assign(x.begin(), x.end() - static_cast<std::ptrdiff_t>(g.normalized.size()));
    g.rows = numel(g.outer);
    g.cols = numel(g.normalized);
    g.eps = a.f("eps", 1e-5);
    g.weight = a.b("weight", false);
    g.bias = a.b("bias", false);
    g.stat_grads = a.b("stat_grads", false);
    return g;
  }
};

}  // namespace glassgrad
