// 2-D pooling over NCHW planes (N*C planes of H x W), window (kh, kw), stride (sh, sw),
// padding (ph, pw) on both sides; the window of output (oh, ow) starts at
// (oh*sh - ph, ow*sw - pw). Padding never wins a max and never counts unless
// count_include_pad.
//
//   max:      y[p,oh,ow]  = max over the window's in-range x (first one on ties, row-major)
//   max bwd:  dx[p,h,w]   = sum of dy[p,oh,ow] over windows whose argmax is (h, w); with relu
//             (the fused ReLUBackward, fusion.h) then dx = x > 0 ? dx : 0
//   avg:      y[p,oh,ow]  = sum over the window's in-range x / d, d = divisor_override when
//             given; else with count_include_pad the window's size clipped to the padded input
//             (kh*kw but for ceil mode's overhang), without it the number of in-range elements
//   avg bwd:  dx[p,h,w]   = sum of dy[p,oh,ow] / d(oh,ow) over windows containing (h, w)
//
// The backwards gather (one thread per input element, visiting the few windows that contain
// it) instead of scattering with atomics: deterministic, and double atomics would need sm_60.
// Max bwd over windows that tile the input (the usual 2x2 stride-2 pooling) runs one thread per
// window instead (max_bwd_tiled): no element has two windows, so nothing needs gathering.
// Layouts: dense.
#include "common.cuh"
#include "pool.h"

