// CPU layer-norm kernels, float32 and float64 (glassgrad/autodiff/layer_norm_geometry.h; the
// gradient is derived in docs/gpt-step.md). Layout: dense x and grad_y seen as [rows, cols]
// (cols = the normalized axes' product), dense [cols] weight and bias, dense [rows] statistics.
//
//   LayerNorm:          mean = sum(x) / cols; var = sum((x - mean)^2) / cols (two passes over
//                       the row: no cancellation as in E[x^2] - E[x]^2 for data far from 0);
//                       rstd = 1 / sqrt(var + eps); y = (x - mean) * rstd * w + b.
//   LayerNormBackward:  per row, with xhat = (x - mean) * rstd and gw = g * w:
//                       dx = rstd * (gw - a - xhat * c), a = sum(gw) / cols, c = sum(gw * xhat) / cols
//                       (+ grad_mean / cols - grad_rstd * rstd^3 * (x - mean) / cols);
//                       dweight = sum over rows of g * xhat, dbias = sum over rows of g.
//
// Sums are accumulated in double for both dtypes. Rows are independent and split across
// threads with parallel_for. The parameter gradients are column sums over the rows: the rows
// are cut into at most kPartitions blocks, a count that depends on the shape alone, each block
// sums its rows into its own partial, and the partials are added in block order, so the
// results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/registration.h"
#include "glassgrad/autodiff/layer_norm_geometry.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

constexpr int64_t kPartitions = 64;

// Rows per parallel chunk: about 16k elements each.
int64_t layer_norm_row_grain(int64_t cols) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, cols)); }

// sum(p[i]) in double, four independent partial sums.
template <typename T>
double row_sum(const T* p, int64_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += p[i], s1 += p[i + 1], s2 += p[i + 2], s3 += p[i + 3];
  }
  for (; i < n; ++i) s0 += p[i];
  return (s0 + s1) + (s2 + s3);
}

// sum((p[i] - m)^2) in double.
template <typename T>
double row_squares(const T* p, int64_t n, double m) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const double d0 = p[i] - m, d1 = p[i + 1] - m, d2 = p[i + 2] - m, d3 = p[i + 3] - m;
    s0 += d0 * d0, s1 += d1 * d1, s2 += d2 * d2, s3 += d3 * d3;
  }
  for (; i < n; ++i) {
    const double d = p[i] - m;
    s0 += d * d;
  }
  return (s0 + s1) + (s2 + s3);
}

template <typename T>
const T* optional_input(const KernelContext& c, int i) {
  return i >= 0 ? c.inputs[static_cast<size_t>(i)].data<T>() : nullptr;
}

// inputs x[, weight][, bias]; outputs y, mean, rstd
template <typename T>
void layer_norm(const KernelContext& c) {
  const LayerNormGeometry g = LayerNormGeometry::from(c.inputs[0].shape(), c.attrs);
  const T* x = c.inputs[0].data<T>();
  const T* w = optional_input<T>(c, g.weight_input(false));
  const T* b = optional_input<T>(c, g.bias_input());
  T* y = c.outputs[0].data<T>();
  T* mean = c.outputs[1].data<T>();
  T* rstd = c.outputs[2].data<T>();
  const int64_t n = g.cols;
  parallel_for(g.rows, layer_norm_row_grain(n), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * n;
      T* yr = y + r * n;
      const double m = n ? row_sum(xr, n) / static_cast<double>(n) : 0.0;
      // An empty row (cols = 0): mean 0 and rstd NaN, as PyTorch's native_layer_norm.
      const double var = n ? row_squares(xr, n, m) / static_cast<double>(n) : std::nan("");
      const double s = 1.0 / std::sqrt(var + g.eps);
      mean[r] = static_cast<T>(m);
      rstd[r] = static_cast<T>(s);
      const T tm = static_cast<T>(m), ts = static_cast<T>(s);
      if (w && b) {
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - tm) * ts * w[i] + b[i];
      } else if (w) {
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - tm) * ts * w[i];
      } else if (b) {
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - tm) * ts + b[i];
      } else {
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - tm) * ts;
      }
    }
  });
}

