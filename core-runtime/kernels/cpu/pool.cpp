// CPU pooling kernels, float32 and float64. Layout: dense NCHW in and out (the schemas leave
// strided_inputs off, so views arrive as contiguous copies).
//
// For the window of output (i, j): rows [i*sh - ph, i*sh - ph + kh) and columns
// [j*sw - pw, j*sw - pw + kw), clipped to the input (padding is implicit; it is never read).
//
//   MaxPool2D:          y[i,j] = max of x over the window; a NaN propagates (as in PyTorch).
//   MaxPool2DBackward:  dx = 0; dx[argmax(i,j)] += g[i,j], where argmax is recomputed from x with
//                       the forward's comparison (the first maximum in row-major window order
//                       wins ties, like PyTorch's CPU kernel). No index tensor is stored. With
//                       activation "relu" (the fusion pass's max-pool + ReLU backward), then
//                       dx = x > 0 ? dx : 0.
//   AvgPool2D:          y[i,j] = sum of x over the window / d(i,j): divisor_override when given;
//                       with count_include_pad the window's size clipped to the padded input
//                       (kh*kw except where ceil mode's last windows reach past the padding);
//                       else the number of real elements (PyTorch's divisors).
//   AvgPool2DBackward:  dx = 0; dx[window(i,j)] += g[i,j] / d(i,j).
//
// Windows that lie inside the input (all but a border of outputs) take a branch-free path
// without clipping, unrolled at compile time for 2x2 and 3x3 (see Interior); it picks the same
// element as the sequential rule used for the border windows.
//
// Every (n, c) plane is independent, so the work is split across planes with parallel_for;
// backward kernels write only into their own plane of dx, so no two threads touch one element.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/registration.h"
#include "glassgrad/autodiff/families/pool.h"
#include "glassgrad/autodiff/fusion.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

// The family's geometry (glassgrad/autodiff/families/pool.h), read once from the attributes
// the shape rule validated.
using Geometry = Pool2DGeometry;

// Planes per parallel chunk: about 32k window reads each.
int64_t plane_grain(const Geometry& g) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, g.ho * g.wo * g.kh * g.kw));
}

// Index (within the plane) of the window's maximum; first maximum wins, a NaN wins. Clips the
// window to the input, so it serves every window, including those that overlap the padding.
template <typename T>
inline int64_t window_argmax(const T* x, const Geometry& g, int64_t i, int64_t j) {
  const int64_t h0 = i * g.sh - g.ph, w0 = j * g.sw - g.pw;
  const int64_t hs = std::max<int64_t>(h0, 0), he = std::min(h0 + g.kh, g.h);
  const int64_t ws = std::max<int64_t>(w0, 0), we = std::min(w0 + g.kw, g.w);
  int64_t best_idx = hs * g.w + ws;
  T best = -std::numeric_limits<T>::infinity();
  for (int64_t r = hs; r < he; ++r) {
    const T* row = x + r * g.w;
    for (int64_t q = ws; q < we; ++q) {
      const T v = row[q];
      if (v > best || std::isnan(v)) {
        best = v;
        best_idx = r * g.w + q;
      }
    }
  }
  return best_idx;
}

// The same rule for a window that lies inside the input (no clipping). KH/KW > 0 fix the
// window size at compile time (the common 2x2 and 3x3 pools unroll completely); 0 reads it from
// g. On real data "is this element larger" is a coin flip, so the sequential rule written with
// branches mispredicts about once per element; these functions are branch-free instead:
//   value:  m = max over the window (maxss; a NaN is noted separately), and
//   index:  the first element equal to m, found by a masked scan from the last element back.
// The first element equal to the maximum is exactly what the sequential strict-> rule picks.
// A window holding a NaN (rare) goes through the sequential rule, which makes the NaN win.
template <typename T, int KH, int KW>
struct Interior {
  const Geometry& g;
  int64_t kh() const { return KH > 0 ? KH : g.kh; }
  int64_t kw() const { return KW > 0 ? KW : g.kw; }

  // Max of the window starting at win; sets nan when the window holds one.
  T max(const T* win, bool& nan) const {
    T m = win[0];
    bool any_nan = false;
    for (int64_t r = 0; r < kh(); ++r) {
      for (int64_t q = 0; q < kw(); ++q) {
        const T v = win[r * g.w + q];
        m = m < v ? v : m;
        any_nan |= v != v;
      }
    }
    nan = any_nan;
    return m;
  }

