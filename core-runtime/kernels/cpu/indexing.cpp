// CPU kernels of the indexing ops (the engine's src/ops/indexing.cpp has the formulas): Gather,
// IndexSelect and Index read x at the positions of a walk (indexing.h), Scatter, IndexAdd and
// IndexPut copy x into out (unless out is x's buffer) and write the positions of a walk.
// Writes run the walk's free axes in parallel and its other axes in order, so accumulations
// add in index order and give the same bits every run. SliceScatter copies through strided
// views (copy_tensor), which any device has: the CUDA backend registers it too.
// Layouts: dense inputs (SliceScatter: any strides); index values are checked first (an
// IndexError names the value, its position and the dimension).
#include <type_traits>
#include <vector>

#include "cpu/registration.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/indexing_kernels.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

using indexing::walk_of;

// Offsets of the positions of a walk, given their coordinates.
struct Walker {
  const IndexWalk& w;
  std::vector<const int64_t*> idx;

  Walker(const IndexWalk& walk, const KernelContext& c, int first) : w(walk) {
    for (size_t j = 0; j < w.dim.size(); ++j) idx.push_back(c.inputs[static_cast<size_t>(first) + j].data<int64_t>());
  }

  int64_t target(const int64_t* coord) const {
    int64_t t = 0;
    const size_t rank = w.shape.size();
    for (size_t r = 0; r < rank; ++r) t += coord[r] * w.target_stride[r];
    for (size_t j = 0; j < idx.size(); ++j) {
      int64_t io = 0;
      for (size_t r = 0; r < rank; ++r) io += coord[r] * w.index_stride[j][r];
      int64_t v = idx[j][io];
      if (v < 0) v += w.dim_size[j];
      t += v * w.dim_stride[j];
    }
    return t;
  }
  int64_t source(const int64_t* coord) const {
    int64_t s = 0;
    for (size_t r = 0; r < w.shape.size(); ++r) s += coord[r] * w.source_stride[r];
    return s;
  }
};

// Coordinates of position i, row-major over `shape` restricted to `axes` (others untouched).
void coordinates(int64_t i, const Shape& shape, const std::vector<int>& axes, int64_t* coord) {
  for (size_t k = axes.size(); k-- > 0;) {
    const int64_t n = shape[static_cast<size_t>(axes[k])];
    coord[axes[k]] = i % n;
    i /= n;
  }
}

// Advances coordinates over `axes` by one position (row-major).
void advance(const Shape& shape, const std::vector<int>& axes, int64_t* coord) {
  for (size_t k = axes.size(); k-- > 0;) {
    const int a = axes[k];
    if (++coord[a] < shape[static_cast<size_t>(a)]) return;
    coord[a] = 0;
  }
}

std::vector<int> all_axes(const Shape& s) {
  std::vector<int> a;
  for (size_t r = 0; r < s.size(); ++r) a.push_back(static_cast<int>(r));
  return a;
}

// out[p] = x[target(p)], out dense over the walk's shape.
template <typename T>
void read_walk(const std::string& op, const KernelContext& c) {
  indexing::check_bounds(op, c);
  const IndexWalk w = walk_of(op, c);
  const Walker walker(w, c, 1);
  const T* x = c.inputs[0].data<T>();
  T* out = c.outputs[0].data<T>();
  const int64_t n = numel(w.shape);
  const std::vector<int> axes = all_axes(w.shape);
  parallel_for(n, 16384, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> coord(w.shape.size() + 1, 0);
    coordinates(begin, w.shape, axes, coord.data());
    for (int64_t i = begin; i < end; ++i) {
      out[i] = x[walker.target(coord.data())];
      advance(w.shape, axes, coord.data());
    }
  });
}

enum class Reduce { None, Add, Multiply };

Reduce reduce_of(const std::string& op, const KernelContext& c) {
  if (op == "IndexAdd") return Reduce::Add;
  if (op == "IndexPut") return c.attrs.b("accumulate", false) ? Reduce::Add : Reduce::None;
  const std::string r = c.attrs.has("reduce") ? c.attrs.s("reduce") : "none";
  return r == "add" ? Reduce::Add : r == "multiply" ? Reduce::Multiply : Reduce::None;
}

