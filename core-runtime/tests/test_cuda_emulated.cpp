// The CUDA convolution kernels run on the CPU through cuda_emulation.h: the Winograd
// convolutions (kernels/cuda/winograd.cu) driven by the launcher's own sequence
// (kernels/cuda/winograd_plan.h), the register-tiled implicit GEMM (conv.cu) with and without
// split k, and the few-channel direct input gradient, each against a float64 direct convolution
// on random data. Grids are capped so the
// kernels' grid-stride loops cover the rest. The GPU parity tests (pytest -m cuda) compare the
// same paths with the CPU kernels on a GPU.
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cuda_emulation.h"
// The kernel sources, compiled as C++ (after the emulation's definitions).
#include "cuda/conv.cu"
#include "cuda/winograd.cu"
#include "cuda/conv_phase.h"
#include "cuda/winograd_plan.h"

namespace {

namespace wg = glassgrad::cuda::winograd;

struct Emulator {
  std::map<std::string, void*> kernels;
  unsigned cap_x = 3, cap_y = 2, cap_z = 5;  // grid caps: grid-stride loops cover the rest
  Emulator() {
#define GG_EMU_ADD(name) kernels[#name] = reinterpret_cast<void*>(&name)
    GG_EMU_ADD(gg_wino2_filter_f32);
    GG_EMU_ADD(gg_wino2_input_f32);
    GG_EMU_ADD(gg_wino2_output_f32);
    GG_EMU_ADD(gg_wino2_grad_output_f32);
    GG_EMU_ADD(gg_wino2_grad_filter_f32);
    GG_EMU_ADD(gg_wino4_filter_f32);
    GG_EMU_ADD(gg_wino4_input_f32);
    GG_EMU_ADD(gg_wino4_output_f32);
    GG_EMU_ADD(gg_wino4_grad_output_f32);
    GG_EMU_ADD(gg_wino4_grad_filter_f32);
    GG_EMU_ADD(gg_wino_gemm128x128_f32);
    GG_EMU_ADD(gg_wino_gemm64x128_f32);
    GG_EMU_ADD(gg_wino_gemm32x128_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm128x128_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm64x128_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm64x64_f32);
    GG_EMU_ADD(gg_wino_gemm128x128k16_f32);
    GG_EMU_ADD(gg_wino_gemm64x128k16_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm128x128k16_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm64x128k16_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm64x64k16_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm32x32k16_f32);
    GG_EMU_ADD(gg_wino_gemm128x128w_f32);
    GG_EMU_ADD(gg_wino_gemm64x128w_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm128x128w_f32);
    GG_EMU_ADD(gg_wino_wgrad_gemm64x128w_f32);
#undef GG_EMU_ADD
  }
  template <typename... A>
  void operator()(const char* name, unsigned gx, unsigned gy, unsigned gz, unsigned threads, A... args) {
    auto it = kernels.find(name);
    if (it == kernels.end()) throw std::runtime_error(std::string("no emulated kernel ") + name);
    launches.push_back(name);
    emulate::launch(reinterpret_cast<void (*)(A...)>(it->second), dim3{std::min(gx, cap_x), std::min(gy, cap_y),
                                                                         std::min(gz, cap_z)},
                    dim3{threads, 1, 1}, args...);
  }
  std::vector<std::string> launches;
};

std::vector<float> random_vector(size_t n, std::mt19937& rng) {
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// float64 direct convolutions: x [N,C,H,W], w [K,C,R,S], y [N,K,OH,OW], stride sh x sw.
// PyTorch's semantics (conv_geometry.h): groups G (w [K, C/G, R, S]) and dilation dh x dw.
struct Ref {
  int64_t N, C, H, W, K, R, S, OH, OW, sh, sw, pt, pl;
  int64_t G = 1, dh = 1, dw = 1;
  template <typename F>
  void each(F f) const {  // f(x index, w index, y index) for every in-range product
    const int64_t Cg = C / G, Kg = K / G;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow)
            for (int64_t cp = 0; cp < Cg; ++cp)
              for (int64_t r = 0; r < R; ++r)
                for (int64_t s = 0; s < S; ++s) {
                  const int64_t c = (k / Kg) * Cg + cp;
                  const int64_t h = oh * sh - pt + r * dh, w = ow * sw - pl + s * dw;
                  if (h < 0 || h >= H || w < 0 || w >= W) continue;
                  f(((n * C + c) * H + h) * W + w, ((k * Cg + cp) * R + r) * S + s, ((n * K + k) * OH + oh) * OW + ow);
                }
  }
  std::vector<double> forward(const std::vector<float>& x, const std::vector<float>& w, const float* b) const {
    std::vector<double> y(N * K * OH * OW, 0.0);
    each([&](int64_t xi, int64_t wi, int64_t yi) { y[yi] += double(x[xi]) * w[wi]; });
    if (b)
      for (size_t i = 0; i < y.size(); ++i) y[i] += b[(i / (OH * OW)) % K];
    return y;
  }
  std::vector<double> input_grad(const std::vector<float>& dy, const std::vector<float>& w) const {
    std::vector<double> dx(N * C * H * W, 0.0);
    each([&](int64_t xi, int64_t wi, int64_t yi) { dx[xi] += double(dy[yi]) * w[wi]; });
    return dx;
  }
  std::vector<double> weight_grad(const std::vector<float>& x, const std::vector<float>& dy) const {
    std::vector<double> dw(K * (C / G) * R * S, 0.0);
    each([&](int64_t xi, int64_t wi, int64_t yi) { dw[wi] += double(dy[yi]) * x[xi]; });
    return dw;
  }
};

// max |got - ref| / max |ref|; every element must have been written (the output is poisoned
// with NaN first, so an unwritten one fails).
double relative_error(const std::vector<float>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    num = std::max(num, std::abs(got[i] - ref[i]));
    den = std::max(den, std::abs(ref[i]));
  }
  return num / std::max(den, 1e-30);
}

