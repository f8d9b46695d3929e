// Launchers of the scans and sorts (kernels/cuda/scan.cu). Sort and TopK sort each line in a
// workspace of P keys and P int64 indices per block, P the line's length rounded up to a power
// of two; the grid has at most kSortBlocks blocks (each walks lines grid-stride), so the
// workspace stays at most kSortBlocks * P * (sizeof(T) + 8) bytes.
#include <algorithm>

#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/scan_lines.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kScanFunctions({"gg_cumsum", "gg_cumprod", "gg_sort_lines"},
                                   {DType::Float32, DType::Float64, DType::Int64});
const FunctionNames kScanBackwardFunctions({"gg_cumprod_bwd"}, float_dtypes());
const FunctionNames kFlipFunctions({"gg_flip_w1", "gg_flip_w4", "gg_flip_w8"});

namespace {

constexpr int64_t kSortBlocks = 256;

using Lines = ScanLines;
Lines lines_of(const Shape& shape, int64_t dim) { return scan_lines(shape, dim); }

int64_t pow2_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

int64_t sort_blocks(const Lines& l) { return std::max<int64_t>(1, std::min(l.count(), kSortBlocks)); }

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

size_t sort_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  const Lines l = lines_of(in[0].shape, a.i("dim"));
  const int64_t P = pow2_at_least(l.n), blocks = sort_blocks(l);
  return align256(size_t(blocks * P) * dtype_size(in[0].dtype)) + size_t(blocks * P) * sizeof(int64_t);
}

void cumsum(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  if (x.numel() == 0) return;
  const Lines l = lines_of(x.shape(), c.attrs.i("dim"));
  DeviceState& s = state_of(c);
  LaunchSite site{"CumSum", &c};
  const int reverse = c.attrs.b("reverse", false) ? 1 : 0;
  launch(s, stream_of(s, &c), kname("gg_cumsum", x.dtype()).c_str(), Dim3{blocks_for(s, l.count(), 128)}, Dim3{128},
         site, l.count(), l.n, l.inner, reverse, c.outputs[0].data_ptr(), x.data_ptr());
}

void cumprod(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  if (x.numel() == 0) return;
  const Lines l = lines_of(x.shape(), c.attrs.i("dim"));
  DeviceState& s = state_of(c);
  LaunchSite site{"CumProd", &c};
  launch(s, stream_of(s, &c), kname("gg_cumprod", x.dtype()).c_str(), Dim3{blocks_for(s, l.count(), 128)}, Dim3{128},
         site, l.count(), l.n, l.inner, c.outputs[0].data_ptr(), x.data_ptr());
}

void cumprod_backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  if (g.numel() == 0) return;
  const Lines l = lines_of(g.shape(), c.attrs.i("dim"));
  DeviceState& s = state_of(c);
  LaunchSite site{"CumProdBackward", &c};
  launch(s, stream_of(s, &c), kname("gg_cumprod_bwd", g.dtype()).c_str(), Dim3{blocks_for(s, l.count(), 128)},
         Dim3{128}, site, l.count(), l.n, l.inner, c.outputs[0].data_ptr(), g.data_ptr(), c.inputs[1].data_ptr(),
         c.inputs[2].data_ptr());
}

void sort_lines(const KernelContext& c, const char* name, int64_t k, bool descending) {
  const Tensor& x = c.inputs[0];
  const Lines l = lines_of(x.shape(), c.attrs.i("dim"));
  if (l.count() == 0 || k == 0) return;
  const int64_t P = pow2_at_least(l.n), blocks = sort_blocks(l);
  char* ws = static_cast<char*>(c.workspace);
  void* keys = ws;
  void* idx = ws + align256(size_t(blocks * P) * x.itemsize());
  DeviceState& s = state_of(c);
  LaunchSite site{name, &c};
  const int desc = descending ? 1 : 0;
  launch(s, stream_of(s, &c), kname("gg_sort_lines", x.dtype()).c_str(), Dim3{static_cast<unsigned>(blocks)},
         Dim3{pow2_block(P / 2, 32, 256)}, site, l.count(), l.n, l.inner, P, k, desc, c.outputs[0].data_ptr(),
         c.outputs[1].data_ptr(), x.data_ptr(), keys, idx);
}

// Flip copies elements by their width (a float32 as 4 bytes), whatever the dtype.
void flip(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const int64_t total = x.numel();
  if (total == 0) return;
  const Lines l = lines_of(x.shape(), c.attrs.i("dim"));
  const char* k = x.itemsize() == 1 ? "gg_flip_w1" : x.itemsize() == 4 ? "gg_flip_w4" : "gg_flip_w8";
  DeviceState& s = state_of(c);
  LaunchSite site{"Flip", &c};
  launch(s, stream_of(s, &c), k, Dim3{blocks_for(s, total, 256)}, Dim3{256}, site, total, l.n, l.inner,
         c.outputs[0].data_ptr(), x.data_ptr());
}

void sort_launch(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const int d = normalize_axis(c.attrs.i("dim"), x.rank());
  sort_lines(c, "Sort", x.shape()[static_cast<size_t>(d)], c.attrs.b("descending", false));
}

void topk_launch(const KernelContext& c) { sort_lines(c, "TopK", c.attrs.i("k"), c.attrs.b("largest", true)); }

// The Sort and TopK rows' kernels: the launchers with their workspace (sort_workspace).
constexpr KernelEntry sort{sort_launch, sort_workspace, nullptr};
constexpr KernelEntry topk{topk_launch, sort_workspace, nullptr};

}  // namespace

void add_scan_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/scan.def"
}

}  // namespace cuda
}  // namespace glassgrad
