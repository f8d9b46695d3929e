// The CUDA recurrent kernels (kernels/cuda/recurrent.cu) run on the CPU through
// cuda_emulation.h, driven by the launcher's own sequence (kernels/cuda/recurrent_plan.h), against
// the CPU kernels of the same ops (run_op): every cell (RNN tanh and relu, LSTM with and without
// a projection, GRU), both directions, padded and packed sequences (rows that start late in the
// reverse direction), with and without biases, forward and backward, in float64 and float32;
// with one k partition and with the products split (the cell kernels adding the partitions of the
// recurrent product themselves). Grids are capped so the grid-stride loops cover the rest; the
// outputs and the workspace are poisoned with NaN first, so an element no kernel wrote fails.
// The GPU parity tests (pytest -m cuda, test_cuda_ops.py's op table) compare the same ops on a GPU.
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cuda_emulation.h"
// The kernel sources, compiled as C++ (after the emulation's definitions).
#include "cuda/recurrent.cu"
#include "cuda/recurrent_plan.h"
#include "glassgrad/runtime/eager.h"

namespace {

using glassgrad::Attrs;
using glassgrad::DType;
using glassgrad::RecurrentCell;
using glassgrad::RecurrentGeometry;
using glassgrad::RecurrentInputs;
using glassgrad::Shape;
using glassgrad::Tensor;
namespace rp = glassgrad::cuda::recurrent;

struct Emulator {
  std::map<std::string, void*> kernels;
  unsigned cap_x = 3, cap_y = 2, cap_z = 3;  // grid caps: grid-stride loops cover the rest
  Emulator() {
#define GG_EMU_ADD(name) kernels[#name] = reinterpret_cast<void*>(&name)
#define GG_EMU_TYPED(name) \
  GG_EMU_ADD(name##_f32);  \
  GG_EMU_ADD(name##_f64)
    GG_EMU_TYPED(gg_rnn_gemm_nt32x64);
    GG_EMU_TYPED(gg_rnn_gemm_nn32x64);
    GG_EMU_TYPED(gg_rnn_gemm_tn32x64);
    GG_EMU_ADD(gg_rnn_gemm_nt64x128_f32);
    GG_EMU_ADD(gg_rnn_gemm_nn64x128_f32);
    GG_EMU_ADD(gg_rnn_gemm_tn64x128_f32);
    GG_EMU_ADD(gg_rnn_gemm_nt128x128_f32);
    GG_EMU_ADD(gg_rnn_gemm_nn128x128_f32);
    GG_EMU_ADD(gg_rnn_gemm_tn128x128_f32);
    GG_EMU_TYPED(gg_rnn_gemm_reduce);
    GG_EMU_TYPED(gg_lstm_step);
    GG_EMU_TYPED(gg_gru_step);
    GG_EMU_TYPED(gg_rnn_step);
    GG_EMU_TYPED(gg_lstm_step_back);
    GG_EMU_TYPED(gg_gru_step_back);
    GG_EMU_TYPED(gg_rnn_step_back);
    GG_EMU_TYPED(gg_rnn_combine);
    GG_EMU_TYPED(gg_rnn_colsum);
    GG_EMU_TYPED(gg_rnn_copy);
#undef GG_EMU_TYPED
#undef GG_EMU_ADD
  }
  template <typename... A>
  void operator()(const char* name, unsigned gx, unsigned gy, unsigned gz, unsigned threads, A... args) {
    auto it = kernels.find(name);
    if (it == kernels.end()) throw std::runtime_error(std::string("no emulated kernel ") + name);
    launches.push_back(name);
    emulate::launch(reinterpret_cast<void (*)(A...)>(it->second),
                    dim3{std::min(gx, cap_x), std::min(gy, cap_y), std::min(gz, cap_z)}, dim3{threads, 1, 1}, args...);
  }
  std::vector<std::string> launches;
};

struct Case {
  RecurrentCell cell;
  bool reverse, packed, bias, proj;
  int64_t T, B, I, H, P;  // P: the projection (0: none)
  std::string name() const {
    const char* c = cell == RecurrentCell::LSTM ? "lstm" : cell == RecurrentCell::GRU ? "gru"
                  : cell == RecurrentCell::RNNReLU ? "rnn_relu" : "rnn_tanh";
    return std::string(c) + (reverse ? " reverse" : " forward") + (packed ? " packed" : " padded") +
           (bias ? "" : " no bias") + (proj ? " projected" : "") + " H=" + std::to_string(H);
  }
  const char* op() const {
    return cell == RecurrentCell::LSTM ? "LSTMSequence" : cell == RecurrentCell::GRU ? "GRUSequence" : "RNNSequence";
  }
  int64_t gates() const {
    return (cell == RecurrentCell::LSTM ? 4 : cell == RecurrentCell::GRU ? 3 : 1) * H;
  }
  int64_t out() const { return proj ? P : H; }
  // Packed: lengths T, T - 1 ... down to 1 (at least one), decreasing.
  std::vector<int64_t> batch_sizes() const {
    std::vector<int64_t> bs;
    for (int64_t t = 0; t < T; ++t) {
      int64_t n = 0;
      for (int64_t b = 0; b < B; ++b) n += std::max<int64_t>(T - 2 * b, 1) > t ? 1 : 0;
      bs.push_back(n);
    }
    return bs;
  }
  Attrs attrs() const {
    Attrs a;
    a.set("reverse", reverse);
    if (packed) a.set("batch_sizes", batch_sizes());
    if (cell == RecurrentCell::RNNReLU) a.set("nonlinearity", std::string("relu"));
    if (cell == RecurrentCell::RNNTanh) a.set("nonlinearity", std::string("tanh"));
    return a;
  }
};

template <typename T>
Tensor random_tensor(const Shape& shape, std::mt19937& rng, double scale = 1.0) {
  const DType dt = sizeof(T) == 8 ? DType::Float64 : DType::Float32;
  Tensor t = Tensor::empty(shape, dt);
  std::normal_distribution<double> d(0.0, scale);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(d(rng));
  return t;
}

template <typename T>
std::vector<T> host(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

template <typename T>
void expect_close(const std::vector<T>& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.numel()) << what;
  double scale = 1e-30, err = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double w = want.data<T>()[i], g = got[static_cast<size_t>(i)];
    ASSERT_TRUE(std::isfinite(g)) << what << ": element " << i << " not written (NaN) or not finite";
    scale = std::max(scale, std::fabs(w));
    err = std::max(err, std::fabs(g - w));
  }
  EXPECT_LE(err / std::max(scale, 1.0), tol) << what;
}

template <typename T>
T* data_or_null(std::vector<T>& v) {
  return v.empty() ? nullptr : v.data();
}

// Forward and backward of one case, on the emulated kernels and on the CPU's.
template <typename T>
void check_case(const Case& c, int64_t target, double tol) {
  SCOPED_TRACE(c.name() + (sizeof(T) == 8 ? " float64" : " float32") + " target " + std::to_string(target));
  std::mt19937 rng(static_cast<unsigned>(c.H * 7 + c.T * 3 + static_cast<int>(c.cell) * 11 + c.reverse + 2 * c.packed));
  const Attrs attrs = c.attrs();
  const int64_t G = c.gates(), Ho = c.out();
  const std::vector<int64_t> bs = c.batch_sizes();
  int64_t rows = 0;
  for (int64_t b : bs) rows += b;
  const Shape xs = c.packed ? Shape{rows, c.I} : Shape{c.T, c.B, c.I};
  std::vector<Tensor> in{random_tensor<T>(xs, rng), random_tensor<T>({G, c.I}, rng, 0.4),
                         random_tensor<T>({G, Ho}, rng, 0.4), random_tensor<T>({c.B, Ho}, rng)};
  if (c.cell == RecurrentCell::LSTM) in.push_back(random_tensor<T>({c.B, c.H}, rng));
  if (c.bias || c.proj) {
    in.push_back(random_tensor<T>({G}, rng, c.bias ? 0.4 : 0.0));
    in.push_back(random_tensor<T>({G}, rng, c.bias ? 0.4 : 0.0));
  }
  if (c.proj) in.push_back(random_tensor<T>({c.P, c.H}, rng, 0.4));
  const std::vector<Tensor> want = glassgrad::run_op(c.op(), in, attrs);

  std::vector<glassgrad::TensorInfo> infos;
  for (const Tensor& t : in) infos.push_back(t.info());
  const RecurrentInputs fp = RecurrentInputs::forward(c.cell, static_cast<int>(in.size()));
  const Shape hr = c.proj ? in[static_cast<size_t>(fp.w_hr)].shape() : Shape{};
  const RecurrentGeometry g = RecurrentGeometry::from(c.cell, xs, in[1].shape(), in[2].shape(), c.proj ? &hr : nullptr,
                                                      attrs);
  const bool is_float = sizeof(T) == 4;
  std::vector<std::vector<T>> out;
  for (const Tensor& w : want) out.emplace_back(static_cast<size_t>(w.numel()), T(NAN));
  std::vector<T> ws(static_cast<size_t>(rp::forward_workspace_elems(g, is_float, target)), T(NAN));
  const auto input = [&](int i) { return i >= 0 ? in[static_cast<size_t>(i)].data<T>() : static_cast<T*>(nullptr); };
  rp::ForwardArgs<T> fa{};
  fa.x = input(fp.x);
  fa.w_ih = input(fp.w_ih);
  fa.w_hh = input(fp.w_hh);
  fa.h0 = input(fp.h0);
  fa.c0 = input(fp.c0);
  fa.b_ih = input(fp.b_ih);
  fa.b_hh = input(fp.b_hh);
  fa.w_hr = input(fp.w_hr);
  fa.y = out[0].data();
  fa.hn = out[1].data();
  fa.cn = c.cell == RecurrentCell::LSTM ? out[2].data() : nullptr;
  fa.reserve = out.size() > (c.cell == RecurrentCell::LSTM ? 3u : 2u) ? out.back().data() : nullptr;
  fa.ws = data_or_null(ws);
  Emulator emu;
  rp::run_forward<T>(emu, g, target, 2, fa);
  const char* names[] = {"y", "h_n", "c_n", "reserve"};
  for (size_t k = 0; k < want.size(); ++k) {
    const size_t name = c.cell == RecurrentCell::GRU && k == 2 ? 3 : k;
    expect_close(out[k], want[k], tol, std::string("forward ") + names[name]);
  }

  // Backward: grad_y, grad_hn, [grad_cn], x, w_ih, w_hh, h0, [c0], y, [reserve], [w_hr].
  const bool lstm = c.cell == RecurrentCell::LSTM;
  std::vector<Tensor> bin{random_tensor<T>(want[0].shape(), rng), random_tensor<T>(want[1].shape(), rng)};
  if (lstm) bin.push_back(random_tensor<T>(want[2].shape(), rng));
  bin.insert(bin.end(), {in[0], in[1], in[2], in[3]});
  if (lstm) bin.push_back(in[4]);
  bin.push_back(want[0]);
  if (c.cell == RecurrentCell::LSTM || c.cell == RecurrentCell::GRU) bin.push_back(want.back());
  if (c.proj) bin.push_back(in[static_cast<size_t>(fp.w_hr)]);
  Attrs battrs = attrs;
  battrs.set("input_grad", true);
  battrs.set("bias", c.bias || c.proj);
  const std::vector<Tensor> bwant = glassgrad::run_op(std::string(c.op()) + "Backward", bin, battrs);
  const RecurrentInputs bp = RecurrentInputs::backward(c.cell, static_cast<int>(bin.size()));
  std::vector<std::vector<T>> bout;
  for (const Tensor& w : bwant) bout.emplace_back(static_cast<size_t>(w.numel()), T(NAN));
  std::vector<T> bws(static_cast<size_t>(rp::backward_layout(g, is_float, target).total), T(NAN));
  const auto binput = [&](int i) { return i >= 0 ? bin[static_cast<size_t>(i)].data<T>() : static_cast<T*>(nullptr); };
  rp::BackwardArgs<T> ba{};
  ba.grad_y = binput(bp.grad_y);
  ba.grad_hn = binput(bp.grad_hn);
  ba.grad_cn = binput(bp.grad_cn);
  ba.x = binput(bp.x);
  ba.w_ih = binput(bp.w_ih);
  ba.w_hh = binput(bp.w_hh);
  ba.h0 = binput(bp.h0);
  ba.c0 = binput(bp.c0);
  ba.y = binput(bp.y);
  ba.reserve = binput(bp.reserve);
  ba.w_hr = binput(bp.w_hr);
  ba.dx = bout[0].data();
  ba.dw_ih = bout[1].data();
  ba.dw_hh = bout[2].data();
  ba.dh0 = bout[3].data();
  const size_t db = lstm ? 5 : 4;
  ba.dc0 = lstm ? bout[4].data() : nullptr;
  ba.db_ih = data_or_null(bout[db]);
  ba.db_hh = c.cell == RecurrentCell::GRU ? data_or_null(bout[db + 1]) : nullptr;
  ba.dw_hr = lstm ? data_or_null(bout[db + 1]) : nullptr;
  ba.ws = data_or_null(bws);
  rp::run_backward<T>(emu, g, target, 2, ba);
  for (size_t k = 0; k < bwant.size(); ++k) {
    if (bwant[k].numel() == 0) continue;
    expect_close(bout[k], bwant[k], tol, "backward output " + std::to_string(k));
  }
}

std::vector<Case> small_cases() {
  std::vector<Case> out;
  for (RecurrentCell cell : {RecurrentCell::RNNTanh, RecurrentCell::RNNReLU, RecurrentCell::LSTM, RecurrentCell::GRU})
    for (bool reverse : {false, true})
      for (bool packed : {false, true}) out.push_back({cell, reverse, packed, true, false, 4, 3, 5, 6, 0});
  out.push_back({RecurrentCell::LSTM, false, false, false, false, 3, 2, 4, 5, 0});
  out.push_back({RecurrentCell::GRU, true, true, false, false, 4, 3, 4, 5, 0});
  out.push_back({RecurrentCell::LSTM, false, false, true, true, 4, 3, 5, 6, 4});
  out.push_back({RecurrentCell::LSTM, true, true, false, true, 4, 3, 5, 6, 4});
  return out;
}

TEST(CudaEmulatedRecurrent, EveryCellAndLayoutMatchesTheCpuKernelsInFloat64) {
  for (const Case& c : small_cases()) check_case<double>(c, 1, 1e-12);
}

TEST(CudaEmulatedRecurrent, FloatKernelsMatchTheCpuKernels) {
  for (const Case& c : small_cases()) check_case<float>(c, 1, 2e-5);
}

TEST(CudaEmulatedRecurrent, SplitProductsAddTheirPartitionsInTheCellKernels) {
  // k long enough to split (recurrent_plan.h: partitions of at least 64) and a target no GPU meets.
  const int64_t huge = int64_t(1) << 30;
  const Case cases[] = {{RecurrentCell::LSTM, false, false, true, false, 3, 3, 4, 130, 0},
                        {RecurrentCell::GRU, true, true, true, false, 3, 3, 130, 129, 0},
                        {RecurrentCell::LSTM, true, true, true, true, 3, 3, 4, 132, 130}};
  for (const Case& c : cases) {
    check_case<double>(c, huge, 1e-11);
    check_case<float>(c, huge, 5e-5);
  }
  // The split choices the cases rely on.
  RecurrentGeometry g;
  g.cell = RecurrentCell::LSTM;
  g.batch = 3;
  g.hidden = g.out = 130;
  g.rows = 9;
  g.input_size = 4;
  EXPECT_GT(rp::choices(g, true, huge).step.splits, 1);
  EXPECT_GT(rp::backward_step_choice(g, true, huge).splits, 1);
  EXPECT_EQ(rp::choices(g, true, 1).step.splits, 1);
}

}  // namespace
