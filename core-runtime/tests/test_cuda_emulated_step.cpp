// The training step's small CUDA kernels run on the CPU (cuda_emulation.h): the multi-tensor
// optimizer updates against the update rules (kernels/optimizer_rules.h) element by element,
// over a table whose entries span several blocks, have one element, or read a transposed
// gradient; and max-pool backward over tiling windows (with and without the fused ReLU
// backward) against the gather kernel it replaces; the reductions' per-thread strided sum
// (four loads in flight) against the plain loop it replaced, bitwise; and the column sums (a
// Linear layer's bias gradient: a lane a column, chunks of rows, then the chunks in order)
// against the same additions written as plain loops, bitwise, and a long-double reference; and
// the elementwise kernels over two axes (a Linear layer's bias add, a transposed operand: the
// coordinates kept by increments along the grid-stride loop) against each element's own
// offsets, for the inlined rows and the op-code switch, and the copies of two axes (a piece of
// a Concat written into a wider row, read transposed); and copies of every rank from 1 to 5
// (the last past the incremental walk) reading a permuted source, as the attention heads'
// reassembly reads [B, H, T, D] as [B, T, H, D]; and the 128 x 128 register-tiled products with
// k split, then the partitions added (a weight gradient's shape on a large GPU), in every
// layout, against a double-precision product; and dense float32 elementwise kernels four
// elements a load (aligned, with a tail, and misaligned) against each element's function; and a
// MatMul's fused bias through every product kernel but the warp-per-output one (warps are not
// emulated) against the same kernel's product plus the bias, bitwise; and dropout with a fused
// residual against dropout then the sum, bitwise, on both paths (16-byte groups and scalars).
// (The GPU parity tests, python-bindings/tests/test_cuda_step_kernels.py, compare with the CPU
// kernels on the device.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cuda_emulation.h"

#include "cuda/optimizer.cu"
#include "cuda/pool.cu"
#include "cuda/reduction.cu"
#include "cuda/elementwise.cu"
#include "cuda/copy.cu"
#include "cuda/matmul.cu"
#include "cuda/dropout.cu"

