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
  // PyTorch's view strides (computeStride in its TensorUtils): the old axes are cut into chunks
  // that are contiguous among themselves (a size-1 axis never ends a chunk), and the new axes
  // are matched to them from the last; a new size-1 axis takes the stride its place in the
  // chunk gives. x.view(...).stride() is then PyTorch's for every size-1 axis too.
  const size_t nn = new_shape.size();
  if (in.shape.empty()) {
    out = {new_shape, Strides(nn, 1), in.offset};
    return true;
  }
  if (numel(in.shape) == 0) {  // any strides address nothing: the old ones for the same shape
    out = {new_shape, in.shape == new_shape ? in.strides : contiguous_strides(new_shape), in.offset};
    return true;
  }
  Strides ns(nn, 0);
  int64_t view_d = static_cast<int64_t>(nn) - 1;
  int64_t chunk_base = in.strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (size_t td = in.shape.size(); td-- > 0;) {
    tensor_numel *= in.shape[td];
    if (td == 0 || (in.shape[td - 1] != 1 && in.strides[td - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[static_cast<size_t>(view_d)] == 1)) {
        ns[static_cast<size_t>(view_d)] = view_numel * chunk_base;
        view_numel *= new_shape[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (td > 0) {
        chunk_base = in.strides[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return false;
  out = {new_shape, ns, in.offset};
  return true;
}

void set_view_strides(const std::vector<int64_t>& spec, const Layout& in, Layout& out) {
  if (spec.size() != 3 * out.shape.size()) return;
  Strides st(out.shape.size());
  for (size_t i = 0; i < out.shape.size(); ++i) {
    const int64_t axis = spec[3 * i], num = spec[3 * i + 1], den = spec[3 * i + 2];
    if (axis < -1 || axis >= static_cast<int64_t>(in.shape.size()) || den <= 0) return;
    if (out.shape[i] != 1 && (axis < 0 || in.shape[static_cast<size_t>(axis)] != out.shape[i] || num != den)) return;
    const int64_t base = axis < 0 ? 1 : in.strides[static_cast<size_t>(axis)];
    if ((base * num) % den != 0) return;
    st[i] = base * num / den;
  }
  out.strides = std::move(st);
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
  out.offset = in.offset + start * in.strides[d];  // an empty slice's too, as PyTorch's (never read)
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
