#include "glassgrad/autodiff/indexing.h"

namespace glassgrad {

namespace {

// Strides of a dense tensor of shape `s` read along an iteration shape of rank `rank` whose
// last s.size() axes it broadcasts to (NumPy alignment; size-1 axes read with stride 0).
Strides broadcast_strides(const Shape& s, size_t rank) {
  Strides out(rank, 0);
  const Strides dense = contiguous_strides(s);
  const size_t lead = rank - s.size();
  for (size_t i = 0; i < s.size(); ++i) out[lead + i] = s[i] == 1 ? 0 : dense[i];
  return out;
}

}  // namespace

AdvancedIndex advanced_index(const Shape& x, const std::vector<int64_t>& dims, const Shape& broadcast) {
  AdvancedIndex a;
  bool adjacent = true;
  for (size_t j = 1; j < dims.size(); ++j) adjacent = adjacent && dims[j] == dims[j - 1] + 1;
  const int first = dims.empty() ? 0 : static_cast<int>(dims[0]);
  auto indexed = [&](int axis) {
    for (int64_t d : dims) if (d == axis) return true;
    return false;
  };
  auto put_broadcast = [&] {
    a.front = static_cast<int>(a.result.size());
    for (int64_t b : broadcast) {
      a.result.push_back(b);
      a.source_axis.push_back(-1);
    }
  };
  if (!adjacent) put_broadcast();
  for (int axis = 0; axis < static_cast<int>(x.size()); ++axis) {
    if (adjacent && axis == first) put_broadcast();
    if (indexed(axis)) continue;
    a.result.push_back(x[static_cast<size_t>(axis)]);
    a.source_axis.push_back(axis);
  }
  if (adjacent && first >= static_cast<int>(x.size())) put_broadcast();
  return a;
}

IndexWalk gather_walk(const Shape& x, const Shape& index, int dim) {
  IndexWalk w;
  w.shape = index;
  w.target_stride = x.empty() ? Strides{} : contiguous_strides(x);
  const Strides xs = w.target_stride;
  if (!w.target_stride.empty()) w.target_stride[static_cast<size_t>(dim)] = 0;
  w.index_stride = {contiguous_strides(index)};
  w.dim_stride = {xs.empty() ? 1 : xs[static_cast<size_t>(dim)]};
  w.dim_size = {x.empty() ? 1 : x[static_cast<size_t>(dim)]};
  w.dim = {dim};
  return w;
}

IndexWalk scatter_walk(const Shape& x, const Shape& index, const Shape& src, int dim) {
  IndexWalk w = gather_walk(x, index, dim);
  w.source_stride = src.empty() ? Strides{} : contiguous_strides(src);
  return w;
}

IndexWalk index_select_walk(const Shape& x, int64_t index_len, int dim) {
  IndexWalk w;
  w.shape = x;
  if (!x.empty()) w.shape[static_cast<size_t>(dim)] = index_len;
  w.target_stride = x.empty() ? Strides{} : contiguous_strides(x);
  const Strides xs = w.target_stride;
  Strides is(x.size(), 0);
  if (!x.empty()) {
    w.target_stride[static_cast<size_t>(dim)] = 0;
    is[static_cast<size_t>(dim)] = 1;
  }
  w.index_stride = {is};
  w.dim_stride = {xs.empty() ? 1 : xs[static_cast<size_t>(dim)]};
  w.dim_size = {x.empty() ? 1 : x[static_cast<size_t>(dim)]};
  w.dim = {dim};
  return w;
}

IndexWalk index_add_walk(const Shape& x, int64_t index_len, int dim) {
  IndexWalk w = index_select_walk(x, index_len, dim);
  w.source_stride = contiguous_strides(w.shape);
  return w;
}

IndexWalk advanced_walk(const Shape& x, const std::vector<Shape>& indices, const std::vector<int64_t>& dims,
                        const Shape* values) {
  Shape b;
  for (const Shape& s : indices) {
    Shape next;
    broadcast_shapes(b, s, next);  // checked by the shape rule
    b = next;
  }
  const AdvancedIndex a = advanced_index(x, dims, b);
  IndexWalk w;
  w.shape = a.result;
  w.wrap = true;
  const Strides xs = contiguous_strides(x);
  const size_t rank = a.result.size();
  w.target_stride.assign(rank, 0);
  for (size_t r = 0; r < rank; ++r) {
    if (a.source_axis[r] >= 0) w.target_stride[r] = xs[static_cast<size_t>(a.source_axis[r])];
  }
  for (size_t j = 0; j < indices.size(); ++j) {
    // The index tensor broadcast to b, placed at b's axes of the result.
    const Strides in_b = broadcast_strides(indices[j], b.size());
    Strides st(rank, 0);
    for (size_t q = 0; q < b.size(); ++q) st[static_cast<size_t>(a.front) + q] = in_b[q];
    w.index_stride.push_back(st);
    const size_t d = static_cast<size_t>(dims[j]);
    w.dim_stride.push_back(xs[d]);
    w.dim_size.push_back(x[d]);
    w.dim.push_back(static_cast<int>(d));
  }
  if (values) w.source_stride = broadcast_strides(*values, rank);
  return w;
}

WalkSplit split_walk(const IndexWalk& w) {
  WalkSplit s;
  for (size_t r = 0; r < w.shape.size(); ++r) {
    if (w.target_stride[r] != 0) {
      s.free_axes.push_back(static_cast<int>(r));
      s.free_count *= w.shape[r];
    } else {
      s.ordered_axes.push_back(static_cast<int>(r));
      s.ordered_count *= w.shape[r];
    }
  }
  return s;
}

}  // namespace glassgrad
