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
    // Columns past nc in the last sliver are zero.
    const int64_t slivers = (nc + nr - 1) / nr, last = nc - (slivers - 1) * nr;
    if (last < nr) {
      T* tail = dst + (slivers - 1) * nr * kc;
      for (int64_t p = 0; p < kc; ++p) std::fill(tail + p * nr + last, tail + (p + 1) * nr, T(0));
    }
    const int64_t n_first = j0 / hwo, n_end = (j0 + nc - 1) / hwo + 1;  // images the columns cover
    const int64_t i_first = j0 % hwo / cg.wo, j_first = j0 % cg.wo;
    Run runs[kRuns];
    for (int64_t t = pc; t < pc + kc;) {
      const int64_t c = t / rs, t_begin = t, t_end = std::min(pc + kc, (c + 1) * rs);
      for (int64_t n = n_first; n < n_end; ++n)
        build_phase_planes(cg, pp, x + n * image_stride + c * cg.hw(), scratch + (n - n_first) * per_image);
      // The runs of a window of columns (the same for every tap of the channel), then each tap's
      // copies of them.
      int64_t q = 0, n = 0, i = i_first, j = j_first, sliver = 0, within = 0;
      while (q < nc) {
        int count = 0;
        for (; count < kRuns && q < nc; ++count) {
          const int64_t len = std::min(std::min(cg.wo - j, nc - q), nr - within);
          runs[count] = {sliver * nr * kc + within, n * per_image + i * pp.wq + j, len};
          q += len;
          within += len;
          if (within == nr) within = 0, ++sliver;
          j += len;
          if (j == cg.wo) {
            j = 0;
            if (++i == cg.ho) i = 0, ++n;
          }
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

}  // namespace cpu
}  // namespace glassgrad
