// The Winograd transforms of kernels/winograd_transforms.h, shared by the CPU and CUDA kernels:
// every written-out 1-D transform against its matrix (B^T, G, A^T or a transpose), the 2-D
// forward algorithm against a direct 3x3 correlation, and the adjoint transforms against the
// gradients of that correlation. In float64 (exact up to rounding) and through a GCC vector
// type in float32 (how the CPU kernels call them: several tiles per call).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "winograd_transforms.h"

using namespace glassgrad::winograd;

namespace {

std::vector<double> random_values(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(rng);
  return v;
}

// out[i] = sum_j mat[i][j] in[j] (rows x cols), or with the transpose of mat.
template <int Rows, int Cols>
std::vector<double> apply(const double (&mat)[Rows][Cols], const std::vector<double>& in, bool transpose) {
  std::vector<double> out(transpose ? Cols : Rows, 0.0);
  for (int i = 0; i < Rows; ++i)
    for (int j = 0; j < Cols; ++j) {
      if (transpose) out[j] += mat[i][j] * in[i];
      else out[i] += mat[i][j] * in[j];
    }
  return out;
}

// Strided input and output (stride 2 and 3) so that the stride arguments are exercised.
template <typename Fn>
std::vector<double> call_1d(Fn fn, const std::vector<double>& in, int out_n) {
  std::vector<double> src(in.size() * 2, 1e9), dst(static_cast<size_t>(out_n) * 3, 7.0);
  for (size_t i = 0; i < in.size(); ++i) src[i * 2] = in[i];
  fn(src.data(), 2, dst.data(), 3);
  std::vector<double> out(static_cast<size_t>(out_n));
  for (int i = 0; i < out_n; ++i) out[i] = dst[static_cast<size_t>(i) * 3];
  return out;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << what << " element " << i;
}

template <class W>
void check_1d_against_matrices() {
  constexpr int A = W::alpha, M = W::m;
  std::mt19937 rng(M * W::stride);
  for (int trial = 0; trial < 20; ++trial) {
    const auto a = random_values(rng, A), g = random_values(rng, 3), y = random_values(rng, M);
    expect_near(call_1d(W::template input_1d<double, double>, a, A), apply(W::BT, a, false), 1e-13, "input_1d");
    expect_near(call_1d(W::template input_adjoint_1d<double, double>, a, A), apply(W::BT, a, true), 1e-13,
                "input_adjoint_1d");
    expect_near(call_1d(W::template filter_1d<double, double>, g, A), apply(W::G, g, false), 1e-13, "filter_1d");
    expect_near(call_1d(W::template filter_adjoint_1d<double, double>, a, 3), apply(W::G, a, true), 1e-13,
                "filter_adjoint_1d");
    expect_near(call_1d(W::template output_1d<double, double>, a, M), apply(W::AT, a, false), 1e-13, "output_1d");
    expect_near(call_1d(W::template output_adjoint_1d<double, double>, y, A), apply(W::AT, y, true), 1e-13,
                "output_adjoint_1d");
  }
}

TEST(WinogradTransforms, OneDimensionalFormsEqualTheirMatricesF2) { check_1d_against_matrices<F<2>>(); }
TEST(WinogradTransforms, OneDimensionalFormsEqualTheirMatricesF4) { check_1d_against_matrices<F<4>>(); }
TEST(WinogradTransforms, OneDimensionalFormsEqualTheirMatricesStride2) { check_1d_against_matrices<F2Stride2>(); }

// y[i, j] = sum_{r,s} d[i + r, j + s] g[r, s] over an alpha x alpha tile.
template <int M>
std::vector<double> direct_correlation(const std::vector<double>& d, const std::vector<double>& g) {
  constexpr int A = F<M>::alpha;
  std::vector<double> y(M * M, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j)
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) y[i * M + j] += d[(i + r) * A + j + s] * g[r * 3 + s];
  return y;
}

// The forward algorithm on one tile: A^T [ (G g G^T) (.) (B^T d B) ] A.
template <int M, typename T, typename V>
void winograd_tile(const V* d, const V* g, V* y) {
  constexpr int A = F<M>::alpha;
  V u[A * A], v[A * A], prod[A * A];
  filter_tile<M, T, V>(g, u);
  input_tile<M, T, V>(d, v);
  for (int i = 0; i < A * A; ++i) prod[i] = u[i] * v[i];
  output_tile<M, T, V>(prod, y);
}

template <int M>
void check_forward_against_direct_correlation() {
  constexpr int A = F<M>::alpha;
  std::mt19937 rng(100 + M);
  for (int trial = 0; trial < 50; ++trial) {
    const auto d = random_values(rng, A * A), g = random_values(rng, 9);
    std::vector<double> y(M * M);
    winograd_tile<M, double, double>(d.data(), g.data(), y.data());
    expect_near(y, direct_correlation<M>(d, g), 1e-12, "Winograd tile vs direct correlation");
  }
}

TEST(WinogradTransforms, F2x2MatchesDirectCorrelation) { check_forward_against_direct_correlation<2>(); }
TEST(WinogradTransforms, F4x4MatchesDirectCorrelation) { check_forward_against_direct_correlation<4>(); }

