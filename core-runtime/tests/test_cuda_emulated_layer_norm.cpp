// The CUDA layer-norm kernels (kernels/cuda/layer_norm.cu) run on the CPU through
// cuda_emulation.h, with the launcher's own parameter block and partitions
// (kernels/cuda/layer_norm_plan.h), against the CPU kernels (kernels/cpu/layer_norm.cpp, run through
// run_op): the forward, dx and the parameter gradients in one partition and in several (the
// workspace and its ordered sum), with and without weight and bias, the statistics' gradients,
// rows that do not fill a block and grids capped below the work (the grid-stride loops). The GPU
// parity tests (pytest -m cuda) compare the same on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cuda_emulation.h"
// The kernel source, compiled as C++ (after the emulation's definitions).
#include "cuda/layer_norm.cu"
#include "cuda/layer_norm_plan.h"
#include "glassgrad/runtime/eager.h"
#include "runtime_test_util.h"

namespace {

using namespace glassgrad;
namespace plan = glassgrad::cuda::layer_norm;

struct Case {
  std::string name;
  DType dtype;
  Shape x;
  int normalized_ndim;
  bool weight, bias, stat_grads, cap_grid;
};

template <typename T>
struct Kernels;
template <>
struct Kernels<float> {
  static constexpr auto fwd = &gg_ln_fwd_f32;
  static constexpr auto dx = &gg_ln_dx_f32;
  static constexpr auto params = &gg_ln_params_f32;
  static constexpr auto sum = &gg_ln_params_sum_f32;
};
template <>
struct Kernels<double> {
  static constexpr auto fwd = &gg_ln_fwd_f64;
  static constexpr auto dx = &gg_ln_dx_f64;
  static constexpr auto params = &gg_ln_params_f64;
  static constexpr auto sum = &gg_ln_params_sum_f64;
};

Tensor random_tensor(const Shape& shape, DType dt, std::mt19937& rng, double offset = 0.0) {
  Tensor t = Tensor::empty(shape, dt);
  std::normal_distribution<double> d(offset, 1.5);
  rt_test::for_each_index(shape, [&](const std::vector<int64_t>& i) { rt_test::set(t, i, d(rng)); });
  return t;
}

void expect_close(const Tensor& want, const Tensor& got, const std::string& what, double tol) {
  const std::vector<double> a = rt_test::values(want), b = rt_test::values(got);
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 1.0;
  for (double x : a) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tol * scale) << what << " element " << i;
}

template <typename T>
const T* cptr(const Tensor& t) {
  return t.data<T>();
}

