// Geometry of one 2-D convolution (NCHW input, KCRS weight, dilation 1) and the im2col /
// col2im transforms that turn it into GEMMs. Shared by the conv kernels (conv.cpp,
// conv_direct*.cpp) and their tests.
//
//   y[n,k,i,j] = sum_{c,r,s} x[n, c, i*sh + r - pt, j*sw + s - pl] * w[k,c,r,s]
//   Ho = (H + pt + pb - R) / sh + 1,  Wo = (W + pl + pr - S) / sw + 1
//
// im2col of one image: col[(c, r, s), (i, j)] = x[c, i*sh + r - pt, j*sw + s - pl] (0 outside
// the image), a [C*R*S, Ho*Wo] row-major matrix, so that y[n] = w [K, C*R*S] x col.
// col2im is its transpose (adjoint): dx[c, h, v] = sum of col entries that im2col read from
// (c, h, v). Padding is handled by index ranges, never by a padded copy of the input.
//
// Stride 1 without padding has a cheaper form ("flat"): index output pixels on the input's row
// pitch, q = i*W + j with j < W (columns j >= Wo are surplus), and tap (c, r, s) reads
// x[c*H*W + r*W + s + q] = x[flat_offset(c, r, s) + q]: every im2col row is one contiguous run
// of the image, so the GEMMs take it as row (or column) pointers into the image and nothing is
// copied but the packing itself. flat_pixels = (Ho - 1)*W + Wo pixels cover every real one.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {
namespace cpu {

struct ConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input  [N, C, H, W]
  int64_t k = 0, r = 0, s = 0;         // weight [K, C, R, S]
  int64_t sh = 1, sw = 1;              // stride
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;  // padding top, bottom, left, right
  int64_t ho = 0, wo = 0;              // output [N, K, Ho, Wo]

  int64_t crs() const { return c * r * s; }
  int64_t hw() const { return h * w; }
  int64_t hwo() const { return ho * wo; }
  // A 1x1 kernel at stride 1 without padding: im2col is the identity (col = the image).
  bool pointwise() const { return r == 1 && s == 1 && sh == 1 && sw == 1 && pt == 0 && pb == 0 && pl == 0 && pr == 0; }

  // Output columns j whose input column j*sw + tap - pl lies inside [0, W): [lo, hi).
  void valid_cols(int64_t tap, int64_t& lo, int64_t& hi) const { valid_range(tap, pl, sw, w, wo, lo, hi); }
  void valid_rows(int64_t tap, int64_t& lo, int64_t& hi) const { valid_range(tap, pt, sh, h, ho, lo, hi); }

  static void valid_range(int64_t tap, int64_t pad, int64_t stride, int64_t in, int64_t out, int64_t& lo, int64_t& hi) {
    // i*stride + tap - pad >= 0  <=>  i >= ceil((pad - tap) / stride)
    lo = pad > tap ? (pad - tap + stride - 1) / stride : 0;
    // i*stride + tap - pad <= in - 1  <=>  i <= floor((in - 1 + pad - tap) / stride)
    const int64_t last = in - 1 + pad - tap;
    hi = last < 0 ? 0 : std::min(out, last / stride + 1);
    lo = std::min(lo, hi);
  }
};

// Geometry from the input and weight shapes and the op's stride/padding attributes (the shape
// rule has already validated them).
inline ConvGeometry conv_geometry(const Shape& x, const Shape& w, const Attrs& a) {
  ConvGeometry g;
  g.n = x[0], g.c = x[1], g.h = x[2], g.w = x[3];
  g.k = w[0], g.r = w[2], g.s = w[3];
  if (a.has("stride")) {
    const auto& st = a.ints("stride");
    g.sh = st[0], g.sw = st[1];
  }
  if (a.has("padding")) {
    const auto& p = a.ints("padding");
    g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
  }
  g.ho = (g.h + g.pt + g.pb - g.r) / g.sh + 1;
  g.wo = (g.w + g.pl + g.pr - g.s) / g.sw + 1;
  return g;
}

inline int64_t flat_offset(const ConvGeometry& g, int64_t crs) {
  const int64_t c = crs / (g.r * g.s), r = (crs / g.s) % g.r, s = crs % g.s;
  return c * g.hw() + r * g.w + s;
}
inline int64_t flat_pixels(const ConvGeometry& g) { return (g.ho - 1) * g.w + g.wo; }

// "Same" width at stride 1 (Wo == W, so pl + pr = S - 1; e.g. 3x3 with padding 1): col's rows
// and the image's rows have the same pitch, so a whole im2col row is the image shifted by
// off = (r - pt)*W + (s - pl) -- one long run -- except for the output columns whose tap falls
// left or right of the image (at most S - 1 per output row), which read the neighbouring row's
// pixels and must be 0. im2col copies the run and then zeroes those; col2im zeroes them in
// cols and adds the run back.
inline bool same_width_stride1(const ConvGeometry& g) { return g.sh == 1 && g.sw == 1 && g.wo == g.w; }