namespace {

namespace rule = glassgrad::optimizer_rule;

struct Param {
  std::vector<float> p, g, m, v, v_max;
  int64_t rows, cols;
  bool transposed;  // g holds the gradient transposed: element (r, c) at c * rows + r
  float step = 3;             // PyTorch's float32 count (even entries)
  int64_t step_i64 = 3;       // an int64 count (odd entries: checkpoints of earlier versions)
  float grad(int64_t i) const { return transposed ? g[(i % cols) * rows + i / cols] : g[i]; }
};

std::vector<Param> params(std::mt19937& rng) {
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<Param> ps;
  for (auto shape : {std::vector<int64_t>{1, 5000}, {1, 1}, {6, 9}, {1, 2049}}) {
    Param q;
    q.rows = shape[0];
    q.cols = shape[1];
    q.transposed = q.rows > 1;
    const size_t n = static_cast<size_t>(q.rows * q.cols);
    for (auto* buf : {&q.p, &q.g, &q.m}) {
      for (size_t i = 0; i < n; ++i) buf->push_back(d(rng));
    }
    for (auto* buf : {&q.v, &q.v_max}) {
      for (size_t i = 0; i < n; ++i) buf->push_back(std::fabs(d(rng)));
    }
    ps.push_back(q);
  }
  return ps;
}

// The table the launcher builds (kernels/cuda/optimizer.cu's host part): blocks of GG_OPT_CHUNK elements.
GGOptTable table(std::vector<Param>& ps, const float* lr, const float* hyper, bool adam) {
  GGOptTable tab{};
  int32_t blocks = 0;
  for (Param& q : ps) {
    const bool i64 = tab.count % 2 == 1;
    GGOptTensor& e = tab.t[tab.count++];
    e.p = q.p.data();
    e.g = q.g.data();
    e.state0 = q.m.data();
    e.state1 = adam ? q.v.data() : nullptr;
    e.state2 = adam ? q.v_max.data() : nullptr;
    e.lr = lr;
    e.hyper = hyper;
    e.step = !adam ? nullptr : i64 ? static_cast<void*>(&q.step_i64) : static_cast<void*>(&q.step);
    e.n = q.rows * q.cols;
    e.cols = q.transposed ? q.cols : e.n;
    e.gstride0 = q.transposed ? 1 : 0;
    e.gstride1 = q.transposed ? q.rows : 1;
    e.a = adam ? 0.999 : 0.01;   // beta2 / weight_decay
    e.b = adam ? 1e-8 : 0.1;     // eps / dampening
    e.c = adam ? 0.02 : 0.0;     // weight_decay (Adam)
    e.flag = adam ? 1 | ((i64 ? GG_I64 : GG_F32) << GG_OPT_STEP_DTYPE_SHIFT) : 0;  // decoupled, step dtype / nesterov
    e.first_block = blocks;
    blocks += static_cast<int32_t>((e.n + GG_OPT_CHUNK - 1) / GG_OPT_CHUNK);
  }
  tab.blocks = blocks;
  return tab;
}

TEST(CudaEmulatedStep, MultiTensorSgdMomentumUpdatesEveryEntryByTheRule) {
  std::mt19937 rng(7);
  std::vector<Param> ps = params(rng);
  const std::vector<Param> before = ps;
  const float lr = 0.05f, momentum = 0.9f;
  const GGOptTable tab = table(ps, &lr, &momentum, false);
  emulate::launch(&gg_sgd_multi_f32, dim3{static_cast<unsigned>(tab.blocks), 1, 1}, dim3{64, 1, 1}, tab);
  const auto s = rule::sgd_scalars<float>(lr, momentum, 0.01, 0.1, false);
  for (size_t k = 0; k < ps.size(); ++k) {
    for (size_t i = 0; i < ps[k].p.size(); ++i) {
      float buf = before[k].m[i];
      const float p = rule::sgd_momentum(before[k].p[i], before[k].grad(static_cast<int64_t>(i)), buf, s);
      ASSERT_FLOAT_EQ(ps[k].p[i], p) << "entry " << k << " element " << i;
      ASSERT_FLOAT_EQ(ps[k].m[i], buf) << "entry " << k << " element " << i;
    }
  }
}

TEST(CudaEmulatedStep, MultiTensorAdamWAmsgradUpdatesEveryEntryThenCountsItsStep) {
  std::mt19937 rng(8);
  std::vector<Param> ps = params(rng);
  const std::vector<Param> before = ps;
  const float lr = 0.01f, beta1 = 0.85f;
  const GGOptTable tab = table(ps, &lr, &beta1, true);
  emulate::launch(&gg_adam_multi_f32, dim3{static_cast<unsigned>(tab.blocks), 1, 1}, dim3{128, 1, 1}, tab);
  emulate::launch(&gg_adam_step_multi, dim3{1, 1, 1}, dim3{GG_OPT_MAX_TENSORS, 1, 1}, tab);
  const auto s = rule::adam_scalars<float>(lr, beta1, 0.999, 1e-8, 0.02, true, 4.0);
  for (size_t k = 0; k < ps.size(); ++k) {
    EXPECT_EQ(k % 2 == 1 ? static_cast<float>(ps[k].step_i64) : ps[k].step, 4.0f) << "entry " << k;
    EXPECT_EQ(k % 2 == 1 ? ps[k].step : static_cast<float>(ps[k].step_i64), 3.0f) << "entry " << k;
    for (size_t i = 0; i < ps[k].p.size(); ++i) {
      float m = before[k].m[i], v = before[k].v[i], v_max = before[k].v_max[i];
      const float p = rule::adam(before[k].p[i], before[k].grad(static_cast<int64_t>(i)), m, v, &v_max, s);
      ASSERT_FLOAT_EQ(ps[k].p[i], p) << "entry " << k << " element " << i;
      ASSERT_FLOAT_EQ(ps[k].m[i], m);
      ASSERT_FLOAT_EQ(ps[k].v[i], v);
      ASSERT_FLOAT_EQ(ps[k].v_max[i], v_max);
    }
  }
}

int64_t pooled(int64_t n, int64_t k, bool ceil_mode) {
  int64_t out = (ceil_mode ? (n - k + k - 1) / k : (n - k) / k) + 1;
  if (ceil_mode && (out - 1) * k >= n) --out;
  return out;
}

TEST(CudaEmulatedStep, MaxPoolBackwardOverTilingWindowsEqualsTheGatherKernel) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> small(-2, 2);  // many ties: the first maximum wins
  std::normal_distribution<float> d(0.f, 1.f);
  struct Case {
    int64_t planes, H, W, k;
    bool ceil_mode;
  };
  for (const Case& c : {Case{3, 26, 26, 2, false}, Case{2, 11, 11, 2, false}, Case{2, 10, 7, 3, false},
                        Case{2, 11, 11, 2, true}, Case{1, 1, 1, 1, false}}) {
    GGPool g{};
    g.planes = c.planes;
    g.H = c.H;
    g.W = c.W;
    g.OH = pooled(c.H, c.k, c.ceil_mode);
    g.OW = pooled(c.W, c.k, c.ceil_mode);
    g.kh = g.kw = g.sh = g.sw = c.k;
    std::vector<float> x(static_cast<size_t>(c.planes * c.H * c.W)), dy(static_cast<size_t>(c.planes * g.OH * g.OW));
    for (float& v : x) v = static_cast<float>(small(rng));
    for (float& v : dy) v = d(rng);
    std::vector<float> gather(x.size(), 7.f), tiled(x.size(), 7.f);
    // Grids smaller than the work: the grid-stride loops cover the rest.
    for (int relu : {0, 1}) {
      emulate::launch(&gg_maxpool_bwd_f32, dim3{3, 1, 1}, dim3{32, 1, 1}, g, relu, gather.data(),
                      static_cast<const float*>(dy.data()), static_cast<const float*>(x.data()));
      emulate::launch(&gg_maxpool_bwd_tiled_f32, dim3{2, 1, 1}, dim3{32, 1, 1}, g, relu, tiled.data(),
                      static_cast<const float*>(dy.data()), static_cast<const float*>(x.data()));
      for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(tiled[i], gather[i]) << "H " << c.H << " W " << c.W << " k " << c.k << " relu " << relu;
        if (relu) ASSERT_TRUE(x[i] > 0 || tiled[i] == 0.f);
      }
    }
  }
}

}  // namespace

