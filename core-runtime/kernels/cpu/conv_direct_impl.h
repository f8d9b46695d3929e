// The direct Conv2D forward of conv_direct.h, written once in plain C++ and compiled once per
// ISA. Include from exactly one translation unit per ISA after defining
//   GG_CONV_NS         namespace for this copy (conv_direct_generic, _avx2, _avx512)
//   GG_CONV_VEC_BYTES  bytes per vector register
//   GG_CONV_KB_F32, GG_CONV_NV_F32, GG_CONV_KB_F64, GG_CONV_NV_F64: output channels per block,
//                      and vectors per run of output columns (KB * NV accumulators)
// As in gemm_impl.h, everything here is internal to this namespace and no standard-library
// template is instantiated, so no ISA-specific copy of shared code can leak into baseline code.
//
//   y[k, i, j] = b[k] + sum_{c,r,s} x[c, i*sh + r*dh - pt, j + s*dw - pl] * w[k,c,r,s]
//
// Per output row i: stage the C*R input rows it reads (row (c, r) is x[c, i*sh + r*dh - pt, :],
// placed at offset pl of a zeroed line, or all zeros when that row is outside the image), so
// that output column j of tap s reads line[j + s*dw] with no bounds checks. Then for each block of
// KB channels and each run of NV vectors of columns: acc[kb][v] += w[k0+kb, c, r, s] *
// line(c, r)[j0 + v*lanes + s ...], over all taps, and store the Wo real columns.
#include <cstdint>
#include <cstring>

#include "conv_direct.h"

#if !defined(GG_CONV_NS) || !defined(GG_CONV_VEC_BYTES)
#error "define GG_CONV_NS and GG_CONV_VEC_BYTES before including conv_direct_impl.h"
#endif

namespace glassgrad {
namespace cpu {
namespace GG_CONV_NS {
namespace {

inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// Fully unrolls the loops over the KB x NV accumulators, so that they are indexed by constants
// only and stay in registers (as the GEMM's micro-tile, gemm_impl.h's GG_GEMM_UNROLL): with the
// store's runtime bounds indexing them, GCC kept them in a stack array, written at every run's
// start and end (about a fifth of the first layer's forward samples, AVX-512).
#define GG_CONV_UNROLL _Pragma("GCC unroll 64")

template <typename T>
struct Vec {
  typedef T type __attribute__((vector_size(GG_CONV_VEC_BYTES)));
  static constexpr int lanes = GG_CONV_VEC_BYTES / static_cast<int>(sizeof(T));
};

template <typename T, int KB, int NV>
void forward(const ConvDirectProblem<T>& p) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  constexpr int RUN = NV * L;
  const int64_t runs = (p.wo + RUN - 1) / RUN;
  const int64_t line = runs * RUN + p.dw * (p.s - 1);  // >= pl + W + pr, since Wo = W + pl + pr - dw*(S-1)
  const int64_t taps = p.c * p.r * p.s, rows = p.c * p.r, hwo = p.ho * p.wo;
  for (int64_t i = 0; i < p.ho; ++i) {
    for (int64_t cr = 0; cr < rows; ++cr) {
      const int64_t c = cr / p.r, r = cr % p.r, hi = i * p.sh + r * p.dh - p.pt;
      T* dst = p.scratch + cr * line;
      for (int64_t t = 0; t < line; ++t) dst[t] = T(0);
      if (hi >= 0 && hi < p.h) {
        const T* src = p.x + (c * p.h + hi) * p.w;
        for (int64_t t = 0; t < p.w; ++t) dst[p.pl + t] = src[t];
      }
    }
    for (int64_t k0 = 0; k0 < p.k; k0 += KB) {
      const int64_t kn = min64(KB, p.k - k0);
      const T* wk[KB];
      T bk[KB];
      for (int kb = 0; kb < KB; ++kb) {
        const int64_t k = k0 + min64(kb, kn - 1);  // past the last channel: repeat it, store nothing
        wk[kb] = p.weight + k * taps;
        bk[kb] = p.bias ? p.bias[k] : T(0);
      }
      for (int64_t j0 = 0; j0 < runs * RUN; j0 += RUN) {
        V acc[KB][NV];
        GG_CONV_UNROLL
        for (int kb = 0; kb < KB; ++kb)
          GG_CONV_UNROLL
          for (int v = 0; v < NV; ++v) acc[kb][v] = V{} + bk[kb];
        for (int64_t cr = 0; cr < rows; ++cr) {
          const T* src = p.scratch + cr * line + j0;
          for (int64_t s = 0; s < p.s; ++s) {
            V xv[NV];
            GG_CONV_UNROLL
            for (int v = 0; v < NV; ++v) std::memcpy(&xv[v], src + s * p.dw + v * L, sizeof(V));
            const int64_t tap = cr * p.s + s;
            GG_CONV_UNROLL
            for (int kb = 0; kb < KB; ++kb) {
              const T wv = wk[kb][tap];
              GG_CONV_UNROLL
              for (int v = 0; v < NV; ++v) acc[kb][v] += wv * xv[v];
            }
          }
        }
        // Whole vectors may run past the row end into row i + 1 of the same channel, which is
        // computed (and overwritten) later; the last row is stored lane by lane past Wo, from
        // a copy (the accumulators are read at constant indices only).
        const int64_t len = min64(RUN, p.wo - j0);
        const bool spill_ok = i + 1 < p.ho;
        GG_CONV_UNROLL
        for (int kb = 0; kb < KB; ++kb) {
          if (kb >= kn) break;
          T* out = p.y + (k0 + kb) * hwo + i * p.wo + j0;
          GG_CONV_UNROLL
          for (int v = 0; v < NV; ++v) {
            const int64_t base = v * L;
            if (base >= len) break;
            if (base + L <= len || (spill_ok && base + L <= len + p.wo)) {
              std::memcpy(out + base, &acc[kb][v], sizeof(V));
            } else {
              T lanes[L];
              std::memcpy(lanes, &acc[kb][v], sizeof(V));
              for (int64_t l = 0; base + l < len; ++l) out[base + l] = lanes[l];
            }
          }
        }
      }
    }
  }
}

const ConvDirectKernel<float> kF32 = {GG_CONV_NV_F32 * Vec<float>::lanes, &forward<float, GG_CONV_KB_F32, GG_CONV_NV_F32>};
const ConvDirectKernel<double> kF64 = {GG_CONV_NV_F64 * Vec<double>::lanes, &forward<double, GG_CONV_KB_F64, GG_CONV_NV_F64>};

}  // namespace

const ConvDirectKernel<float>& kernel_f32() { return kF32; }
const ConvDirectKernel<double>& kernel_f64() { return kF64; }

}  // namespace GG_CONV_NS
}  // namespace cpu
}  // namespace glassgrad
