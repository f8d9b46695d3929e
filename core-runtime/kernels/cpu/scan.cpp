// CPU scans and sorts along one axis (the formulas and conventions are in the engine's
// src/ops/scan.cpp). Layout: dense row-major inputs viewed as [outer, n, inner]; each of the
// outer * inner lines (n elements, `inner` apart) is independent, and lines are split across
// threads. Sums and products of float32 accumulate in double; sorts are stable (equal values
// keep their input order) with NaN as the largest value.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "cpu/accumulator.h"
#include "glassgrad/autodiff/scan_lines.h"
#include "cpu/registration.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

using Lines = ScanLines;
Lines lines_of(const Shape& shape, int64_t dim) { return scan_lines(shape, dim); }

using cpu::Accumulator;

template <typename T>
void for_lines(const Lines& l, T fn) {
  parallel_for(l.count(), std::max<int64_t>(1, 4096 / std::max<int64_t>(l.n, 1)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) fn(l.start(k));
  });
}

template <typename T>
void cumsum(const KernelContext& c) {
  const Lines l = lines_of(c.inputs[0].shape(), c.attrs.i("dim"));
  const bool reverse = c.attrs.b("reverse", false);
  const T* x = c.inputs[0].data<const T>();
  T* y = c.outputs[0].data<T>();
  for_lines(l, [&](int64_t s) {
    Accumulator<T> acc = 0;
    for (int64_t j = 0; j < l.n; ++j) {
      const int64_t at = s + (reverse ? l.n - 1 - j : j) * l.inner;
      acc += x[at];
      y[at] = static_cast<T>(acc);
    }
  });
}

template <typename T>
void cumprod(const KernelContext& c) {
  const Lines l = lines_of(c.inputs[0].shape(), c.attrs.i("dim"));
  const T* x = c.inputs[0].data<const T>();
  T* y = c.outputs[0].data<T>();
  for_lines(l, [&](int64_t s) {
    Accumulator<T> acc = 1;
    for (int64_t j = 0; j < l.n; ++j) {
      acc *= x[s + j * l.inner];
      y[s + j * l.inner] = static_cast<T>(acc);
    }
  });
}

// dx of y = cumprod(x) for the incoming grad g, exact with zeros (z = the first zero factor).
template <typename T>
void cumprod_backward(const KernelContext& c) {
  const Lines l = lines_of(c.inputs[0].shape(), c.attrs.i("dim"));
  const T* g = c.inputs[0].data<const T>();
  const T* x = c.inputs[1].data<const T>();
  const T* y = c.inputs[2].data<const T>();
  T* dx = c.outputs[0].data<T>();
  for_lines(l, [&](int64_t s) {
    const int64_t in = l.inner;
    int64_t z = 0;
    while (z < l.n && x[s + z * in] != T(0)) ++z;
    // i < z: dx_i = (sum_{i <= j < z} g_j y_j) / x_i, a running sum from z - 1 down
    double tail = 0;
    for (int64_t i = z - 1; i >= 0; --i) {
      tail += double(g[s + i * in]) * double(y[s + i * in]);
      dx[s + i * in] = static_cast<T>(tail / double(x[s + i * in]));
    }
    if (z == l.n) return;
    // i = z: sum_{j >= z} g_j * y_{z-1} * prod_{z < k <= j} x_k
    double run = z > 0 ? double(y[s + (z - 1) * in]) : 1.0, acc = 0;
    for (int64_t j = z; j < l.n; ++j) {
      if (j > z) run *= double(x[s + j * in]);
      acc += double(g[s + j * in]) * run;
    }
    dx[s + z * in] = static_cast<T>(acc);
    for (int64_t i = z + 1; i < l.n; ++i) dx[s + i * in] = T(0);
  });
}

// Whether a comes before b in an ascending (descending) sort with NaN the largest value.
template <typename T>
bool before(T a, T b, bool descending) {
  const bool a_nan = a != a, b_nan = b != b;
  if (descending) return !b_nan && (a_nan || a > b);
  return !a_nan && (b_nan || a < b);
}

// Sort (k = n) and TopK (the first k of the sort, largest first when `descending`). Ties keep
// their input order when `stable`; else they end where PyTorch's CPU sort puts them: std::sort of
// (value, index) pairs compared by value (its SortingKernel.cpp), the same introsort step for step.
template <typename T>
void sort_lines(const KernelContext& c, int64_t k, bool descending, bool stable = true) {
  const Lines l = lines_of(c.inputs[0].shape(), c.attrs.i("dim"));
  const T* x = c.inputs[0].data<const T>();
  T* values = c.outputs[0].data<T>();
  int64_t* indices = c.outputs[1].data<int64_t>();
  parallel_for(l.count(), 1, [&](int64_t b, int64_t e) {
    std::vector<int64_t> order(static_cast<size_t>(l.n));
    std::vector<std::pair<T, int64_t>> pairs;
    for (int64_t line = b; line < e; ++line) {
      const int64_t s = l.start(line);
      const int64_t out = (line / l.inner) * k * l.inner + line % l.inner;
      if (stable) {
        std::iota(order.begin(), order.end(), int64_t(0));
        std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
          return before(x[s + i * l.inner], x[s + j * l.inner], descending);
        });
      } else {
        pairs.clear();
        for (int64_t j = 0; j < l.n; ++j) pairs.emplace_back(x[s + j * l.inner], j);
        std::sort(pairs.begin(), pairs.end(), [&](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b2) {
          return before(a.first, b2.first, descending);
        });
        for (size_t j = 0; j < pairs.size(); ++j) order[j] = pairs[j].second;
      }
      for (int64_t j = 0; j < k; ++j) {
        values[out + j * l.inner] = x[s + order[static_cast<size_t>(j)] * l.inner];
        indices[out + j * l.inner] = order[static_cast<size_t>(j)];
      }
    }
  });
}

template <typename T>
void sort(const KernelContext& c) {
  sort_lines<T>(c, c.inputs[0].shape()[static_cast<size_t>(normalize_axis(c.attrs.i("dim"), c.inputs[0].rank()))],
                c.attrs.b("descending", false), c.attrs.b("stable", true));
}

// Flip: element j of each line from element n - 1 - j (any dtype, copied as it is).
template <typename T>
void flip(const KernelContext& c) {
  const Lines l = lines_of(c.inputs[0].shape(), c.attrs.i("dim"));
  const T* x = c.inputs[0].data<const T>();
  T* y = c.outputs[0].data<T>();
  for_lines(l, [&](int64_t s) {
    for (int64_t j = 0; j < l.n; ++j) y[s + j * l.inner] = x[s + (l.n - 1 - j) * l.inner];
  });
}

template <typename T>
void topk(const KernelContext& c) {
  sort_lines<T>(c, c.attrs.i("k"), c.attrs.b("largest", true));
}

}  // namespace

void register_cpu_scan_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/scan.def"
}

}  // namespace glassgrad