// dx of rows [r0, r1), and, when partial is given, their sums of g * xhat (partial[0..cols))
// and of g (partial[cols..2 cols)) added into it.
template <typename T>
void backward_rows(const KernelContext& c, const LayerNormGeometry& g, int64_t r0, int64_t r1, double* partial,
                   std::vector<double>& xhat) {
  const T* gy = c.inputs[0].data<T>();
  const T* x = c.inputs[1].data<T>();
  const T* mean = c.inputs[2].data<T>();
  const T* rstd = c.inputs[3].data<T>();
  const T* w = optional_input<T>(c, g.weight_input(true));
  const T* gmean = optional_input<T>(c, g.grad_mean_input());
  const T* grstd = optional_input<T>(c, g.stat_grads ? g.grad_mean_input() + 1 : -1);
  T* dx = c.outputs[0].data<T>();
  const int64_t n = g.cols;
  const double inv_n = n ? 1.0 / static_cast<double>(n) : 0.0;
  for (int64_t r = r0; r < r1; ++r) {
    const T* gr = gy + r * n;
    const T* xr = x + r * n;
    T* dr = dx + r * n;
    const double m = mean[r], s = rstd[r];
    double sum_gw = 0, sum_gwx = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double xh = (xr[i] - m) * s;
      const double gw = w ? static_cast<double>(gr[i]) * w[i] : static_cast<double>(gr[i]);
      xhat[static_cast<size_t>(i)] = xh;
      sum_gw += gw;
      sum_gwx += gw * xh;
    }
    const double a = sum_gw * inv_n, cc = sum_gwx * inv_n;
    // The statistics' own gradients: d mean_r / dx = 1 / cols, d rstd_r / dx = -rstd^3 (x - mean) / cols.
    const double k_mean = gmean ? gmean[r] * inv_n : 0.0;
    const double k_rstd = grstd ? -static_cast<double>(grstd[r]) * s * s * inv_n : 0.0;  // times xhat
    for (int64_t i = 0; i < n; ++i) {
      const double xh = xhat[static_cast<size_t>(i)];
      const double gw = w ? static_cast<double>(gr[i]) * w[i] : static_cast<double>(gr[i]);
      dr[i] = static_cast<T>(s * (gw - a - xh * cc) + k_mean + k_rstd * xh);
    }
    if (partial) {
      for (int64_t i = 0; i < n; ++i) {
        partial[i] += gr[i] * xhat[static_cast<size_t>(i)];
        partial[n + i] += gr[i];
      }
    }
  }
}

// inputs grad_y, x, mean, rstd[, weight][, grad_mean, grad_rstd]; outputs dx, dweight, dbias
template <typename T>
void layer_norm_backward(const KernelContext& c) {
  const LayerNormGeometry g = LayerNormGeometry::from(c.inputs[1].shape(), c.attrs);
  const int64_t n = g.cols;
  if (!g.weight && !g.bias) {
    parallel_for(g.rows, layer_norm_row_grain(n), [&](int64_t r0, int64_t r1) {
      std::vector<double> xhat(static_cast<size_t>(n));
      backward_rows<T>(c, g, r0, r1, nullptr, xhat);
    });
    return;
  }
  // Fixed row blocks: their partial column sums are added in block order.
  const int64_t rows_per = std::max<int64_t>(1, (g.rows + kPartitions - 1) / kPartitions);
  const int64_t blocks = g.rows ? (g.rows + rows_per - 1) / rows_per : 0;
  std::vector<double> partials(static_cast<size_t>(blocks * 2 * n), 0.0);
  parallel_for(blocks, std::max<int64_t>(1, layer_norm_row_grain(n) / rows_per), [&](int64_t b0, int64_t b1) {
    std::vector<double> xhat(static_cast<size_t>(n));
    for (int64_t blk = b0; blk < b1; ++blk) {
      backward_rows<T>(c, g, blk * rows_per, std::min(g.rows, (blk + 1) * rows_per),
                       partials.data() + blk * 2 * n, xhat);
    }
  });
  T* dw = g.weight ? c.outputs[1].data<T>() : nullptr;
  T* db = g.bias ? c.outputs[2].data<T>() : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    double sw = 0, sb = 0;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      sw += partials[static_cast<size_t>(blk * 2 * n + i)];
      sb += partials[static_cast<size_t>(blk * 2 * n + n + i)];
    }
    if (dw) dw[i] = static_cast<T>(sw);
    if (db) db[i] = static_cast<T>(sb);
  }
}

}  // namespace

void register_cpu_layer_norm_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/layer_norm.def"
}

}  // namespace glassgrad
