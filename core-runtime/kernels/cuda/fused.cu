// FusedElementwise: out[i] = program(x_0[off_0(i)], ..., x_{n-1}[off_{n-1}(i)]), the register
// program of an elementwise chain that the fusion pass merged into one node
// (autodiff-engine/include/glassgrad/autodiff/fusion.h). One thread per output element
// gathers its inputs (strided, stride 0 on broadcast axes) into registers, runs the
// instructions with the very functions of the unfused kernels (elementwise_ops.cuh), and
// stores the last register: each intermediate stays in the thread instead of memory.
// Layouts: inputs any strides; the output dense.
#include "elementwise_ops.cuh"

namespace gg_fused {

template <typename T>
__device__ void run(int64_t n, const GGFused& f, T* out) {
  T r[GG_FUSED_MAX_IN + GG_FUSED_MAX_CODE];
  GG_FOR(i, n) {
    int64_t off[GG_FUSED_MAX_IN];
    for (int k = 0; k < f.n_in; ++k) off[k] = 0;
    int64_t rem = i;
    for (int d = f.rank - 1; d >= 0; --d) {
      int64_t idx;
      if (f.small) {
        const uint32_t q = (uint32_t)rem / (uint32_t)f.size[d];
        idx = (int64_t)((uint32_t)rem - q * (uint32_t)f.size[d]);
        rem = q;
      } else {
        const int64_t q = rem / f.size[d];
        idx = rem - q * f.size[d];
        rem = q;
      }
      for (int k = 0; k < f.n_in; ++k) off[k] += idx * f.stride[k][d];
    }
    for (int k = 0; k < f.n_in; ++k) r[k] = ((const T*)f.in[k])[off[k]];
    for (int j = 0; j < f.n_code; ++j) {
      const int c = f.code[j];
      const int op = (c >> 1) & 0x7f, a = (c >> 8) & 0xfff, b = (c >> 20) & 0xfff;
      r[f.n_in + j] = (c & 1) ? gg_ew::unary<T>(op, r[a], f.scalar[j]) : gg_ew::binary<T>(op, r[a], r[b]);
    }
    out[i] = r[f.n_in + f.n_code - 1];
  }
}

}  // namespace gg_fused

GG_KERNEL void gg_fused_f32(int64_t n, GGFused f, float* out) { gg_fused::run<float>(n, f, out); }
GG_KERNEL void gg_fused_f64(int64_t n, GGFused f, double* out) { gg_fused::run<double>(n, f, out); }
