// im2col fused into the GEMM's B packing (GemmPackB, gemm/gemm_kernel.h): the conv GEMMs read
// the image through the packing callback, so the [C*R*S, Ho*Wo] im2col matrix is never stored
// and the image is copied once (into the L1/L2-sized packed panel) instead of twice.
//
//   col[(c, r, s), (i, j)] = x[c, i*sh + r - pt, j*sw + s - pl]   (0 outside the image)
//
// pack_im2col: B = col [C*R*S, Ho*Wo] for the forward GEMM y[n] = w x col.
//
// Stride 1 without padding has a cheaper form ("flat"): index output pixels on the input's row
// pitch, q = i*W + j with j < W (columns j >= Wo are surplus), and tap (c, r, s) reads
// x[c*H*W + r*W + s + q]: every im2col row is one contiguous run of the image, so packing
// is long copies instead of one short segment per output row. Nq = (Ho - 1)*W + Wo pixels.
// pack_flat: B[p, q] = x[off(p) + q] with off(c, r, s) = c*H*W + r*W + s.
// (The weight gradient needs col^T, whose columns are these same runs: it hands them to the
// GEMM as column pointers, gemm_cols, and needs no packer here.)
// Panel layout: sliver t, row p, lane q at dst[t*kc*nr + p*nr + q] holds
// B[pc + p, jc + t*nr + q]; lanes past the panel's last column are zero.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/conv_geometry.h"

namespace glassgrad {
namespace cpu {

template <typename T>
struct Im2colSource {
  const ConvGeometry* g;
  const T* x;  // one image [C, H, W]
};

namespace conv_pack_detail {

// One im2col row: the kernel tap (c, r, s) and which output pixels read inside the image.
template <typename T>
struct Tap {
  const T* x;              // channel c of the image
  int64_t r, off;          // input column of output column j is j*sw + off
  int64_t i_lo, i_hi;      // output rows reading an input row inside [0, H)
  int64_t j_lo, j_hi;      // output columns reading an input column inside [0, W)

  Tap(const ConvGeometry& g, const T* image, int64_t crs) {
    const int64_t c = crs / (g.r * g.s), s = crs % g.s;
    r = (crs / g.s) % g.r;
    x = image + c * g.hw();
    off = s - g.pl;
    g.valid_rows(r, i_lo, i_hi);
    g.valid_cols(s, j_lo, j_hi);
  }

  // d[t * step] = col[(c, r, s), (i, j)] for j in [j0, j1), t = j - j0.
  void put(const ConvGeometry& g, int64_t i, int64_t j0, int64_t j1, T* d, int64_t step) const {
    int64_t lo = j1, hi = j1;  // the in-image part [lo, hi) of [j0, j1)
    if (i >= i_lo && i < i_hi) {
      lo = std::min(std::max(j_lo, j0), j1);
      hi = std::max(std::min(j_hi, j1), lo);
    }
    for (int64_t j = j0; j < lo; ++j) d[(j - j0) * step] = T(0);
    if (lo < hi) {
      const T* row = x + (i * g.sh + r - g.pt) * g.w;
      if (step == 1 && g.sw == 1) {  // libc's memcpy is tuned for this CPU; a loop here is compiled for baseline x86-64
        std::memcpy(d + (lo - j0), row + lo + off, static_cast<size_t>(hi - lo) * sizeof(T));
      } else {
        for (int64_t j = lo; j < hi; ++j) d[(j - j0) * step] = row[j * g.sw + off];
      }
    }
    for (int64_t j = hi; j < j1; ++j) d[(j - j0) * step] = T(0);
  }
};

}  // namespace conv_pack_detail

// B = col: panel rows are (c, r, s) in [pc, pc + kc), columns output pixels in [jc, jc + nc).
// Each row is written in runs that end where an output row or a sliver ends.
template <typename T>
void pack_im2col(const void* ctx, int64_t pc, int64_t kc, int64_t jc, int64_t nc, int64_t nr, T* dst) {
  const Im2colSource<T>& src = *static_cast<const Im2colSource<T>*>(ctx);
  const ConvGeometry& g = *src.g;
  const int64_t i_first = jc / g.wo, j_first = jc - i_first * g.wo;
  for (int64_t p = 0; p < kc; ++p) {
    const conv_pack_detail::Tap<T> tap(g, src.x, pc + p);
    int64_t i = i_first, j = j_first, lane = 0, left = nc;
    T* d = dst + p * nr;  // sliver 0, row p
    while (left > 0) {
      const int64_t len = std::min(left, std::min(g.wo - j, nr - lane));
      tap.put(g, i, j, j + len, d + lane, 1);
      left -= len;
      j += len;
      lane += len;
      if (j == g.wo) j = 0, ++i;
      if (lane == nr) lane = 0, d += kc * nr;
    }
    if (lane > 0) std::fill(d + lane, d + nr, T(0));  // lanes past the last column
  }
}

inline int64_t flat_offset(const ConvGeometry& g, int64_t crs) {
  const int64_t c = crs / (g.r * g.s), r = (crs / g.s) % g.r, s = crs % g.s;
  return c * g.hw() + r * g.w + s;
}
inline int64_t flat_pixels(const ConvGeometry& g) { return (g.ho - 1) * g.w + g.wo; }

// B = flat col: rows (c, r, s) in [pc, pc + kc), columns flat pixels in [jc, jc + nc).
template <typename T>
void pack_flat(const void* ctx, int64_t pc, int64_t kc, int64_t jc, int64_t nc, int64_t nr, T* dst) {
  const Im2colSource<T>& src = *static_cast<const Im2colSource<T>*>(ctx);
  const ConvGeometry& g = *src.g;
  for (int64_t p = 0; p < kc; ++p) {
    const T* row = src.x + flat_offset(g, pc + p) + jc;
    T* d = dst + p * nr;
    for (int64_t q = 0; q < nc; q += nr, d += kc * nr) {
      const int64_t len = std::min(nr, nc - q);
      std::memcpy(d, row + q, static_cast<size_t>(len) * sizeof(T));
      if (len < nr) std::fill(d + len, d + nr, T(0));
    }
  }
}

}  // namespace cpu
}  // namespace glassgrad
