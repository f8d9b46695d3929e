// norm_loops.h's loops for one instruction set, included by norm_loops_{generic,avx2,avx512}.cpp
// after defining GG_NORM_NS. Sums over one run use kLanes independent double accumulators,
// added in a fixed order at the end: the compiler vectorizes the lanes (no reassociation is
// needed), so the result depends neither on the ISA nor on the thread count. The ISA copies are
// compiled with -ffp-contract=off (core-runtime/CMakeLists.txt), so no a * b + c is rounded once
// where the baseline rounds twice.
#if !defined(GG_NORM_NS)
#error "define GG_NORM_NS before including norm_loops_impl.h"
#endif
#include "norm_loops.h"

namespace glassgrad {
namespace cpu {
namespace GG_NORM_NS {
namespace {

constexpr int kLanes = 8;

inline double fold(const double* acc) {
  double s = 0;
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  return s;
}

template <typename T>
double run_sum(const T* p, int64_t n) {
  double a[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) a[l] += static_cast<double>(p[i + l]);
  }
  for (int l = 0; i < n; ++i, ++l) a[l] += static_cast<double>(p[i]);
  return fold(a);
}

template <typename T>
void run_deviation_sums(const T* p, int64_t n, double center, double* sum, double* sumsq) {
  double a[kLanes] = {}, b[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const double v = static_cast<double>(p[i + l]) - center;
      a[l] += v;
      b[l] += v * v;
    }
  }
  for (int l = 0; i < n; ++i, ++l) {
    const double v = static_cast<double>(p[i]) - center;
    a[l] += v;
    b[l] += v * v;
  }
  *sum += fold(a);
  *sumsq += fold(b);
}

template <typename T>
void run_grad_sums(const T* g, const T* x, int64_t n, double center, double* sg, double* sgd) {
  double a[kLanes] = {}, b[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const double gi = g[i + l];
      a[l] += gi;
      b[l] += gi * (static_cast<double>(x[i + l]) - center);
    }
  }
  for (int l = 0; i < n; ++i, ++l) {
    const double gi = g[i];
    a[l] += gi;
    b[l] += gi * (static_cast<double>(x[i]) - center);
  }
  *sg += fold(a);
  *sgd += fold(b);
}

template <typename T>
void run_affine(const T* __restrict x, const T* __restrict residual, T* __restrict y, int64_t n, T s, T b,
                bool relu) {
  if (residual) {
    for (int64_t i = 0; i < n; ++i) {
      const T t = x[i] * s + b;
      const T v = t + residual[i];
      y[i] = relu && !(v > T(0)) ? T(0) : v;
    }
  } else if (relu) {
    for (int64_t i = 0; i < n; ++i) {
      const T v = x[i] * s + b;
      y[i] = v > T(0) ? v : T(0);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s + b;
  }
}

template <typename T>
void run_combine(const T* __restrict g, const T* __restrict x, T* __restrict dx, int64_t n, T a, T b, T k) {
  for (int64_t i = 0; i < n; ++i) dx[i] = a * g[i] + b * x[i] + k;
}

template <typename T>
const NormLoops<T>& loops() {
  static const NormLoops<T> l{run_sum<T>, run_deviation_sums<T>, run_grad_sums<T>, run_affine<T>, run_combine<T>};
  return l;
}

}  // namespace

const NormLoops<float>& loops_f32() { return loops<float>(); }
const NormLoops<double>& loops_f64() { return loops<double>(); }

}  // namespace GG_NORM_NS
}  // namespace cpu
}  // namespace glassgrad