// out = x (unless out is x's buffer); then out[target(p)] (=, +=, *=) src[source(p)] for every
// position p: free axes in parallel, the others in order.
template <typename T>
void write_walk(const std::string& op, const KernelContext& c) {
  indexing::check_bounds(op, c);
  const Tensor& out_t = c.outputs[0];
  if (out_t.data_ptr() != c.inputs[0].data_ptr()) copy_tensor(out_t, c.inputs[0]);
  const IndexWalk w = walk_of(op, c);
  const int first = indexing::first_index_input(op);
  const Walker walker(w, c, first);
  const T* src = c.inputs[op == "IndexPut" ? 1 : 2].data<T>();
  T* out = out_t.data<T>();
  const Reduce reduce = reduce_of(op, c);
  const WalkSplit split = split_walk(w);
  if (split.free_count * split.ordered_count == 0) return;
  parallel_for(split.free_count, std::max<int64_t>(1, 16384 / std::max<int64_t>(split.ordered_count, 1)),
               [&](int64_t begin, int64_t end) {
    std::vector<int64_t> coord(w.shape.size() + 1, 0);
    for (int64_t f = begin; f < end; ++f) {
      coordinates(f, w.shape, split.free_axes, coord.data());
      for (int a : split.ordered_axes) coord[static_cast<size_t>(a)] = 0;
      for (int64_t o = 0; o < split.ordered_count; ++o) {
        T& t = out[walker.target(coord.data())];
        const T v = src[walker.source(coord.data())];
        if constexpr (std::is_same_v<T, bool>) {
          t = v;
        } else {
          if (reduce == Reduce::Add) t = static_cast<T>(t + v);
          else if (reduce == Reduce::Multiply) t = static_cast<T>(t * v);
          else t = v;
        }
        advance(w.shape, split.ordered_axes, coord.data());
      }
    }
  });
}

template <typename T> void gather(const KernelContext& c) { read_walk<T>("Gather", c); }
template <typename T> void index_select(const KernelContext& c) { read_walk<T>("IndexSelect", c); }
template <typename T> void index(const KernelContext& c) { read_walk<T>("Index", c); }
template <typename T> void scatter(const KernelContext& c) { write_walk<T>("Scatter", c); }
template <typename T> void index_add(const KernelContext& c) { write_walk<T>("IndexAdd", c); }
template <typename T> void index_put(const KernelContext& c) { write_walk<T>("IndexPut", c); }

}  // namespace

namespace indexing {
// out = x (unless out is x's buffer); out[..., start:stop:step, ...] = src.
void slice_scatter(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  if (out.data_ptr() != c.inputs[0].data_ptr() || out.strides() != c.inputs[0].strides()) copy_tensor(out, c.inputs[0]);
  const Attrs& a = c.attrs;
  copy_tensor(out.slice(a.i("dim"), a.i("start"), a.i("stop"), a.i("step", 1)), c.inputs[1]);
}
}  // namespace indexing

void register_cpu_indexing_kernels(KernelRegistry& r) {
// The typed kernels per element type; SliceScatter (DTypeSet::Every: it copies bytes, storage
// types included) as one untyped function, the one the CUDA backend registers too.
#define GG_ADD_CPU_INDEXING_KERNEL(Name, Kernel, DTypes, Inputs, Outputs, Formula) \
  GG_CPU_INDEXING_##DTypes(Name, Kernel, DTypes, Inputs, Outputs, Formula)
#define GG_CPU_INDEXING_Any GG_ADD_CPU_KERNEL
#define GG_CPU_INDEXING_Numeric GG_ADD_CPU_KERNEL
#define GG_CPU_INDEXING_Every(Name, Kernel, DTypes, Inputs, Outputs, Formula) \
  GG_ADD_CPU_UNTYPED_KERNEL(Name, indexing::Kernel, DTypes, Inputs, Outputs, Formula)
#define GG_OP GG_ADD_CPU_INDEXING_KERNEL
#include "glassgrad/autodiff/families/indexing.def"
#undef GG_CPU_INDEXING_Every
#undef GG_CPU_INDEXING_Numeric
#undef GG_CPU_INDEXING_Any
#undef GG_ADD_CPU_INDEXING_KERNEL
}

}  // namespace glassgrad