template <typename T>
void check(const Case& c) {
  SCOPED_TRACE(c.name);
  std::mt19937 rng(5);
  const DType dt = c.dtype;
  const Shape normalized(c.x.end() - c.normalized_ndim, c.x.end());
  Attrs attrs{{"normalized_shape", normalized}, {"eps", 1e-5}, {"weight", c.weight}, {"bias", c.bias}};
  std::vector<Tensor> in{random_tensor(c.x, dt, rng, 0.7)};
  if (c.weight) in.push_back(random_tensor(normalized, dt, rng, 1.0));
  if (c.bias) in.push_back(random_tensor(normalized, dt, rng));
  const LayerNormGeometry g = LayerNormGeometry::from(c.x, attrs);
  const std::vector<Tensor> want = run_op("LayerNorm", in, attrs);
  const GGLayerNorm p = plan::params_of(g);
  const unsigned row_blocks = c.cap_grid ? 1u : static_cast<unsigned>((g.rows + 7) / 8);
  Tensor y = Tensor::empty(want[0].shape(), dt), mean = Tensor::empty(want[1].shape(), dt),
         rstd = Tensor::empty(want[2].shape(), dt);
  const T* w = c.weight ? cptr<T>(in[1]) : nullptr;
  const T* b = c.bias ? cptr<T>(in[c.weight ? 2 : 1]) : nullptr;
  emulate::launch(Kernels<T>::fwd, dim3{row_blocks, 1, 1}, dim3{256, 1, 1}, p, y.data<T>(), mean.data<T>(),
                  rstd.data<T>(), cptr<T>(in[0]), w, b);
  const double tol = dt == DType::Float32 ? 2e-5 : 1e-12;
  expect_close(want[0], y, "y", tol);
  expect_close(want[1], mean, "mean", tol);
  expect_close(want[2], rstd, "rstd", tol);

  // backward: grad_y, x, mean, rstd[, weight][, grad_mean, grad_rstd]
  Attrs battrs = attrs;
  if (c.stat_grads) battrs.set("stat_grads", true);
  const LayerNormGeometry bg = LayerNormGeometry::from(c.x, battrs);
  std::vector<Tensor> bin{random_tensor(c.x, dt, rng), in[0], want[1], want[2]};
  if (c.weight) bin.push_back(in[1]);
  if (c.stat_grads) {
    bin.push_back(random_tensor(g.outer, dt, rng));
    bin.push_back(random_tensor(g.outer, dt, rng));
  }
  const std::vector<Tensor> bwant = run_op("LayerNormBackward", bin, battrs);
  const GGLayerNorm bp = plan::params_of(bg);
  Tensor dx = Tensor::empty(bwant[0].shape(), dt), dw = Tensor::empty(bwant[1].shape(), dt),
         db = Tensor::empty(bwant[2].shape(), dt);
  std::vector<T> ws(plan::workspace_bytes(bp, sizeof(T)) / sizeof(T) + 1);
  const int gm = bg.grad_mean_input();
  emulate::launch(Kernels<T>::dx, dim3{row_blocks, 1, 1}, dim3{256, 1, 1}, bp, dx.data<T>(), cptr<T>(bin[0]),
                  cptr<T>(bin[1]), cptr<T>(bin[2]), cptr<T>(bin[3]), c.weight ? cptr<T>(bin[4]) : nullptr,
                  gm >= 0 ? cptr<T>(bin[static_cast<size_t>(gm)]) : nullptr,
                  gm >= 0 ? cptr<T>(bin[static_cast<size_t>(gm + 1)]) : nullptr);
  expect_close(bwant[0], dx, "dx", dt == DType::Float32 ? 5e-5 : 1e-11);
  if (!c.weight && !c.bias) return;
  const unsigned col_blocks = c.cap_grid ? 1u : static_cast<unsigned>((g.cols + 31) / 32);
  const unsigned parts = c.cap_grid ? 1u : static_cast<unsigned>(bp.parts);
  emulate::launch(Kernels<T>::params, dim3{col_blocks, parts, 1}, dim3{256, 1, 1}, bp,
                  c.weight ? dw.data<T>() : static_cast<T*>(nullptr), c.bias ? db.data<T>() : static_cast<T*>(nullptr),
                  ws.data(), cptr<T>(bin[0]), cptr<T>(bin[1]), cptr<T>(bin[2]), cptr<T>(bin[3]));
  if (bp.parts > 1) {
    emulate::launch(Kernels<T>::sum, dim3{c.cap_grid ? 1u : 2u, 1, 1}, dim3{256, 1, 1}, bp,
                    c.weight ? dw.data<T>() : static_cast<T*>(nullptr), c.bias ? db.data<T>() : static_cast<T*>(nullptr),
                    static_cast<const T*>(ws.data()));
  }
  const double ptol = dt == DType::Float32 ? 1e-4 : 1e-11;
  if (c.weight) expect_close(bwant[1], dw, "dweight", ptol);
  if (c.bias) expect_close(bwant[2], db, "dbias", ptol);
}

TEST(CudaEmulatedLayerNorm, ForwardAndBackwardMatchTheCpuKernels) {
  const DType f32 = DType::Float32, f64 = DType::Float64;
  std::vector<Case> cases{
      {"float, rows not filling a block", f32, {5, 7}, 1, true, true, false, false},
      {"float, columns beyond a warp, one partition", f32, {3, 11, 70}, 1, true, true, false, false},
      {"float, partitions and their ordered sum", f32, {600, 9}, 1, true, true, false, false},
      {"float, capped grids, partitions", f32, {530, 40}, 1, true, false, false, true},
      {"float, no affine, two normalized axes", f32, {4, 3, 5}, 2, false, false, false, false},
      {"float, bias only, statistics' gradients", f32, {6, 33}, 1, false, true, true, false},
      {"double, weight, statistics' gradients, partitions", f64, {520, 3}, 1, true, false, true, false},
      {"double, one value a row", f64, {9, 1}, 1, true, true, false, true},
  };
  for (const Case& c : cases) {
    if (c.dtype == DType::Float32) check<float>(c);
    else check<double>(c);
  }
}

}  // namespace