// For tap (r, s) in that layout: the run [qa, qb) of col positions q whose shifted index
// q + off lies in the image, within the output rows [i_lo, i_hi) that read inside the image.
struct ShiftRun {
  int64_t off, qa, qb, i_lo, i_hi, j_lo, j_hi;
  ShiftRun(const ConvGeometry& g, int64_t r, int64_t s) {
    off = (r - g.pt) * g.w + (s - g.pl);
    g.valid_rows(r, i_lo, i_hi);
    g.valid_cols(s, j_lo, j_hi);
    qa = std::min(std::max(i_lo * g.w, -off), i_hi * g.w);
    qb = std::max(qa, std::min(i_hi * g.w, g.hw() - off));
  }
  // Zeroes the columns of rows [i_lo, i_hi) of a col row whose tap is outside the image.
  template <typename T>
  void zero_edges(const ConvGeometry& g, T* row) const {
    for (int64_t i = i_lo; i < i_hi; ++i) {
      for (int64_t j = 0; j < j_lo; ++j) row[i * g.w + j] = T(0);
      for (int64_t j = j_hi; j < g.w; ++j) row[i * g.w + j] = T(0);
    }
  }
};

// col [C*R*S, Ho*Wo] <- im2col of one image x [C, H, W].
template <typename T>
void im2col(const ConvGeometry& g, const T* x, T* col) {
  const int64_t hwo = g.hwo();
  if (same_width_stride1(g)) {
    for (int64_t c = 0; c < g.c; ++c) {
      const T* xc = x + c * g.hw();
      for (int64_t r = 0; r < g.r; ++r) {
        for (int64_t s = 0; s < g.s; ++s) {
          T* row = col + ((c * g.r + r) * g.s + s) * hwo;
          const ShiftRun run(g, r, s);
          std::fill(row, row + run.qa, T(0));
          if (run.qb > run.qa) std::memcpy(row + run.qa, xc + run.qa + run.off, static_cast<size_t>(run.qb - run.qa) * sizeof(T));
          std::fill(row + run.qb, row + hwo, T(0));
          run.zero_edges(g, row);
        }
      }
    }
    return;
  }
  for (int64_t c = 0; c < g.c; ++c) {
    const T* xc = x + c * g.hw();
    for (int64_t r = 0; r < g.r; ++r) {
      int64_t i_lo, i_hi;
      g.valid_rows(r, i_lo, i_hi);
      for (int64_t s = 0; s < g.s; ++s) {
        T* row = col + ((c * g.r + r) * g.s + s) * hwo;
        int64_t j_lo, j_hi;
        g.valid_cols(s, j_lo, j_hi);
        std::fill(row, row + i_lo * g.wo, T(0));
        for (int64_t i = i_lo; i < i_hi; ++i) {
          T* dst = row + i * g.wo;
          const T* src = xc + (i * g.sh + r - g.pt) * g.w;  // input row; column j*sw + off
          const int64_t off = s - g.pl;
          std::fill(dst, dst + j_lo, T(0));
          if (g.sw == 1) {
            if (j_hi > j_lo) std::memcpy(dst + j_lo, src + j_lo + off, static_cast<size_t>(j_hi - j_lo) * sizeof(T));
          } else {
            for (int64_t j = j_lo; j < j_hi; ++j) dst[j] = src[j * g.sw + off];
          }
          std::fill(dst + j_hi, dst + g.wo, T(0));
        }
        std::fill(row + i_hi * g.wo, row + hwo, T(0));
      }
    }
  }
}

// dx [C, H, W] <- col2im of col [C*R*S, Ho*Wo]: every col entry is added back where im2col
// read it from; input pixels no window covers get 0.
// cols is scratch: the same-width path zeroes its out-of-image entries in place.
template <typename T>
void col2im(const ConvGeometry& g, T* col, T* dx) {
  std::fill(dx, dx + g.c * g.hw(), T(0));
  const int64_t hwo = g.hwo();
  if (same_width_stride1(g)) {
    for (int64_t c = 0; c < g.c; ++c) {
      T* dc = dx + c * g.hw();
      for (int64_t r = 0; r < g.r; ++r) {
        for (int64_t s = 0; s < g.s; ++s) {
          T* row = col + ((c * g.r + r) * g.s + s) * hwo;
          const ShiftRun run(g, r, s);
          run.zero_edges(g, row);
          for (int64_t q = run.qa; q < run.qb; ++q) dc[q + run.off] += row[q];  // inside the image
        }
      }
    }
    return;
  }
  for (int64_t c = 0; c < g.c; ++c) {
    T* dc = dx + c * g.hw();
    for (int64_t r = 0; r < g.r; ++r) {
      int64_t i_lo, i_hi;
      g.valid_rows(r, i_lo, i_hi);
      for (int64_t s = 0; s < g.s; ++s) {
        const T* row = col + ((c * g.r + r) * g.s + s) * hwo;
        int64_t j_lo, j_hi;
        g.valid_cols(s, j_lo, j_hi);
        for (int64_t i = i_lo; i < i_hi; ++i) {
          const T* src = row + i * g.wo;
          T* dst = dc + (i * g.sh + r - g.pt) * g.w;  // input row; column j*sw + off
          const int64_t off = s - g.pl;
          for (int64_t j = j_lo; j < j_hi; ++j) dst[j * g.sw + off] += src[j];
        }
      }
    }
  }
}

}  // namespace cpu
}  // namespace glassgrad
