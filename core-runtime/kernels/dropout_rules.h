// Which elements the Dropout op keeps (kernels/cpu/dropout.cpp, kernels/cuda/dropout.cu; the op
// is declared in autodiff-engine/src/ops/dropout.cpp): element i of the flat, row-major tensor is
// kept when word i % 4 of Philox4x32-10 at counter i / 4 under the seed (philox.h) is at least
// keep_threshold(p). One evaluation serves four consecutive elements, the four a CUDA thread
// writes with one 16-byte store; the mask depends on the seed and the element's index alone,
// so the backward (Dropout of the gradient under the same seed) regenerates it, and the CPU
// and CUDA kernels drop the same elements.
#pragma once
#include "philox.h"
#if !defined(__CUDACC_RTC__)  // NVRTC has no <cmath>; the coefficients are host code
#include <cmath>
#endif

namespace glassgrad {
namespace dropout_rule {

// keep[q] for elements 4 * group + q.
GG_PHILOX_RULE void keep4(uint64_t seed, uint64_t threshold, uint64_t group, bool (&keep)[4]) {
  uint32_t w[4];
  philox::philox4(group, seed, w);
  for (int q = 0; q < 4; ++q) keep[q] = static_cast<uint64_t>(w[q]) >= threshold;
}

#if !defined(__CUDACC_RTC__)
// AlphaDropout's coefficients (autodiff-engine/src/ops/dropout.cpp), computed on the host by
// both backends: y = x * (keep ? a : 0) + (keep ? kept : dropped); all 0 for p = 1 (y = x * 0).
struct AlphaCoefficients {
  double a = 0, kept = 0, dropped = 0;
  explicit AlphaCoefficients(double p) {
    if (p >= 1.0) return;
    const double alpha = 1.7580993408473766;  // SELU's -scale * alpha
    a = 1.0 / std::sqrt((alpha * alpha * p + 1.0) * (1.0 - p));
    kept = alpha * a * p;
    dropped = alpha * a * (p - 1.0);
  }
};
#endif

}  // namespace dropout_rule
}  // namespace glassgrad