// A conv bias gradient's reduction: x [N, C, H, W], kept axis C, reduced axes N and H*W.
GGReduce bias_reduce(int64_t N, int64_t C, int64_t HW) {
  GGReduce r{};
  r.out_rank = 1;
  r.out_size[0] = C;
  r.out_stride[0] = HW;
  r.red_rank = 2;
  r.red_size[0] = N;
  r.red_stride[0] = C * HW;
  r.red_size[1] = HW;
  r.red_stride[1] = 1;
  r.n_out = C;
  r.n_red = N * HW;
  return r;
}

template <typename A, typename T>
A plain_strided_sum(const GGReduce& r, const T* base, int64_t j, int64_t j1, int64_t step) {
  A s = 0;
  for (; j < j1; j += step) s += base[gg_red::red_offset(r, j)];
  return s;
}

TEST(CudaEmulatedStep, ReductionStridedSumAddsInThePlainLoopsOrder) {
  std::mt19937 rng(10);
  std::normal_distribution<float> d(0.f, 1.f);
  std::uniform_int_distribution<int64_t> ints(-1000000, 1000000);
  struct Case {
    int64_t N, C, HW;
  };
  for (const Case& c : {Case{32, 32, 121}, Case{32, 16, 676}, Case{3, 2, 5}, Case{1, 1, 1}}) {
    const GGReduce r = bias_reduce(c.N, c.C, c.HW);
    std::vector<float> xf(static_cast<size_t>(c.N * c.C * c.HW));
    std::vector<int64_t> xi(xf.size());
    for (size_t i = 0; i < xf.size(); ++i) {
      xf[i] = d(rng) * (i % 7 == 0 ? 1e6f : 1.f);  // magnitudes that make the order matter
      xi[i] = ints(rng);
    }
    for (int64_t o = 0; o < c.C; ++o) {
      const float* bf = xf.data() + o * c.HW;
      const int64_t* bi = xi.data() + o * c.HW;
      for (int64_t step : {int64_t(1), int64_t(3), int64_t(32), int64_t(256)}) {
        for (int64_t j0 : {int64_t(0), int64_t(1), step - 1}) {
          for (int64_t j1 : {r.n_red, r.n_red / 2, j0 + 3 * step, j0 + 4 * step}) {
            const double got = gg_red::strided_sum<double>(r, bf, j0, std::min(j1, r.n_red), step);
            const double want = plain_strided_sum<double>(r, bf, j0, std::min(j1, r.n_red), step);
            ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0)
                << "channel " << o << " j0 " << j0 << " j1 " << j1 << " step " << step << ": " << got << " vs " << want;
            ASSERT_EQ((gg_red::strided_sum<int64_t>(r, bi, j0, std::min(j1, r.n_red), step)),
                      (plain_strided_sum<int64_t>(r, bi, j0, std::min(j1, r.n_red), step)));
          }
        }
      }
    }
  }
}

namespace {

// gg_reduce_col_sums (then gg_reduce_finish over the chunks) of a [rows, cols] matrix with row
// pitch `pitch`, on the emulator.
template <typename T, typename A>
std::vector<T> emulated_col_sums(const std::vector<T>& x, int64_t rows, int64_t cols, int64_t pitch, int op,
                                 void (*col_sums)(int64_t, int64_t, int64_t, int, int64_t, T*, void*, const T*),
                                 void (*finish)(int64_t, int64_t, int, int64_t, double, const void*, const int64_t*, T*,
                                                int64_t*, double*)) {
  const int64_t splits = (rows + GG_COL_SUM_ROWS - 1) / GG_COL_SUM_ROWS;
  std::vector<T> out(static_cast<size_t>(cols), T(-7));
  std::vector<A> pv(static_cast<size_t>(cols * splits), A(-9));
  emulate::launch(col_sums, dim3{static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>(splits), 1},
                  dim3{256, 1, 1}, cols, rows, pitch, op, splits, out.data(), splits > 1 ? (void*)pv.data() : nullptr,
                  x.data());
  if (splits > 1) {
    emulate::launch(finish, dim3{2, 1, 1}, dim3{64, 1, 1}, cols, rows, op, splits, 0.0, (const void*)pv.data(),
                    (const int64_t*)nullptr, out.data(), (int64_t*)nullptr, (double*)nullptr);
  }
  return out;
}

// The kernels' order of additions as plain loops: per chunk of GG_COL_SUM_ROWS rows, eight
// sums (row j of the chunk to sum j % 8) added in order, then the chunks added in order.
template <typename T, typename A>
T plain_col_sum(const std::vector<T>& x, int64_t rows, int64_t pitch, int64_t o, bool mean) {
  A total = 0;
  const int64_t splits = (rows + GG_COL_SUM_ROWS - 1) / GG_COL_SUM_ROWS;
  for (int64_t sp = 0; sp < splits; ++sp) {
    const int64_t j0 = sp * GG_COL_SUM_ROWS, j1 = std::min<int64_t>(j0 + GG_COL_SUM_ROWS, rows);
    A w[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t j = j0; j < j1; ++j) w[(j - j0) % 8] += (A)x[static_cast<size_t>(j * pitch + o)];
    A chunk = w[0];
    for (int k = 1; k < 8; ++k) chunk += w[k];
    if (splits == 1) return mean ? T(chunk / A(rows)) : T(chunk);
    total += chunk;
  }
  return mean ? T(total / A(rows)) : T(total);
}

}  // namespace

