// Launchers of the 2-D convolutions (kernels/cuda/conv.cu): Conv2D, Conv2DBackwardInput,
// Conv2DBackwardWeight, each with a direct and an implicit-GEMM kernel.
//
// Choice per shape (set_conv_algo("auto")): the direct kernels where a 64 x 64 GEMM tile would
// mostly hold zeros (forward and weight gradient: C*R*S <= 64; input gradient: C <= 16 or
// K*R*S <= 64, i.e. the first layers), implicit GEMM otherwise. On an H200 (benchmarks/
// cuda_kernels.py) the input gradient of a 1-channel 28x28 layer took 0.03 ms direct against
// 0.22 ms as a GEMM with 1 of 64 rows used, while 64-channel layers run 1.7x faster as GEMMs. "direct" / "igemm" force one (direct only where its shared-memory
// tiles fit; otherwise implicit GEMM runs). Every valid shape runs on one of them.
#include <algorithm>

#include "cuda/launch.h"
#include "cuda/registry.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"

namespace glassgrad {
namespace cuda {

namespace {

constexpr int64_t kDirectInBytes = 16384, kDirectWBytes = 8192;  // as in conv.cu

void read_geometry(const Attrs& a, GGConv& g) {
  const auto& st = a.ints("stride");
  g.sh = st.at(0);
  g.sw = st.size() > 1 ? st[1] : st[0];
  const auto& p = a.ints("padding");
  if (p.size() >= 4) {
    g.pt = p[0];
    g.pl = p[2];
  } else if (p.size() == 2) {
    g.pt = p[0];
    g.pl = p[1];
  } else {
    g.pt = g.pl = p.empty() ? 0 : p[0];
  }
  g.splits = 1;
}

// x [N,C,H,W], w [K,C,R,S], y [N,K,OH,OW]
GGConv geometry(const Shape& x, const Shape& w, const Shape& y, const Attrs& a) {
  GGConv g{};
  g.N = x[0];
  g.C = x[1];
  g.H = x[2];
  g.W = x[3];
  g.K = w[0];
  g.R = w[2];
  g.S = w[3];
  g.OH = y[2];
  g.OW = y[3];
  read_geometry(a, g);
  return g;
}

int algo() {
  const std::string a = conv_algo();
  return a == "auto" ? 0 : a == "direct" ? 1 : 2;
}

bool want_direct(bool small) {
  const int a = algo();
  return a == 1 || (a == 0 && small);
}

Dim3 gemm_grid(int64_t M, int64_t N, int64_t z) {
  return Dim3{static_cast<unsigned>(std::min<int64_t>((N + 63) / 64, 1 << 30)), cap_yz((M + 63) / 64), cap_yz(z)};
}

// Split-K partitions of the weight gradient: enough blocks to fill a GPU when K x CRS is
// small, each partition still long (>= 1024 products). Depends on shapes only, so the planned
// workspace always matches.
int64_t weight_splits(const GGConv& g) {
  const int64_t tiles = ((g.K + 63) / 64) * ((g.C * g.R * g.S + 63) / 64);
  const int64_t np = g.N * g.OH * g.OW;
  if (tiles >= 256) return 1;
  return std::max<int64_t>(1, std::min<int64_t>({(256 + tiles - 1) / tiles, np / 1024, 64}));
}

size_t weight_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  // inputs: input x, grad_out dy; output dw
  const GGConv g = geometry(in.at(0).shape, out.at(0).shape, in.at(1).shape, a);
  const int64_t splits = weight_splits(g);
  if (splits <= 1) return 0;
  return static_cast<size_t>(splits * g.K * g.C * g.R * g.S) * dtype_size(out.at(0).dtype);
}

void conv2d(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const Tensor* bias = c.inputs.size() > 2 && c.inputs[2].defined() ? &c.inputs[2] : nullptr;
  const Tensor& y = c.outputs[0];
  if (y.numel() == 0) return;
  require_int32_sizes(c, "Conv2D");
  LaunchSite site{"Conv2D", &c};
  const GGConv g = geometry(x.shape(), w.shape(), y.shape(), c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const DType dt = y.dtype();
  const int64_t item = static_cast<int64_t>(dtype_size(dt));
  const int64_t crs = g.C * g.R * g.S;
  const int64_t iht = 15 * g.sh + g.R, iwt = 15 * g.sw + g.S;
  const bool fits = 8 * crs * item <= kDirectWBytes && iht * iwt * item <= kDirectInBytes;
  void* b = bias ? bias->data_ptr() : nullptr;
  if (fits && want_direct(crs <= 64)) {
    const int64_t tiles = ((g.OH + 15) / 16) * ((g.OW + 15) / 16);
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(tiles, 1 << 30)), cap_yz((g.K + 7) / 8), cap_yz(g.N)};
    launch(s, st, kname("gg_conv_fwd_direct", dt).c_str(), grid, Dim3{256}, site, g, y.data_ptr(), x.data_ptr(),
           w.data_ptr(), b);
  } else {
    launch(s, st, kname("gg_conv_fwd_igemm", dt).c_str(), gemm_grid(g.K, g.N * g.OH * g.OW, 1), Dim3{256}, site, g,
           y.data_ptr(), x.data_ptr(), w.data_ptr(), b);
  }
  // Fused activation (attrs "activation" = "relu"): the elementwise ReLU kernel, in place on y
  // (each element read before it is written), so no separate buffer or plan step exists.
  if (c.attrs.has("activation") && c.attrs.s("activation") == "relu") {
    const std::vector<Tensor> io{y};
    const Attrs none;
    KernelContext relu{io, io, none, c.meta, nullptr, 0, c.stream, c.error_word};
    KernelRegistry::instance().at("ReLU", DeviceType::CUDA, dt, c.meta).fn(relu);
  }
}

// inputs: grad_out dy [N,K,OH,OW], weight w; output dx [N,C,H,W]
void conv2d_backward_input(const KernelContext& c) {
  const Tensor& dy = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const Tensor& dx = c.outputs[0];
  if (dx.numel() == 0) return;
  require_int32_sizes(c, "Conv2DBackwardInput");
  LaunchSite site{"Conv2DBackwardInput", &c};
  const GGConv g = geometry(dx.shape(), w.shape(), dy.shape(), c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const DType dt = dx.dtype();
  const int64_t krs = g.K * g.R * g.S;
  const bool fits = krs * static_cast<int64_t>(dtype_size(dt)) <= kDirectWBytes;
  if (fits && want_direct(g.C <= 16 || krs <= 64)) {
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>((g.H * g.W + 255) / 256, 4096)), cap_yz(g.C), cap_yz(g.N)};
    launch(s, st, kname("gg_conv_bwd_input_direct", dt).c_str(), grid, Dim3{256}, site, g, dx.data_ptr(),
           dy.data_ptr(), w.data_ptr());
  } else {
    launch(s, st, kname("gg_conv_bwd_input_igemm", dt).c_str(), gemm_grid(g.C, g.N * g.H * g.W, 1), Dim3{256}, site,
           g, dx.data_ptr(), dy.data_ptr(), w.data_ptr());
  }
}

