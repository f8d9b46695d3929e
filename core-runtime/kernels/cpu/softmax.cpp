// CPU softmax-family kernels, float32 and float64. Layout: dense row-major inputs; the
// reduced axis `dim` splits the shape into [outer, D, inner], and each of the outer*inner
// "columns" (D elements, `inner` apart) is independent:
//
//   Softmax:            y = exp(x - max) / s,          s = sum(exp(x - max))
//   LogSoftmax:         y = x - max - log(s)
//   SoftmaxBackward:    dx = y * (g - sum(g * y))      (the Jacobian diag(y) - y y^T applied to g)
//   LogSoftmaxBackward: dx = g - exp(y) * sum(g)       (the Jacobian I - softmax 1^T, transposed)
//   CrossEntropy:       lse_n = max + log(sum(exp(x - max))), y = labels[n], w class weights
//                       (ones when absent), W = sum_c w_c, e = label_smoothing:
//                       loss_n = (1-e) w_y (lse_n - x[n, y]) + (e/C) (W lse_n - sum_c w_c x[n, c]),
//                       0 on rows with y == ignore_index; returned per row ("none"), summed
//                       ("sum"), or summed and divided by sum_n w_y over rows not ignored ("mean")
//   CrossEntropyBackward: dx[n, j] = s_n ((1-e) w_y (p_nj - [j == y]) + (e/C) (W p_nj - w_j)),
//                       p = softmax(x[n]), s_n = g, g / sum_n w_y or g[n]; 0 on ignored rows
//
// Subtracting the column's maximum keeps every exp() <= 1 (no overflow; the largest term is
// exactly 1, so s >= 1 and log(s) is safe). Sums are accumulated in double. Columns are split
// across threads; the cross-entropy total adds per-row losses in row order, so it does not
// depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/registration.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/families/softmax.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

struct Columns {
  int64_t outer, d, inner;
  int64_t count() const { return outer * inner; }
  // Offset of the first element of column k.
  int64_t start(int64_t k) const { return (k / inner) * d * inner + k % inner; }
};

// The family's geometry around the axis (glassgrad/autodiff/families/softmax.h).
Columns columns_of(const Shape& shape, const Attrs& attrs) {
  const SoftmaxAxis a = SoftmaxAxis::from(shape, attrs);
  return Columns{a.outer, a.d, a.inner};
}

// Calls f(offset, stride) for every column, split across threads (~32k elements per chunk).
template <typename F>
void for_each_column(const Columns& c, F&& f) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, c.d));
  parallel_for(c.count(), grain, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) f(c.start(k), c.inner);
  });
}

template <typename T>
T column_max(const T* x, int64_t d, int64_t st) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < d; ++i) m = std::max(m, x[i * st]);
  return m;
}

template <typename T>
void softmax(const KernelContext& c) {
  const Columns col = columns_of(c.inputs[0].shape(), c.attrs);
  const T* x = c.inputs[0].data<T>();
  T* y = c.outputs[0].data<T>();
  for_each_column(col, [&](int64_t off, int64_t st) {
    const T* xc = x + off;
    T* yc = y + off;
    const T m = column_max(xc, col.d, st);
    double s = 0;
    for (int64_t i = 0; i < col.d; ++i) {
      const T e = std::exp(xc[i * st] - m);
      yc[i * st] = e;
      s += e;
    }
    const T inv = static_cast<T>(1.0 / s);
    for (int64_t i = 0; i < col.d; ++i) yc[i * st] *= inv;
  });
}

template <typename T>
void log_softmax(const KernelContext& c) {
  const Columns col = columns_of(c.inputs[0].shape(), c.attrs);
  const T* x = c.inputs[0].data<T>();
  T* y = c.outputs[0].data<T>();
  for_each_column(col, [&](int64_t off, int64_t st) {
    const T* xc = x + off;
    T* yc = y + off;
    const T m = column_max(xc, col.d, st);
    double s = 0;
    for (int64_t i = 0; i < col.d; ++i) s += std::exp(xc[i * st] - m);
    // (x - max) - log(s), as PyTorch and the CUDA kernel: x - (max + log(s)) rounded the shift to
    // T first and lost the largest entries' small values (log_softmax([0.5, 10])[1] is -7.486e-05)
    const double ls = std::log(s);
    for (int64_t i = 0; i < col.d; ++i) yc[i * st] = static_cast<T>(static_cast<double>(xc[i * st] - m) - ls);
  });
}