TEST(CudaEmulatedStep, ColumnSumsAddInTheirFixedOrderAndMatchTheExactSums) {
  std::mt19937 rng(11);
  std::normal_distribution<float> d(0.f, 1.f);
  std::uniform_int_distribution<int64_t> ints(-1000000, 1000000);
  struct Case {
    int64_t rows, cols, pitch;
  };
  // One chunk and several, a last chunk and a last column block in part, a row pitch wider
  // than the columns (a view), fewer rows than the warps.
  for (const Case& c : {Case{300, 47, 47}, Case{256, 32, 32}, Case{1000, 70, 75}, Case{5, 33, 33}, Case{600, 100, 100}}) {
    std::vector<float> xf(static_cast<size_t>(c.rows * c.pitch));
    std::vector<double> xd(xf.size());
    std::vector<int64_t> xi(xf.size());
    for (size_t i = 0; i < xf.size(); ++i) {
      xf[i] = d(rng) * (i % 7 == 0 ? 1e6f : 1.f);  // magnitudes that make the order matter
      xd[i] = static_cast<double>(d(rng)) * (i % 5 == 0 ? 1e9 : 1.0);
      xi[i] = ints(rng);
    }
    for (int op : {GG_SUM, GG_MEAN}) {
      const std::vector<float> gf =
          emulated_col_sums<float, double>(xf, c.rows, c.cols, c.pitch, op, &gg_reduce_col_sums_f32, &gg_reduce_finish_f32);
      const std::vector<double> gd = emulated_col_sums<double, double>(xd, c.rows, c.cols, c.pitch, op,
                                                                       &gg_reduce_col_sums_f64, &gg_reduce_finish_f64);
      for (int64_t o = 0; o < c.cols; ++o) {
        const float wf = plain_col_sum<float, double>(xf, c.rows, c.pitch, o, op == GG_MEAN);
        const double wd = plain_col_sum<double, double>(xd, c.rows, c.pitch, o, op == GG_MEAN);
        ASSERT_EQ(std::memcmp(&gf[static_cast<size_t>(o)], &wf, sizeof wf), 0)
            << "float column " << o << " of " << c.rows << " x " << c.cols << ": " << gf[static_cast<size_t>(o)] << " vs " << wf;
        ASSERT_EQ(std::memcmp(&gd[static_cast<size_t>(o)], &wd, sizeof wd), 0) << "double column " << o;
        long double exact = 0;
        for (int64_t j = 0; j < c.rows; ++j) exact += xd[static_cast<size_t>(j * c.pitch + o)];
        if (op == GG_MEAN) exact /= c.rows;
        EXPECT_NEAR(gd[static_cast<size_t>(o)], static_cast<double>(exact), 1e-6 * std::fabs(static_cast<double>(exact)) + 1e-3)
            << "column " << o;
      }
    }
    const std::vector<int64_t> gi =
        emulated_col_sums<int64_t, int64_t>(xi, c.rows, c.cols, c.pitch, GG_SUM, &gg_reduce_col_sums_i64, &gg_reduce_finish_i64);
    for (int64_t o = 0; o < c.cols; ++o) {
      int64_t want = 0;
      for (int64_t j = 0; j < c.rows; ++j) want += xi[static_cast<size_t>(j * c.pitch + o)];
      ASSERT_EQ(gi[static_cast<size_t>(o)], want) << "int64 column " << o;
    }
  }
}

namespace {

// A dense [rows, cols] output iterated over two axes; operand k's strides (s0, s1).
GGIter rank2_iter(int64_t rows, int64_t cols, std::initializer_list<std::pair<int64_t, int64_t>> operands) {
  GGIter it{};
  it.rank = 2;
  it.small = 1;
  it.size[0] = rows;
  it.size[1] = cols;
  it.stride[0][0] = cols;
  it.stride[0][1] = 1;
  int k = 1;
  for (const auto& st : operands) {
    it.stride[k][0] = st.first;
    it.stride[k][1] = st.second;
    ++k;
  }
  return it;
}

}  // namespace

