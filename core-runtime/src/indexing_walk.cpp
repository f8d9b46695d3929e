// The walks and the bounds message of the indexing kernels (indexing_kernels.h).
#include <string>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/indexing_kernels.h"

namespace glassgrad {
namespace indexing {

namespace {
int dim_of(const KernelContext& c, const Tensor& x) {
  const int rank = std::max(x.rank(), 1);
  const int64_t d = c.attrs.i("dim");
  return static_cast<int>(d < 0 ? d + rank : d);
}
std::vector<int64_t> dims_of(const KernelContext& c) { return c.attrs.ints("dims"); }
}  // namespace

int first_index_input(const std::string& op) { return op == "IndexPut" ? 2 : 1; }

IndexWalk walk_of(const std::string& op, const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  if (op == "Gather") return gather_walk(x.shape(), c.inputs[1].shape(), dim_of(c, x));
  if (op == "Scatter") return scatter_walk(x.shape(), c.inputs[1].shape(), c.inputs[2].shape(), dim_of(c, x));
  if (op == "IndexSelect") return index_select_walk(x.shape(), c.inputs[1].numel(), dim_of(c, x));
  if (op == "IndexAdd") return index_add_walk(x.shape(), c.inputs[1].numel(), dim_of(c, x));
  const int first = first_index_input(op);
  std::vector<Shape> idx;
  for (size_t j = static_cast<size_t>(first); j < c.inputs.size(); ++j) idx.push_back(c.inputs[j].shape());
  const Shape values = op == "IndexPut" ? c.inputs[1].shape() : Shape{};
  return advanced_walk(x.shape(), idx, dims_of(c), op == "IndexPut" ? &values : nullptr);
}

int64_t first_out_of_bounds(const int64_t* values, int64_t n, int64_t size, bool wrap) {
  const int64_t lo = wrap ? -size : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (values[i] < lo || values[i] >= size) return i;
  }
  return -1;
}

void throw_out_of_bounds(const std::string& op, const KernelContext& c, int operand, int64_t position,
                         int64_t value) {
  const IndexWalk w = walk_of(op, c);
  const Tensor& index = c.inputs[static_cast<size_t>(first_index_input(op) + operand)];
  const int dim = w.dim[static_cast<size_t>(operand)];
  const int64_t size = w.dim_size[static_cast<size_t>(operand)];
  std::string at = "[";
  int64_t rem = position;
  std::vector<int64_t> coord(index.shape().size());
  for (size_t d = coord.size(); d-- > 0;) {
    coord[d] = rem % std::max<int64_t>(index.shape()[d], 1);
    rem /= std::max<int64_t>(index.shape()[d], 1);
  }
  for (size_t d = 0; d < coord.size(); ++d) at += (d ? ", " : "") + std::to_string(coord[d]);
  at += "]";
  const std::string range = w.wrap ? "[" + std::to_string(-size) + ", " + std::to_string(size) + ")"
                                   : "[0, " + std::to_string(size) + ")";
  ErrorMessage m(node_where(op, c.meta.scope) + ": index " + std::to_string(value) + " is out of bounds for dimension " +
                 std::to_string(dim) + " with size " + std::to_string(size));
  m.detail("the value at " + at + " of the index " + index.info().str() + "; the input is " + c.inputs[0].info().str());
  m.detail("indices along dimension " + std::to_string(dim) + " must be in " + range);
  if (value == size) m.cause("indices counted from 1 instead of 0, or an index one past the end");
  else if (value < 0 && !w.wrap) m.cause("a negative index: this op does not count from the end");
  m.fix(w.wrap ? "keep indices in " + range + " (negative ones count from the end)"
               : "keep indices in " + range + ", e.g. index.clamp(0, " + std::to_string(size - 1) + ")");
  throw IndexError(m.str());
}

void check_bounds(const std::string& op, const KernelContext& c) {
  const IndexWalk w = walk_of(op, c);
  const int first = first_index_input(op);
  for (size_t j = 0; j < w.dim.size(); ++j) {
    const Tensor& index = c.inputs[static_cast<size_t>(first) + j];
    const int64_t* v = index.data<int64_t>();
    const int64_t bad = first_out_of_bounds(v, index.numel(), w.dim_size[j], w.wrap);
    if (bad >= 0) throw_out_of_bounds(op, c, static_cast<int>(j), bad, v[bad]);
  }
}

}  // namespace indexing
}  // namespace glassgrad
