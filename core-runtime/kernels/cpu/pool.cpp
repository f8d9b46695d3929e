// CPU pooling kernels, float32 and float64. Layout: dense NCHW in and out (the schemas leave
// strided_inputs off, so views arrive as contiguous copies).
//
// For the window of output (i, j): rows [i*sh - ph, i*sh - ph + kh) and columns
// [j*sw - pw, j*sw - pw + kw), clipped to the input (padding is implicit; it is never read).
//
//   MaxPool2D:          y[i,j] = max of x over the window; a NaN propagates (as in PyTorch).
//   MaxPool2DBackward:  dx = 0; dx[argmax(i,j)] += g[i,j], where argmax is recomputed from x with
//                       the forward's comparison (the first maximum in row-major window order
//                       wins ties, like PyTorch's CPU kernel). No index tensor is stored.
//   AvgPool2D:          y[i,j] = sum of x over the window / d(i,j),
//                       d = kh*kw when count_include_pad, else the number of real elements.
//                       (In floor mode a window never reaches past the padding, so kh*kw is also
//                       PyTorch's divisor.)
//   AvgPool2DBackward:  dx = 0; dx[window(i,j)] += g[i,j] / d(i,j).
//
// Every (n, c) plane is independent, so the work is split across planes with parallel_for;
// backward kernels write only into their own plane of dx, so no two threads touch one element.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

struct Geometry {
  int64_t planes, h, w, ho, wo, kh, kw, sh, sw, ph, pw;
};

// Attributes were validated by the shape rule (autodiff-engine/src/ops/pool.cpp); the defaults
// here are the same: stride = the window, padding = 0.
Geometry geometry(const Attrs& a, const Shape& x, const Shape& y) {
  const auto& k = a.ints("kernel");
  const std::vector<int64_t> s = a.has("stride") ? a.ints("stride") : k;
  const std::vector<int64_t> p = a.has("padding") ? a.ints("padding") : std::vector<int64_t>{0, 0};
  return {x[0] * x[1], x[2], x[3], y[2], y[3], k[0], k[1], s[0], s[1], p[0], p[1]};
}

// Planes per parallel chunk: about 32k window reads each.
int64_t plane_grain(const Geometry& g) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, g.ho * g.wo * g.kh * g.kw));
}

// Index (within the plane) of the window's maximum; first maximum wins, a NaN wins.
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

template <typename T>
void max_pool2d(const KernelContext& c) {
  const Tensor& xt = c.inputs[0];
  const Tensor& yt = c.outputs[0];
  const Geometry g = geometry(c.attrs, xt.shape(), yt.shape());
  const T* x = xt.data<T>();
  T* y = yt.data<T>();
  parallel_for(g.planes, plane_grain(g), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * g.h * g.w;
      T* yp = y + p * g.ho * g.wo;
      for (int64_t i = 0; i < g.ho; ++i) {
        for (int64_t j = 0; j < g.wo; ++j) yp[i * g.wo + j] = xp[window_argmax(xp, g, i, j)];
      }
    }
  });
}

template <typename T>
void max_pool2d_backward(const KernelContext& c) {
  const Tensor& gt = c.inputs[0];
  const Tensor& xt = c.inputs[1];
  const Tensor& dxt = c.outputs[0];
  const Geometry g = geometry(c.attrs, xt.shape(), gt.shape());
  const T* gy = gt.data<T>();
  const T* x = xt.data<T>();
  T* dx = dxt.data<T>();
  parallel_for(g.planes, plane_grain(g), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * g.h * g.w;
      const T* gp = gy + p * g.ho * g.wo;
      T* dp = dx + p * g.h * g.w;
      std::fill(dp, dp + g.h * g.w, T(0));
      for (int64_t i = 0; i < g.ho; ++i) {
        for (int64_t j = 0; j < g.wo; ++j) dp[window_argmax(xp, g, i, j)] += gp[i * g.wo + j];
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
  win.divisor = count_include_pad ? g.kh * g.kw : (win.he - win.hs) * (win.we - win.ws);
  return win;
}

template <typename T>
void avg_pool2d(const KernelContext& c) {
  const Tensor& xt = c.inputs[0];
  const Tensor& yt = c.outputs[0];
  const Geometry g = geometry(c.attrs, xt.shape(), yt.shape());
  const bool include_pad = c.attrs.b("count_include_pad", true);
  const T* x = xt.data<T>();
  T* y = yt.data<T>();
  parallel_for(g.planes, plane_grain(g), [&](int64_t p0, int64_t p1) {
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
  const Geometry g = geometry(c.attrs, dxt.shape(), gt.shape());
  const bool include_pad = c.attrs.b("count_include_pad", true);
  const T* gy = gt.data<T>();
  T* dx = dxt.data<T>();
  parallel_for(g.planes, plane_grain(g), [&](int64_t p0, int64_t p1) {
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
  r.add("MaxPool2D", DeviceType::CPU, DType::Float32, max_pool2d<float>);
  r.add("MaxPool2D", DeviceType::CPU, DType::Float64, max_pool2d<double>);
  r.add("MaxPool2DBackward", DeviceType::CPU, DType::Float32, max_pool2d_backward<float>);
  r.add("MaxPool2DBackward", DeviceType::CPU, DType::Float64, max_pool2d_backward<double>);
  r.add("AvgPool2D", DeviceType::CPU, DType::Float32, avg_pool2d<float>);
  r.add("AvgPool2D", DeviceType::CPU, DType::Float64, avg_pool2d<double>);
  r.add("AvgPool2DBackward", DeviceType::CPU, DType::Float32, avg_pool2d_backward<float>);
  r.add("AvgPool2DBackward", DeviceType::CPU, DType::Float64, avg_pool2d_backward<double>);
}

}  // namespace glassgrad