  // Offset from win of the first maximum in row-major order (a NaN wins).
  int64_t argmax(const T* win) const {
    bool nan;
    const T m = max(win, nan);
    if (nan) return sequential_argmax(win);
    int64_t off = 0;
    for (int64_t r = kh() - 1; r >= 0; --r) {
      for (int64_t q = kw() - 1; q >= 0; --q) {
        const int64_t o = r * g.w + q;
        const int64_t keep = -static_cast<int64_t>(win[o] == m);  // all ones where equal
        off = (o & keep) | (off & ~keep);
      }
    }
    return off;
  }

  int64_t sequential_argmax(const T* win) const {
    T best = win[0];
    int64_t best_off = 0;
    for (int64_t r = 0; r < kh(); ++r) {
      for (int64_t q = 0; q < kw(); ++q) {
        const T v = win[r * g.w + q];
        if (v > best || std::isnan(v)) {
          best = v;
          best_off = r * g.w + q;
        }
      }
    }
    return best_off;
  }
};

// Output rows [lo, hi) (or columns) whose windows lie inside an input axis of size n.
struct Range {
  int64_t lo, hi;
  bool contains(int64_t i) const { return i >= lo && i < hi; }
};

inline Range interior(int64_t out, int64_t n, int64_t k, int64_t s, int64_t p) {
  const int64_t lo = std::min(out, (p + s - 1) / s);  // first i with i*s - p >= 0
  const int64_t hi = n >= k - p ? std::min(out, (n - k + p) / s + 1) : 0;  // last with i*s - p + k <= n
  return {lo, std::max(lo, hi)};
}

// Calls inside(i, j, start) for outputs whose window lies inside the plane (start: the window's
// first element) and border(i, j) for the others.
template <typename Inside, typename Border>
void for_each_window(const Geometry& g, Inside&& inside, Border&& border) {
  const Range ri = interior(g.ho, g.h, g.kh, g.sh, g.ph);
  const Range rj = interior(g.wo, g.w, g.kw, g.sw, g.pw);
  for (int64_t i = 0; i < g.ho; ++i) {
    if (!ri.contains(i)) {
      for (int64_t j = 0; j < g.wo; ++j) border(i, j);
      continue;
    }
    const int64_t row0 = (i * g.sh - g.ph) * g.w - g.pw;
    for (int64_t j = 0; j < rj.lo; ++j) border(i, j);
    for (int64_t j = rj.lo; j < rj.hi; ++j) inside(i, j, row0 + j * g.sw);
    for (int64_t j = rj.hi; j < g.wo; ++j) border(i, j);
  }
}

template <typename T, int KH, int KW>
void max_pool_plane(const T* xp, T* yp, const Geometry& g) {
  const Interior<T, KH, KW> in{g};
  for_each_window(
      g,
      [&](int64_t i, int64_t j, int64_t start) {
        bool nan;
        const T m = in.max(xp + start, nan);
        yp[i * g.wo + j] = nan ? xp[start + in.sequential_argmax(xp + start)] : m;
      },
      [&](int64_t i, int64_t j) { yp[i * g.wo + j] = xp[window_argmax(xp, g, i, j)]; });
}

template <typename T, int KH, int KW>
void max_pool_backward_plane(const T* xp, const T* gp, T* dp, const Geometry& g) {
  const Interior<T, KH, KW> in{g};
  for_each_window(
      g, [&](int64_t i, int64_t j, int64_t start) { dp[start + in.argmax(xp + start)] += gp[i * g.wo + j]; },
      [&](int64_t i, int64_t j) { dp[window_argmax(xp, g, i, j)] += gp[i * g.wo + j]; });
}

template <typename T>
void max_pool2d(const KernelContext& c) {
  const Tensor& xt = c.inputs[0];
  const Tensor& yt = c.outputs[0];
  const Geometry g = Geometry::from(xt.shape(), c.attrs);
  const T* x = xt.data<T>();
  T* y = yt.data<T>();
  auto plane = g.kh == 2 && g.kw == 2 ? max_pool_plane<T, 2, 2>
               : g.kh == 3 && g.kw == 3 ? max_pool_plane<T, 3, 3>
                                        : max_pool_plane<T, 0, 0>;
  parallel_for(g.planes(), plane_grain(g), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) plane(x + p * g.h * g.w, y + p * g.ho * g.wo, g);
  });
}