struct WinoCase {
  int64_t N, C, H, W, K, pt, pb, pl, pr;
};

// Runs one direction through the launcher's sequence with the emulated kernels.
std::vector<float> run_winograd(wg::Dir d, const WinoCase& t, int m, int tile, int64_t cap_bytes,
                                int64_t target_threads, const std::vector<float>& a0, const std::vector<float>& a1,
                                const std::vector<float>* bias, size_t out_size, wg::Choice* used = nullptr) {
  const wg::Conv c{t.N, t.C, t.H, t.W, t.K, t.H + t.pt + t.pb - 2, t.W + t.pl + t.pr - 2, t.pt, t.pl};
  const wg::Choice ch = wg::choose(d, c, m, tile, target_threads, cap_bytes, 4);
  if (used) *used = ch;
  std::vector<float> ws(static_cast<size_t>(wg::workspace_elements(d, c, ch)), NAN);
  std::vector<float> out(out_size, NAN);
  Emulator emu;
  wg::run(emu, d, c, ch, 3, out.data(), a0.data(), a1.data(), bias ? bias->data() : nullptr, false, ws.data());
  return out;
}

void check_winograd(const WinoCase& t, int m, int tile, int64_t cap_bytes, int64_t target_threads, double tol) {
  std::mt19937 rng(static_cast<unsigned>(t.N * 131 + t.C * 17 + t.K * 7 + m + tile * 1000));
  const int64_t OH = t.H + t.pt + t.pb - 2, OW = t.W + t.pl + t.pr - 2;
  const Ref ref{t.N, t.C, t.H, t.W, t.K, 3, 3, OH, OW, 1, 1, t.pt, t.pl};
  const auto x = random_vector(t.N * t.C * t.H * t.W, rng);
  const auto w = random_vector(t.K * t.C * 9, rng);
  const auto b = random_vector(t.K, rng);
  const auto dy = random_vector(t.N * t.K * OH * OW, rng);
  const std::string what = "F(" + std::to_string(m) + "x" + std::to_string(m) + ") tile " + std::to_string(tile) +
                           " N" + std::to_string(t.N) + " C" + std::to_string(t.C) + " " + std::to_string(t.H) + "x" +
                           std::to_string(t.W) + " K" + std::to_string(t.K);
  wg::Choice used;
  const auto y = run_winograd(wg::Dir::Forward, t, m, tile, cap_bytes, target_threads, x, w, &b, dy.size(), &used);
  const double ey = relative_error(y, ref.forward(x, w, b.data()));
  const auto dx = run_winograd(wg::Dir::BackwardInput, t, m, tile, cap_bytes, target_threads, dy, w, nullptr,
                               x.size());
  const double ex = relative_error(dx, ref.input_grad(dy, w));
  wg::Choice wused;
  const auto dw = run_winograd(wg::Dir::BackwardWeight, t, m, tile, cap_bytes, target_threads, x, dy, nullptr,
                               w.size(), &wused);
  const double ew = relative_error(dw, ref.weight_grad(x, dy));
  std::printf("%s: pass %lld tiles, wgrad splits %lld; relative error forward %.2e input grad %.2e weight grad %.2e\n",
              what.c_str(), static_cast<long long>(used.pc), static_cast<long long>(wused.splits), ey, ex, ew);
  EXPECT_LT(ey, tol) << what << " forward";
  EXPECT_LT(ex, tol) << what << " input gradient";
  EXPECT_LT(ew, tol) << what << " weight gradient";
}

