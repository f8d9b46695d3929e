// The geometry of the scan family (src/ops/scan.cpp), shared by its CPU kernels and CUDA
// launchers: a dense input of `shape` seen along axis `dim` as [outer, n, inner], i.e.
// outer * inner independent lines of n elements `inner` apart; line k starts at element
// (k / inner) * n * inner + k % inner.
#pragma once
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct ScanLines {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  int64_t start(int64_t k) const { return (k / inner) * n * inner + k % inner; }
};

inline ScanLines scan_lines(const Shape& shape, int64_t dim) {
  ScanLines l;
  const int d = normalize_axis(dim, static_cast<int>(shape.size()));
  l.n = shape[static_cast<size_t>(d)];
  for (int i = 0; i < d; ++i) l.outer *= shape[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(d) + 1; i < shape.size(); ++i) l.inner *= shape[i];
  return l;
}

}  // namespace glassgrad