template <typename T>
void max_pool2d_backward(const KernelContext& c) {
  const Tensor& gt = c.inputs[0];
  const Tensor& xt = c.inputs[1];
  const Tensor& dxt = c.outputs[0];
  const Geometry g = Geometry::from(xt.shape(), c.attrs);
  const T* gy = gt.data<T>();
  const T* x = xt.data<T>();
  T* dx = dxt.data<T>();
  auto plane = g.kh == 2 && g.kw == 2 ? max_pool_backward_plane<T, 2, 2>
               : g.kh == 3 && g.kw == 3 ? max_pool_backward_plane<T, 3, 3>
                                        : max_pool_backward_plane<T, 0, 0>;
  const bool relu = fused_relu(c.attrs);
  parallel_for(g.planes(), plane_grain(g), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* dp = dx + p * g.h * g.w;
      const T* xp = x + p * g.h * g.w;
      std::fill(dp, dp + g.h * g.w, T(0));
      plane(xp, gy + p * g.ho * g.wo, dp, g);
      if (relu) {  // ReLUBackward(dx, x), fused (fusion.h): x > 0 ? dx : 0
        for (int64_t i = 0; i < g.h * g.w; ++i) dp[i] = xp[i] > T(0) ? dp[i] : T(0);
      }
    }
  });
}

// Divisor of window (i, j), and its clipped bounds.
struct Window {
  int64_t hs, he, ws, we, divisor;
};

inline Window avg_window(const Geometry& g, int64_t i, int64_t j, bool count_include_pad) {
  const int64_t h0 = i * g.sh - g.ph, w0 = j * g.sw - g.pw;
  Window win{std::max<int64_t>(h0, 0), std::min(h0 + g.kh, g.h), std::max<int64_t>(w0, 0), std::min(w0 + g.kw, g.w), 0};
  if (g.divisor_override > 0) {
    win.divisor = g.divisor_override;
  } else if (count_include_pad) {
    win.divisor = (std::min(h0 + g.kh, g.h + g.ph) - h0) * (std::min(w0 + g.kw, g.w + g.pw) - w0);
  } else {
    win.divisor = (win.he - win.hs) * (win.we - win.ws);
  }
  return win;
}

template <typename T>
void avg_pool2d(const KernelContext& c) {
  const Tensor& xt = c.inputs[0];
  const Tensor& yt = c.outputs[0];
  const Geometry g = Geometry::from(xt.shape(), c.attrs);
  const bool include_pad = g.count_include_pad;
  const T* x = xt.data<T>();
  T* y = yt.data<T>();
  parallel_for(g.planes(), plane_grain(g), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * g.h * g.w;
      T* yp = y + p * g.ho * g.wo;
      for (int64_t i = 0; i < g.ho; ++i) {
        for (int64_t j = 0; j < g.wo; ++j) {
          const Window win = avg_window(g, i, j, include_pad);
          T sum = 0;
          for (int64_t r = win.hs; r < win.he; ++r) {
            for (int64_t q = win.ws; q < win.we; ++q) sum += xp[r * g.w + q];
          }
          yp[i * g.wo + j] = sum / static_cast<T>(win.divisor);
        }
      }
    }
  });
}

template <typename T>
void avg_pool2d_backward(const KernelContext& c) {
  const Tensor& gt = c.inputs[0];
  const Tensor& dxt = c.outputs[0];
  const Geometry g = Geometry::from(dxt.shape(), c.attrs);
  const bool include_pad = g.count_include_pad;
  const T* gy = gt.data<T>();
  T* dx = dxt.data<T>();
  parallel_for(g.planes(), plane_grain(g), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* gp = gy + p * g.ho * g.wo;
      T* dp = dx + p * g.h * g.w;
      std::fill(dp, dp + g.h * g.w, T(0));
      for (int64_t i = 0; i < g.ho; ++i) {
        for (int64_t j = 0; j < g.wo; ++j) {
          const Window win = avg_window(g, i, j, include_pad);
          const T share = gp[i * g.wo + j] / static_cast<T>(win.divisor);
          for (int64_t r = win.hs; r < win.he; ++r) {
            for (int64_t q = win.ws; q < win.we; ++q) dp[r * g.w + q] += share;
          }
        }
      }
    }
  });
}

}  // namespace

void register_cpu_pool_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/pool.def"
}

}  // namespace glassgrad
