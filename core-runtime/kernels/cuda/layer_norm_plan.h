// How the layer-norm launcher (kernels/cuda/layer_norm.cpp) sets up kernels/cuda/layer_norm.cu:
// the parameter block, the partitions of the parameter gradients and the workspace they need.
// Shared with the kernels' CPU emulation test (core-runtime/tests/test_cuda_emulated_layer_norm.cpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "layer_norm_params.h"
#include "glassgrad/autodiff/layer_norm_geometry.h"

namespace glassgrad {
namespace cuda {
namespace layer_norm {

// The parameter gradients sum at least kPartRows rows a partition and use at most kMaxParts
// partitions (each a block per 32 columns): GPT-sized layers ([16384, 384]) get 64 partitions of
// 256 rows, 768 blocks; a few hundred rows stay in one partition that writes the sums directly.
constexpr int64_t kPartRows = 256, kMaxParts = 64;

inline GGLayerNorm params_of(const LayerNormGeometry& g) {
  GGLayerNorm p{};
  p.rows = g.rows;
  p.cols = g.cols;
  p.eps = g.eps;
  p.has_weight = g.weight ? 1 : 0;
  p.has_bias = g.bias ? 1 : 0;
  p.stat_grads = g.stat_grads ? 1 : 0;
  const int64_t parts = std::max<int64_t>(1, std::min(kMaxParts, g.rows / kPartRows));
  p.part_rows = std::max<int64_t>(1, (g.rows + parts - 1) / parts);
  p.parts = static_cast<int32_t>(g.rows ? (g.rows + p.part_rows - 1) / p.part_rows : 1);
  return p;
}

// Bytes of the partitions' sums ([parts][2][cols]), 0 when one partition writes the results.
inline size_t workspace_bytes(const GGLayerNorm& p, size_t dtype_bytes) {
  if (p.parts <= 1 || (!p.has_weight && !p.has_bias)) return 0;
  return static_cast<size_t>(p.parts) * 2 * static_cast<size_t>(p.cols) * dtype_bytes;
}

}  // namespace layer_norm
}  // namespace cuda
}  // namespace glassgrad
