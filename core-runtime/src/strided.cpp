#include "glassgrad/runtime/strided.h"

#include "glassgrad/autodiff/views.h"

namespace glassgrad {

// The engine's Expand view (views.h) computes exactly these strides.
Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& to) {
  return expand_view(Layout{shape, strides, 0}, to).strides;
}

CollapsedAxes collapse_axes(const Shape& shape, const std::vector<Strides>& strides, size_t min_rank) {
  const size_t n = strides.size();
  CollapsedAxes c;
  c.strides.resize(n);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !c.shape.empty();
    for (size_t k = 0; merge && k < n; ++k) merge = c.strides[k].back() == strides[k][d] * shape[d];
    if (merge) {
      c.shape.back() *= shape[d];
      for (size_t k = 0; k < n; ++k) c.strides[k].back() = strides[k][d];
      continue;
    }
    c.shape.push_back(shape[d]);
    for (size_t k = 0; k < n; ++k) c.strides[k].push_back(strides[k][d]);
  }
  while (c.shape.size() < min_rank) {
    c.shape.push_back(1);
    for (auto& s : c.strides) s.push_back(0);
  }
  return c;
}

}  // namespace glassgrad
