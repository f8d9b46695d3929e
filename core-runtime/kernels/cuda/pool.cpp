// Launchers of the 2-D pooling kernels (pool.cu, declared in pool.h) for the ops of
// families/pool.def: MaxPool2D, MaxPool2DBackward, AvgPool2D, AvgPool2DBackward. One thread per
// output (forward) or input (backward) element.
#include "pool.h"

#include "cuda/launch.h"
#include "glassgrad/autodiff/families/pool.h"
#include "glassgrad/autodiff/fusion.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_POOL_KERNELS)

namespace {

// The kernels' parameter block from the family's geometry of the input-side shape x [N, C, H, W].
GGPool pool_params(const Shape& x, const Attrs& a) {
  const Pool2DGeometry g = Pool2DGeometry::from(x, a);
  GGPool p{};
  p.planes = g.planes();
  p.H = g.h;
  p.W = g.w;
  p.OH = g.ho;
  p.OW = g.wo;
  p.kh = g.kh;
  p.kw = g.kw;
  p.sh = g.sh;
  p.sw = g.sw;
  p.ph = g.ph;
  p.pw = g.pw;
  p.count_include_pad = g.count_include_pad ? 1 : 0;
  p.divisor_override = static_cast<int32_t>(g.divisor_override);
  return p;
}

void max_pool2d(const KernelContext& c) {
  const Tensor& y = c.outputs[0];
  const Tensor& x = c.inputs[0];
  if (y.numel() == 0) return;
  require_int32_sizes(c, "MaxPool2D");
  const GGPool g = pool_params(x.shape(), c.attrs);
  const OpLaunch L(c, "MaxPool2D", y.numel());
  dispatch_float(y.dtype(), [&](auto t) {
    using T = decltype(t);
    L.run<kernels::gg_maxpool_fwd<T>>(g, ptr<T>(y), ptr<const T>(x));
  });
}

// inputs: grad [N,C,OH,OW], x [N,C,H,W]. Windows that tile the input (kernel = stride, no
// padding) take the one-thread-per-window kernel (pool.cu), over the output's elements.
void max_pool2d_backward(const KernelContext& c) {
  const Tensor& dx = c.outputs[0];
  const Tensor& dy = c.inputs[0];
  const Tensor& x = c.inputs[1];
  const GGPool g = pool_params(x.shape(), c.attrs);
  const bool tiles = g.kh == g.sh && g.kw == g.sw && g.ph == 0 && g.pw == 0 && dy.numel() > 0;
  const int64_t n = tiles ? dy.numel() : dx.numel();
  if (n == 0) return;
  require_int32_sizes(c, "MaxPool2DBackward");
  const int relu = fused_relu(c.attrs) ? 1 : 0;  // the fused ReLUBackward (fusion.h)
  const OpLaunch L(c, "MaxPool2DBackward", n);
  dispatch_float(dx.dtype(), [&](auto t) {
    using T = decltype(t);
    if (tiles) {
      L.run<kernels::gg_maxpool_bwd_tiled<T>>(g, relu, ptr<T>(dx), ptr<const T>(dy), ptr<const T>(x));
    } else {
      L.run<kernels::gg_maxpool_bwd<T>>(g, relu, ptr<T>(dx), ptr<const T>(dy), ptr<const T>(x));
    }
  });
}

void avg_pool2d(const KernelContext& c) {
  const Tensor& y = c.outputs[0];
  const Tensor& x = c.inputs[0];
  if (y.numel() == 0) return;
  require_int32_sizes(c, "AvgPool2D");
  const GGPool g = pool_params(x.shape(), c.attrs);
  const OpLaunch L(c, "AvgPool2D", y.numel());
  dispatch_float(y.dtype(), [&](auto t) {
    using T = decltype(t);
    L.run<kernels::gg_avgpool_fwd<T>>(g, ptr<T>(y), ptr<const T>(x));
  });
}

// inputs: grad [N,C,OH,OW]; output dx [N,C,H,W] (attrs.input_shape)
void avg_pool2d_backward(const KernelContext& c) {
  const Tensor& dx = c.outputs[0];
  const Tensor& dy = c.inputs[0];
  if (dx.numel() == 0) return;
  require_int32_sizes(c, "AvgPool2DBackward");
  const GGPool g = pool_params(dx.shape(), c.attrs);
  const OpLaunch L(c, "AvgPool2DBackward", dx.numel());
  dispatch_float(dx.dtype(), [&](auto t) {
    using T = decltype(t);
    L.run<kernels::gg_avgpool_bwd<T>>(g, ptr<T>(dx), ptr<const T>(dy));
  });
}

}  // namespace

void add_pool_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/pool.def"
}

}  // namespace cuda
}  // namespace glassgrad
