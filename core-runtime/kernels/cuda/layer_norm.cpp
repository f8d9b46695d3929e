// Launchers of the layer-norm kernels (kernels/cuda/layer_norm.cu): the forward is one launch
// of a warp per row; the backward launches gg_ln_dx (a warp per row) and, when a weight or bias
// needs its gradient, gg_ln_params over (column blocks, partitions) and, for more than one
// partition, gg_ln_params_sum, which adds the partitions' planned workspace in order
// (layer_norm_plan.h).
#include <algorithm>

#include "cuda/launch.h"
#include "layer_norm_plan.h"
#include "registry.h"
#include "glassgrad/runtime/device_hooks.h"

namespace glassgrad {
namespace cuda {

const FunctionNames kLayerNormFunctions({"gg_ln_fwd", "gg_ln_dx", "gg_ln_params", "gg_ln_params_sum"},
                                        float_dtypes());

namespace {

using namespace layer_norm;

const void* ln_input_or_null(const KernelContext& c, int i) {
  return i >= 0 ? c.inputs[static_cast<size_t>(i)].data_ptr() : nullptr;
}

// Blocks of 8 warps, a row each, for `rows` rows.
Dim3 ln_row_grid(DeviceState& s, int64_t rows) { return Dim3{blocks_for(s, rows * 32, 256)}; }

// inputs x[, weight][, bias]; outputs y, mean, rstd
void ln_forward(const KernelContext& c) {
  const LayerNormGeometry g = LayerNormGeometry::from(c.inputs[0].shape(), c.attrs);
  if (g.rows == 0) return;
  const GGLayerNorm p = params_of(g);
  const DType dt = c.inputs[0].dtype();
  DeviceState& s = state_of(c);
  launch(s, stream_of(s, &c), kname("gg_ln_fwd", dt).c_str(), ln_row_grid(s, g.rows), Dim3{256},
         LaunchSite{"LayerNorm", &c}, p, c.outputs[0].data_ptr(), c.outputs[1].data_ptr(), c.outputs[2].data_ptr(),
         static_cast<const void*>(c.inputs[0].data_ptr()), ln_input_or_null(c, g.weight_input(false)),
         ln_input_or_null(c, g.bias_input()));
}

size_t ln_backward_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& attrs) {
  return workspace_bytes(params_of(LayerNormGeometry::from(in[1].shape, attrs)), dtype_size(in[1].dtype));
}

// inputs grad_y, x, mean, rstd[, weight][, grad_mean, grad_rstd]; outputs dx, dweight, dbias
void ln_backward(const KernelContext& c) {
  const LayerNormGeometry g = LayerNormGeometry::from(c.inputs[1].shape(), c.attrs);
  const GGLayerNorm p = params_of(g);
  const DType dt = c.inputs[1].dtype();
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const LaunchSite site{"LayerNormBackward", &c};
  if (g.rows == 0 || g.cols == 0) {
    if (g.weight) fill_tensor(c.outputs[1], 0.0);
    if (g.bias) fill_tensor(c.outputs[2], 0.0);
    return;
  }
  const int gm = g.grad_mean_input();
  const void* gy = c.inputs[0].data_ptr();
  const void* x = c.inputs[1].data_ptr();
  const void* mean = c.inputs[2].data_ptr();
  const void* rstd = c.inputs[3].data_ptr();
  launch(s, st, kname("gg_ln_dx", dt).c_str(), ln_row_grid(s, g.rows), Dim3{256}, site, p, c.outputs[0].data_ptr(), gy, x,
         mean, rstd, ln_input_or_null(c, g.weight_input(true)), ln_input_or_null(c, gm), ln_input_or_null(c, gm >= 0 ? gm + 1 : -1));
  if (!g.weight && !g.bias) return;
  void* dw = g.weight ? c.outputs[1].data_ptr() : nullptr;
  void* db = g.bias ? c.outputs[2].data_ptr() : nullptr;
  const Dim3 grid{static_cast<unsigned>(std::min<int64_t>((g.cols + 31) / 32, int64_t(1) << 30)), cap_yz(p.parts)};
  launch(s, st, kname("gg_ln_params", dt).c_str(), grid, Dim3{256}, site, p, dw, db, c.workspace, gy, x, mean, rstd);
  if (p.parts > 1) {
    launch(s, st, kname("gg_ln_params_sum", dt).c_str(), Dim3{blocks_for(s, g.cols, 256)}, Dim3{256}, site, p, dw, db,
           static_cast<const void*>(c.workspace));
  }
}

constexpr KernelEntry layer_norm_backward{ln_backward, ln_backward_workspace, nullptr};

}  // namespace

void add_layer_norm_kernels(std::vector<KernelDef>& k) {
  // The LayerNorm row's kernel symbol; at namespace scope the name is layer_norm_plan.h's namespace.
  const KernelFn layer_norm = ln_forward;
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/layer_norm.def"
}

}  // namespace cuda
}  // namespace glassgrad
