// im2col fused into the GEMM's B packing (GemmPackB, gemm/gemm_kernel.h): the conv GEMMs read
// the image through the packing callback, so the [C*R*S, Ho*Wo] im2col matrix is never stored
// and the image is copied once (into the L1/L2-sized packed panel) instead of twice.
//
//   col[(c, r, s), (i, j)] = x[c, i*sh + r - pt, j*sw + s - pl]   (0 outside the image)
//
// pack_im2col:   B = col     [C*R*S, Ho*Wo]  (forward:          y[n] = w x col)
// pack_im2col_t: B = col^T   [Ho*Wo, C*R*S]  (backward weight: dw += gy[n] x col^T)
// Panel layout (both): sliver t, row p, lane q at dst[t*kc*nr + p*nr + q] holds
// B[pc + p, jc + t*nr + q]; lanes past the panel's last column are zero.
#pragma once
#include <algorithm>
#include <cstdint>

#include "cpu/conv_geometry.h"

namespace glassgrad {
namespace cpu {

template <typename T>
struct Im2colSource {
  const ConvGeometry* g;
  const T* x;  // one image [C, H, W]
};

namespace conv_pack_detail {

// Calls run(j_begin, j_end, i, q_begin) for the pieces of output pixels [q0, q1) (q = i*Wo + j)
// that lie in one output row each.
template <typename F>
inline void for_each_row_piece(const ConvGeometry& g, int64_t q0, int64_t q1, F&& run) {
  for (int64_t q = q0; q < q1;) {
    const int64_t i = q / g.wo, j = q - i * g.wo;
    const int64_t len = std::min(q1 - q, g.wo - j);
    run(j, j + len, i, q);
    q += len;
  }
}

// d[t * step] = col[(c, r, s), (i, j)] for j in [j0, j1), t = j - j0.
template <typename T>
inline void put_segment(const ConvGeometry& g, const T* x, int64_t c, int64_t r, int64_t s, int64_t i, int64_t j0,
                        int64_t j1, T* d, int64_t step) {
  const int64_t hi = i * g.sh + r - g.pt;
  int64_t lo = j1, hi_j = j1;  // valid columns [lo, hi_j) within [j0, j1)
  if (hi >= 0 && hi < g.h) {
    int64_t vlo, vhi;
    g.valid_cols(s, vlo, vhi);
    lo = std::min(std::max(vlo, j0), j1);
    hi_j = std::max(std::min(vhi, j1), lo);
  }
  int64_t j = j0;
  for (; j < lo; ++j) d[(j - j0) * step] = T(0);
  if (lo < hi_j) {
    const T* row = x + (c * g.h + hi) * g.w;  // column j*sw + (s - pl)
    const int64_t off = s - g.pl;
    if (step == 1 && g.sw == 1) {
      T* dd = d + (lo - j0);
      const T* src = row + lo + off;
      for (int64_t t = 0; t < hi_j - lo; ++t) dd[t] = src[t];
      j = hi_j;
    } else {
      for (; j < hi_j; ++j) d[(j - j0) * step] = row[j * g.sw + off];
    }
  }
  for (; j < j1; ++j) d[(j - j0) * step] = T(0);
}

}  // namespace conv_pack_detail

// B = col: panel rows are (c, r, s) in [pc, pc + kc), columns output pixels in [jc, jc + nc).
template <typename T>
void pack_im2col(const void* ctx, int64_t pc, int64_t kc, int64_t jc, int64_t nc, int64_t nr, T* dst) {
  const Im2colSource<T>& src = *static_cast<const Im2colSource<T>*>(ctx);
  const ConvGeometry& g = *src.g;
  const int64_t tail = nc % nr;
  for (int64_t p = 0; p < kc; ++p) {
    const int64_t crs = pc + p;
    const int64_t c = crs / (g.r * g.s), r = (crs / g.s) % g.r, s = crs % g.s;
    conv_pack_detail::for_each_row_piece(g, jc, jc + nc, [&](int64_t j0, int64_t j1, int64_t i, int64_t q) {
      // Columns [q, q + j1 - j0) of B, split where a sliver ends.
      while (j0 < j1) {
        const int64_t col = q - jc, t = col / nr, lane = col % nr;
        const int64_t len = std::min(j1 - j0, nr - lane);
        conv_pack_detail::put_segment(g, src.x, c, r, s, i, j0, j0 + len, dst + t * kc * nr + p * nr + lane, 1);
        j0 += len;
        q += len;
      }
    });
    if (tail) std::fill(dst + (nc / nr) * kc * nr + p * nr + tail, dst + (nc / nr) * kc * nr + (p + 1) * nr, T(0));
  }
}

// B = col^T: panel rows are output pixels in [pc, pc + kc), columns (c, r, s) in [jc, jc + nc).
template <typename T>
void pack_im2col_t(const void* ctx, int64_t pc, int64_t kc, int64_t jc, int64_t nc, int64_t nr, T* dst) {
  const Im2colSource<T>& src = *static_cast<const Im2colSource<T>*>(ctx);
  const ConvGeometry& g = *src.g;
  for (int64_t col = 0; col < nc; ++col) {
    const int64_t crs = jc + col;
    const int64_t c = crs / (g.r * g.s), r = (crs / g.s) % g.r, s = crs % g.s;
    T* base = dst + (col / nr) * kc * nr + col % nr;
    conv_pack_detail::for_each_row_piece(g, pc, pc + kc, [&](int64_t j0, int64_t j1, int64_t i, int64_t q) {
      conv_pack_detail::put_segment(g, src.x, c, r, s, i, j0, j1, base + (q - pc) * nr, nr);
    });
  }
  if (const int64_t tail = nc % nr) {
    T* last = dst + (nc / nr) * kc * nr;
    for (int64_t p = 0; p < kc; ++p) std::fill(last + p * nr + tail, last + (p + 1) * nr, T(0));
  }
}

}  // namespace cpu
}  // namespace glassgrad
