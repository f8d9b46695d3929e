// Reduction CPU kernels over a set of axes:
//   Sum:    out[o] = sum_r x[o, r]
//   Mean:   out[o] = sum_r x[o, r] / R
//   Max:    out[o] = max_r x[o, r]              (NaN propagates)
//   ArgMax: out[o] = first r with x[o, r] maximal (along one axis; NaN counts as maximal)
//   Var:    out[o] = sum_r (x[o, r] - mean_o)^2 / max(0, R - correction)   (two passes)
// where o runs over the kept axes (row-major, = the dense output) and r over the reduced axes.
// float32 inputs accumulate in double. Inputs may have any strides.
#include <cmath>
#include <limits>

#include "cpu/accumulator.h"
#include "cpu/registration.h"
#include "glassgrad/autodiff/families/reduction.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"
#include "glassgrad/runtime/strided.h"

namespace glassgrad {

namespace {

struct Split {
  Shape kept, red;
  Strides kept_strides, red_strides;
  int64_t outputs = 1, count = 1;
};

Split split_axes(const Tensor& x, const std::vector<int64_t>& axes) {
  Split s;
  for (int d = 0; d < x.rank(); ++d) {
    bool reduced = false;
    for (int64_t a : axes) reduced = reduced || a == d;
    (reduced ? s.red : s.kept).push_back(x.shape()[static_cast<size_t>(d)]);
    (reduced ? s.red_strides : s.kept_strides).push_back(x.strides()[static_cast<size_t>(d)]);
  }
  for (int64_t n : s.kept) s.outputs *= n;
  for (int64_t n : s.red) s.count *= n;
  // Merge reduced axes that are contiguous with each other, so the inner loop is long.
  CollapsedAxes r = collapse_axes(s.red, {s.red_strides}, 1);
  s.red = std::move(r.shape);
  s.red_strides = std::move(r.strides[0]);
  return s;
}

// The reduced axes (the family's attributes, glassgrad/autodiff/families/reduction.h).
std::vector<int64_t> axes_of(const Attrs& a, int rank) { return ReductionAttrs::from(a, rank).axes; }

int64_t kept_offset(const Split& s, int64_t o) {
  int64_t off = 0;
  for (size_t d = s.kept.size(); d-- > 0;) {
    off += (o % s.kept[d]) * s.kept_strides[d];
    o /= s.kept[d];
  }
  return off;
}

// Calls visit(value) for every element of the reduced block starting at `base`.
template <typename T, typename F>
void visit_block(const Split& s, const T* base, F&& visit) {
  const size_t nr = s.red.size();
  const int64_t inner = s.red.back(), inner_stride = s.red_strides.back();
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < nr; ++d) outer *= s.red[d];
  for (int64_t r = 0; r < outer; ++r) {
    int64_t off = 0, rem = r;
    for (size_t d = nr - 1; d-- > 0;) {
      off += (rem % s.red[d]) * s.red_strides[d];
      rem /= s.red[d];
    }
    const T* p = base + off;
    if (inner_stride == 1) {
      for (int64_t i = 0; i < inner; ++i) visit(p[i]);
    } else {
      for (int64_t i = 0; i < inner; ++i) visit(p[i * inner_stride]);
    }
  }
}

using cpu::Accumulator;

template <typename T, typename PerOutput>
void for_each_output(const KernelContext& c, const std::vector<int64_t>& axes, PerOutput&& f) {
  const Tensor& x = c.inputs[0];
  const Split s = split_axes(x, axes);
  T* out = c.outputs[0].data<T>();
  const T* in = x.data<const T>();
  if (s.count == 0) return f(s, nullptr, out, 0, s.outputs);
  parallel_for(s.outputs, std::max<int64_t>(1, 16384 / std::max<int64_t>(s.count, 1)), [&](int64_t b, int64_t e) {
    f(s, in, out, b, e);
  });
}

template <typename T>
void sum(const KernelContext& c) {
  for_each_output<T>(c, axes_of(c.attrs, c.inputs[0].rank()), [](const Split& s, const T* in, T* out, int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      Accumulator<T> acc = 0;
      if (in) visit_block(s, in + kept_offset(s, o), [&acc](T v) { acc += v; });
      out[o] = static_cast<T>(acc);
    }
  });
}

template <typename T>
void mean(const KernelContext& c) {
  for_each_output<T>(c, axes_of(c.attrs, c.inputs[0].rank()), [](const Split& s, const T* in, T* out, int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      double acc = 0;
      visit_block(s, in + kept_offset(s, o), [&acc](T v) { acc += v; });
      out[o] = static_cast<T>(acc / static_cast<double>(s.count));
    }
  });
}

template <typename T>
void max(const KernelContext& c) {
  for_each_output<T>(c, axes_of(c.attrs, c.inputs[0].rank()), [](const Split& s, const T* in, T* out, int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      T best = std::numeric_limits<T>::lowest();
      bool nan = false;
      visit_block(s, in + kept_offset(s, o), [&](T v) {
        if (v != v) nan = true;
        else if (v > best) best = v;
      });
      out[o] = nan ? std::numeric_limits<T>::quiet_NaN() : best;
    }
  });
}

template <typename T>
void var(const KernelContext& c) {
  const ReductionAttrs a = ReductionAttrs::from(c.attrs, c.inputs[0].rank());
  for_each_output<T>(c, axes_of(c.attrs, c.inputs[0].rank()), [&a](const Split& s, const T* in, T* out, int64_t b, int64_t e) {
    const double divisor = static_cast<double>(a.var_divisor(s.count));
    for (int64_t o = b; o < e; ++o) {
      const T* base = in + kept_offset(s, o);
      double m = 0;
      visit_block(s, base, [&m](T v) { m += v; });
      m /= static_cast<double>(s.count);
      double ss = 0;
      visit_block(s, base, [&](T v) { ss += (v - m) * (v - m); });
      out[o] = static_cast<T>(ss / divisor);
    }
  });
}

template <typename T>
void argmax(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const int64_t dim = ReductionAttrs::from(c.attrs, x.rank(), true).axes[0];
  const Split s = split_axes(x, {dim});
  const int64_t n = x.shape()[static_cast<size_t>(dim)], stride = x.strides()[static_cast<size_t>(dim)];
  int64_t* out = c.outputs[0].data<int64_t>();
  const T* in = x.data<const T>();
  parallel_for(s.outputs, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const T* p = in + kept_offset(s, o);
      int64_t best_i = 0;
      T best = p[0];
      for (int64_t i = 1; i < n; ++i) {
        const T v = p[i * stride];
        if (best != best) break;  // a NaN is the maximum
        if (v > best || v != v) best = v, best_i = i;
      }
      out[o] = best_i;
    }
  });
}

}  // namespace

void register_cpu_reduction_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/reduction.def"
}

}  // namespace glassgrad
