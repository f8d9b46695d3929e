// The CPU's float recurrent cell passes (kernels/cpu/recurrent/cell_rows.h), every ISA this CPU
// has: the vectorizable sigmoid and tanh (fast_math.h, through the LSTM pass's saved gates)
// within a few float ulps of float64 over the whole range and at the special values, and every
// pass against the same formulas in float64 (recurrent_cells.h with libm) on random rows whose
// widths are not multiples of any vector length.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cpu/recurrent/cell_rows.h"
#include "cpu/recurrent/cells.h"
#include "glassgrad/runtime/cpu_features.h"

namespace {

using glassgrad::CpuIsa;
namespace cpu = glassgrad::cpu;
typedef glassgrad::recurrent_cell::ExactMath<double> Exact;

std::vector<std::pair<const char*, const cpu::CellRowsF32*>> tables() {
  std::vector<std::pair<const char*, const cpu::CellRowsF32*>> out{{"generic", &cpu::recurrent_generic::cell_rows()}};
  if (static_cast<int>(glassgrad::cpu_isa()) >= static_cast<int>(CpuIsa::Avx2))
    out.push_back({"avx2", &cpu::recurrent_avx2::cell_rows()});
  if (static_cast<int>(glassgrad::cpu_isa()) >= static_cast<int>(CpuIsa::Avx512))
    out.push_back({"avx512", &cpu::recurrent_avx512::cell_rows()});
  return out;
}

std::vector<float> normal(size_t n, std::mt19937& rng, float scale = 1.f) {
  std::normal_distribution<float> d(0.f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::vector<double> widen(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

// |got - want| within rel * |want| + abs.
void expect_close(const std::vector<float>& got, const std::vector<double>& want, double rel, double abs,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::fabs(got[i] - want[i]), rel * std::fabs(want[i]) + abs) << what << " at " << i;
}

TEST(RecurrentCells, SigmoidAndTanhAreWithinAFewUlpsOverTheWholeRange) {
  // The LSTM pass with no recurrent part and c' = 0 saves i = sigmoid(p_i) and g = tanh(p_g).
  std::vector<float> xs;
  for (double x = -120; x <= 120; x += 0.0173) xs.push_back(static_cast<float>(x));
  for (float x : {0.f, -0.f, 1e-30f, -1e-30f, 1e-8f, 0.625f, -0.625f, 0.62499f, 9.f, 44.f, 87.f, 88.f, 89.f, -87.5f,
                  -100.f, 3.4e38f, -3.4e38f})
    xs.push_back(x);
  const int64_t H = static_cast<int64_t>(xs.size());
  for (const auto& [name, rows] : tables()) {
    std::vector<float> g(5 * H), rec(4 * H, 0.f), c(H, 0.f), h(H);
    std::copy(xs.begin(), xs.end(), g.begin());
    std::copy(xs.begin(), xs.end(), g.begin() + 2 * H);
    rows->lstm(g.data(), H, rec.data(), H, c.data(), h.data(), H);
    for (int64_t j = 0; j < H; ++j) {
      const double x = xs[static_cast<size_t>(j)];
      const double s = 1 / (1 + std::exp(-x)), t = std::tanh(x);
      EXPECT_LE(std::fabs(g[j] - s), 4 * 6e-8 * s + 1e-37) << name << " sigmoid(" << x << ")";
      EXPECT_LE(std::fabs(g[2 * H + j] - t), 4 * 6e-8 * std::fabs(t) + 1e-45) << name << " tanh(" << x << ")";
    }
  }
}

TEST(RecurrentCells, EveryPassMatchesTheFormulasInDouble) {
  std::mt19937 rng(3);
  for (int64_t H : {1, 7, 37, 100}) {
    const std::vector<float> pre4 = normal(4 * H, rng, 2.f), rec4 = normal(4 * H, rng, 2.f), c0 = normal(H, rng);
    const std::vector<float> dh = normal(H, rng), dc = normal(H, rng), hp = normal(H, rng), bhn = normal(H, rng);
    // The double reference: the same templates with libm.
    std::vector<double> g_d(5 * H), c_d = widen(c0), h_d(H);
    std::copy(pre4.begin(), pre4.end(), g_d.begin());
    cpu::lstm_row<double, Exact>(g_d.data(), H, widen(rec4).data(), H, c_d.data(), h_d.data(), H);
    // The backward passes read the forward's saved values as float: their references read the
    // same values, widened (1 - y^2 of a rounded y near 1 differs from the unrounded one's).
    const std::vector<float> g_f(g_d.begin(), g_d.end());
    std::vector<double> dc_d = widen(dc), dp_d(4 * H);
    cpu::lstm_backward_row<double, Exact>(widen(g_f).data(), H, widen(c0).data(), widen(dh).data(), dc_d.data(),
                                          dp_d.data(), H, H);
    std::vector<double> gg_d(4 * H), hg_d = widen(hp), yg_d(H);
    std::copy(pre4.begin(), pre4.begin() + 3 * H, gg_d.begin());
    cpu::gru_row<double, Exact>(gg_d.data(), widen(rec4).data(), widen(bhn).data(), hg_d.data(), yg_d.data(), H);
    const std::vector<float> gg_f(gg_d.begin(), gg_d.end());
    std::vector<double> dhg_d = widen(dh), dpx_d(3 * H), dph_d(3 * H);
    cpu::gru_backward_row<double, Exact>(widen(gg_f).data(), widen(hp).data(), dhg_d.data(), dpx_d.data(), dph_d.data(),
                                         H);
    for (const auto& [name, rows] : tables()) {
      const std::string what = std::string(name) + " H=" + std::to_string(H);
      std::vector<float> g(5 * H), c = c0, h(H);
      std::copy(pre4.begin(), pre4.end(), g.begin());
      rows->lstm(g.data(), H, rec4.data(), H, c.data(), h.data(), H);
      expect_close(g, g_d, 1e-6, 1e-7, what + " lstm gates and cell");
      expect_close(h, h_d, 1e-6, 1e-7, what + " lstm h");
      std::vector<float> dcf = dc, dp(4 * H);
          std::vector<float> gf = g_f;
      rows->lstm_backward(gf.data(), H, c0.data(), dh.data(), dcf.data(), dp.data(), H, H);
      expect_close(dp, dp_d, 1e-5, 1e-6, what + " lstm backward");
      expect_close(dcf, dc_d, 1e-5, 1e-6, what + " lstm dc");
      std::vector<float> gg(4 * H), hg = hp, yg(H);
      std::copy(pre4.begin(), pre4.begin() + 3 * H, gg.begin());
      rows->gru(gg.data(), rec4.data(), bhn.data(), hg.data(), yg.data(), H);
      expect_close(gg, gg_d, 1e-6, 1e-6, what + " gru gates");
      expect_close(yg, yg_d, 1e-6, 1e-6, what + " gru h");
      std::vector<float> ggf = gg_f, dhg = dh, dpx(3 * H), dph(3 * H);
      rows->gru_backward(ggf.data(), hp.data(), dhg.data(), dpx.data(), dph.data(), H);
      expect_close(dpx, dpx_d, 1e-5, 1e-6, what + " gru backward (input side)");
      expect_close(dph, dph_d, 1e-5, 1e-6, what + " gru backward (hidden side)");
      expect_close(dhg, dhg_d, 1e-5, 1e-6, what + " gru dh_prev");
      for (bool relu : {false, true}) {
        std::vector<float> y(pre4.begin(), pre4.begin() + H), hr(H), dpr(H);
        std::vector<double> y_d(pre4.begin(), pre4.begin() + H), hr_d(H), dpr_d(H);
        rows->rnn(y.data(), rec4.data(), hr.data(), H, relu);
        cpu::rnn_row<double, Exact>(y_d.data(), widen(rec4).data(), hr_d.data(), H, relu);
        expect_close(y, y_d, 1e-6, 1e-7, what + (relu ? " relu" : " tanh"));
        std::vector<float> yf(y_d.begin(), y_d.end());
        rows->rnn_backward(yf.data(), dh.data(), dpr.data(), H, relu);
        cpu::rnn_backward_row<double, Exact>(widen(yf).data(), widen(dh).data(), dpr_d.data(), H, relu);
        expect_close(dpr, dpr_d, 1e-6, 1e-7, what + (relu ? " relu backward" : " tanh backward"));
      }
    }
  }
}

}  // namespace