template <typename T>
void softmax_backward(const KernelContext& c) {
  const Columns col = columns_of(c.inputs[1].shape(), c.attrs);
  const T* g = c.inputs[0].data<T>();
  const T* y = c.inputs[1].data<T>();
  T* dx = c.outputs[0].data<T>();
  for_each_column(col, [&](int64_t off, int64_t st) {
    double s = 0;
    for (int64_t i = 0; i < col.d; ++i) s += static_cast<double>(g[off + i * st]) * y[off + i * st];
    const T ts = static_cast<T>(s);
    for (int64_t i = 0; i < col.d; ++i) dx[off + i * st] = y[off + i * st] * (g[off + i * st] - ts);
  });
}

template <typename T>
void log_softmax_backward(const KernelContext& c) {
  const Columns col = columns_of(c.inputs[1].shape(), c.attrs);
  const T* g = c.inputs[0].data<T>();
  const T* y = c.inputs[1].data<T>();
  T* dx = c.outputs[0].data<T>();
  for_each_column(col, [&](int64_t off, int64_t st) {
    double s = 0;
    for (int64_t i = 0; i < col.d; ++i) s += g[off + i * st];
    const T ts = static_cast<T>(s);
    for (int64_t i = 0; i < col.d; ++i) dx[off + i * st] = g[off + i * st] - std::exp(y[off + i * st]) * ts;
  });
}

// Throws IndexError for the first label outside [0, classes) that is not ignore_index, naming
// the layer, the label, its position and the number of classes. Labels are data, so this is
// only known at run time.
void check_labels(const KernelContext& c, const Tensor& labels, int64_t classes, int64_t ignore_index) {
  const int64_t* y = labels.data<int64_t>();
  const int64_t n = labels.numel();
  int64_t first = -1, bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if ((y[i] < 0 || y[i] >= classes) && y[i] != ignore_index) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (first < 0) return;
  const std::string where = node_where("CrossEntropy", c.meta.scope);
  ErrorMessage m(where + ": label " + std::to_string(y[first]) + " at position " + std::to_string(first) +
                 " is out of range for " + std::to_string(classes) + " classes");
  m.detail("labels must be in [0, " + std::to_string(classes) + "); " + std::to_string(bad) + " of " +
           std::to_string(n) + " labels are outside");
  if (y[first] == classes) {
    m.cause("labels counted from 1 instead of 0, or a classifier with one output too few");
  } else if (y[first] < 0) {
    m.cause("a negative label (e.g. -1 used to mark unlabeled samples; ignore_index=" + std::to_string(ignore_index) +
            " marks the labels to skip)");
  } else {
    m.cause("the classifier has fewer outputs than the data set has classes");
  }
  m.fix("give the last layer max(label) + 1 outputs, or shift the labels to start at 0 (y - y.min())");
  throw IndexError(m.str());
}

// Per row: lse = max + log(sum(exp(x - max))), in double.
template <typename T>
double row_lse(const T* row, int64_t classes) {
  const T m = column_max(row, classes, 1);
  double s = 0;
  for (int64_t j = 0; j < classes; ++j) s += std::exp(static_cast<double>(row[j] - m));
  return static_cast<double>(m) + std::log(s);
}

int64_t row_grain(int64_t classes) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, classes)); }

// The options of CrossEntropy and its backward (attributes, and the weight input at index wi).
template <typename T>
struct CEOptions {
  int64_t ignore_index;
  double smoothing;
  const T* weight;  // null: every class weighs 1
  int reduction;    // 0 none, 1 sum, 2 mean
  double weight_of(int64_t j) const { return weight ? static_cast<double>(weight[j]) : 1.0; }
};

template <typename T>
CEOptions<T> ce_options(const KernelContext& c, size_t wi) {
  const SoftmaxAttrs a = SoftmaxAttrs::from(c.attrs);
  return CEOptions<T>{a.ignore_index, a.label_smoothing, c.inputs.size() > wi ? c.inputs[wi].data<T>() : nullptr,
                      static_cast<int>(a.reduction)};
}