// Tolerances: F(2x2) 2e-5, F(4x4) 1e-4 of the largest reference magnitude (float32 over at most
// a few hundred products; the Python parity tests allow 10x more for larger channel counts).
TEST(CudaEmulated, WinogradF2AllDirectionsOnePass) {
  check_winograd({2, 5, 9, 7, 6, 1, 1, 1, 1}, 2, -1, 1 << 26, 1 << 15, 2e-5);
}

TEST(CudaEmulated, WinogradF4AllDirectionsOnePass) {
  check_winograd({2, 5, 9, 7, 6, 1, 1, 1, 1}, 4, -1, 1 << 26, 1 << 15, 1e-4);
}

TEST(CudaEmulated, WinogradAsymmetricPaddingAndRaggedTiles) {
  // pt 0 / pb 2 and pl 2 / pr 0: tiles overhang the bottom/right edges, offsets differ per axis
  check_winograd({1, 3, 10, 11, 4, 0, 2, 2, 0}, 4, -1, 1 << 26, 1 << 15, 1e-4);
  check_winograd({1, 3, 10, 11, 4, 0, 2, 2, 0}, 2, -1, 1 << 26, 1 << 15, 2e-5);
  check_winograd({2, 4, 6, 6, 3, 0, 0, 0, 0}, 4, -1, 1 << 26, 1 << 15, 1e-4);  // no padding: 4x4 output, one tile
}

TEST(CudaEmulated, WinogradSeveralPassesAndSplits) {
  // m = 2 on 20 x 20: 300 tiles; a small workspace cap makes passes of 128 (weight-gradient
  // passes accumulate) and a large thread target splits the tile axis.
  check_winograd({3, 6, 20, 20, 5, 1, 1, 1, 1}, 2, -1, 1 << 16, 1 << 20, 2e-5);
}

TEST(CudaEmulated, WinogradEveryProductTileAndChannelsPastATile) {
  // 70 channels: rows past one 64-row tile, k steps with a remainder (70 = 8 * 8 + 6 = 16 * 4 + 6);
  // one 4 x 4 tile of output keeps the emulation short. A tile a direction has no kernel of
  // falls back to the heuristic's.
  for (int tile = 0; tile < wg::kTileCount; ++tile)
    check_winograd({1, 70, 4, 4, 70, 1, 1, 1, 1}, 4, tile, 1 << 26, 1 << 10, 1e-4);
}

