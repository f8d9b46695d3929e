// Launchers of the indexing kernels (kernels/cuda/indexing.cu). Gather, IndexSelect, Scatter and
// IndexAdd take the dense three-axis kernels when their shapes allow (always for IndexSelect and
// IndexAdd), Index and IndexPut the general walk. Accumulating writes use atomics, or one
// thread per free line adding in index order when deterministic algorithms or cuDNN's deterministic
// switch are on (settings.h);
// so do plain writes then (the last of repeated indices wins, every run).
// A bad index value is recorded on the device, in a word read at the device's next
// synchronization (no launch waits for the device): outside a graph capture a word of the
// launch's own, whose check raises the message of indexing_kernels.h naming the value, its
// position and the dimension; inside one the executor's error word.
#include <algorithm>
#include <cstdint>

#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/indexing_kernels.h"
#include "glassgrad/runtime/settings.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kIndexingFunctions({"gg_index_read", "gg_index_write", "gg_index_write_ordered", "gg_gather3",
                                        "gg_gather3_rows16", "gg_scatter3"},
                                       {DType::Float32, DType::Float64, DType::Int64, DType::UInt8});

namespace {

constexpr int64_t kSmall = int64_t{1} << 31;

GGIndexWalk to_params(const IndexWalk& w, const KernelContext& c, int first, int64_t tag, const LaunchSite& site) {
  if (w.shape.size() > GG_MAX_DIMS || w.dim.size() > GG_MAX_INDEX) {
    throw UnsupportedError(ErrorMessage(node_where(site.op, c.meta.scope) + ": the CUDA kernel walks at most " +
                                        std::to_string(GG_MAX_DIMS) + " axes with at most " +
                                        std::to_string(GG_MAX_INDEX) + " index tensors, this index has " +
                                        std::to_string(w.shape.size()) + " axes and " +
                                        std::to_string(w.dim.size()) + " index tensors")
                               .fix("reshape the input to fewer axes first")
                               .str());
  }
  GGIndexWalk p{};
  p.rank = static_cast<int32_t>(w.shape.size());
  p.k = static_cast<int32_t>(w.dim.size());
  p.wrap = w.wrap ? 1 : 0;
  const int64_t n = numel(w.shape);
  p.small = n < kSmall ? 1 : 0;
  for (size_t r = 0; r < w.shape.size(); ++r) {
    p.size[r] = w.shape[r];
    p.target_stride[r] = w.target_stride[r];
    p.source_stride[r] = w.source_stride.empty() ? 0 : w.source_stride[r];
    p.small = p.small && w.shape[r] < kSmall;
  }
  for (size_t j = 0; j < w.dim.size(); ++j) {
    for (size_t r = 0; r < w.shape.size(); ++r) p.index_stride[j][r] = w.index_stride[j][r];
    p.dim_stride[j] = w.dim_stride[j];
    p.dim_size[j] = w.dim_size[j];
    p.index[j] = static_cast<const int64_t*>(c.inputs[static_cast<size_t>(first) + j].data_ptr());
  }
  const WalkSplit split = split_walk(w);
  p.free_rank = static_cast<int32_t>(split.free_axes.size());
  p.ordered_rank = static_cast<int32_t>(split.ordered_axes.size());
  for (size_t a = 0; a < split.free_axes.size(); ++a) p.free_axes[a] = split.free_axes[a];
  for (size_t a = 0; a < split.ordered_axes.size(); ++a) p.ordered_axes[a] = split.ordered_axes[a];
  p.free_count = split.free_count;
  p.ordered_count = split.ordered_count;
  p.tag = tag;
  return p;
}

// The three-axis form of Gather/Scatter (index shaped like x but along dim, src like index) or
// IndexSelect/IndexAdd; false when it does not apply.
bool three_axis(const std::string& op, const KernelContext& c, int64_t tag, GGIndex3& g) {
  const Tensor& x = c.inputs[0];
  const Tensor& index = c.inputs[1];
  const int rank = std::max(x.rank(), 1);
  int64_t d = c.attrs.i("dim");
  if (d < 0) d += rank;
  const Shape xs = x.rank() == 0 ? Shape{1} : x.shape();
  const bool per_position = op == "Gather" || op == "Scatter";
  if (per_position) {
    const Shape is = index.rank() == 0 ? Shape{1} : index.shape();
    for (size_t a = 0; a < xs.size(); ++a) {
      if (static_cast<int64_t>(a) != d && is[a] != xs[a]) return false;
    }
    if (op == "Scatter" && c.inputs[2].shape() != index.shape()) return false;
  }
  g = GGIndex3{};
  g.outer = 1;
  g.inner = 1;
  for (size_t a = 0; a < xs.size(); ++a) {
    if (static_cast<int64_t>(a) < d) g.outer *= xs[a];
    if (static_cast<int64_t>(a) > d) g.inner *= xs[a];
  }
  g.D = xs[static_cast<size_t>(d)];
  g.J = per_position ? (index.rank() == 0 ? 1 : index.shape()[static_cast<size_t>(d)]) : index.numel();
  g.per_position = per_position ? 1 : 0;
  g.small = g.outer * g.J * g.inner < kSmall ? 1 : 0;
  g.tag = tag;
  return true;
}

int reduce_code(const std::string& op, const KernelContext& c) {
  if (op == "IndexAdd") return 1;
  if (op == "IndexPut") return c.attrs.b("accumulate", false) ? 1 : 0;
  const std::string r = c.attrs.has("reduce") ? c.attrs.s("reduce") : "none";
  return r == "add" ? 1 : r == "multiply" ? 2 : 0;
}

// Where kernels record a bad index: a slot of the device's deferred-check arena (cuda.h), read at
// the next synchronization, or the error word of a graph being captured. The message needs the
// node's tensors and attributes, kept until then.
struct BadIndex {
  void* ptr = nullptr;
  int64_t tag = 0;
  BadIndex(const std::string& op, const KernelContext& c, const Device& d) {
    if (capturing() && c.error_word != nullptr) {
      ptr = c.error_word;
      tag = GG_INDEX_ERROR_TAG;
      return;
    }
    std::vector<Tensor> inputs = c.inputs;
    std::vector<Tensor> outputs = c.outputs;
    Attrs attrs = c.attrs;
    NodeMeta meta = c.meta;
    ptr = deferred_check_word(d.index, [op, inputs, outputs, attrs, meta](int64_t record) {
      const uint64_t rec = static_cast<uint64_t>(record);
      const int j = static_cast<int>((rec >> 56) & 0x3f);
      const int64_t pos = static_cast<int64_t>(rec & ((uint64_t{1} << 56) - 1));
      const Tensor& index = inputs[static_cast<size_t>(indexing::first_index_input(op) + j)];
      const int64_t value = index.as_strided({1}, {1}, index.offset() + pos).to(Device::cpu()).data<int64_t>()[0];
      const KernelContext ctx{inputs, outputs, attrs, meta};
      indexing::throw_out_of_bounds(op, ctx, j, pos, value);
    });
  }
};

void read_op(const std::string& op, const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  if (out.numel() == 0) return;
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{op.c_str(), &c};
  const BadIndex bad(op, c, out.device());
  const DType dt = out.dtype();
  GGIndex3 g;
  if (op != "Index" && three_axis(op, c, bad.tag, g)) {
    // Whole rows of a multiple of 16 bytes, both ends aligned: 16 bytes a thread (indexing.cu).
    const int64_t per16 = 16 / static_cast<int64_t>(dtype_size(dt));
    const bool rows16 = !g.per_position && g.inner % per16 == 0 &&
                        reinterpret_cast<uintptr_t>(out.data_ptr()) % 16 == 0 &&
                        reinterpret_cast<uintptr_t>(c.inputs[0].data_ptr()) % 16 == 0;
    const int64_t threads = rows16 ? out.numel() / per16 : out.numel();
    launch(s, st, kname(rows16 ? "gg_gather3_rows16" : "gg_gather3", dt).c_str(), Dim3{blocks_for(s, threads, 256)},
           Dim3{256}, site, g, c.inputs[1].data_ptr(), out.data_ptr(), c.inputs[0].data_ptr(), bad.ptr);
  } else {
    const GGIndexWalk w = to_params(indexing::walk_of(op, c), c, 1, bad.tag, site);
    launch(s, st, kname("gg_index_read", dt).c_str(), Dim3{blocks_for(s, out.numel(), 256)}, Dim3{256}, site,
           out.numel(), w, out.data_ptr(), c.inputs[0].data_ptr(), bad.ptr);
  }
}

void write_op(const std::string& op, const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const Tensor& x = c.inputs[0];
  if (out.data_ptr() != x.data_ptr()) copy_tensor(out, x);
  const IndexWalk walk = indexing::walk_of(op, c);
  const int64_t n = numel(walk.shape);
  if (n == 0 || out.numel() == 0) return;
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{op.c_str(), &c};
  const BadIndex bad(op, c, out.device());
  const DType dt = out.dtype();
  const int reduce = reduce_code(op, c);
  const void* src = c.inputs[op == "IndexPut" ? 1 : 2].data_ptr();
  const int first = indexing::first_index_input(op);
  GGIndex3 g;
  if (deterministic_algorithms() || deterministic()) {  // either switch (settings.h)
    const GGIndexWalk w = to_params(walk, c, first, bad.tag, site);
    launch(s, st, kname("gg_index_write_ordered", dt).c_str(), Dim3{blocks_for(s, w.free_count, 128)}, Dim3{128},
           site, w, reduce, out.data_ptr(), src, bad.ptr);
  } else if (op != "IndexPut" && three_axis(op, c, bad.tag, g)) {
    launch(s, st, kname("gg_scatter3", dt).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, g, reduce,
           c.inputs[1].data_ptr(), out.data_ptr(), src, bad.ptr);
  } else {
    const GGIndexWalk w = to_params(walk, c, first, bad.tag, site);
    launch(s, st, kname("gg_index_write", dt).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, w, reduce,
           out.data_ptr(), src, bad.ptr);
  }
}

void gather(const KernelContext& c) { read_op("Gather", c); }
void index_select(const KernelContext& c) { read_op("IndexSelect", c); }
void index(const KernelContext& c) { read_op("Index", c); }
void scatter(const KernelContext& c) { write_op("Scatter", c); }
void index_add(const KernelContext& c) { write_op("IndexAdd", c); }
void index_put(const KernelContext& c) { write_op("IndexPut", c); }

}  // namespace

void add_indexing_kernels(std::vector<KernelDef>& k) {
  using indexing::slice_scatter;  // the CPU backend's, through copy_tensor (indexing_kernels.h)
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/indexing.def"
}

}  // namespace cuda
}  // namespace glassgrad
