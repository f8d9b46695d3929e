// The per-run loops of the batch- and group-norm kernels (norm.cpp): channel sums in double and
// the elementwise passes over one contiguous run, compiled once per instruction set
// (norm_loops_impl.h, included by norm_loops_{generic,avx2,avx512}.cpp). The runtime's baseline
// is SSE2, where a run's double sums go two lanes at a time; the AVX-512 copy takes eight, as
// PyTorch's vectorized batch-norm kernels do. Every copy gives the same bits: the same
// operations in the same order (kLanes fixed accumulators, no FMA contraction), more lanes at once.
#pragma once
#include <cstdint>

namespace glassgrad {
namespace cpu {

template <typename T>
struct NormLoops {
  // sum(p[i]) over p[0, n).
  double (*sum)(const T* p, int64_t n);
  // *sum += sum(p[i] - center), *sumsq += sum((p[i] - center)^2).
  void (*deviation_sums)(const T* p, int64_t n, double center, double* sum, double* sumsq);
  // *sg += sum(g[i]), *sgd += sum(g[i] * (x[i] - center)).
  void (*grad_sums)(const T* g, const T* x, int64_t n, double center, double* sg, double* sgd);
  // y = x*scale + shift, + residual when not null (rounded to T first), then ReLU when relu.
  void (*affine)(const T* x, const T* residual, T* y, int64_t n, T scale, T shift, bool relu);
  // dx = a*g + b*x + k.
  void (*combine)(const T* g, const T* x, T* dx, int64_t n, T a, T b, T k);
};

#define GG_NORM_LOOPS_DECLARE(ns)          \
  namespace ns {                           \
  const NormLoops<float>& loops_f32();     \
  const NormLoops<double>& loops_f64();    \
  }
GG_NORM_LOOPS_DECLARE(norm_loops_generic)
GG_NORM_LOOPS_DECLARE(norm_loops_avx2)
GG_NORM_LOOPS_DECLARE(norm_loops_avx512)
#undef GG_NORM_LOOPS_DECLARE

}  // namespace cpu
}  // namespace glassgrad