// ---- implicit GEMM (conv.cu) --------------------------------------------------------------------
GGConvGemm gemm_params(const Ref& r, int splits) {
  GGConvGemm q{};
  q.N = (int)r.N, q.C = (int)r.C, q.H = (int)r.H, q.W = (int)r.W, q.K = (int)r.K, q.R = (int)r.R, q.S = (int)r.S;
  q.OH = (int)r.OH, q.OW = (int)r.OW, q.sh = (int)r.sh, q.sw = (int)r.sw, q.pt = (int)r.pt, q.pl = (int)r.pl;
  q.splits = splits;
  q.div_P = make_fast_div(r.OH * r.OW);
  q.div_OW = make_fast_div(r.OW);
  q.div_RS = make_fast_div(r.R * r.S);
  q.div_S = make_fast_div(r.S);
  return q;
}

// A case for the GEMM-form kernels: random inputs (never zeros) and the reference outputs.
struct GemmCase {
  std::vector<float> x, w, b, dy;
  std::vector<double> yref, dwref;  // the float64 references
};

GemmCase gemm_case(const Ref& r, unsigned seed) {
  std::mt19937 rng(seed);
  GemmCase c;
  c.x = random_vector(r.N * r.C * r.H * r.W, rng);
  c.w = random_vector(r.K * r.C * r.R * r.S, rng);
  c.b = random_vector(r.K, rng);
  c.dy = random_vector(r.N * r.K * r.OH * r.OW, rng);
  c.yref = r.forward(c.x, c.w, c.b.data());
  c.dwref = r.weight_grad(c.x, c.dy);
  return c;
}

// Room for `splits` partial products of the larger GEMM output (forward: K x NP, dW: K x CRS).
std::vector<float> split_workspace(const Ref& r, int splits) {
  const size_t NP = static_cast<size_t>(r.N * r.OH * r.OW), CRS = static_cast<size_t>(r.C * r.R * r.S);
  return std::vector<float>(static_cast<size_t>(splits) * static_cast<size_t>(r.K) * std::max(NP, CRS), NAN);
}

// A copy of v followed by NaNs: a kernel that reads past the end (a k range or row test
// dropped) gets NaN into its sums instead of a neighbour's value that a zero might cancel.
std::vector<float> nan_padded(const std::vector<float>& v) {
  std::vector<float> p(v);
  p.resize(v.size() + 64, NAN);
  return p;
}

// A forward GEMM kernel into y (filled with NaN first), then the split-k reduction when split.
template <class Kernel>
void forward_gemm(Kernel kernel, dim3 grid, unsigned threads, unsigned reduce_blocks, const GGConvGemm& q,
                  int splits, const GemmCase& c, std::vector<float>& y, std::vector<float>& ws) {
  y.assign(c.yref.size(), NAN);
  const std::vector<float> x = nan_padded(c.x), w = nan_padded(c.w);
  emulate::launch(kernel, grid, dim3{threads, 1, 1}, q, y.data(), x.data(), w.data(), c.b.data(), ws.data());
  if (splits > 1)
    emulate::launch(&gg_conv_fwd_reduce_f32, dim3{reduce_blocks, 1, 1}, dim3{256, 1, 1}, q, y.data(),
                    static_cast<const float*>(c.b.data()), static_cast<const float*>(ws.data()));
}

// A weight-gradient GEMM kernel into dw (filled with NaN first), then the split-k reduction.
template <class Kernel>
void weight_grad_gemm(Kernel kernel, dim3 grid, unsigned threads, unsigned reduce_blocks, const GGConvGemm& q,
                      int splits, const GemmCase& c, std::vector<float>& dw, std::vector<float>& ws) {
  dw.assign(c.dwref.size(), NAN);
  emulate::launch(kernel, grid, dim3{threads, 1, 1}, q, dw.data(), c.dy.data(), c.x.data(), ws.data());
  if (splits > 1)
    emulate::launch(&gg_conv_bwd_weight_reduce_f32, dim3{reduce_blocks, 1, 1}, dim3{256, 1, 1}, q, dw.data(),
                    static_cast<const float*>(ws.data()));
}