// sum_n w_{y_n} over the rows not ignored: the divisor of "mean".
template <typename T>
double ce_total_weight(const CEOptions<T>& o, const int64_t* y, int64_t n) {
  double total = 0;
  for (int64_t r = 0; r < n; ++r) {
    if (y[r] != o.ignore_index) total += o.weight_of(y[r]);
  }
  return total;
}

template <typename T>
void cross_entropy(const KernelContext& c) {
  const Tensor& logits = c.inputs[0];
  const int64_t n = logits.shape()[0], classes = logits.shape()[1];
  const CEOptions<T> o = ce_options<T>(c, 2);
  check_labels(c, c.inputs[1], classes, o.ignore_index);
  const T* x = logits.data<T>();
  const int64_t* y = c.inputs[1].data<int64_t>();
  double total_w = 0;
  for (int64_t j = 0; j < classes && o.smoothing > 0; ++j) total_w += o.weight_of(j);
  std::vector<double> row_loss(static_cast<size_t>(n));
  parallel_for(n, row_grain(classes), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      if (y[r] == o.ignore_index) {
        row_loss[static_cast<size_t>(r)] = 0.0;
        continue;
      }
      const T* row = x + r * classes;
      const double lse = row_lse(row, classes);
      double loss = (1.0 - o.smoothing) * o.weight_of(y[r]) * (lse - static_cast<double>(row[y[r]]));
      if (o.smoothing > 0) {
        double wx = 0;
        for (int64_t j = 0; j < classes; ++j) wx += o.weight_of(j) * static_cast<double>(row[j]);
        loss += o.smoothing / static_cast<double>(classes) * (total_w * lse - wx);
      }
      row_loss[static_cast<size_t>(r)] = loss;
    }
  });
  if (o.reduction == 0) {
    T* out = c.outputs[0].data<T>();
    for (int64_t r = 0; r < n; ++r) out[r] = static_cast<T>(row_loss[static_cast<size_t>(r)]);
    return;
  }
  double total = 0;
  for (double l : row_loss) total += l;
  if (o.reduction == 2) total /= ce_total_weight(o, y, n);  // 0 / 0 = NaN when nothing counts, as in PyTorch
  *c.outputs[0].data<T>() = static_cast<T>(total);
}

template <typename T>
void cross_entropy_backward(const KernelContext& c) {
  const Tensor& logits = c.inputs[1];
  const int64_t n = logits.shape()[0], classes = logits.shape()[1];
  const CEOptions<T> o = ce_options<T>(c, 3);
  check_labels(c, c.inputs[2], classes, o.ignore_index);
  const T* x = logits.data<T>();
  const int64_t* y = c.inputs[2].data<int64_t>();
  const T* g = c.inputs[0].data<T>();
  T* dx = c.outputs[0].data<T>();
  const double divisor = o.reduction == 2 ? ce_total_weight(o, y, n) : 1.0;
  double total_w = 0;
  for (int64_t j = 0; j < classes && o.smoothing > 0; ++j) total_w += o.weight_of(j);
  const double e = o.smoothing, e_c = o.smoothing / static_cast<double>(classes);
  parallel_for(n, row_grain(classes), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      T* drow = dx + r * classes;
      if (y[r] == o.ignore_index) {
        std::fill(drow, drow + classes, T(0));
        continue;
      }
      const T* row = x + r * classes;
      const double lse = row_lse(row, classes);
      const double scale = static_cast<double>(o.reduction == 0 ? g[r] : g[0]) / divisor;
      const double wy = (1.0 - e) * o.weight_of(y[r]);
      for (int64_t j = 0; j < classes; ++j) {
        const double p = std::exp(static_cast<double>(row[j]) - lse);
        double d = wy * (p - (j == y[r] ? 1.0 : 0.0));
        if (e > 0) d += e_c * (total_w * p - o.weight_of(j));
        drow[j] = static_cast<T>(scale * d);
      }
    }
  });
}

}  // namespace

void register_cpu_softmax_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/softmax.def"
}

}  // namespace glassgrad
