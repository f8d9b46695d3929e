// Launchers of the attention kernels (kernels/cuda/attention.cu): the forward, and the backward
// as two launches on the stream: in float32 (unless deterministic algorithms are asked for,
// attention_plan.h's atomic_dq) gg_attn_prep (D = rowsum(grad_out * out) into the planned
// workspace, dq = 0) before gg_attn_bwd_resident (features within one chunk) or gg_attn_bwd (dk,
// dv, and dq by atomics; attention_plan.h's atomic_backward_kernel), otherwise gg_attn_dq
// (which also writes D) before gg_attn_dkv (which reads it). Grids: x the row blocks, y the column
// chunks of the outputs (the kernels' EC features at a time), z the batch; y and z are capped at
// 65535 and the kernels loop over the rest. The dropout seed stays on the device (an input
// tensor), so a captured CUDA graph draws a new mask whenever the seed changes.

#include "attention_plan.h"
#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/settings.h"

namespace glassgrad {
namespace cuda {

const FunctionNames kAttentionFunctions({"gg_attn_fwd", "gg_attn_dq", "gg_attn_dkv"}, float_dtypes());
const FunctionNames kAttentionAtomicFunctions({"gg_attn_prep_f32", "gg_attn_bwd_f32", "gg_attn_bwd_resident_f32"});

namespace {

using namespace attention;

// The parameter block, after the checks of what the kernels cannot take.
GGAttention checked_params(const AttentionGeometry& g, const AttentionLayout& lay, const LaunchSite& site) {
  const std::string where = node_where(site.op, site.ctx->meta.scope);
  for (int64_t n : {g.l, g.s, g.e, g.ev}) {
    if (n < (int64_t(1) << 31)) continue;
    throw UnsupportedError(ErrorMessage(where + ": a sequence length or feature count of " + std::to_string(n) +
                                        " is beyond the CUDA kernels' 32-bit rows and columns (at most 2^31 - 1)")
                               .fix("split the sequence into shorter pieces")
                               .str());
  }
  if (lay.batch.size() > GG_MAX_DIMS) {
    throw UnsupportedError(ErrorMessage(where + ": the operands' batch axes " + shape_str(g.batch) + " leave more than " +
                                        std::to_string(GG_MAX_DIMS) + " axes after merging")
                               .fix("make query, key and value contiguous first: x.contiguous()")
                               .str());
  }
  return params_of(g, lay);
}

Dim3 dims(const Grid& g) { return Dim3{g.x, g.y, g.z}; }

const void* input_or_null(const KernelContext& c, int i) {
  return i >= 0 ? c.inputs[static_cast<size_t>(i)].data_ptr() : nullptr;
}

// inputs q, k, v[, mask][, seed]; outputs out [*b, L, Ev], lse [*b, L]
void forward(const KernelContext& c) {
  const AttentionGeometry g =
      AttentionGeometry::from(c.inputs[0].shape(), c.inputs[1].shape(), c.inputs[2].shape(), c.attrs);
  if (g.batch_count() == 0 || g.l == 0) return;
  LaunchSite site{"ScaledDotProductAttention", &c};
  const GGAttention p = checked_params(g, attention_layout(g, c.inputs, false), site);
  const DType dt = c.inputs[0].dtype();
  const Tiles t = tiles_of(dt);
  DeviceState& s = state_of(c);
  launch(s, stream_of(s, &c), kname("gg_attn_fwd", dt).c_str(), dims(forward_grid(g, t)),
         Dim3{static_cast<unsigned>(t.fwd_threads)},
         site, p, c.outputs[0].data_ptr(), c.outputs[1].data_ptr(), c.inputs[0].data_ptr(), c.inputs[1].data_ptr(),
         c.inputs[2].data_ptr(), input_or_null(c, g.mask_input(0)), input_or_null(c, g.seed_input(0)));
}

// inputs grad_out, q, k, v, out, lse[, mask][, seed]; outputs dq, dk, dv, dmask; workspace D [*b, L]
void backward(const KernelContext& c) {
  const AttentionGeometry g =
      AttentionGeometry::from(c.inputs[1].shape(), c.inputs[2].shape(), c.inputs[3].shape(), c.attrs);
  if (g.batch_count() == 0) return;
  DeviceState& s = state_of(c);
  if (g.l == 0) {  // no query: nothing flows to the keys and values
    fill_tensor(c.outputs[1], 0.0);
    fill_tensor(c.outputs[2], 0.0);
    return;
  }
  LaunchSite site{"ScaledDotProductAttentionBackward", &c};
  const GGAttention p = checked_params(g, attention_layout(g, c.inputs, true), site);
  const DType dt = c.inputs[1].dtype();
  const Tiles t = tiles_of(dt);
  CUstream st = stream_of(s, &c);
  const void* mask = input_or_null(c, g.mask_input(1));
  const void* seed = input_or_null(c, g.seed_input(1));
  void* dsum = c.workspace;
  if (atomic_dq(dt, deterministic_algorithms() || deterministic())) {
    launch(s, st, "gg_attn_prep_f32", dims(prep_grid(g, t)), Dim3{static_cast<unsigned>(t.threads)}, site, p,
           c.outputs[0].data_ptr(), dsum, c.inputs[0].data_ptr(), c.inputs[4].data_ptr());
    if (g.s == 0) return;
    const char* kernel = atomic_backward_kernel(g, t);
    launch(s, st, kernel, dims(dkv_grid(g, t)), Dim3{static_cast<unsigned>(atomic_backward_threads(kernel, t))}, site, p,
           c.outputs[0].data_ptr(), c.outputs[1].data_ptr(), c.outputs[2].data_ptr(),
           g.mask_grad ? c.outputs[3].data_ptr() : nullptr, static_cast<const void*>(dsum), c.inputs[0].data_ptr(),
           c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), c.inputs[3].data_ptr(), c.inputs[5].data_ptr(), mask, seed);
    return;
  }
  launch(s, st, kname("gg_attn_dq", dt).c_str(), dims(dq_grid(g, t)), Dim3{static_cast<unsigned>(t.threads)}, site, p, c.outputs[0].data_ptr(), dsum, c.inputs[0].data_ptr(),
         c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), c.inputs[3].data_ptr(), c.inputs[4].data_ptr(),
         c.inputs[5].data_ptr(), mask, seed);
  if (g.s == 0) return;
  launch(s, st, kname("gg_attn_dkv", dt).c_str(), dims(dkv_grid(g, t)), Dim3{static_cast<unsigned>(t.threads)}, site, p, c.outputs[1].data_ptr(), c.outputs[2].data_ptr(),
         g.mask_grad ? c.outputs[3].data_ptr() : nullptr, static_cast<const void*>(dsum), c.inputs[0].data_ptr(),
         c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), c.inputs[3].data_ptr(), c.inputs[5].data_ptr(), mask, seed);
}


}  // namespace

// The rows' kernel symbols (families/attention.def): the launchers, the backward with its workspace.
constexpr KernelEntry scaled_dot_product_attention{forward, nullptr, nullptr};
constexpr KernelEntry scaled_dot_product_attention_backward{backward, attention_backward_workspace, nullptr};

void add_attention_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/attention.def"
}

}  // namespace cuda
}  // namespace glassgrad