// Gradients of L = <correlation(d, g), gy> through the adjoint transforms:
//   gd = B [ (G g G^T) (.) (A gy A^T) ] B^T,   gg = G^T [ (B^T d B) (.) (A gy A^T) ] G
// against the direct sums gd[h, v] = sum_{i,j} gy[i, j] g[h - i, v - j] and
// gg[r, s] = sum_{i,j} gy[i, j] d[i + r, j + s].
template <int M>
void check_gradients_against_direct_sums() {
  constexpr int A = F<M>::alpha;
  std::mt19937 rng(200 + M);
  for (int trial = 0; trial < 50; ++trial) {
    const auto d = random_values(rng, A * A), g = random_values(rng, 9), gy = random_values(rng, M * M);
    double u[A * A], v[A * A], z[A * A], prod[A * A];
    filter_tile<M, double, double>(g.data(), u);
    input_tile<M, double, double>(d.data(), v);
    output_adjoint_tile<M, double, double>(gy.data(), z);
    std::vector<double> gd(A * A), gg(9);
    for (int i = 0; i < A * A; ++i) prod[i] = u[i] * z[i];
    input_adjoint_tile<M, double, double>(prod, gd.data());
    for (int i = 0; i < A * A; ++i) prod[i] = v[i] * z[i];
    filter_adjoint_tile<M, double, double>(prod, gg.data());

    std::vector<double> want_gd(A * A, 0.0), want_gg(9, 0.0);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j)
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s) {
            want_gd[(i + r) * A + j + s] += gy[i * M + j] * g[r * 3 + s];
            want_gg[r * 3 + s] += gy[i * M + j] * d[(i + r) * A + j + s];
          }
    expect_near(gd, want_gd, 1e-12, "input gradient through the adjoint transforms");
    expect_near(gg, want_gg, 1e-12, "weight gradient through the adjoint transforms");
  }
}

TEST(WinogradTransforms, F2x2AdjointsGiveTheCorrelationGradients) { check_gradients_against_direct_sums<2>(); }
TEST(WinogradTransforms, F4x4AdjointsGiveTheCorrelationGradients) { check_gradients_against_direct_sums<4>(); }

// The CPU kernels pass GCC vectors as V (one lane per tile or channel): each lane must equal
// the float64 result to float32 accuracy.
template <int M>
void check_vector_lanes() {
  typedef float V8 __attribute__((vector_size(32)));
  constexpr int A = F<M>::alpha, L = 8;
  std::mt19937 rng(300 + M);
  std::vector<std::vector<double>> d(L), g(L);
  V8 dv[A * A], gv[9], yv[M * M];
  for (int l = 0; l < L; ++l) {
    d[l] = random_values(rng, A * A);
    g[l] = random_values(rng, 9);
    for (int i = 0; i < A * A; ++i) dv[i][l] = static_cast<float>(d[l][i]);
    for (int i = 0; i < 9; ++i) gv[i][l] = static_cast<float>(g[l][i]);
  }
  winograd_tile<M, float, V8>(dv, gv, yv);
  for (int l = 0; l < L; ++l) {
    const auto want = direct_correlation<M>(d[l], g[l]);
    for (int i = 0; i < M * M; ++i) EXPECT_NEAR(yv[i][l], want[i], 2e-5) << "lane " << l << " element " << i;
  }
}

TEST(WinogradTransforms, VectorLanesMatchScalarF2x2) { check_vector_lanes<2>(); }
TEST(WinogradTransforms, VectorLanesMatchScalarF4x4) { check_vector_lanes<4>(); }

// F(2x2, 3x3) at stride 2 on one 5x5 window: y[i, j] = sum_{r,s} d[2i + r, 2j + s] g[r, s], and
// its gradients gd[2i + r, 2j + s] += gy[i, j] g[r, s], gg[r, s] += gy[i, j] d[2i + r, 2j + s],
// through the transforms and their adjoints (float64, and float32 vector lanes).
TEST(WinogradTransforms, Stride2MatchesDirectCorrelationAndGradients) {
  using W = F2Stride2;
  constexpr int A = W::alpha, M = W::m;
  std::mt19937 rng(400);
  for (int trial = 0; trial < 50; ++trial) {
    const auto d = random_values(rng, A * A), g = random_values(rng, 9), gy = random_values(rng, M * M);
    double u[A * A], v[A * A], z[A * A], prod[A * A], y[M * M];
    filter_tile_of<W, double, double>(g.data(), u);
    input_tile_of<W, double, double>(d.data(), v);
    output_adjoint_tile_of<W, double, double>(gy.data(), z);
    for (int i = 0; i < A * A; ++i) prod[i] = u[i] * v[i];
    output_tile_of<W, double, double>(prod, y);
    std::vector<double> gd(A * A), gg(9);
    for (int i = 0; i < A * A; ++i) prod[i] = u[i] * z[i];
    input_adjoint_tile_of<W, double, double>(prod, gd.data());
    for (int i = 0; i < A * A; ++i) prod[i] = v[i] * z[i];
    filter_adjoint_tile_of<W, double, double>(prod, gg.data());

    std::vector<double> want_y(M * M, 0.0), want_gd(A * A, 0.0), want_gg(9, 0.0);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j)
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s) {
            const int at = (2 * i + r) * A + 2 * j + s;
            want_y[i * M + j] += d[at] * g[r * 3 + s];
            want_gd[at] += gy[i * M + j] * g[r * 3 + s];
            want_gg[r * 3 + s] += gy[i * M + j] * d[at];
          }
    expect_near(std::vector<double>(y, y + M * M), want_y, 1e-12, "stride-2 tile vs direct correlation");
    expect_near(gd, want_gd, 1e-12, "stride-2 input gradient through the adjoint transforms");
    expect_near(gg, want_gg, 1e-12, "stride-2 weight gradient through the adjoint transforms");
  }
}

}  // namespace
