// The CUDA attention kernels (kernels/cuda/attention.cu) run on the CPU through
// cuda_emulation.h, with the launcher's own parameter block and grids (kernels/cuda/attention_plan.h),
// against the CPU kernels (kernels/cpu/attention.cpp, run through run_op): forward, dq/D and
// dk/dv/dmask, in float32 and float64, over sizes that cross the tiles, features beyond the
// resident chunk, strided and broadcast operands, causal and additive masks (whole rows hidden),
// dropout (the same counter-based mask on both sides) and grids capped below the work (the
// kernels' grid-stride loops). float32 runs every backward path: gg_attn_dq + gg_attn_dkv
// (deterministic) and gg_attn_prep + gg_attn_bwd_resident (dq by atomics, the default where the
// features fit one chunk) or gg_attn_bwd (dq by atomics, every feature count); causal row blocks
// go heaviest first. The GPU parity tests (pytest -m cuda) compare the same on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_emulation.h"
// The kernel source, compiled as C++ (after the emulation's definitions).
#include "cuda/attention.cu"
#include "cuda/attention_plan.h"
#include "glassgrad/runtime/eager.h"
#include "runtime_test_util.h"

namespace {

using namespace glassgrad;
namespace plan = glassgrad::cuda::attention;

struct Case {
  std::string name;
  DType dtype;
  Shape q, k, v;                // before the views below
  Shape mask;                   // empty: no mask
  bool causal = false;
  double dropout = 0.0;
  bool permuted = false;        // q, k, v as [b, L, h, e] viewed as [b, h, L, e]
  bool cap_grid = false;        // grids of one block per axis

  Case(std::string n, DType dt, Shape q_, Shape k_, Shape v_)
      : name(std::move(n)), dtype(dt), q(std::move(q_)), k(std::move(k_)), v(std::move(v_)) {}
  Case& with_mask(Shape m) { mask = std::move(m); return *this; }
  Case& with_causal() { causal = true; return *this; }
  Case& with_dropout(double p) { dropout = p; return *this; }
  Case& with_permuted_heads() { permuted = true; return *this; }
  Case& with_capped_grid() { cap_grid = true; return *this; }
};

// The emulated kernels of dtype T.
template <typename T>
struct Kernels;
template <>
struct Kernels<float> {
  static constexpr auto fwd = &gg_attn_fwd_f32;
  static constexpr auto dq = &gg_attn_dq_f32;
  static constexpr auto dkv = &gg_attn_dkv_f32;
};
template <>
struct Kernels<double> {
  static constexpr auto fwd = &gg_attn_fwd_f64;
  static constexpr auto dq = &gg_attn_dq_f64;
  static constexpr auto dkv = &gg_attn_dkv_f64;
};

Tensor random_tensor(const Shape& shape, DType dt, std::mt19937& rng, double hide = 0.0) {
  Tensor t = Tensor::empty(shape, dt);
  std::normal_distribution<double> d(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  rt_test::for_each_index(shape, [&](const std::vector<int64_t>& i) {
    rt_test::set(t, i, u(rng) < hide ? -std::numeric_limits<double>::infinity() : d(rng));
  });
  return t;
}

// [b, h, L, e] as a permuted view of a dense [b, L, h, e].
Tensor heads_view(const Shape& s, DType dt, std::mt19937& rng) {
  return random_tensor({s[0], s[2], s[1], s[3]}, dt, rng).permute({0, 2, 1, 3});
}

void expect_close(const Tensor& want, const Tensor& got, const std::string& what, double tol) {
  const std::vector<double> a = rt_test::values(want), b = rt_test::values(got);
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 1.0;
  for (double x : a) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isinf(a[i])) {
      EXPECT_EQ(a[i], b[i]) << what << " element " << i;
      continue;
    }
    ASSERT_NEAR(a[i], b[i], tol * scale) << what << " element " << i;
  }
}

template <typename K, typename... A>
void run(K kernel, const plan::Grid& full, bool cap, unsigned threads, A... args) {
  const dim3 grid{cap ? 1u : full.x, cap ? 1u : full.y, cap ? 1u : full.z};
  emulate::launch(kernel, grid, dim3{threads, 1, 1}, args...);
}

