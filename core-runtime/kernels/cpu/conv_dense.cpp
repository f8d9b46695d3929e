// The dense convolutions of conv_dense.h as GEMMs over the batch.
#include "cpu/conv_dense.h"

#include <algorithm>
#include <vector>

#include "cpu/gemm/gemm.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {
namespace cpu {

namespace {

// The forward with fewer output channels than one NR-wide tile (the discriminator's K = 1) takes
// every y[n, k] as the dot product of image n with weight row k (gemm_dot): a packed GEMM would
// compute its tiles mostly on padding on either axis (K padded to NR, or N to NR and K to MR).
bool forward_by_dots(const ConvGeometry& g, DType dt) { return g.k < gemm_nr(dt); }

// C [m, n] = A x B + beta * C, C dense row-major.
template <typename T>
void product(int64_t m, int64_t n, int64_t k, MatrixView<T> a, MatrixView<T> b, T beta, T* c, void* workspace,
             size_t bytes) {
  GemmProblem<T> gp(m, n, k);
  gp.a = a;
  gp.b = b;
  gp.beta = beta;
  gp.c = c;
  gp.ldc = n;
  gemm(gp, {workspace, bytes});
}

}  // namespace

size_t dense_forward_workspace(const ConvGeometry& g, DType dt) {
  return forward_by_dots(g, dt) ? 0 : gemm_workspace_bytes(g.n, g.k, g.crs(), dt);
}
size_t dense_backward_input_workspace(const ConvGeometry& g, DType dt) {
  return gemm_workspace_bytes(g.n, g.crs(), g.k, dt);
}
size_t dense_backward_weight_workspace(const ConvGeometry& g, DType dt) {
  return gemm_workspace_bytes(g.k, g.crs(), g.n, dt);
}

template <typename T>
void dense_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y, void* workspace, size_t bytes) {
  const int64_t crs = g.crs();
  if (bias != nullptr) {
    for (int64_t n = 0; n < g.n; ++n) std::copy(bias, bias + g.k, y + n * g.k);
  }
  const T beta = bias != nullptr ? T(1) : T(0);
  if (forward_by_dots(g, sizeof(T) == 4 ? DType::Float32 : DType::Float64)) {
    // y [N, K] = rows of x . rows of w, images split over threads when there is work enough.
    const int64_t per_image = std::max<int64_t>(1, g.k * crs);
    parallel_for(g.n, std::max<int64_t>(1, kGemmMinParallelWork / per_image), [&](int64_t n0, int64_t n1) {
      std::vector<const T*> rows(static_cast<size_t>(g.k));
      for (int64_t k = 0; k < g.k; ++k) rows[static_cast<size_t>(k)] = w + k * crs;
      GemmDotProblem<T> dp(n1 - n0, g.k, crs);
      dp.a = x + n0 * crs;
      dp.lda = crs;
      dp.b_rows = rows.data();
      dp.beta = beta;
      dp.c = y + n0 * g.k;
      dp.ldc = g.k;
      gemm_dot(dp);
    });
    return;
  }
  product(g.n, g.k, crs, row_major(x, crs), transpose_of(w, crs), beta, y, workspace, bytes);
}

template <typename T>
void dense_backward_input(const ConvGeometry& g, const T* gy, const T* w, T* dx, void* workspace, size_t bytes) {
  product(g.n, g.crs(), g.k, row_major(gy, g.k), row_major(w, g.crs()), T(0), dx, workspace, bytes);
}

template <typename T>
void dense_backward_weight(const ConvGeometry& g, const T* x, const T* gy, T* dw, void* workspace, size_t bytes) {
  product(g.k, g.crs(), g.n, transpose_of(gy, g.k), row_major(x, g.crs()), T(0), dw, workspace, bytes);
}

template void dense_forward<float>(const ConvGeometry&, const float*, const float*, const float*, float*, void*, size_t);
template void dense_forward<double>(const ConvGeometry&, const double*, const double*, const double*, double*, void*,
                                    size_t);
template void dense_backward_input<float>(const ConvGeometry&, const float*, const float*, float*, void*, size_t);
template void dense_backward_input<double>(const ConvGeometry&, const double*, const double*, double*, void*, size_t);
template void dense_backward_weight<float>(const ConvGeometry&, const float*, const float*, float*, void*, size_t);
template void dense_backward_weight<double>(const ConvGeometry&, const double*, const double*, double*, void*,
                                            size_t);

}  // namespace cpu
}  // namespace glassgrad
