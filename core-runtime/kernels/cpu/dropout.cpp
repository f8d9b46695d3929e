// CPU kernels of the dropout family (families/dropout.def; the rules: autodiff-engine/src/ops/
// dropout.cpp; the mask: kernels/dropout_rules.h). Layout: dense x and y of n elements; the seed an int64 scalar.
//
//   Dropout               y[i] = x[i] * (keep(i) ? 1 / (1 - p) : 0)  (+ residual[i], a dense third
//                         input, after the product is rounded)
//   AlphaDropout          y[i] = x[i] * (keep(i) ? a : 0) + (keep(i) ? alpha*a*p : alpha*a*(p - 1))
//   AlphaDropoutBackward  dx[i] = grad_y[i] * (keep(i) ? a : 0)
//   keep(4g + q) = word q of Philox4x32-10 at counter g under the seed >= round(p * 2^32)
//                  (computed for blocks of groups by dropout_mask.h);
//   a = 1/sqrt((alpha^2 p + 1)(1 - p)), alpha = 1.7580993408473766 (0 and no shift for p = 1)
//
// Groups of four elements are split across threads with parallel_for; every element's result
// depends on its index alone, so the thread count never changes it.
#include <algorithm>

#include "cpu/dropout_mask.h"
#include "cpu/registration.h"
#include "dropout_rules.h"
#include "glassgrad/autodiff/families/dropout.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

// y[i] = f(x[i], keep(i)) over the flat x: the mask of a block of groups first (dropout_mask.h,
// vectorized per instruction set), then f over the block's elements.
template <typename T, typename F>
void map_masked(const KernelContext& c, double p, F f) {
  const T* x = c.inputs[0].data<T>();
  const uint64_t seed = static_cast<uint64_t>(*c.inputs[1].data<int64_t>());
  T* y = c.outputs[0].data<T>();
  const T* r = c.inputs.size() > 2 ? c.inputs[2].data<T>() : nullptr;  // Dropout's fused residual
  const uint64_t threshold = philox::keep_threshold(p);
  const int64_t n = c.outputs[0].numel();
  const int64_t groups = (n + 3) / 4;
  const cpu::DropoutKeepFn keep_groups = cpu::dropout_keep_groups();
  constexpr int64_t kBlock = 256;  // groups a mask block holds
  parallel_for(groups, 2048, [&](int64_t g0, int64_t g1) {
    uint8_t keep[4 * kBlock];
    for (int64_t b0 = g0; b0 < g1; b0 += kBlock) {
      const int64_t count = std::min(kBlock, g1 - b0);
      keep_groups(seed, threshold, static_cast<uint64_t>(b0), count, keep);
      const int64_t i0 = 4 * b0, m = std::min(4 * count, n - i0);
      if (r) {
        for (int64_t i = 0; i < m; ++i) y[i0 + i] = f(x[i0 + i], keep[i] != 0) + r[i0 + i];
      } else {
        for (int64_t i = 0; i < m; ++i) y[i0 + i] = f(x[i0 + i], keep[i] != 0);
      }
    }
  });
}

template <typename T>
void dropout(const KernelContext& c) {
  const double p = DropoutAttrs::from(c.attrs).p;
  const T scale = p >= 1.0 ? T(0) : static_cast<T>(1.0 / (1.0 - p));
  map_masked<T>(c, p, [scale](T v, bool keep) { return v * (keep ? scale : T(0)); });
}

template <typename T>
void alpha_dropout(const KernelContext& c) {
  const double p = DropoutAttrs::from(c.attrs).p;
  const dropout_rule::AlphaCoefficients k(p);
  const T a = static_cast<T>(k.a), kept = static_cast<T>(k.kept), dropped = static_cast<T>(k.dropped);
  map_masked<T>(c, p, [=](T v, bool keep) { return v * (keep ? a : T(0)) + (keep ? kept : dropped); });
}

template <typename T>
void alpha_dropout_backward(const KernelContext& c) {
  const double p = DropoutAttrs::from(c.attrs).p;
  const T a = static_cast<T>(dropout_rule::AlphaCoefficients(p).a);
  map_masked<T>(c, p, [a](T g, bool keep) { return g * (keep ? a : T(0)); });
}

}  // namespace

// --8<-- [start:register]
void register_cpu_dropout_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/dropout.def"
}
// --8<-- [end:register]

}  // namespace glassgrad
