// Launchers of the 2-D pooling kernels (kernels/cuda/pool.cu): MaxPool2D, MaxPool2DBackward,
// AvgPool2D, AvgPool2DBackward. One thread per output (forward) or input (backward) element.
#include "cuda/launch.h"
#include "cuda/registry.h"
#include "glassgrad/autodiff/fusion.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kPoolFunctions({"gg_maxpool_fwd", "gg_maxpool_bwd", "gg_maxpool_bwd_tiled", "gg_avgpool_fwd",
                                    "gg_avgpool_bwd"},
                                   float_dtypes());

namespace {

std::pair<int64_t, int64_t> pair_attr(const Attrs& a, const char* key, std::pair<int64_t, int64_t> dflt) {
  if (!a.has(key)) return dflt;
  const auto& v = a.ints(key);
  if (v.empty()) return dflt;
  return {v[0], v.size() > 1 ? v[1] : v[0]};
}

// x: the input-side tensor [N, C, H, W]; y: the output-side tensor [N, C, OH, OW].
GGPool geometry(const Shape& x, const Shape& y, const Attrs& a) {
  GGPool g{};
  g.planes = x[0] * x[1];
  g.H = x[2];
  g.W = x[3];
  g.OH = y[2];
  g.OW = y[3];
  const auto k = pair_attr(a, "kernel", {1, 1});
  const auto s = pair_attr(a, "stride", k);
  const auto p = pair_attr(a, "padding", {0, 0});
  g.kh = k.first;
  g.kw = k.second;
  g.sh = s.first;
  g.sw = s.second;
  g.ph = p.first;
  g.pw = p.second;
  g.count_include_pad = a.b("count_include_pad", true) ? 1 : 0;
  g.divisor_override = static_cast<int32_t>(a.i("divisor_override", 0));
  return g;
}

// in1 != null: max-pool backward, which also takes the fused ReLU flag (attrs "activation").
void run(const KernelContext& c, const char* op, const char* base, const GGPool& g, int64_t n, void* out,
         const void* in0, const void* in1) {
  if (n == 0) return;
  require_int32_sizes(c, op);
  DeviceState& s = state_of(c);
  LaunchSite site{op, &c};
  const std::string k = kname(base, c.outputs[0].dtype());
  const Dim3 grid{blocks_for(s, n, 256)}, block{256};
  const int relu = fused_relu(c.attrs) ? 1 : 0;
  if (in1) launch(s, stream_of(s, &c), k.c_str(), grid, block, site, g, relu, out, in0, in1);
  else launch(s, stream_of(s, &c), k.c_str(), grid, block, site, g, out, in0);
}

void max_pool(const KernelContext& c) {
  const Tensor& y = c.outputs[0];
  run(c, "MaxPool2D", "gg_maxpool_fwd", geometry(c.inputs[0].shape(), y.shape(), c.attrs), y.numel(), y.data_ptr(),
      c.inputs[0].data_ptr(), nullptr);
}

// inputs: grad [N,C,OH,OW], x [N,C,H,W]. Windows that tile the input (kernel = stride, no
// padding) take the one-thread-per-window kernel (pool.cu), n = the output's elements.
void max_pool_backward(const KernelContext& c) {
  const Tensor& dx = c.outputs[0];
  const GGPool g = geometry(c.inputs[1].shape(), c.inputs[0].shape(), c.attrs);
  const bool tiles = g.kh == g.sh && g.kw == g.sw && g.ph == 0 && g.pw == 0 && c.inputs[0].numel() > 0;
  run(c, "MaxPool2DBackward", tiles ? "gg_maxpool_bwd_tiled" : "gg_maxpool_bwd", g,
      tiles ? c.inputs[0].numel() : dx.numel(), dx.data_ptr(), c.inputs[0].data_ptr(), c.inputs[1].data_ptr());
}

void avg_pool(const KernelContext& c) {
  const Tensor& y = c.outputs[0];
  run(c, "AvgPool2D", "gg_avgpool_fwd", geometry(c.inputs[0].shape(), y.shape(), c.attrs), y.numel(), y.data_ptr(),
      c.inputs[0].data_ptr(), nullptr);
}

// inputs: grad [N,C,OH,OW]; output dx [N,C,H,W] (attrs.input_shape)
void avg_pool_backward(const KernelContext& c) {
  const Tensor& dx = c.outputs[0];
  run(c, "AvgPool2DBackward", "gg_avgpool_bwd", geometry(dx.shape(), c.inputs[0].shape(), c.attrs), dx.numel(),
      dx.data_ptr(), c.inputs[0].data_ptr(), nullptr);
}

}  // namespace

void add_pool_kernels(std::vector<KernelDef>& k) {
  k.push_back({"MaxPool2D", max_pool, float_dtypes()});
  k.push_back({"MaxPool2DBackward", max_pool_backward, float_dtypes()});
  k.push_back({"AvgPool2D", avg_pool, float_dtypes()});
  k.push_back({"AvgPool2DBackward", avg_pool_backward, float_dtypes()});
}

}  // namespace cuda
}  // namespace glassgrad
