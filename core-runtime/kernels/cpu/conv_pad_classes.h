// The 3x3 stride-2 convs with padding 1 whose windows leave the image only at the top and the
// left (ResNet's downsampling convs: even H and W, so the last window ends on the last row):
// im2col holds a zero wherever a tap falls in the padding -- 16% of the taps of 4x4 outputs, 8%
// of 8x8, 4% of 16x16 -- and a GEMM over it multiplies them all. The output pixels fall in four
// classes by the taps (r, s) they read inside the image:
//   corner    i = 0,  j = 0    r >= 1, s >= 1   (4 taps)
//   left      i >= 1, j = 0    s >= 1           (6)
//   interior  i >= 1, j >= 1   all              (9)
//   top       i = 0,  j >= 1   r >= 1           (6)
// With the taps in the order of four tap groups
//   G0 = (0,0) | G1 = (0,1) (0,2) | G2 = (1,1) (1,2) (2,1) (2,2) | G3 = (1,0) (2,0)
// and the pixels of a batch of images in the class order corner | left | interior | top, the
// pixels that read a tap group inside the image are one contiguous range:
//   G0: interior    G1: left, interior    G2: all    G3: interior, top
// So the conv is four GEMMs, one per tap group, each over only the pixels that group reaches
// (docs/performance.md, "Padding taps of the stride-2 convs"; NumPy twin
// docs/snippets/pad_classes.py):
//   forward          y' [K, pixels of G]  += w'_G [K, |G|*C] x col [rows of G, pixels of G]
//   weight gradient  dw'_G [K, |G|*C]     += gy' [K, pixels of G] x col [rows of G, pixels of G]^T
// with col's rows in the group order (tap t of the order above and channel c at row
// PadClasses::row: tap-major or, in the forward, channel-major within each group), w' the
// weights in that order, and y', gy' in the class order. The multiply-adds are exactly the taps
// inside the image. Every other geometry keeps the plain im2col GEMM (conv.cpp).
#pragma once
#include <cstdint>
#include <cstring>

#include "conv_geometry.h"

namespace glassgrad {
namespace cpu {

inline bool pad_classes_suit(const ConvGeometry& g) {
  return g.groups == 1 && g.r == 3 && g.s == 3 && g.sh == 2 && g.sw == 2 && g.pt == 1 && g.pl == 1 &&
         g.dh == 1 && g.dw == 1 && g.ho >= 2 && g.wo >= 2 && 2 * g.ho <= g.h && 2 * g.wo <= g.w;
}

struct PadClasses {
  static constexpr int kGroups = 4;
  // rs = r * 3 + s of the tap at position t of the group order.
  static constexpr int kTapRs[9] = {0, 1, 2, 4, 5, 7, 8, 3, 6};
  // Tap group G holds the taps [kGroupTap[G], kGroupTap[G + 1]).
  static constexpr int kGroupTap[kGroups + 1] = {0, 1, 3, 7, 9};

  int64_t nb = 1, ho = 0, wo = 0;
  PadClasses(const ConvGeometry& g, int64_t images) : nb(images), ho(g.ho), wo(g.wo) {}

  // Where each class starts on the batch's pixel axis (corner at 0).
  int64_t left() const { return nb; }
  int64_t interior() const { return nb * ho; }
  int64_t top() const { return nb * (ho + (ho - 1) * (wo - 1)); }
  int64_t end() const { return nb * ho * wo; }
  // The pixels [lo, hi) whose windows read tap group grp inside the image.
  void group_pixels(int grp, int64_t& lo, int64_t& hi) const {
    lo = grp == 2 ? 0 : grp == 1 ? left() : interior();
    hi = grp == 0 || grp == 1 ? top() : end();
  }
  static int64_t group_taps(int grp) { return kGroupTap[grp + 1] - kGroupTap[grp]; }
  // The row of col (column of w') of tap t of the group order and channel c of C, the groups one
  // after another: tap-major within a group (t*C + c), or channel-major (the forward's order:
  // kGroupTap[G]*C + c*|G| + t - kGroupTap[G]), where the rows a panel of B gathers one after
  // another are one channel's taps and read the same lines of the image; tap-major, they read
  // each line once per tap, channels a plane apart (layer3.0.conv1's forward 12.3-12.7 ->
  // 12.0-12.2 ms, layer4.0's level, 1 thread). The weight gradient, whose panels gather these
  // rows across for each pixel, measured slower channel-major (layer4.0.conv1 14.6-15.4 ->
  // 15.9-17.0 ms) and stays tap-major.
  static int64_t row(int t, int64_t c, int64_t channels, bool channel_major) {
    const int grp = t == 0 ? 0 : t < 3 ? 1 : t < 7 ? 2 : 3;
    if (!channel_major) return t * channels + c;
    return kGroupTap[grp] * channels + c * group_taps(grp) + t - kGroupTap[grp];
  }