TEST(CudaEmulatedStep, ElementwiseKernelsOverTwoAxesReadEveryElementsOwnOffsets) {
  using glassgrad::Elementwise;
  using glassgrad::ElementwiseOp;
  std::mt19937 rng(12);
  std::normal_distribution<float> d(0.f, 1.f);
  struct Case {
    int64_t rows, cols;
    unsigned blocks, threads;
  };
  // Loop strides below, above and a multiple of the row length; more threads than elements.
  for (const Case& c : {Case{37, 47, 3, 64}, Case{5, 300, 2, 32}, Case{64, 16, 2, 64}, Case{3, 7, 4, 32},
                        Case{1, 33, 1, 32}, Case{33, 1, 2, 32}}) {
    const int64_t n = c.rows * c.cols;
    std::vector<float> a(static_cast<size_t>(n)), bias(static_cast<size_t>(c.cols)), t(static_cast<size_t>(n));
    for (float& v : a) v = d(rng);
    for (float& v : bias) v = d(rng) + 3.f;
    for (float& v : t) v = d(rng);  // read transposed: element (r, col) at col * rows + r
    const dim3 grid{c.blocks, 1, 1}, block{c.threads, 1, 1};
    std::vector<float> out(static_cast<size_t>(n));
    std::vector<unsigned char> less(static_cast<size_t>(n));
    // The bias add (Add, inlined), a quotient by the transposed operand (Div, the switch).
    const GGIter bias_add = rank2_iter(c.rows, c.cols, {{c.cols, 1}, {0, 1}});
    const GGIter by_t = rank2_iter(c.rows, c.cols, {{c.cols, 1}, {1, c.rows}});
    for (int op : {(int)ElementwiseOp::Add, (int)ElementwiseOp::Sub, (int)ElementwiseOp::Mul, (int)ElementwiseOp::Div}) {
      const bool transposed = op == (int)ElementwiseOp::Div || op == (int)ElementwiseOp::Mul;
      std::fill(out.begin(), out.end(), -123.f);
      emulate::launch(&gg_binary_f32, grid, block, n, transposed ? by_t : bias_add, op, out.data(), a.data(),
                      transposed ? t.data() : bias.data(), 0.0);
      for (int64_t r = 0; r < c.rows; ++r)
        for (int64_t col = 0; col < c.cols; ++col) {
          const float x = a[static_cast<size_t>(r * c.cols + col)];
          const float y = transposed ? t[static_cast<size_t>(col * c.rows + r)] : bias[static_cast<size_t>(col)];
          const float want = op == (int)ElementwiseOp::Add ? x + y : op == (int)ElementwiseOp::Sub ? x - y
                           : op == (int)ElementwiseOp::Mul ? x * y : Elementwise<ElementwiseOp::Div>::f(x, y, 0.f);
          const float got = out[static_cast<size_t>(r * c.cols + col)];
          ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0)
              << "op " << op << " element (" << r << ", " << col << ") of " << c.rows << " x " << c.cols;
        }
    }
    // A copy of the transposed operand into columns [2, 2 + cols) of rows cols + 5 wide.
    const int64_t pitch = c.cols + 5;
    std::vector<uint32_t> wide(static_cast<size_t>(c.rows * pitch), 0xdeadbeefu), tbits(t.size());
    std::memcpy(tbits.data(), t.data(), t.size() * sizeof(float));
    GGIter piece = rank2_iter(c.rows, c.cols, {{1, c.rows}});
    piece.stride[0][0] = pitch;
    emulate::launch(&gg_copy_w4, grid, block, n, piece, wide.data() + 2, (const uint32_t*)tbits.data());
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t col = -2; col < c.cols + 3; ++col) {
        const uint32_t got = wide[static_cast<size_t>(r * pitch + 2 + col)];
        const uint32_t want = col >= 0 && col < c.cols ? tbits[static_cast<size_t>(col * c.rows + r)] : 0xdeadbeefu;
        ASSERT_EQ(got, want) << "copy at (" << r << ", " << col << ")";
      }
    emulate::launch(&gg_compare_f32, grid, block, n, by_t, (int)ElementwiseOp::Less, less.data(), a.data(), t.data());
    std::fill(out.begin(), out.end(), -123.f);
    const GGIter t_only = rank2_iter(c.rows, c.cols, {{1, c.rows}});
    emulate::launch(&gg_unary_f32, grid, block, n, t_only, (int)ElementwiseOp::Exp, out.data(), t.data(), 0.0);
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t col = 0; col < c.cols; ++col) {
        const size_t i = static_cast<size_t>(r * c.cols + col), j = static_cast<size_t>(col * c.rows + r);
        ASSERT_EQ(less[i], a[i] < t[j] ? 1 : 0) << "Less at (" << r << ", " << col << ")";
        const float want = Elementwise<ElementwiseOp::Exp>::f(t[j], t[j], 0.f);
        ASSERT_EQ(std::memcmp(&out[i], &want, sizeof want), 0) << "Exp at (" << r << ", " << col << ")";
      }
  }
}

TEST(CudaEmulatedStep, CopiesOfEveryRankReadPermutedSourcesAtTheirOffsets) {
  std::mt19937 rng(13);
  struct Case {
    std::vector<int64_t> size;  // the destination's (dense) shape
    std::vector<int> perm;      // source axis order: the source is dense in shape size[perm]
    unsigned blocks, threads;
  };
  const Case cases[] = {
      {{37}, {0}, 2, 32},
      {{7, 9}, {1, 0}, 3, 32},
      {{3, 5, 7}, {2, 0, 1}, 2, 64},
      {{2, 5, 3, 4}, {0, 2, 1, 3}, 3, 32},  // [B, T, H, D] from [B, H, T, D]
      {{4, 3, 2, 7}, {3, 2, 1, 0}, 1, 32},
      {{2, 3, 2, 3, 5}, {4, 3, 2, 1, 0}, 2, 64},  // rank 5: iter_offsets
  };
  for (const Case& c : cases) {
    const int rank = static_cast<int>(c.size.size());
    int64_t n = 1;
    for (int64_t v : c.size) n *= v;
    // Source dense in the permuted shape; its stride along destination axis d.
    std::vector<int64_t> src_shape(static_cast<size_t>(rank)), src_dense(static_cast<size_t>(rank)),
        stride(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) src_shape[static_cast<size_t>(d)] = c.size[static_cast<size_t>(c.perm[static_cast<size_t>(d)])];
    int64_t acc = 1;
    for (int d = rank - 1; d >= 0; --d) {
      src_dense[static_cast<size_t>(d)] = acc;
      acc *= src_shape[static_cast<size_t>(d)];
    }
    for (int d = 0; d < rank; ++d) stride[static_cast<size_t>(c.perm[static_cast<size_t>(d)])] = src_dense[static_cast<size_t>(d)];
    GGIter it{};
    it.rank = rank;
    it.small = 1;
    acc = 1;
    for (int d = rank - 1; d >= 0; --d) {
      it.size[d] = c.size[static_cast<size_t>(d)];
      it.stride[0][d] = acc;
      it.stride[1][d] = stride[static_cast<size_t>(d)];
      acc *= c.size[static_cast<size_t>(d)];
    }
    std::vector<uint32_t> src(static_cast<size_t>(n)), dst(static_cast<size_t>(n), 0xdeadbeefu);
    for (uint32_t& v : src) v = static_cast<uint32_t>(rng());
    emulate::launch(&gg_copy_w4, dim3{c.blocks, 1, 1}, dim3{c.threads, 1, 1}, n, it, dst.data(),
                    (const uint32_t*)src.data());
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = i, off = 0;
      for (int d = rank - 1; d >= 0; --d) {
        off += (r % c.size[static_cast<size_t>(d)]) * stride[static_cast<size_t>(d)];
        r /= c.size[static_cast<size_t>(d)];
      }
      ASSERT_EQ(dst[static_cast<size_t>(i)], src[static_cast<size_t>(off)]) << "rank " << rank << " element " << i;
    }
  }
}

