// im2col gathered straight into the GEMM's packed B panels (GemmProblem::b_fill, gemm_kernel.h),
// for the forward of strided convs (conv.cpp): the im2col matrix [C*R*S, images*Ho*Wo] of a batch
// of images is never stored; each panel the GEMM asks for (rows pc .. pc+kc, columns j0 .. j0+nc)
// is written in its packed layout from the phase planes of the channels it covers
// (conv_geometry.h, PhasePlanes), which are rebuilt per channel in a small scratch that stays in
// L1. docs/cpu-threads.md, "im2col straight into the GEMM's panels".
//
// Walk of one panel row (tap t = (c, r, s)): the columns q = n*Ho*Wo + i*Wo + j run through
// images n, output rows i and columns j; each (n, i) is one run of Wo values of a plane, cut
// where it crosses from one NR-wide sliver into the next. The position (n, i, j) of the panel's
// first column is found once a call; every step after it is an increment, no division. The runs
// are the same for every tap of a channel (only the plane differs), so they are worked out once
// a channel and window of columns, and each tap then only copies.
#pragma once
#include <algorithm>
#include <cstdint>

#include "cpu/conv_geometry.h"

namespace glassgrad {
namespace cpu {

// A panel's columns past nc in its last NR-wide sliver are zero (GemmProblem::b_fill).
template <typename T>
void zero_panel_tail(int64_t kc, int64_t nc, int64_t nr, T* dst) {
  const int64_t slivers = (nc + nr - 1) / nr, last = nc - (slivers - 1) * nr;
  if (last == nr) return;
  T* tail = dst + (slivers - 1) * nr * kc;
  for (int64_t p = 0; p < kc; ++p) std::fill(tail + p * nr + last, tail + (p + 1) * nr, T(0));
}

// The runs of a panel row's columns j0 .. j0+nc, images side by side (column q = n*Ho*Wo +
// i*Wo + j): one run per (image, output row), cut where it crosses from one NR-wide sliver of
// the packed panel into the next. The position of the first column takes divisions once; every
// step after it is an increment. n counts from the panel's first image, j0 / (Ho*Wo).
struct PanelRuns {
  int64_t wo, ho, nc, nr, kc;
  int64_t q = 0, n = 0, i, j, sliver = 0, within = 0;
  PanelRuns(const ConvGeometry& g, int64_t j0, int64_t nc_, int64_t nr_, int64_t kc_)
      : wo(g.wo), ho(g.ho), nc(nc_), nr(nr_), kc(kc_), i(j0 % g.hwo() / g.wo), j(j0 % g.wo) {}
  bool done() const { return q >= nc; }
  // fn(dst, n, i, j, len) for the next run: len values of image n's output row i from column j,
  // to panel offset dst (relative to the row's start in the first sliver); then past it.
  template <typename F>
  void next(F&& fn) {
    const int64_t len = std::min(std::min(wo - j, nc - q), nr - within);
    fn(sliver * nr * kc + within, n, i, j, len);
    q += len;
    within += len;
    if (within == nr) within = 0, ++sliver;
    j += len;
    if (j == wo) {
      j = 0;
      if (++i == ho) i = 0, ++n;
    }
  }
};

template <typename T>
struct Im2colPanels {
  // One run of a panel row: len values from plane offset src to panel offset dst (relative to
  // the row's start in the first sliver). kRuns of them are worked out at a time.
  struct Run {
    int64_t dst, src, len;
  };
  static constexpr int kRuns = 128;

  const ConvGeometry* g = nullptr;  // one group's geometry (group_slice)
  const T* x = nullptr;             // the batch's first image [C, H, W]
  int64_t image_stride = 0;         // elements from one image of the batch to the next
  int64_t images = 0;               // images side by side on the GEMM's N (columns)
  T* scratch = nullptr;             // scratch_elems(g, images): one thread's; see fill

  // Scratch for the planes of one channel of every image.
  static int64_t scratch_elems(const ConvGeometry& g, int64_t images) { return images * PhasePlanes(g).elems(g); }

  // GemmProblem::b_fill. Writes scratch: the GEMM must run serially (conv.cpp plans it so).
  static void fill(const void* ctx, int64_t pc, int64_t kc, int64_t j0, int64_t nc, int64_t nr, T* dst) {
    static_cast<const Im2colPanels*>(ctx)->fill_panel(pc, kc, j0, nc, nr, dst);
  }