  // Calls fn(class_pos, i, j, run) for every run of output pixels of image b that lie next to
  // each other in both orders: class_pos on the batch's class axis, (i, j) the run's first
  // pixel, `run` pixels along the output row (the left column's pixels one at a time).
  template <typename F>
  void for_each_run(int64_t b, F&& fn) const {
    fn(b, 0, 0, 1);
    for (int64_t i = 1; i < ho; ++i) fn(left() + b * (ho - 1) + i - 1, i, 0, 1);
    for (int64_t i = 1; i < ho; ++i) fn(interior() + (b * (ho - 1) + i - 1) * (wo - 1), i, 1, wo - 1);
    fn(top() + b * (wo - 1), 0, 1, wo - 1);
  }
};

// col's entries are never stored: the GEMMs gather them straight into their packed B panels
// (GemmProblem::b_fill) from the image, as x[row_offset + pixel_offset], where
//   row_offset (row(t, c, ...), tap t = (r, s))   = c*H*W + (r - 1)*W + (s - 1)
//   pixel_offset (pixel (i, j) of image b)        = b*image_stride + 2i*W + 2j
// Each tap group's GEMM reads only the pixels whose windows hold its taps inside the image, so
// no bounds are checked and the padding is never read. rows: 9C entries; pixels: nb*Ho*Wo, in
// the class order.
// split_columns: the offsets into the images with their columns split (split_columns below:
// each row's even columns, then its odd ones), where tap (r, s) of pixel (i, j) reads column
//   s = 0: W/2 + j - 1      s = 1: j      s = 2: W/2 + j
// so row_offset's last term is W/2 - 1, 0, W/2 and pixel_offset's 2j is j: the pixels of one
// output row, next to each other in the class order, read next to each other in the image.
inline void pad_classes_offsets(const ConvGeometry& g, int64_t nb, int64_t image_stride, bool channel_major,
                                bool split_columns, int64_t* rows, int64_t* pixels) {
  const int64_t half = g.w / 2;
  for (int t = 0; t < 9; ++t) {
    const int r = PadClasses::kTapRs[t] / 3, s = PadClasses::kTapRs[t] % 3;
    const int64_t col = split_columns ? (s == 0 ? half - 1 : s == 1 ? 0 : half) : s - 1;
    for (int64_t c = 0; c < g.c; ++c) rows[PadClasses::row(t, c, g.c, channel_major)] = c * g.hw() + (r - 1) * g.w + col;
  }
  const int64_t step = split_columns ? 1 : 2;
  const PadClasses pc(g, nb);
  for (int64_t b = 0; b < nb; ++b)
    pc.for_each_run(b, [&](int64_t at, int64_t i, int64_t j, int64_t n) {
      for (int64_t l = 0; l < n; ++l) pixels[at + l] = b * image_stride + 2 * i * g.w + step * (j + l);
    });
}

// Whether the forward gathers from split columns: where an output row's interior run (Wo - 1
// pixels) fills at least one 4-value move. layer3.0.conv1's 8x8 outputs measured slightly faster
// (1 thread); layer4.0.conv1's 4x4 (runs of 3, which GatherPanels copies one value at a time
// like the unsplit image's) only paid for the split.
inline bool pad_classes_split_columns(const ConvGeometry& g) { return g.wo - 1 >= 4; }

// Values GatherPanels::fill moves as one block for a run of at most that many (copy_run_block).
constexpr int64_t kRunBlock = 8;

// Elements split_columns' output takes for `rows` rows of W, with the kRunBlock - 1 values past
// the end that a panel's block copies may read (GatherPanels::fill).
inline int64_t split_columns_elems(int64_t rows, int64_t w) { return rows * w + kRunBlock - 1; }

// xs <- x with each row's columns split, the even ones first: xs[.., h, w/2] = x[.., h, w] for
// even w, xs[.., h, W/2 + w/2] = x[.., h, w] for odd w (W even: pad_classes_suit). `rows` rows of W.
template <typename T>
void split_columns(const T* x, int64_t rows, int64_t w, T* xs) {
  const int64_t half = w / 2;
  for (int64_t h = 0; h < rows; ++h, x += w, xs += w)
    for (int64_t j = 0; j < half; ++j) {
      xs[j] = x[2 * j];
      xs[half + j] = x[2 * j + 1];
    }
}

// dst[0, n) <- src[0, n) for the short runs of a panel row: 4-value moves, the last one
// overlapping the one before it where n is not a multiple of 4 (n >= 4), single values below.
template <typename T>
inline void copy_short_run(T* dst, const T* src, int64_t n) {
  if (n < 4) {
    for (int64_t j = 0; j < n; ++j) dst[j] = src[j];
    return;
  }
  T v[4];
  int64_t j = 0;
  for (; j + 4 < n; j += 4) {
    std::memcpy(v, src + j, sizeof(v));
    std::memcpy(dst + j, v, sizeof(v));
  }
  std::memcpy(v, src + n - 4, sizeof(v));
  std::memcpy(dst + n - 4, v, sizeof(v));
}

// dst[0, kRunBlock) <- src[0, kRunBlock): one fixed-size move for a run of at most kRunBlock
// values, whose surplus lands where the next run (or the row's zero tail, or the next row) is
// written afterwards.
template <typename T>
inline void copy_run_block(T* dst, const T* src) {
  T v[kRunBlock];
  std::memcpy(v, src, sizeof(v));
  std::memcpy(dst, v, sizeof(v));
}

// GemmProblem::b_fill for B[p, j] = x[row_offset[p] + col_offset[j]] (p counted from the
// GEMM's first row, j from its b_col0): the forward's B (col, rows of one tap group by its
// pixels) and the weight gradient's (col^T, the same entries transposed). No scratch: any
// thread may fill any panel.
// runs: col_offset comes in runs of consecutive offsets (the forward's on split columns, an
// output row's pixels), and x may be read kRunBlock - 1 values past every run
// (split_columns_elems); the slivers whose runs average 4 or more columns are copied run by
// run, in blocks, instead of one offset read, one load and one store an element.
template <typename T>
struct GatherPanels {
  const T* x = nullptr;
  const int64_t* row_offset = nullptr;
  const int64_t* col_offset = nullptr;
  bool runs = false;