TEST(CudaEmulated, ImplicitGemmForwardAndWeightGradientWithSplitK) {
  const Ref r{2, 9, 7, 6, 70, 3, 3, 4, 3, 2, 2, 1, 1};  // stride 2, 70 output channels
  const GemmCase c = gemm_case(r, 5);
  for (int splits : {1, 3}) {
    const GGConvGemm q = gemm_params(r, splits);
    std::vector<float> ws = split_workspace(r, splits), y, dw;
    forward_gemm(&gg_conv_fwd_gemm64x128_f32, dim3{2, 1, 2}, 128, 4, q, splits, c, y, ws);
    EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward, splits " << splits;
    for (auto* kernel : {&gg_conv_bwd_weight_gemm128x128_f32, &gg_conv_bwd_weight_gemm128x128k16_f32,
                         &gg_conv_bwd_weight_gemm128x128w_f32}) {
      weight_grad_gemm(kernel, dim3{1, 1, 2}, 256, 4, q, splits, c, dw, ws);
      EXPECT_LT(relative_error(dw, c.dwref), 1e-5) << "weight gradient, splits " << splits;
    }
    forward_gemm(&gg_conv_fwd_gemm128x128k16_f32, dim3{1, 1, 2}, 256, 4, q, splits, c, y, ws);
    EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward 128x128 k16, splits " << splits;
    // 8 x 4 micro-tiles a warp: the epilogue's (16-byte) stores follow the same thread map
    forward_gemm(&gg_conv_fwd_gemm128x128w_f32, dim3{1, 1, 2}, 256, 4, q, splits, c, y, ws);
    EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward 128x128w, splits " << splits;
  }
}

TEST(CudaEmulated, NarrowTilesAndManySplitReduction) {
  // A first layer's weight gradient (dW [16 x 27], [16 x 36]: the 32 x 32 and 64 x 32 tiles)
  // with 1, 3 and 9 k partitions (9: split_reduce's block-per-32-elements path), and a 32-row
  // forward on the 32 x 64 tile; 36 columns take the epilogue's 16-byte stores, 27 do not.
  for (int C : {3, 4}) {
    const Ref r{3, C, 9, 8, 16, 3, 3, 9, 8, 1, 1, 1, 1};
    const GemmCase c = gemm_case(r, 7);
    for (int splits : {1, 3, 9}) {
      const GGConvGemm q = gemm_params(r, splits);
      std::vector<float> ws = split_workspace(r, splits), y, dw;
      for (auto kernel : {&gg_conv_bwd_weight_gemm32x32k16_f32, &gg_conv_bwd_weight_gemm64x32_f32}) {
        const unsigned threads = kernel == &gg_conv_bwd_weight_gemm32x32k16_f32 ? 64 : 128;
        weight_grad_gemm(kernel, dim3{1, 1, 2}, threads, 3, q, splits, c, dw, ws);
        EXPECT_LT(relative_error(dw, c.dwref), 1e-5) << "weight gradient, threads " << threads << ", splits " << splits;
      }
      forward_gemm(&gg_conv_fwd_gemm32x64_f32, dim3{3, 1, 2}, 128, 5, q, splits, c, y, ws);
      EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward 32x64, C " << C << ", splits " << splits;
    }
  }
}