template <typename T>
void check(const Case& c) {
  SCOPED_TRACE(c.name);
  std::mt19937 rng(17);
  const DType dt = c.dtype;
  std::vector<Tensor> in;
  in.push_back(c.permuted ? heads_view(c.q, dt, rng) : random_tensor(c.q, dt, rng));
  in.push_back(c.permuted ? heads_view(c.k, dt, rng) : random_tensor(c.k, dt, rng));
  in.push_back(c.permuted ? heads_view(c.v, dt, rng) : random_tensor(c.v, dt, rng));
  Attrs attrs{{"scale", 0.37}, {"is_causal", c.causal}};
  if (!c.mask.empty()) {
    in.push_back(random_tensor(c.mask, dt, rng, 0.2));
    // the first query row sees no key at all
    rt_test::for_each_index(c.mask, [&](const std::vector<int64_t>& i) {
      if (i[i.size() - 2] == 0) rt_test::set(in.back(), i, -std::numeric_limits<double>::infinity());
    });
    attrs.set("masked", true);
  }
  if (c.dropout > 0) {
    Tensor seed = Tensor::empty({}, DType::Int64);
    *seed.data<int64_t>() = 0x1234567890abcdefll;
    in.push_back(seed);
    attrs.set("dropout_p", c.dropout);
  }
  const AttentionGeometry g = AttentionGeometry::from(in[0].shape(), in[1].shape(), in[2].shape(), attrs);
  const std::vector<Tensor> want = run_op("ScaledDotProductAttention", in, attrs);

  // forward
  const plan::Tiles tiles = plan::tiles_of(dt);
  const GGAttention p = plan::params_of(g, attention_layout(g, in, false));
  Tensor out = Tensor::empty(want[0].shape(), dt), lse = Tensor::empty(want[1].shape(), dt);
  const T* mask = g.masked ? in[3].data<T>() : nullptr;
  const int64_t* seed = g.dropout() ? in.back().data<int64_t>() : nullptr;
  run(Kernels<T>::fwd, plan::forward_grid(g, tiles), c.cap_grid, static_cast<unsigned>(tiles.fwd_threads), p, out.data<T>(),
      lse.data<T>(), static_cast<const T*>(in[0].data<T>()), static_cast<const T*>(in[1].data<T>()),
      static_cast<const T*>(in[2].data<T>()), mask, seed);
  const double tol = dt == DType::Float32 ? 2e-5 : 1e-12;
  expect_close(want[0], out, "out", tol);
  expect_close(want[1], lse, "lse", tol);

  // backward: grad_out, q, k, v, out, lse[, mask][, seed]
  std::vector<Tensor> bin{random_tensor(want[0].shape(), dt, rng), in[0], in[1], in[2], want[0], want[1]};
  for (size_t i = 3; i < in.size(); ++i) bin.push_back(in[i]);
  Attrs battrs = attrs;
  if (g.masked) battrs.set("mask_grad", true);
  const std::vector<Tensor> bwant = run_op("ScaledDotProductAttentionBackward", bin, battrs);
  const AttentionGeometry bg = AttentionGeometry::from(in[0].shape(), in[1].shape(), in[2].shape(), battrs);
  const GGAttention bp = plan::params_of(bg, attention_layout(bg, bin, true));
  std::vector<Tensor> grads;
  for (const Tensor& w : bwant) grads.push_back(Tensor::empty(w.shape(), dt));
  std::vector<T> dsum(static_cast<size_t>(std::max<int64_t>(1, g.batch_count() * g.l)));
  auto ptr = [](const Tensor& t) { return static_cast<const T*>(t.data<T>()); };
  run(Kernels<T>::dq, plan::dq_grid(bg, tiles), c.cap_grid, static_cast<unsigned>(tiles.threads), bp, grads[0].data<T>(),
      dsum.data(), ptr(bin[0]), ptr(bin[1]), ptr(bin[2]), ptr(bin[3]), ptr(bin[4]), ptr(bin[5]), mask, seed);
  run(Kernels<T>::dkv, plan::dkv_grid(bg, tiles), c.cap_grid, static_cast<unsigned>(tiles.threads), bp, grads[1].data<T>(),
      grads[2].data<T>(), bg.mask_grad ? grads[3].data<T>() : static_cast<T*>(nullptr),
      static_cast<const T*>(dsum.data()), ptr(bin[0]), ptr(bin[1]), ptr(bin[2]), ptr(bin[3]), ptr(bin[5]), mask, seed);
  const char* names[] = {"dq", "dk", "dv", "dmask"};
  const double btol = dt == DType::Float32 ? 5e-5 : 1e-11;
  for (size_t i = 0; i < 4; ++i) expect_close(bwant[i], grads[i], names[i], btol);

  // The float32 default: gg_attn_prep then a kernel that adds dq with atomics: the one the launcher
  // picks (gg_attn_bwd_resident when the features fit one chunk) and gg_attn_bwd (which serves
  // every feature count), into outputs holding NaN (gg_attn_prep must zero dq; every other value
  // must be written).
  if constexpr (std::is_same<T, float>::value) {
    ASSERT_TRUE(plan::atomic_dq(dt, false));
    ASSERT_FALSE(plan::atomic_dq(dt, true));
    const std::string picked = plan::atomic_backward_kernel(bg, tiles);
    EXPECT_EQ(picked != "gg_attn_bwd_f32", bg.e <= 64 && bg.ev <= 64);
    std::vector<std::string> kernels{picked};
    if (picked != "gg_attn_bwd_f32") kernels.push_back("gg_attn_bwd_f32");
    for (const std::string& kernel : kernels) {
      SCOPED_TRACE(kernel);
      const bool resident = kernel != "gg_attn_bwd_f32";
      std::vector<Tensor> agrads;
      for (const Tensor& w : bwant) {
        agrads.push_back(Tensor::empty(w.shape(), dt));
        std::fill(agrads.back().data<T>(), agrads.back().data<T>() + agrads.back().numel(),
                  std::numeric_limits<T>::quiet_NaN());
      }
      std::fill(dsum.begin(), dsum.end(), std::numeric_limits<T>::quiet_NaN());
      // dmask with a guard of NaN rows after its end: nothing may be written there.
      const size_t dmask_n = static_cast<size_t>(bwant[3].numel());
      std::vector<T> dmask_guarded(dmask_n + static_cast<size_t>(64 * std::max<int64_t>(bg.s, 1)),
                                   std::numeric_limits<T>::quiet_NaN());
      run(&gg_attn_prep_f32, plan::prep_grid(bg, tiles), c.cap_grid, static_cast<unsigned>(tiles.threads), bp,
          agrads[0].data<T>(), dsum.data(), ptr(bin[0]), ptr(bin[4]));
      if (bg.s > 0) {
        run(resident ? &gg_attn_bwd_resident_f32 : &gg_attn_bwd_f32, plan::dkv_grid(bg, tiles), c.cap_grid,
            static_cast<unsigned>(plan::atomic_backward_threads(kernel.c_str(), tiles)), bp, agrads[0].data<T>(),
            agrads[1].data<T>(), agrads[2].data<T>(), bg.mask_grad ? dmask_guarded.data() : static_cast<T*>(nullptr),
            static_cast<const T*>(dsum.data()), ptr(bin[0]), ptr(bin[1]), ptr(bin[2]), ptr(bin[3]), ptr(bin[5]),
            mask, seed);
      }
      if (bg.mask_grad) std::copy(dmask_guarded.begin(), dmask_guarded.begin() + dmask_n, agrads[3].data<T>());
      for (size_t i = dmask_n; i < dmask_guarded.size(); ++i) ASSERT_TRUE(std::isnan(dmask_guarded[i])) << "past dmask: " << i;
      for (size_t i = 0; i < 4; ++i) expect_close(bwant[i], agrads[i], std::string("atomic path: ") + names[i], btol);
    }
  }
}

