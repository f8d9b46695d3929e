#include "glassgrad/autodiff/views.h"

namespace glassgrad {

bool Layout::is_contiguous() const {
  int64_t expect = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;  // stride of a size-1 axis never matters
    if (strides[i] != expect) return false;
    expect *= shape[i];
  }
  return true;
}

bool reshape_view(const Layout& in, const Shape& new_shape, Layout& out) {
  if (numel(in.shape) != numel(new_shape)) return false;
  if (in.is_contiguous()) {
    out = {new_shape, contiguous_strides(new_shape), in.offset};
    return true;
  }
  // Non-contiguous input: match groups of old axes that are contiguous among themselves
  // (each stride = next stride * next size) to groups of new axes with the same element count.
  // This is the algorithm NumPy's _attempt_nocopy_reshape uses.
  Shape os;
  Strides ost;
  for (size_t i = 0; i < in.shape.size(); ++i) {
    if (in.shape[i] != 1) os.push_back(in.shape[i]), ost.push_back(in.strides[i]);
  }
  Strides ns(new_shape.size(), 0);
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  const size_t on = os.size(), nn = new_shape.size();
  if (numel(in.shape) == 0) {
    out = {new_shape, contiguous_strides(new_shape), in.offset};
    return true;
  }
  while (ni < nn && oi < on) {
    int64_t np = new_shape[ni], op = os[oi];
    while (np != op) {
      if (np < op) np *= new_shape[nj++];
      else op *= os[oj++];
    }
    for (size_t k = oi; k + 1 < oj; ++k) {
      if (ost[k] != os[k + 1] * ost[k + 1]) return false;
    }
    ns[nj - 1] = ost[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) ns[k - 1] = ns[k] * new_shape[k];
    ni = nj++;
    oi = oj++;
  }
  // Trailing size-1 axes of the new shape.
  for (size_t k = ni; k < nn; ++k) ns[k] = 1;
  out = {new_shape, ns, in.offset};
  return true;
}

Layout permute_view(const Layout& in, const std::vector<int64_t>& dims) {
  Layout out;
  out.offset = in.offset;
  for (int64_t d : dims) {
    out.shape.push_back(in.shape[static_cast<size_t>(d)]);
    out.strides.push_back(in.strides[static_cast<size_t>(d)]);
  }
  return out;
}

int64_t slice_length(int64_t start, int64_t stop, int64_t step) {
  return stop <= start ? 0 : (stop - start + step - 1) / step;
}

Layout slice_view(const Layout& in, int dim, int64_t start, int64_t stop, int64_t step) {
  Layout out = in;
  const size_t d = static_cast<size_t>(dim);
  out.shape[d] = slice_length(start, stop, step);
  out.offset = in.offset + (out.shape[d] > 0 ? start * in.strides[d] : 0);
  out.strides[d] = in.strides[d] * step;
  return out;
}

Layout expand_view(const Layout& in, const Shape& shape) {
  Layout out;
  out.shape = shape;
  out.offset = in.offset;
  out.strides.assign(shape.size(), 0);
  const size_t lead = shape.size() - in.shape.size();
  for (size_t i = 0; i < in.shape.size(); ++i) {
    out.strides[lead + i] = (in.shape[i] == 1 && shape[lead + i] != 1) ? 0 : in.strides[i];
  }
  return out;
}

}  // namespace glassgrad