TEST(CudaEmulated, StridedInputGradientOfOnePhaseAfterZeroing) {
  // 1x1 stride 2, no padding, odd sizes: only phase (0, 0) has taps; the launcher zeroes dx
  // (gg_conv_zero: 16-byte stores and a scalar tail) and runs that phase's GEMM alone.
  const Ref r{2, 5, 7, 9, 6, 1, 1, 4, 5, 2, 2, 0, 0};
  std::mt19937 rng(9);
  const auto w = random_vector(r.K * r.C, rng);
  const auto dy = random_vector(r.N * r.K * r.OH * r.OW, rng);
  const auto dxref = r.input_grad(dy, w);
  GGConvGemm q = gemm_params(r, 1);
  // phase (0, 0): r0 = s0 = 0, Ra = Sa = 1, dh = dw = 0, Hp x Wp = 4 x 5
  q.ph = q.pw = q.r0 = q.s0 = q.dh = q.dw = 0;
  q.Ra = q.Sa = 1;
  q.Hp = 4, q.Wp = 5;
  q.div_PP = make_fast_div(20);
  q.div_Wp = make_fast_div(5);
  q.div_RaSa = make_fast_div(1);
  q.div_Sa = make_fast_div(1);
  for (auto kernel : {&gg_conv_bwd_input_gemm32x64_f32, &gg_conv_bwd_input_gemm64x128_f32,
                      &gg_conv_bwd_input_gemm128x64_f32, &gg_conv_bwd_input_gemm128x128w_f32,
                      &gg_conv_bwd_input_gemm128x64k16_f32}) {
    const unsigned threads = kernel == &gg_conv_bwd_input_gemm128x128w_f32 ? 256 : 128;
    std::vector<float> dx(dxref.size() + 1, NAN);
    float* out = dx.data() + 1;  // misaligned for 16-byte stores: the scalar path
    for (float* o : {dx.data(), out}) {
      std::fill(dx.begin(), dx.end(), NAN);
      emulate::launch(&gg_conv_zero_f32, dim3{2, 1, 1}, dim3{64, 1, 1}, o, (int64_t)dxref.size());
      emulate::launch(kernel, dim3{2, 1, 1}, dim3{threads, 1, 1}, q, o, dy.data(), w.data(), static_cast<float*>(nullptr));
      std::vector<float> got(o, o + dxref.size());
      EXPECT_LT(relative_error(got, dxref), 1e-5);
    }
  }
}

TEST(CudaEmulated, TheWideTileInEveryDirection) {
  // 128 x 64 (the image side 64 wide) on a strided layer with 70 output channels and a bias
  // (the forward's 16-byte epilogue: OH * OW = 12), with and without split k.
  const Ref r{2, 9, 7, 6, 70, 3, 3, 4, 3, 2, 2, 1, 1};
  const GemmCase c = gemm_case(r, 11);
  for (int splits : {1, 3}) {
    const GGConvGemm q = gemm_params(r, splits);
    std::vector<float> ws = split_workspace(r, splits), y, dw;
    forward_gemm(&gg_conv_fwd_gemm128x64_f32, dim3{1, 1, 2}, 128, 4, q, splits, c, y, ws);
    EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward, splits " << splits;
    forward_gemm(&gg_conv_fwd_gemm128x64k16_f32, dim3{1, 1, 2}, 128, 4, q, splits, c, y, ws);
    EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward k16, splits " << splits;
    weight_grad_gemm(&gg_conv_bwd_weight_gemm128x64_f32, dim3{1, 1, 2}, 128, 4, q, splits, c, dw, ws);
    EXPECT_LT(relative_error(dw, c.dwref), 1e-5) << "weight gradient, splits " << splits;
  }
}

GGConv generic_params(const Ref& r);

