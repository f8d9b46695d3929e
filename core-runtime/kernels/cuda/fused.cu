// The fused family on CUDA (families/fused.def; the rules: autodiff-engine/src/ops/fused.cpp), in
// one file: the kernels' rows, their device code and their launcher. nvcc and NVRTC read the rows
// and the device part; the C++ compiler reads the rows and the host part (GG_CUDA_HOST;
// docs/architecture.md, "One CUDA file per family"). The rows' columns: kernel_interface.h;
// GGFused: params.h.
//
// FusedElementwise: out[i] = program(x_0[off_0(i)], ..., x_{n-1}[off_{n-1}(i)]), the register
// program of an elementwise chain that the fusion pass merged into one node
// (autodiff-engine/include/glassgrad/autodiff/fusion.h). One thread per output element
// gathers its inputs (strided, stride 0 on broadcast axes) into registers, runs the
// instructions with the very functions of the unfused kernels (elementwise_ops.cuh), and
// stores the last register: each intermediate stays in the thread instead of memory.
// Layouts: inputs any strides; the output dense.
//
// The launcher packs the node's register program (FusedProgram: ElementwiseOp codes, the rows of
// elementwise_ops.def) into the kernel's instruction words; the kernel runs each row's scalar
// function, as the unfused kernels do.
#include "kernel_interface.h"
#include "params.h"

// n output elements; gg_fused_small: programs of at most 4 inputs and 8 instructions.
#define GG_FUSED_KERNELS(K)                                                                        \
  K(gg_fused, Float, GG_NO_BOUNDS, (int64_t n, GGFused f, T* out), gg_fused::run<T>(n, f, out))    \
  K(gg_fused_small, Float, GG_NO_BOUNDS, (int64_t n, GGFused f, T* out), gg_fused::run_small<T, 4, 8>(n, f, out))

GG_DECLARE_KERNELS(GG_FUSED_KERNELS)

#ifndef GG_CUDA_HOST
// ---- device part -------------------------------------------------------------------------------
#include "elementwise_ops.cuh"

namespace gg_fused {

template <typename T>
__device__ void run(int64_t n, const GGFused& f, T* out) {
  T r[GG_FUSED_MAX_IN + GG_FUSED_MAX_CODE];
  GG_FOR(i, n) {
    int64_t off[GG_FUSED_MAX_IN];
#pragma unroll
    for (int k = 0; k < GG_FUSED_MAX_IN; ++k) off[k] = 0;
    gg::add_offsets<GG_FUSED_MAX_IN>(i, f.rank, f.small, f.size, f.stride, f.n_in, off);
    for (int k = 0; k < f.n_in; ++k) r[k] = ((const T*)f.in[k])[off[k]];
    for (int j = 0; j < f.n_code; ++j) {
      const int c = f.code[j];
      const int op = (c >> 1) & 0x7f, a = (c >> 8) & 0xfff, b = (c >> 20) & 0xfff;
      r[f.n_in + j] = (c & 1) ? gg_ew::unary<T>(op, r[a], f.scalar[j]) : gg_ew::binary<T>(op, r[a], r[b], f.scalar[j]);
    }
    out[i] = r[f.n_in + f.n_code - 1];
  }
}

// The same program for up to NIN inputs and NCODE instructions (most fused chains: a residual
// add and a ReLU, a scale and a shift): with every loop unrolled over the fixed bounds, the
// register file has constant indices and stays in registers, and operands are picked by
// compare-and-select; run() indexes it at run time, which puts it in local memory (on an
// H200, ResNet-18's eight Add + ReLUBackward chains took 201 us a step with run(), 166 us here).
template <typename T, int NIN, int NCODE>
__device__ void run_small(int64_t n, const GGFused& f, T* out) {
  constexpr int NR = NIN + NCODE;
  GG_FOR(i, n) {
    T r[NR];
#pragma unroll
    for (int k = 0; k < NR; ++k) r[k] = T(0);
    int64_t off[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k) off[k] = f.rank == 1 ? i * f.stride[k][0] : 0;  // merged dense operands
    if (f.rank != 1) gg::add_offsets<NIN>(i, f.rank, f.small, f.size, f.stride, NIN, off);
#pragma unroll
    for (int k = 0; k < NIN; ++k)
      if (k < f.n_in) r[k] = ((const T*)f.in[k])[off[k]];
    T last = T(0);
#pragma unroll
    for (int j = 0; j < NCODE; ++j) {
      if (j >= f.n_code) continue;
      const int c = f.code[j];
      const int op = (c >> 1) & 0x7f, a = (c >> 8) & 0xfff, b = (c >> 20) & 0xfff;
      T va = r[0], vb = r[0];
#pragma unroll
      for (int q = 1; q < NR; ++q) {
        va = (a == q) ? r[q] : va;
        vb = (b == q) ? r[q] : vb;
      }
      last = (c & 1) ? gg_ew::unary<T>(op, va, f.scalar[j]) : gg_ew::binary<T>(op, va, vb, f.scalar[j]);
      const int dst = f.n_in + j;
#pragma unroll
      for (int q = 0; q < NR; ++q) r[q] = (q == dst) ? last : r[q];
    }
    out[i] = last;
  }
}

}  // namespace gg_fused

GG_DEFINE_KERNELS(GG_FUSED_KERNELS)
#endif  // !GG_CUDA_HOST

#ifdef GG_CUDA_HOST
// ---- host part: the launcher -------------------------------------------------------------------
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
#endif  // GG_CUDA_HOST
