// FusedElementwise: out[i] = program(x_0[off_0(i)], ..., x_{n-1}[off_{n-1}(i)]), the register
// program of an elementwise chain that the fusion pass merged into one node
// (autodiff-engine/include/glassgrad/autodiff/fusion.h). One thread per output element
// gathers its inputs (strided, stride 0 on broadcast axes) into registers, runs the
// instructions with the very functions of the unfused kernels (elementwise_ops.cuh), and
// stores the last register: each intermediate stays in the thread instead of memory.
// Layouts: inputs any strides; the output dense.
#include "elementwise_ops.cuh"
#include "fused.h"

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