TEST(CudaEmulatedStep, TiledProductsWithKSplitMatchTheProductInEveryLayout) {
  std::mt19937 rng(14);
  std::normal_distribution<float> d(0.f, 1.f);
  const int64_t M = 150, N = 133, K = 300;
  std::vector<float> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
  for (float& v : a) v = d(rng);
  for (float& v : b) v = d(rng);
  std::vector<double> want(static_cast<size_t>(M * N), 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        want[static_cast<size_t>(m * N + n)] += double(a[static_cast<size_t>(m * K + k)]) * b[static_cast<size_t>(k * N + n)];
  // Operands stored as each layout reads them: A 't' stores A^T ([K, M]), B 't' stores B^T ([N, K]).
  std::vector<float> at(a.size()), bt(b.size());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) at[static_cast<size_t>(k * M + m)] = a[static_cast<size_t>(m * K + k)];
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) bt[static_cast<size_t>(n * K + k)] = b[static_cast<size_t>(k * N + n)];
  typedef void (*Tiled)(GGMatmul, float*, const float*, const float*, float*);
  struct Layout {
    const char* name;
    Tiled kernel;
    bool a_t, b_t;
  };
  for (const Layout& L : {Layout{"nn", &gg_matmul_nn128x128_f32, false, false}, Layout{"nt", &gg_matmul_nt128x128_f32, false, true},
                          Layout{"tn", &gg_matmul_tn128x128_f32, true, false}, Layout{"tt", &gg_matmul_tt128x128_f32, true, true}}) {
    for (int splits : {1, 3, 8}) {
      GGMatmul g{};
      g.M = M;
      g.N = N;
      g.K = K;
      g.a_sm = L.a_t ? 1 : K;
      g.a_sk = L.a_t ? M : 1;
      g.b_sk = L.b_t ? 1 : N;
      g.b_sn = L.b_t ? K : 1;
      g.batch_rank = 0;
      g.batch = 1;
      g.a_k_major = L.a_t ? 0 : 1;
      g.b_n_major = L.b_t ? 0 : 1;
      g.splits = splits;
      std::vector<float> c(static_cast<size_t>(M * N), -5.f), ws(static_cast<size_t>(splits * M * N), -9.f);
      emulate::launch(L.kernel, dim3{2, 2, static_cast<unsigned>(splits)}, dim3{256, 1, 1}, g, c.data(),
                      L.a_t ? at.data() : a.data(), L.b_t ? bt.data() : b.data(), splits > 1 ? ws.data() : nullptr);
      if (splits > 1) {
        emulate::launch(&gg_matmul_reduce_f32, dim3{4, 1, 1}, dim3{256, 1, 1}, g, c.data(), (const float*)ws.data());
      }
      double worst = 0;
      for (size_t i = 0; i < c.size(); ++i) worst = std::max(worst, std::fabs(c[i] - want[i]));
      EXPECT_LT(worst, 1e-3) << L.name << " splits " << splits;
    }
  }
}