TEST(CudaEmulated, PaddedGathersOfWideFiltersAndEveryStridePhase) {
  // The gathers' tap masks (conv.cu: XGather's rows/cols, BinB's as/bs) at the image's edges:
  // 3x3 stride 2 padding 1 (every input-gradient phase has taps), 5x5 stride 1 padding 2,
  // 7x7 stride 2 padding 3 (a stem), odd sizes, 70 output channels (rows past a 64-row tile,
  // gathered from the last row instead). The forward's weights are read in quads of k
  // (gemm_engine.cuh): 16-byte loads where C*R*S is a multiple of 4 (the first case: 36), 4
  // scalar loads with their own k range tests otherwise.
  const Ref refs[] = {{2, 4, 9, 7, 70, 3, 3, 5, 4, 2, 2, 1, 1},
                      {2, 5, 9, 7, 70, 3, 3, 5, 4, 2, 2, 1, 1},
                      {1, 3, 7, 6, 70, 5, 5, 7, 6, 1, 1, 2, 2},
                      {1, 3, 11, 9, 70, 7, 7, 6, 5, 2, 2, 3, 3}};
  for (const Ref& r : refs) {
    const GemmCase c = gemm_case(r, 13);
    const GGConvGemm q = gemm_params(r, 1);
    std::vector<float> ws = split_workspace(r, 1), y, dw;
    forward_gemm(&gg_conv_fwd_gemm64x128_f32, dim3{2, 2, 1}, 128, 4, q, 1, c, y, ws);
    EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward, R = " << r.R;
    forward_gemm(&gg_conv_fwd_gemm128x128w_f32, dim3{1, 1, 1}, 256, 4, q, 1, c, y, ws);
    EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward 128x128w, R = " << r.R;
    std::vector<float> ws3 = split_workspace(r, 3);  // k chunks of 16 with a ragged last one
    forward_gemm(&gg_conv_fwd_gemm128x128w_f32, dim3{1, 1, 3}, 256, 4, gemm_params(r, 3), 3, c, y, ws3);
    EXPECT_LT(relative_error(y, c.yref), 1e-5) << "forward 128x128w, 3 splits, R = " << r.R;
    weight_grad_gemm(&gg_conv_bwd_weight_gemm64x128_f32, dim3{2, 2, 1}, 128, 4, q, 1, c, dw, ws);
    EXPECT_LT(relative_error(dw, c.dwref), 1e-5) << "weight gradient, R = " << r.R;
    // The input gradient, phase by phase, as the launcher runs it (set_phase).
    const auto dxref = r.input_grad(c.dy, c.w);
    std::vector<float> dx(dxref.size(), NAN);
    for (int ph = 0; ph < r.sh; ++ph)
      for (int pw = 0; pw < r.sw; ++pw) {
        GGConvGemm p = q;
        glassgrad::cuda::conv::set_phase(p, generic_params(r), ph, pw);
        emulate::launch(&gg_conv_bwd_input_gemm128x128w_f32, dim3{1, 1, 1}, dim3{256, 1, 1}, p, dx.data(),
                        c.dy.data(), c.w.data(), static_cast<float*>(nullptr));
      }
    EXPECT_LT(relative_error(dx, dxref), 1e-5) << "input gradient, R = " << r.R;
  }
}

// ---- few input channels: the direct input gradient (conv.cu, bwd_input_fewc) -------------------

TEST(CudaEmulated, FewChannelInputGradientEveryChannelCountRaggedTilesAndSteps) {
  // 3x3 stride 1 with C = 1..4: dx planes of 2 x 2 tiles of 32 x 32 (the last ones ragged),
  // K = 6 and 9 (a step of 4 output channels past K), padding 0, 1 and asymmetric (pt 2 / pb 0,
  // pl 0 / pr 1). Grids of 3 tiles x 1 image: the grid-stride loops cover the rest.
  struct Case {
    int64_t C, H, W, K, pt, pb, pl, pr;
  };
  const Case cases[] = {{1, 34, 40, 6, 0, 0, 0, 0}, {2, 33, 35, 9, 1, 1, 1, 1}, {3, 32, 37, 6, 1, 1, 1, 1},
                        {3, 35, 33, 9, 2, 0, 0, 1}, {4, 40, 34, 6, 1, 1, 1, 1}};
  void (*kernels[4])(GGConv, float*, const float*, const float*) = {
      &gg_conv_bwd_input_fewc1_f32, &gg_conv_bwd_input_fewc2_f32, &gg_conv_bwd_input_fewc3_f32,
      &gg_conv_bwd_input_fewc4_f32};
  for (const Case& t : cases) {
    const Ref r{2, t.C, t.H, t.W, t.K, 3, 3, t.H + t.pt + t.pb - 2, t.W + t.pl + t.pr - 2, 1, 1, t.pt, t.pl};
    std::mt19937 rng(static_cast<unsigned>(t.C * 101 + t.K * 7 + t.pt));
    const auto w = random_vector(r.K * r.C * 9, rng);
    const auto dy = random_vector(r.N * r.K * r.OH * r.OW, rng);
    std::vector<float> dx(r.N * r.C * r.H * r.W, NAN);
    emulate::launch(kernels[t.C - 1], dim3{3, 1, 1}, dim3{128, 1, 1}, generic_params(r), dx.data(), dy.data(),
                    w.data());
    EXPECT_LT(relative_error(dx, r.input_grad(dy, w)), 1e-5)
        << "C " << t.C << " " << t.H << "x" << t.W << " K " << t.K << " pad " << t.pt << "," << t.pl;
  }
}

