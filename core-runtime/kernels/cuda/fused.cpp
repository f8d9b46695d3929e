// Launcher of FusedElementwise (kernels/cuda/fused.cu): packs the node's register program
// (FusedProgram: ElementwiseOp codes, the rows of elementwise_ops.def) into the kernel's
// instruction words; the kernel runs each row's scalar function, as the unfused kernels do.
#include "fused.h"

#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/fusion.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_FUSED_KERNELS)

namespace {

// The instruction word carries the op code in 7 bits.
static_assert(kElementwiseOpCount <= 128, "GGFused instruction words hold op codes below 128");

void fused_elementwise(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const int64_t n = out.numel();
  if (n == 0) return;
  LaunchSite site{"FusedElementwise", &c};
  const int n_in = static_cast<int>(c.inputs.size());
  const FusedProgram prog = FusedProgram::from_attrs(c.attrs, n_in);
  const int n_code = static_cast<int>(prog.code.size());
  if (n_in > GG_FUSED_MAX_IN || n_code > GG_FUSED_MAX_CODE) {
    throw UnsupportedError(ErrorMessage(node_where("FusedElementwise", c.meta.scope) +
                                        ": the CUDA kernel runs programs of at most " +
                                        std::to_string(GG_FUSED_MAX_IN) + " inputs and " +
                                        std::to_string(GG_FUSED_MAX_CODE) + " instructions, this one has " +
                                        std::to_string(n_in) + " and " + std::to_string(n_code))
                               .detail("program: " + prog.str())
                               .fix("turn fusion off for this model: glassgrad.set_fusion(False)")
                               .str());
  }
  // Axes merged where every input (and the dense output) is contiguous across them.
  std::vector<Strides> st{contiguous_strides(out.shape())};
  for (const Tensor& x : c.inputs) st.push_back(broadcast_strides(x, out.shape()));
  const CollapsedAxes ax =
      collapse_for_kernel(out.shape(), st, site, "turn fusion off for this model: glassgrad.set_fusion(False)");
  GGFused f{};
  f.rank = static_cast<int32_t>(ax.shape.size());
  f.n_in = n_in;
  f.n_code = n_code;
  bool small = n < (int64_t(1) << 31);
  for (size_t d = 0; d < ax.shape.size(); ++d) {
    f.size[d] = ax.shape[d];
    small = small && ax.shape[d] < (int64_t(1) << 31);
    for (int k = 0; k < n_in; ++k) f.stride[k][d] = ax.strides[static_cast<size_t>(k) + 1][d];
  }
  f.small = small ? 1 : 0;
  for (int k = 0; k < n_in; ++k) f.in[k] = c.inputs[static_cast<size_t>(k)].data_ptr();
  for (int j = 0; j < n_code; ++j) {
    const FusedInstruction& ins = prog.code[static_cast<size_t>(j)];
    const int unary = elementwise_info(ins.op).arity() == 1 ? 1 : 0;
    const int b = ins.b >= 0 ? ins.b : 0;
    f.code[j] = unary | (static_cast<int>(ins.op) << 1) | (ins.a << 8) | (b << 20);
    f.scalar[j] = ins.scalar;
  }
  DeviceState& s = state_of(c);
  // Up to 4 inputs and 8 instructions: the variant whose register file stays in registers.
  const bool small_program = n_in <= 4 && n_code <= 8;
  dispatch_float(out.dtype(), [&](auto t) {
    using T = decltype(t);
    if (small_program) {
      launch<kernels::gg_fused_small<T>>(s, stream_of(s, &c), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, f,
                                         ptr<T>(out));
    } else {
      launch<kernels::gg_fused<T>>(s, stream_of(s, &c), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, f,
                                   ptr<T>(out));
    }
  });
}

}  // namespace

void add_fused_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/fused.def"
}

}  // namespace cuda
}  // namespace glassgrad