// gemm_dense.cuh's tiles (docs/cuda.md, "Dense float products"): 8 x 8 micro-tiles of 256
// threads, A k-contiguous ('nn') or m-contiguous ('tn'), B row-major, against a double-precision
// product. M and N leave part tiles (rows past the edge read the last row), K a part k step (k
// past the end reads zeros, the predicated fetch) after whole ones (the fetch without
// predicates), k split 3 ways (partial sums, then gg_matmul_reduce) or not, with and without the
// fused bias, one block walking several tiles (grid-stride loops), and a batch of two products
// whose A differ and B is shared.
TEST(CudaEmulatedStep, DenseTilesMatchTheProductInBothLayouts) {
  std::mt19937 rng(18);
  std::normal_distribution<float> d(0.f, 1.f);
  const int64_t M = 148, N = 132, K = 300;
  // Each operand is followed by 16 rows of NaN: a k past the end that is read instead of zeroed
  // turns its row or column of C into NaN.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const size_t pad = static_cast<size_t>(16 * std::max(M, N));
  std::vector<float> a(static_cast<size_t>(2 * M * K) + pad, nan), b(static_cast<size_t>(K * N) + pad, nan),
      bias(static_cast<size_t>(N));
  for (size_t i = 0; i < a.size() - pad; ++i) a[i] = d(rng);
  for (size_t i = 0; i < b.size() - pad; ++i) b[i] = d(rng);
  for (float& v : bias) v = d(rng);
  std::vector<float> at(a.size(), nan);  // each product's A^T ([K, M]): the 't' layout
  for (int64_t z = 0; z < 2; ++z)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        at[static_cast<size_t>(z * M * K + k * M + m)] = a[static_cast<size_t>(z * M * K + m * K + k)];
  typedef void (*Tiled)(GGMatmul, float*, const float*, const float*, float*);
  struct Kernel {
    const char* name;
    Tiled kernel;
    bool a_t;
  };
  const Kernel kernels[] = {{"nn", &gg_matmul_nn_dense_f32, false}, {"tn", &gg_matmul_tn_dense_f32, true}};
  for (const Kernel& L : kernels) {
    for (int splits : {1, 3}) {
      for (int64_t batch : {int64_t(1), int64_t(2)}) {
        if (splits > 1 && batch > 1) continue;  // the launcher splits single products only
        for (bool with_bias : {false, true}) {
          GGMatmul g{};
          g.M = M;
          g.N = N;
          g.K = K;
          g.a_sm = L.a_t ? 1 : K;
          g.a_sk = L.a_t ? M : 1;
          g.b_sk = N;
          g.b_sn = 1;
          g.batch = batch;
          g.batch_rank = batch > 1 ? 1 : 0;
          g.batch_size[0] = batch;
          g.a_bstride[0] = M * K;
          g.b_bstride[0] = 0;
          g.a_k_major = L.a_t ? 0 : 1;
          g.b_n_major = 1;
          g.splits = splits;
          g.bias = with_bias ? bias.data() : nullptr;
          g.bias_sn = 1;
          std::vector<float> c(static_cast<size_t>(batch * M * N), -5.f), ws(static_cast<size_t>(splits * M * N), -9.f);
          emulate::launch(L.kernel, dim3{1, 2, static_cast<unsigned>(splits > 1 ? splits : 1)}, dim3{256, 1, 1}, g,
                          c.data(), L.a_t ? at.data() : a.data(), b.data(), splits > 1 ? ws.data() : nullptr);
          if (splits > 1)
            emulate::launch(&gg_matmul_reduce_f32, dim3{4, 1, 1}, dim3{256, 1, 1}, g, c.data(), (const float*)ws.data());
          double worst = 0;
          for (int64_t z = 0; z < batch; ++z)
            for (int64_t m = 0; m < M; ++m)
              for (int64_t n = 0; n < N; ++n) {
                double want = with_bias ? bias[static_cast<size_t>(n)] : 0.0;
                for (int64_t k = 0; k < K; ++k)
                  want += double(a[static_cast<size_t>(z * M * K + m * K + k)]) * b[static_cast<size_t>(k * N + n)];
                const double err = std::fabs(c[static_cast<size_t>(z * M * N + m * N + n)] - want);
                worst = std::isnan(err) ? err : std::max(worst, err);  // NaN stays (max would drop it)
              }
          EXPECT_LT(worst, 1e-3) << L.name << " splits " << splits << " batch " << batch << " bias " << with_bias;
        }
      }
    }
  }
}

// MatMul's fused bias (fuse_matmul_bias): every kernel stores the product plus bias[n], the
// same float sum as the product followed by an Add, bitwise: the register tiles in both store
// paths (N a multiple of 4: 16-byte stores; N odd: the scalar path and the tails), the split
// products (the bias added once, after the partitions), the any-stride tiles and the thread
// per output. The bias is read with a stride of 2.
TEST(CudaEmulatedStep, ProductsWithAFusedBiasEqualTheProductPlusTheBias) {
  std::mt19937 rng(16);
  std::normal_distribution<float> d(0.f, 1.f);
  typedef void (*Tiled)(GGMatmul, float*, const float*, const float*, float*);
  typedef void (*Plain)(GGMatmul, float*, const float*, const float*);
  struct Kernel {
    const char* name;
    Tiled tiled;
    Plain plain;
    bool b_t;
    unsigned threads;
  };
  const Kernel kernels[] = {{"nn128x128", &gg_matmul_nn128x128_f32, nullptr, false, 256},
                            {"nt128x128", &gg_matmul_nt128x128_f32, nullptr, true, 256},
                            {"nn64x128", &gg_matmul_nn64x128_f32, nullptr, false, 128},
                            {"nt32x64", &gg_matmul_nt32x64_f32, nullptr, true, 128},
                            {"any strides", nullptr, &gg_matmul_f32, false, 256},
                            {"thread", nullptr, &gg_matmul_thread_f32, false, 128}};
  for (int64_t N : {int64_t(132), int64_t(69)}) {
    const int64_t M = 70, K = 40;
    std::vector<float> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N)), bt(b.size()),
        bias(static_cast<size_t>(2 * N));
    for (float& v : a) v = d(rng);
    for (float& v : b) v = d(rng);
    for (float& v : bias) v = d(rng);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) bt[static_cast<size_t>(n * K + k)] = b[static_cast<size_t>(k * N + n)];
    for (const Kernel& L : kernels) {
      for (int splits : {1, 3}) {
        if (!L.tiled && splits > 1) continue;
        GGMatmul g{};
        g.M = M;
        g.N = N;
        g.K = K;
        g.a_sm = K;
        g.a_sk = 1;
        g.b_sk = L.b_t ? 1 : N;
        g.b_sn = L.b_t ? K : 1;
        g.batch = 1;
        g.a_k_major = 1;
        g.b_n_major = L.b_t ? 0 : 1;
        g.splits = splits;
        auto run = [&](const float* bias_ptr) {
          GGMatmul gb = g;
          gb.bias = bias_ptr;
          gb.bias_sn = 2;
          std::vector<float> c(static_cast<size_t>(M * N), -5.f), ws(static_cast<size_t>(splits * M * N), -9.f);
          const float* bp = L.b_t ? bt.data() : b.data();
          if (L.tiled) {
            emulate::launch(L.tiled, dim3{3, 2, static_cast<unsigned>(splits)}, dim3{L.threads, 1, 1}, gb, c.data(),
                            a.data(), bp, splits > 1 ? ws.data() : nullptr);
            if (splits > 1)
              emulate::launch(&gg_matmul_reduce_f32, dim3{4, 1, 1}, dim3{256, 1, 1}, gb, c.data(), (const float*)ws.data());
          } else {
            emulate::launch(L.plain, dim3{3, 2, 1}, dim3{L.threads, 1, 1}, gb, c.data(), a.data(), bp);
          }
          return c;
        };
        const std::vector<float> plain = run(nullptr), fused = run(bias.data());
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            const size_t i = static_cast<size_t>(m * N + n);
            ASSERT_EQ(fused[i], plain[i] + bias[static_cast<size_t>(2 * n)])
                << L.name << " N " << N << " splits " << splits << " at (" << m << ", " << n << ")";
          }
      }
    }
  }
}