// ---- grouped and dilated: the generic kernels (conv.cu) ----------------------------------------
GGConv generic_params(const Ref& r) {
  GGConv g{};
  g.N = r.N, g.C = r.C, g.H = r.H, g.W = r.W, g.K = r.K, g.R = r.R, g.S = r.S, g.OH = r.OH, g.OW = r.OW;
  g.sh = r.sh, g.sw = r.sw, g.pt = r.pt, g.pl = r.pl, g.G = r.G, g.dh = r.dh, g.dw = r.dw;
  return g;
}

void check_generic(const Ref& r, const char* what) {
  std::mt19937 rng(static_cast<unsigned>(r.C * 7 + r.K * 3 + r.G + r.dh * 11));
  const auto x = random_vector(r.N * r.C * r.H * r.W, rng);
  const auto w = random_vector(r.K * (r.C / r.G) * r.R * r.S, rng);
  const auto b = random_vector(r.K, rng);
  const auto dy = random_vector(r.N * r.K * r.OH * r.OW, rng);
  const GGConv g = generic_params(r);
  std::vector<float> y(dy.size(), NAN), dx(x.size(), NAN), dw(w.size(), NAN);
  emulate::launch(&gg_conv_fwd_generic_f32, dim3{3, 1, 1}, dim3{64, 1, 1}, g, y.data(), x.data(), w.data(), b.data());
  emulate::launch(&gg_conv_bwd_input_generic_f32, dim3{3, 1, 1}, dim3{64, 1, 1}, g, dx.data(), dy.data(), w.data());
  emulate::launch(&gg_conv_bwd_weight_generic_f32, dim3{5, 1, 1}, dim3{32, 1, 1}, g, dw.data(), dy.data(), x.data());
  EXPECT_LT(relative_error(y, r.forward(x, w, b.data())), 1e-5) << what << " forward";
  EXPECT_LT(relative_error(dx, r.input_grad(dy, w)), 1e-5) << what << " input gradient";
  EXPECT_LT(relative_error(dw, r.weight_grad(x, dy)), 1e-5) << what << " weight gradient";
}

TEST(CudaEmulated, GroupedDepthwiseAndDilatedConvolutionsOnTheGenericKernels) {
  // N C H W K R S OH OW sh sw pt pl G dh dw (OH, OW from pt = pb, pl = pr unless noted)
  check_generic({2, 6, 7, 6, 9, 3, 3, 7, 6, 1, 1, 1, 1, 3, 1, 1}, "groups 3");
  check_generic({2, 4, 9, 8, 4, 3, 3, 5, 4, 2, 2, 1, 1, 4, 1, 1}, "depthwise, stride 2");
  check_generic({2, 3, 6, 9, 6, 3, 3, 4, 7, 1, 1, 0, 0, 3, 1, 1}, "depthwise x2 (K = 2C), no padding");
  check_generic({2, 3, 7, 8, 4, 3, 3, 7, 8, 1, 1, 2, 2, 1, 2, 2}, "dilation 2, 'same' padding");
  check_generic({2, 2, 10, 7, 3, 3, 2, 3, 7, 2, 1, 1, 2, 1, 3, 2}, "dilation 3 x 2, stride 2 x 1, pad (1, 0, 2, 0)");
  check_generic({2, 8, 9, 9, 6, 3, 3, 5, 5, 1, 1, 0, 0, 2, 2, 2}, "groups 2 and dilation 2");
}

}  // namespace
