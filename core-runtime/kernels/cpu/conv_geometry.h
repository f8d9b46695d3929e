// The im2col / col2im transforms that turn one 2-D convolution (NCHW input, KCRS weight) into
// GEMMs, on the engine's Conv2DGeometry (glassgrad/autodiff/conv_geometry.h). Shared by the conv
// kernels (conv.cpp, conv_direct*.cpp) and their tests. A grouped conv runs these per group on
// group_slice(g): the dense conv of one group's channel slices.
//
//   y[n,k,i,j] = sum_{c,r,s} x[n, c, i*sh + r*dh - pt, j*sw + s*dw - pl] * w[k,c,r,s]
//
// im2col of one image: col[(c, r, s), (i, j)] = x[c, i*sh + r*dh - pt, j*sw + s*dw - pl] (0
// outside the image), a [C*R*S, Ho*Wo] row-major matrix, so that y[n] = w [K, C*R*S] x col.
// col2im is its transpose (adjoint): dx[c, h, v] = sum of col entries that im2col read from
// (c, h, v). Padding is handled by index ranges, never by a padded copy of the input.
//
// Stride 1 without padding has a cheaper form ("flat"): index output pixels on the input's row
// pitch, q = i*W + j with j < W (columns j >= Wo are surplus), and tap (c, r, s) reads
// x[c*H*W + r*dh*W + s*dw + q] = x[flat_offset(c, r, s) + q]: every im2col row is one contiguous
// run of the image, so the GEMMs take it as row (or column) pointers into the image and nothing
// is copied but the packing itself. flat_pixels = (Ho - 1)*W + Wo pixels cover every real one.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/conv_geometry.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {
namespace cpu {

using ConvGeometry = Conv2DGeometry;

inline ConvGeometry conv_geometry(const Shape& x, const Shape& w, const Attrs& a) { return Conv2DGeometry::from(x, w, a); }

// The dense conv of one group: C/G input and K/G output channels, groups 1.
inline ConvGeometry group_slice(const ConvGeometry& g) {
  ConvGeometry q = g;
  q.c = g.cg();
  q.k = g.kg();
  q.groups = 1;
  return q;
}

// A 1x1 kernel at stride 1 without padding: im2col is the identity (col = the image).
inline bool pointwise(const ConvGeometry& g) { return g.r == 1 && g.s == 1 && g.sh == 1 && g.sw == 1 && g.unpadded(); }

// Output indices i whose input index i*stride + off - pad lies inside [0, in): [lo, hi), where
// off = tap * dilation is the tap's offset in the window.
inline void valid_range(int64_t off, int64_t pad, int64_t stride, int64_t in, int64_t out, int64_t& lo, int64_t& hi) {
  // i*stride + off - pad >= 0  <=>  i >= ceil((pad - off) / stride)
  lo = pad > off ? (pad - off + stride - 1) / stride : 0;
  // i*stride + off - pad <= in - 1  <=>  i <= floor((in - 1 + pad - off) / stride)
  const int64_t last = in - 1 + pad - off;
  hi = last < 0 ? 0 : std::min(out, last / stride + 1);
  lo = std::min(lo, hi);
}
// For kernel row r / column s.
inline void valid_rows(const ConvGeometry& g, int64_t r, int64_t& lo, int64_t& hi) {
  valid_range(r * g.dh, g.pt, g.sh, g.h, g.ho, lo, hi);
}
inline void valid_cols(const ConvGeometry& g, int64_t s, int64_t& lo, int64_t& hi) {
  valid_range(s * g.dw, g.pl, g.sw, g.w, g.wo, lo, hi);
}

inline int64_t flat_offset(const ConvGeometry& g, int64_t crs) {
  const int64_t c = crs / (g.r * g.s), r = (crs / g.s) % g.r, s = crs % g.s;
  return c * g.hw() + r * g.dh * g.w + s * g.dw;
}
inline int64_t flat_pixels(const ConvGeometry& g) { return (g.ho - 1) * g.w + g.wo; }

// "Same" width at stride 1 (Wo == W, so pl + pr = dw*(S - 1); e.g. 3x3 with padding 1): col's
// rows and the image's rows have the same pitch, so a whole im2col row is the image shifted by
// off = (r*dh - pt)*W + (s*dw - pl) -- one long run -- except for the output columns whose tap
// falls left or right of the image (at most dw*(S - 1) per output row), which read the
// neighbouring row's pixels and must be 0. im2col copies the run and then zeroes those; col2im zeroes them in
// cols and adds the run back.
inline bool same_width_stride1(const ConvGeometry& g) { return g.sh == 1 && g.sw == 1 && g.wo == g.w; }

// For tap (r, s) in that layout: the run [qa, qb) of col positions q whose shifted index
// q + off lies in the image, within the output rows [i_lo, i_hi) that read inside the image.
struct ShiftRun {
  int64_t off, qa, qb, i_lo, i_hi, j_lo, j_hi;
  ShiftRun(const ConvGeometry& g, int64_t r, int64_t s) {
    off = (r * g.dh - g.pt) * g.w + (s * g.dw - g.pl);
    valid_rows(g, r, i_lo, i_hi);
    valid_cols(g, s, j_lo, j_hi);
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

// dst[j] = src[j * stride] for j < n. Stride 2 (ResNet's downsampling convs) moves four values
// per step: two 4-wide loads and one shuffle of their even lanes (GCC/Clang vector extensions,
// so the baseline build gets SSE2 shuffles and no instruction is named). `readable`: how many
// values from src on may be read (the rest of the image row; at least the (n - 1) * stride + 1
// the gather copies from, which is also the default). A step reads src[2j .. 2j + 7], one past
// its last even lane: with only the values it needs readable, a row's last four outputs went
// one at a time, every output of ResNet-18's 4-wide rows and half of its 8-wide ones.
template <typename T>
inline void gather_strided(T* dst, const T* src, int64_t n, int64_t stride, int64_t readable = 0) {
  int64_t j = 0;
#if defined(__GNUC__)
  if (stride == 2 && sizeof(T) == 4) {
    typedef T V4 __attribute__((vector_size(4 * sizeof(T))));
    const int64_t avail = std::max(readable, 2 * n - 1);
    for (; j + 4 <= n && 2 * j + 8 <= avail; j += 4) {  // reads src[2j .. 2j + 7]
      V4 a, b;
      std::memcpy(&a, src + 2 * j, sizeof(V4));
      std::memcpy(&b, src + 2 * j + 4, sizeof(V4));
      const V4 even = __builtin_shufflevector(a, b, 0, 2, 4, 6);
      std::memcpy(dst + j, &even, sizeof(V4));
    }
  }
#endif
  for (; j < n; ++j) dst[j] = src[j * stride];
}

// Strided im2col through phase planes (the stride-2 and stride-3 3x3 convs). With the padded
// image xpad[u][v] = x[u - pt][v - pl] (0 outside), plane (ph, pw) of a channel holds the pixels
// whose row is ph modulo sh and whose column is pw modulo sw:
//   P[ph][pw][a][b] = xpad[a*sh + ph][b*sw + pw]        a < hq, b < wq
// Tap (r, s) of output pixel (i, j) reads xpad[i*sh + r*dh][j*sw + s*dw]
//   = P[(r*dh) % sh][(s*dw) % sw][i + (r*dh) / sh][j + (s*dw) / sw],
// so each output row of an im2col row is one contiguous run of Wo values of one plane: im2col is
// one strided pass over the channel (building its planes, padding included) and then plain copies,
// with no per-tap bounds or zero fills (im2col_panels.h; docs/cpu-threads.md, "im2col straight
// into the GEMM's panels").
struct PhasePlanes {
  int64_t hq = 0, wq = 0;  // rows and columns of one plane
  explicit PhasePlanes(const ConvGeometry& g)
      : hq(g.ho + (g.r - 1) * g.dh / g.sh), wq(g.wo + (g.s - 1) * g.dw / g.sw) {}
  int64_t plane() const { return hq * wq; }
  // Elements of scratch one channel's planes take (all sh * sw of them).
  int64_t elems(const ConvGeometry& g) const { return g.sh * g.sw * plane(); }
  // Where tap (r, s) reads output pixel (0, 0) in one channel's planes; pixel (i, j) is i * wq + j
  // further on.
  int64_t tap(const ConvGeometry& g, int64_t r, int64_t s) const {
    const int64_t ph = r * g.dh % g.sh, pw = s * g.dw % g.sw;
    return (ph * g.sw + pw) * plane() + r * g.dh / g.sh * wq + s * g.dw / g.sw;
  }
};

// Where the planes pay: a stride above 1 and more than one tap (a 1x1 kernel's im2col is already
// one gather per output row, which the planes would only copy again).
inline bool im2col_by_planes(const ConvGeometry& g) { return (g.sh > 1 || g.sw > 1) && g.r * g.s > 1; }

// dst[j] = src[j] for j < n, in 4-value moves while they fit (runs of Wo values are short, and
// GCC would make a variable-length copy a library call).
template <typename T>
inline void copy_run(T* dst, const T* src, int64_t n) {
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    T v[4];
    std::memcpy(v, src + j, sizeof(v));
    std::memcpy(dst + j, v, sizeof(v));
  }
  for (; j < n; ++j) dst[j] = src[j];
}

// The planes of one channel xc [H, W] into planes (plane (ph, pw) at (ph * sw + pw) * plane()).
template <typename T>
void build_phase_planes(const ConvGeometry& g, const PhasePlanes& pp, const T* xc, T* planes) {
  for (int64_t ph = 0; ph < g.sh; ++ph) {
    int64_t a_lo, a_hi;  // plane rows a whose image row a*sh + ph - pt is inside
    valid_range(ph, g.pt, g.sh, g.h, pp.hq, a_lo, a_hi);
    for (int64_t pw = 0; pw < g.sw; ++pw) {
      int64_t b_lo, b_hi;
      valid_range(pw, g.pl, g.sw, g.w, pp.wq, b_lo, b_hi);
      T* plane = planes + (ph * g.sw + pw) * pp.plane();
      std::fill(plane, plane + a_lo * pp.wq, T(0));
      for (int64_t a = a_lo; a < a_hi; ++a) {
        T* dst = plane + a * pp.wq;
        const T* src = xc + (a * g.sh + ph - g.pt) * g.w + pw - g.pl;  // column b at src[b * sw]
        std::fill(dst, dst + b_lo, T(0));
        gather_strided(dst + b_lo, src + b_lo * g.sw, b_hi - b_lo, g.sw, g.w - (b_lo * g.sw + pw - g.pl));
        std::fill(dst + b_hi, dst + pp.wq, T(0));
      }
      std::fill(plane + a_hi * pp.wq, plane + pp.plane(), T(0));
    }
  }
}

// Calls fn(col_run, plane_run) for every run of Wo values of channel c's im2col rows, taps in
// im2col's order, then images, then output rows: col_run at col + (c*R*S + tap) * ld + n*Ho*Wo +
// i*Wo (rows ld apart, images side by side), plane_run where it lies in image n's planes
// (planes + n * elems). ColT and PlaneT are T or const T, whichever side fn writes.
template <typename ColT, typename PlaneT, typename F>
void for_each_plane_run(const ConvGeometry& g, const PhasePlanes& pp, int64_t c, int64_t images, ColT* col, int64_t ld,
                        PlaneT* planes, F&& fn) {
  const int64_t per_image = pp.elems(g), hwo = g.hwo();
  for (int64_t rs = 0; rs < g.r * g.s; ++rs) {
    PlaneT* plane = planes + pp.tap(g, rs / g.s, rs % g.s);
    ColT* row = col + (c * g.r * g.s + rs) * ld;
    for (int64_t n = 0; n < images; ++n, plane += per_image, row += hwo)
      for (int64_t i = 0; i < g.ho; ++i) fn(row + i * g.wo, plane + i * pp.wq);
  }
}

// col [C*R*S, images*Ho*Wo] <- im2col of `images` images side by side (image n at x + n * image_stride,
// its columns at n*Ho*Wo; rows ld apart), by phase planes: channel by channel, the planes of
// every image first (scratch: images * PhasePlanes::elems), then each col row written once from
// left to right in runs of Wo values. The same matrix as im2col of each image.
template <typename T>
void im2col_planes(const ConvGeometry& g, const T* x, int64_t image_stride, int64_t images, T* col, int64_t ld,
                   T* scratch) {
  const PhasePlanes pp(g);
  for (int64_t c = 0; c < g.c; ++c) {
    for (int64_t n = 0; n < images; ++n) build_phase_planes(g, pp, x + n * image_stride + c * g.hw(), scratch + n * pp.elems(g));
    for_each_plane_run(g, pp, c, images, col, ld, static_cast<const T*>(scratch),
                       [&](T* run, const T* plane) { copy_run(run, plane, g.wo); });
  }
}

// dst[j] += src[j] for j < n, in 4-value steps while they fit.
template <typename T>
inline void add_run(T* dst, const T* src, int64_t n) {
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    T a[4], b[4];
    std::memcpy(a, dst + j, sizeof(a));
    std::memcpy(b, src + j, sizeof(b));
    for (int l = 0; l < 4; ++l) a[l] += b[l];
    std::memcpy(dst + j, a, sizeof(a));
  }
  for (; j < n; ++j) dst[j] += src[j];
}

// col2im of `images` images side by side (the adjoint of im2col_planes): dx of image n at
// dx + n * image_stride, its col columns at n*Ho*Wo (rows ld apart). Channel by channel, every
// tap's runs are added into zeroed phase planes (scratch: images * PhasePlanes::elems), which are
// then written back to the image (pixels no window covers get 0). Each pixel sums its
// contributions in the same tap order as col2im, so the result is the same to the bit.
template <typename T>
void col2im_planes(const ConvGeometry& g, const T* col, int64_t ld, int64_t images, T* dx, int64_t image_stride,
                   T* scratch) {
  const PhasePlanes pp(g);
  const int64_t per_image = pp.elems(g);
  for (int64_t c = 0; c < g.c; ++c) {
    std::fill(scratch, scratch + images * per_image, T(0));
    for_each_plane_run(g, pp, c, images, col, ld, scratch, [&](const T* run, T* plane) { add_run(plane, run, g.wo); });
    for (int64_t n = 0; n < images; ++n) {
      T* dc = dx + n * image_stride + c * g.hw();
      std::fill(dc, dc + g.hw(), T(0));
      const T* planes = scratch + n * per_image;
      for (int64_t ph = 0; ph < g.sh; ++ph) {
        int64_t a_lo, a_hi;  // plane rows whose image row a*sh + ph - pt is inside
        valid_range(ph, g.pt, g.sh, g.h, pp.hq, a_lo, a_hi);
        for (int64_t pw = 0; pw < g.sw; ++pw) {
          int64_t b_lo, b_hi;
          valid_range(pw, g.pl, g.sw, g.w, pp.wq, b_lo, b_hi);
          const T* plane = planes + (ph * g.sw + pw) * pp.plane();
          for (int64_t a = a_lo; a < a_hi; ++a) {
            T* out = dc + (a * g.sh + ph - g.pt) * g.w + pw - g.pl;  // column b at out[b * sw]
            for (int64_t b = b_lo; b < b_hi; ++b) out[b * g.sw] = plane[a * pp.wq + b];
          }
        }
      }
    }
  }
}

// col [C*R*S, Ho*Wo] <- im2col of one image x [C, H, W]; col rows ld >= Ho*Wo apart (several
// images side by side in one matrix: image i at col + i*Ho*Wo, ld = images*Ho*Wo).
template <typename T>
void im2col(const ConvGeometry& g, const T* x, T* col, int64_t ld = 0) {
  const int64_t hwo = g.hwo();
  if (ld == 0) ld = hwo;
  if (same_width_stride1(g)) {
    for (int64_t c = 0; c < g.c; ++c) {
      const T* xc = x + c * g.hw();
      for (int64_t r = 0; r < g.r; ++r) {
        for (int64_t s = 0; s < g.s; ++s) {
          T* row = col + ((c * g.r + r) * g.s + s) * ld;
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
      valid_rows(g, r, i_lo, i_hi);
      for (int64_t s = 0; s < g.s; ++s) {
        T* row = col + ((c * g.r + r) * g.s + s) * ld;
        int64_t j_lo, j_hi;
        valid_cols(g, s, j_lo, j_hi);
        std::fill(row, row + i_lo * g.wo, T(0));
        for (int64_t i = i_lo; i < i_hi; ++i) {
          T* dst = row + i * g.wo;
          const T* src = xc + (i * g.sh + r * g.dh - g.pt) * g.w;  // input row; column j*sw + off
          const int64_t off = s * g.dw - g.pl;
          std::fill(dst, dst + j_lo, T(0));
          if (g.sw == 1) {
            if (j_hi > j_lo) std::memcpy(dst + j_lo, src + j_lo + off, static_cast<size_t>(j_hi - j_lo) * sizeof(T));
          } else {
            gather_strided(dst + j_lo, src + j_lo * g.sw + off, j_hi - j_lo, g.sw, g.w - (j_lo * g.sw + off));
          }
          std::fill(dst + j_hi, dst + g.wo, T(0));
        }
        std::fill(row + i_hi * g.wo, row + hwo, T(0));
      }
    }
  }
}

// dx [C, H, W] <- col2im of col [C*R*S, Ho*Wo] (rows ld apart, as im2col's): every col entry is
// added back where im2col read it from; input pixels no window covers get 0.
// cols is scratch: the same-width path zeroes its out-of-image entries in place.
template <typename T>
void col2im(const ConvGeometry& g, T* col, T* dx, int64_t ld = 0) {
  std::fill(dx, dx + g.c * g.hw(), T(0));
  if (ld == 0) ld = g.hwo();
  if (same_width_stride1(g)) {
    for (int64_t c = 0; c < g.c; ++c) {
      T* dc = dx + c * g.hw();
      for (int64_t r = 0; r < g.r; ++r) {
        for (int64_t s = 0; s < g.s; ++s) {
          T* row = col + ((c * g.r + r) * g.s + s) * ld;
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
      valid_rows(g, r, i_lo, i_hi);
      for (int64_t s = 0; s < g.s; ++s) {
        const T* row = col + ((c * g.r + r) * g.s + s) * ld;
        int64_t j_lo, j_hi;
        valid_cols(g, s, j_lo, j_hi);
        for (int64_t i = i_lo; i < i_hi; ++i) {
          const T* src = row + i * g.wo;
          T* dst = dc + (i * g.sh + r * g.dh - g.pt) * g.w;  // input row; column j*sw + off
          const int64_t off = s * g.dw - g.pl;
          for (int64_t j = j_lo; j < j_hi; ++j) dst[j * g.sw + off] += src[j];
        }
      }
    }
  }
}

}  // namespace cpu
}  // namespace glassgrad