TEST(CudaEmulatedStep, DropoutWithAFusedResidualEqualsDropoutThenTheSum) {
  std::mt19937 rng(17);
  std::normal_distribution<float> d(0.f, 1.f);
  alignas(16) static float x[1040], r[1040], plain[1040], fused[1040];
  const int64_t seed = 1234;
  const uint64_t threshold = glassgrad::philox::keep_threshold(0.25);
  for (int64_t n : {int64_t(1), int64_t(7), int64_t(1027)}) {
    for (int vec4 : {0, 1}) {
      for (int64_t i = 0; i < n; ++i) x[i] = d(rng), r[i] = d(rng);
      emulate::launch(&gg_dropout_f32, dim3{2, 1, 1}, dim3{64, 1, 1}, n, threshold, 1.f / 0.75f, vec4, plain,
                      (const float*)x, &seed, (const float*)nullptr);
      emulate::launch(&gg_dropout_f32, dim3{2, 1, 1}, dim3{64, 1, 1}, n, threshold, 1.f / 0.75f, vec4, fused,
                      (const float*)x, &seed, (const float*)r);
      int dropped = 0;
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(fused[i], plain[i] + r[i]) << "n " << n << " vec4 " << vec4 << " element " << i;
        dropped += plain[i] == 0.f ? 1 : 0;
      }
      if (n == 1027) EXPECT_GT(dropped, 150) << "a quarter should be dropped";
    }
  }
}

TEST(CudaEmulatedStep, DenseElementwiseFourAtATimeMatchesEachElementsFunction) {
  using glassgrad::Elementwise;
  using glassgrad::ElementwiseOp;
  std::mt19937 rng(15);
  std::normal_distribution<float> d(0.f, 1.f);
  // Aligned (float4 loads, then the n % 4 tail) and misaligned by one element (scalar loads).
  alignas(16) static float a[1040], b[1040], out[1040];
  for (int64_t n : {int64_t(1), int64_t(3), int64_t(4), int64_t(403), int64_t(1027)}) {
    for (int shift : {0, 1}) {
      for (int64_t i = 0; i < n + shift; ++i) {
        a[i] = d(rng);
        b[i] = d(rng) + 4.f;
      }
      GGIter it{};
      it.rank = 1;
      it.small = 1;
      it.size[0] = n;
      for (int k = 0; k < 3; ++k) it.stride[k][0] = 1;
      for (int op : {(int)ElementwiseOp::Add, (int)ElementwiseOp::Div}) {
        std::fill(out, out + 1040, -77.f);
        emulate::launch(&gg_binary_f32, dim3{3, 1, 1}, dim3{32, 1, 1}, n, it, op, out + shift, a + shift, b + shift, 0.0);
        for (int64_t i = 0; i < n; ++i) {
          const float x = a[i + shift], y = b[i + shift];
          const float want = op == (int)ElementwiseOp::Add ? x + y : Elementwise<ElementwiseOp::Div>::f(x, y, 0.f);
          ASSERT_EQ(std::memcmp(&out[i + shift], &want, sizeof want), 0) << "op " << op << " n " << n << " i " << i;
        }
        ASSERT_EQ(out[n + shift], -77.f) << "wrote past the end";
      }
      std::fill(out, out + 1040, -77.f);
      emulate::launch(&gg_unary_f32, dim3{2, 1, 1}, dim3{64, 1, 1}, n, it, (int)ElementwiseOp::GELU, out + shift, a + shift, 0.0);
      for (int64_t i = 0; i < n; ++i) {
        const float want = Elementwise<ElementwiseOp::GELU>::f(a[i + shift], a[i + shift], 0.f);
        ASSERT_EQ(std::memcmp(&out[i + shift], &want, sizeof want), 0) << "GELU n " << n << " i " << i;
      }
      ASSERT_EQ(out[n + shift], -77.f);
    }
  }
}