namespace gg_pool {

// First argmax of window (oh, ow) of plane x, as h * W + w; -1 when the window is all padding.
template <typename T>
__device__ __forceinline__ int window_argmax(const GGPool& g, const T* x, int oh, int ow, T* vmax) {
  const int h0 = oh * (int)g.sh - (int)g.ph, w0 = ow * (int)g.sw - (int)g.pw;
  T best = gg::lowest<T>();
  int bi = -1;
  for (int i = 0; i < (int)g.kh; ++i) {
    const int h = h0 + i;
    if (h < 0 || h >= (int)g.H) continue;
    for (int j = 0; j < (int)g.kw; ++j) {
      const int w = w0 + j;
      if (w < 0 || w >= (int)g.W) continue;
      const T v = x[h * (int)g.W + w];
      if (bi < 0 || v > best || (v != v && best == best)) {
        best = v;
        bi = h * (int)g.W + w;
      }
    }
  }
  *vmax = best;
  return bi;
}

__device__ __forceinline__ int avg_divisor(const GGPool& g, int oh, int ow) {
  if (g.divisor_override > 0) return g.divisor_override;
  const int h0 = oh * (int)g.sh - (int)g.ph, w0 = ow * (int)g.sw - (int)g.pw;
  if (g.count_include_pad) {
    return (min(h0 + (int)g.kh, (int)(g.H + g.ph)) - h0) * (min(w0 + (int)g.kw, (int)(g.W + g.pw)) - w0);
  }
  const int h1 = min(h0 + (int)g.kh, (int)g.H), w1 = min(w0 + (int)g.kw, (int)g.W);
  const int n = (h1 - max(h0, 0)) * (w1 - max(w0, 0));
  return n > 0 ? n : 1;
}

// 32-bit indices (the launcher refuses tensors of 2^31 elements or more).
template <typename T>
__device__ void max_fwd(const GGPool& g, T* y, const T* x) {
  const int OW = (int)g.OW, per = (int)(g.OH * g.OW), plane = (int)(g.H * g.W), n = (int)g.planes * per;
  GG_FOR(i64, n) {
    const int i = (int)i64, p = i / per, q = i - p * per, oh = q / OW, ow = q - oh * OW;
    T v;
    window_argmax(g, x + (int64_t)p * plane, oh, ow, &v);
    y[i] = v;
  }
}

// Output windows containing input row h: oh in [lo, hi].
__device__ __forceinline__ void window_range(int h, int pad, int k, int s, int out, int& lo, int& hi) {
  const int t = h + pad;                 // oh*s <= t <= oh*s + k - 1
  lo = t - k + 1 <= 0 ? 0 : (t - k + 1 + s - 1) / s;
  hi = t / s;
  if (hi > out - 1) hi = out - 1;
}

// relu: the fused ReLUBackward(dx, x) (fusion.h): dx = x > 0 ? dx : 0.
template <typename T>
__device__ void max_bwd(const GGPool& g, int relu, T* dx, const T* dy, const T* x) {
  const int64_t per = g.H * g.W;
  GG_FOR(i, g.planes * per) {
    const int64_t p = i / per;
    const int q = (int)(i - p * per), h = q / (int)g.W, w = q - h * (int)g.W;
    int oh0, oh1, ow0, ow1;
    window_range(h, (int)g.ph, (int)g.kh, (int)g.sh, (int)g.OH, oh0, oh1);
    window_range(w, (int)g.pw, (int)g.kw, (int)g.sw, (int)g.OW, ow0, ow1);
    const T* xp = x + p * per;
    const T* dyp = dy + p * g.OH * g.OW;
    T acc = 0;
    for (int oh = oh0; oh <= oh1; ++oh)
      for (int ow = ow0; ow <= ow1; ++ow) {
        T v;
        if (window_argmax(g, xp, oh, ow, &v) == q) acc += dyp[oh * (int)g.OW + ow];
      }
    dx[i] = relu && !(xp[q] > T(0)) ? T(0) : acc;
  }
}

// max bwd when the windows tile the input (kernel = stride, no padding): one thread per window
// writes every input element the window owns, dy at the window's argmax and 0 elsewhere. The
// window (oh, ow) owns rows [oh*sh, oh*sh + sh), the last window row also the rows below it that
// no window covers (floor mode), clipped to the input; the same for columns. Each element has at
// most one window, so this is the gather's sum exactly (0 + dy, as the gather adds it); it reads
// each window once instead of once per element, with 32-bit indices (the launcher refuses 2^31
// elements).
template <typename T>
__device__ void max_bwd_tiled(const GGPool& g, int relu, T* dx, const T* dy, const T* x) {
  const int OH = (int)g.OH, OW = (int)g.OW, H = (int)g.H, W = (int)g.W, sh = (int)g.sh, sw = (int)g.sw;
  const int per = OH * OW, n = (int)g.planes * per;
  GG_FOR(i64, n) {
    const int i = (int)i64, p = i / per, q = i - p * per, oh = q / OW, ow = q - oh * OW;
    const T* xp = x + (int64_t)p * H * W;
    T* dxp = dx + (int64_t)p * H * W;
    T v;
    const int arg = window_argmax(g, xp, oh, ow, &v);
    const T d = relu && !(v > T(0)) ? T(0) : T(0) + dy[i];  // v = x[arg]
    const int h0 = oh * sh, w0 = ow * sw;
    const int h1 = min(oh == OH - 1 ? H : h0 + sh, H), w1 = min(ow == OW - 1 ? W : w0 + sw, W);
    for (int h = h0; h < h1; ++h)
      for (int w = w0; w < w1; ++w) dxp[h * W + w] = h * W + w == arg ? d : T(0);
  }
}

template <typename T>
__device__ void avg_fwd(const GGPool& g, T* y, const T* x) {
  const int64_t per = g.OH * g.OW;
  GG_FOR(i, g.planes * per) {
    const int64_t p = i / per;
    const int q = (int)(i - p * per), oh = q / (int)g.OW, ow = q - oh * (int)g.OW;
    const T* xp = x + p * g.H * g.W;
    const int h0 = oh * (int)g.sh - (int)g.ph, w0 = ow * (int)g.sw - (int)g.pw;
    T s = 0;
    for (int a = max(h0, 0); a < min(h0 + (int)g.kh, (int)g.H); ++a)
      for (int b = max(w0, 0); b < min(w0 + (int)g.kw, (int)g.W); ++b) s += xp[a * (int)g.W + b];
    y[i] = s / T(avg_divisor(g, oh, ow));
  }
}

template <typename T>
__device__ void avg_bwd(const GGPool& g, T* dx, const T* dy) {
  const int64_t per = g.H * g.W;
  GG_FOR(i, g.planes * per) {
    const int64_t p = i / per;
    const int q = (int)(i - p * per), h = q / (int)g.W, w = q - h * (int)g.W;
    int oh0, oh1, ow0, ow1;
    window_range(h, (int)g.ph, (int)g.kh, (int)g.sh, (int)g.OH, oh0, oh1);
    window_range(w, (int)g.pw, (int)g.kw, (int)g.sw, (int)g.OW, ow0, ow1);
    const T* dyp = dy + p * g.OH * g.OW;
    T acc = 0;
    for (int oh = oh0; oh <= oh1; ++oh)
      for (int ow = ow0; ow <= ow1; ++ow) acc += dyp[oh * (int)g.OW + ow] / T(avg_divisor(g, oh, ow));
    dx[i] = acc;
  }
}

}  // namespace gg_pool

GG_DEFINE_KERNELS(GG_POOL_KERNELS)