// inputs: input x [N,C,H,W], grad_out dy [N,K,OH,OW]; output dw [K,C,R,S]
void conv2d_backward_weight(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& dy = c.inputs[1];
  const Tensor& dw = c.outputs[0];
  if (dw.numel() == 0) return;
  require_int32_sizes(c, "Conv2DBackwardWeight");
  LaunchSite site{"Conv2DBackwardWeight", &c};
  GGConv g = geometry(x.shape(), dw.shape(), dy.shape(), c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const DType dt = dw.dtype();
  const int64_t crs = g.C * g.R * g.S, np = g.N * g.OH * g.OW;
  if (np == 0) return fill_tensor(dw, 0.0);
  if (want_direct(crs <= 64)) {
    const int64_t n = g.K * crs;
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(n, int64_t(s.info.multiprocessors) * 32))};
    launch(s, st, kname("gg_conv_bwd_weight_direct", dt).c_str(), grid, Dim3{pow2_block(np, 32, 256)}, site, g,
           dw.data_ptr(), dy.data_ptr(), x.data_ptr());
    return;
  }
  g.splits = weight_splits(g);
  const size_t need = static_cast<size_t>(g.splits * g.K * crs) * dtype_size(dt);
  if (g.splits > 1 && (c.workspace == nullptr || c.workspace_bytes < need)) g.splits = 1;
  void* dst = g.splits > 1 ? c.workspace : dw.data_ptr();
  launch(s, st, kname("gg_conv_bwd_weight_igemm", dt).c_str(), gemm_grid(g.K, crs, g.splits), Dim3{256}, site, g, dst,
         dy.data_ptr(), x.data_ptr());
  if (g.splits > 1) {
    const int64_t n = g.K * crs;
    launch(s, st, kname("gg_conv_bwd_weight_reduce", dt).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n,
           g.splits, dw.data_ptr(), c.workspace);
  }
}

}  // namespace

void add_conv_kernels(std::vector<KernelDef>& k) {
  k.push_back({"Conv2D", conv2d, float_dtypes()});
  k.push_back({"Conv2DBackwardInput", conv2d_backward_input, float_dtypes()});
  k.push_back({"Conv2DBackwardWeight", conv2d_backward_weight, float_dtypes(), weight_workspace});
}

}  // namespace cuda
}  // namespace glassgrad