  static void fill(const void* ctx, int64_t pc, int64_t kc, int64_t j0, int64_t nc, int64_t nr, T* dst) {
    const GatherPanels& f = *static_cast<const GatherPanels*>(ctx);
    for (int64_t s0 = 0; s0 < nc; s0 += nr, dst += nr * kc) {  // one NR-wide sliver
      const int64_t width = nc - s0 < nr ? nc - s0 : nr;
      const int64_t* cols = f.col_offset + j0 + s0;
      int64_t run_at[kMaxRuns + 1];  // where each run of the sliver's columns starts
      int runs = f.runs ? 0 : kMaxRuns + 1;
      for (int64_t l = 0; l < width && runs <= kMaxRuns; ++l)
        if (l == 0 || cols[l] != cols[l - 1] + 1) run_at[runs++] = l;
      if (runs <= kMaxRuns && 4 * runs <= width) {
        run_at[runs] = width;
        bool short_runs = true;
        for (int r = 0; r < runs; ++r) short_runs = short_runs && run_at[r + 1] - run_at[r] <= kRunBlock;
        // Runs of at most kRunBlock values move as one block each, in column order, rows in
        // order, so every surplus is overwritten by what follows; the sliver's last row, whose
        // surplus would pass the panel's end when it is the call's last sliver, copies exactly.
        // The source may be read up to kRunBlock - 1 values past a run (split_columns_elems).
        const int64_t blocked = short_runs ? (s0 + nr < nc ? kc : kc - 1) : 0;
        for (int64_t p = 0; p < kc; ++p) {
          const T* src = f.x + f.row_offset[pc + p];
          T* d = dst + p * nr;
          if (p < blocked) {
            for (int r = 0; r < runs; ++r) copy_run_block(d + run_at[r], src + cols[run_at[r]]);
          } else {
            for (int r = 0; r < runs; ++r) copy_short_run(d + run_at[r], src + cols[run_at[r]], run_at[r + 1] - run_at[r]);
          }
          for (int64_t l = width; l < nr; ++l) d[l] = T(0);
        }
        continue;
      }
      for (int64_t p = 0; p < kc; ++p) {
        const T* src = f.x + f.row_offset[pc + p];
        T* d = dst + p * nr;
        for (int64_t l = 0; l < width; ++l) d[l] = src[cols[l]];
        for (int64_t l = width; l < nr; ++l) d[l] = T(0);
      }
    }
  }
  static constexpr int kMaxRuns = 32;
};

// The forward's A, w' [K, 9C] with its columns in col's channel-major row order (w'[k, row(t, c,
// C, true)] = w[k, c, tap t]), is read straight from w [K, C, 3, 3] by the GEMM's packing
// (GemmProblem::a_col_at): column row(t, c, C, true) of w' starts at w + col_at[row(t, c, C,
// true)], its rows 9C apart. No reordered copy of w is made.
inline void pad_classes_weight_cols(const ConvGeometry& g, int64_t* col_at) {
  for (int t = 0; t < 9; ++t)
    for (int64_t c = 0; c < g.c; ++c) col_at[PadClasses::row(t, c, g.c, true)] = c * 9 + PadClasses::kTapRs[t];
}

// dw [K, C, 3, 3] += dwt [K, 9C] (the weight gradient, its columns in col's tap-major row order).
template <typename T>
void pad_classes_add_weight_grad(const ConvGeometry& g, const T* dwt, T* dw) {
  for (int64_t k = 0; k < g.k; ++k)
    for (int t = 0; t < 9; ++t)
      for (int64_t c = 0; c < g.c; ++c) dw[(k * g.c + c) * 9 + PadClasses::kTapRs[t]] += dwt[(k * 9 + t) * g.c + c];
}

// y of nb images (image b at y + b * image_stride, [K, Ho, Wo]) <- yc [K, nb*Ho*Wo] (rows ld
// apart, class order) + bias (or none).
template <typename T>
void pad_classes_scatter(const ConvGeometry& g, const T* yc, int64_t ld, int64_t nb, const T* bias, T* y,
                         int64_t image_stride) {
  const PadClasses pc(g, nb);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t k = 0; k < g.k; ++k) {
      const T bk = bias ? bias[k] : T(0);
      const T* src = yc + k * ld;
      T* dst = y + b * image_stride + k * g.hwo();
      pc.for_each_run(b, [&](int64_t at, int64_t i, int64_t j, int64_t n) {
        for (int64_t l = 0; l < n; ++l) dst[i * g.wo + j + l] = src[at + l] + bk;
      });
    }
}

// gyc [K, nb*Ho*Wo] (rows ld apart, class order) <- gy of nb images (image b at gy + b * image_stride).
template <typename T>
void pad_classes_gather(const ConvGeometry& g, const T* gy, int64_t image_stride, int64_t nb, T* gyc, int64_t ld) {
  const PadClasses pc(g, nb);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t k = 0; k < g.k; ++k) {
      const T* src = gy + b * image_stride + k * g.hwo();
      T* dst = gyc + k * ld;
      pc.for_each_run(b, [&](int64_t at, int64_t i, int64_t j, int64_t n) { copy_run(dst + at, src + i * g.wo + j, n); });
    }
}

}  // namespace cpu
}  // namespace glassgrad