  void fill_panel(int64_t pc, int64_t kc, int64_t j0, int64_t nc, int64_t nr, T* dst) const {
    const ConvGeometry& cg = *g;
    const PhasePlanes pp(cg);
    const int64_t hwo = cg.hwo(), rs = cg.r * cg.s, per_image = pp.elems(cg);
    zero_panel_tail(kc, nc, nr, dst);
    const int64_t n_first = j0 / hwo, n_end = (j0 + nc - 1) / hwo + 1;  // images the columns cover
    Run runs[kRuns];
    for (int64_t t = pc; t < pc + kc;) {
      const int64_t c = t / rs, t_begin = t, t_end = std::min(pc + kc, (c + 1) * rs);
      for (int64_t n = n_first; n < n_end; ++n)
        build_phase_planes(cg, pp, x + n * image_stride + c * cg.hw(), scratch + (n - n_first) * per_image);
      // The runs of a window of columns (the same for every tap of the channel), then each tap's
      // copies of them.
      PanelRuns walk(cg, j0, nc, nr, kc);
      while (!walk.done()) {
        int count = 0;
        for (; count < kRuns && !walk.done(); ++count) {
          walk.next([&](int64_t to, int64_t n, int64_t i, int64_t j, int64_t len) {
            runs[count] = {to, n * per_image + i * pp.wq + j, len};
          });
        }
        for (t = t_begin; t < t_end; ++t) {
          const T* plane = scratch + pp.tap(cg, t % rs / cg.s, t % cg.s);
          T* d = dst + (t - pc) * nr;  // row t of the panel in its first sliver
          for (int k = 0; k < count; ++k) copy_run(d + runs[k].dst, plane + runs[k].src, runs[k].len);
        }
      }
    }
  }
};

// The forward of a 1x1 kernel at a stride above 1 without padding (ResNet's downsampling
// shortcuts): row c of im2col is channel c sampled every sh rows and sw columns, so each (image,
// output row) of a panel row is one strided run of the image, gathered straight into the panel
// (gather_strided: 4 values a step at stride 2). The im2col matrix of the batch was stored first
// and the GEMM then copied it again into its panels. No planes (one tap: each value is read once
// anyway) and no scratch: the fill only reads x, so threads splitting the GEMM along N may fill
// their panels at once. docs/cpu-threads.md, "The 1x1 stride-2 forward: im2col in the panels".
template <typename T>
struct StridedPointwisePanels {
  // One run of a panel row: len values from x + src + c * H * W (every src * stride apart) to
  // panel offset dst (relative to the row's start in the first sliver); `readable` values from
  // the run's first on lie in its image row (gather_strided may read past its last lane).
  struct Run {
    int64_t dst, src, len, readable;
  };
  static constexpr int kRuns = 128;

  const ConvGeometry* g = nullptr;  // one group's geometry (group_slice)
  const T* x = nullptr;             // the batch's first image [C, H, W]
  int64_t image_stride = 0;         // elements from one image of the batch to the next

  static bool suits(const ConvGeometry& g) { return g.r == 1 && g.s == 1 && (g.sh > 1 || g.sw > 1) && g.unpadded(); }

  // GemmProblem::b_fill.
  static void fill(const void* ctx, int64_t pc, int64_t kc, int64_t j0, int64_t nc, int64_t nr, T* dst) {
    static_cast<const StridedPointwisePanels*>(ctx)->fill_panel(pc, kc, j0, nc, nr, dst);
  }

  void fill_panel(int64_t pc, int64_t kc, int64_t j0, int64_t nc, int64_t nr, T* dst) const {
    const ConvGeometry& cg = *g;
    zero_panel_tail(kc, nc, nr, dst);
    // Column q = n*Ho*Wo + i*Wo + j reads x[n, c, i*sh, j*sw]; a window of runs at a time (the
    // same for every channel).
    const T* x0 = x + j0 / cg.hwo() * image_stride;  // the panel's first image
    const int64_t hw = cg.hw();
    PanelRuns walk(cg, j0, nc, nr, kc);
    Run runs[kRuns];
    while (!walk.done()) {
      int count = 0;
      for (; count < kRuns && !walk.done(); ++count) {
        walk.next([&](int64_t to, int64_t n, int64_t i, int64_t j, int64_t len) {
          runs[count] = {to, n * image_stride + i * cg.sh * cg.w + j * cg.sw, len, cg.w - j * cg.sw};
        });
      }
      for (int64_t c = pc; c < pc + kc; ++c) {
        const T* xc = x0 + c * hw;
        T* d = dst + (c - pc) * nr;  // row c of the panel in its first sliver
        for (int k = 0; k < count; ++k) gather_strided(d + runs[k].dst, xc + runs[k].src, runs[k].len, cg.sw, runs[k].readable);
      }
    }
  }
};

}  // namespace cpu
}  // namespace glassgrad