TEST(CudaEmulatedAttention, ForwardAndBackwardMatchTheCpuKernels) {
  const DType f32 = DType::Float32, f64 = DType::Float64;
  std::vector<Case> cases{
      Case("float, tiles crossed", f32, {2, 70, 20}, {2, 75, 20}, {2, 75, 12}),
      Case("float, causal, more queries than keys", f32, {1, 2, 70, 8}, {1, 2, 40, 8}, {1, 2, 40, 8}).with_causal(),
      Case("float, mask, permuted heads", f32, {2, 3, 33, 16}, {2, 3, 35, 16}, {2, 3, 35, 8})
          .with_mask({33, 35})
          .with_permuted_heads(),
      Case("float, features beyond a chunk", f32, {1, 40, 70}, {1, 37, 70}, {1, 37, 66}),
      Case("float, dropout, causal, capped grid", f32, {3, 45, 12}, {3, 45, 12}, {3, 45, 7})
          .with_causal()
          .with_dropout(0.3)
          .with_capped_grid(),
      Case("float, broadcast batch", f32, {2, 3, 9, 5}, {1, 3, 11, 5}, {2, 1, 11, 6}).with_mask({2, 1, 9, 11}),
      // Head dims of real models, odd lengths, and value features past the query features (a
      // chunk of dk/dv columns with no dq columns): the float32 default adds dq with atomics.
      Case("float, head dim 64, causal, dropout, odd lengths", f32, {2, 2, 67, 64}, {2, 2, 67, 64}, {2, 2, 67, 64})
          .with_causal()
          .with_dropout(0.1),
      Case("float, head dim 80, mask, permuted heads", f32, {1, 2, 45, 80}, {1, 2, 39, 80}, {1, 2, 39, 80})
          .with_mask({45, 39})
          .with_permuted_heads(),
      Case("float, head dim 128, causal, capped grid", f32, {1, 1, 37, 128}, {1, 1, 37, 128}, {1, 1, 37, 128})
          .with_causal()
          .with_capped_grid(),
      Case("float, key heads shared by query heads", f32, {2, 4, 33, 16}, {2, 1, 50, 16}, {2, 1, 50, 16}),
      Case("float, more value features than query features", f32, {1, 20, 16}, {1, 35, 16}, {1, 35, 80}),
      // gg_attn_bwd_resident (features within one chunk) on the GPT's geometry and around it:
      // mask gradients with the causal triangle, odd feature counts (columns past E in the
      // second half's products), more batch elements than work_item's order group (a partial
      // last group), capped grids.
      Case("float, head dim 64, causal, mask, dropout, more queries", f32, {1, 2, 70, 64}, {1, 2, 45, 64},
           {1, 2, 45, 64})
          .with_causal()
          .with_mask({70, 45})
          .with_dropout(0.2),
      Case("float, odd feature counts, mask, permuted heads", f32, {1, 3, 50, 33}, {1, 3, 41, 33}, {1, 3, 41, 50})
          .with_mask({50, 41})
          .with_permuted_heads(),
      Case("float, causal, dropout, batch past an order group", f32, {130, 40, 8}, {130, 40, 8}, {130, 40, 5})
          .with_causal()
          .with_dropout(0.2),
      Case("float, head dim 64, causal, dropout, permuted heads, capped grid", f32, {2, 3, 64, 64}, {2, 3, 64, 64},
           {2, 3, 64, 64})
          .with_causal()
          .with_dropout(0.2)
          .with_permuted_heads()
          .with_capped_grid(),
      // Key blocks past the last query (causal, L < S): no dmask row beyond L is written.
      Case("float, causal, mask, fewer queries than keys", f32, {3, 20, 16}, {3, 70, 16}, {3, 70, 16})
          .with_causal()
          .with_mask({3, 20, 70}),
      Case("double, tiles, mask, dropout", f64, {2, 40, 36}, {2, 41, 36}, {2, 41, 35}).with_mask({40, 41}).with_dropout(0.2),
      Case("double, causal, capped grid", f64, {2, 34, 5}, {2, 34, 5}, {2, 34, 3}).with_causal().with_capped_grid(),
  };
  for (const Case& c : cases) {
    if (c.dtype == DType::Float32) check<float>(c);
    else check<double>(c);
  }
}

}  // namespace
