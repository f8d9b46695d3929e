// Elementwise CPU kernels.
//   binary:      out[i] = f(a[bcast(i)], b[bcast(i)])      (NumPy broadcasting, any strides)
//   scalar:      out[i] = f(x[i], value)
//   unary:       out[i] = f(x[i])
//   comparisons: out[i] = (a ? b)  as bool
//   Where:       out[i] = cond[i] ? a[i] : b[i]
//   backward maps of ReLU/Sigmoid/Tanh: dx[i] = f(grad[i], saved[i])
// Inputs may have any strides (stride 0 on broadcast axes); outputs are dense. The inner loop
// is a plain indexed loop over one collapsed row, which the compiler vectorizes when every
// operand has unit stride.
#include <cmath>

#include "glassgrad/runtime/kernel.h"
#include "loops.h"

namespace glassgrad {

namespace {

using cpu::broadcast_strides;
using cpu::for_each_row;

template <typename T, typename R, typename F>
void binary_map(const KernelContext& c, F f) {
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const Tensor& out = c.outputs[0];
  const Shape& shape = out.shape();
  for_each_row<R, const T, const T>(
      shape, {out.strides(), broadcast_strides(a, shape), broadcast_strides(b, shape)},
      std::make_tuple(out.data<R>(), a.data<const T>(), b.data<const T>()),
      [f](auto p, int64_t n, const std::array<int64_t, 3>& s) {
        R* o = std::get<0>(p);
        const T* x = std::get<1>(p);
        const T* y = std::get<2>(p);
        if (s[1] == 1 && s[2] == 1) {
          for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
        } else if (s[1] == 1 && s[2] == 0) {
          const T yv = y[0];
          for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
        } else if (s[1] == 0 && s[2] == 1) {
          const T xv = x[0];
          for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) o[i] = f(x[i * s[1]], y[i * s[2]]);
        }
      });
}

template <typename T, typename F>
void unary_map(const KernelContext& c, F f) {
  const Tensor& x = c.inputs[0];
  const Tensor& out = c.outputs[0];
  for_each_row<T, const T>(out.shape(), {out.strides(), x.strides()},
                           std::make_tuple(out.data<T>(), x.data<const T>()),
                           [f](auto p, int64_t n, const std::array<int64_t, 2>& s) {
                             T* o = std::get<0>(p);
                             const T* a = std::get<1>(p);
                             if (s[1] == 1) {
                               for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
                             } else {
                               for (int64_t i = 0; i < n; ++i) o[i] = f(a[i * s[1]]);
                             }
                           });
}

// ---- kernels (one template per op; registered per dtype below) ----
template <typename T> void add(const KernelContext& c) { binary_map<T, T>(c, [](T a, T b) { return a + b; }); }
template <typename T> void sub(const KernelContext& c) { binary_map<T, T>(c, [](T a, T b) { return a - b; }); }
template <typename T> void mul(const KernelContext& c) { binary_map<T, T>(c, [](T a, T b) { return a * b; }); }
template <typename T> void div(const KernelContext& c) { binary_map<T, T>(c, [](T a, T b) { return a / b; }); }
template <typename T> void maximum(const KernelContext& c) {
  binary_map<T, T>(c, [](T a, T b) { return (a >= b || a != a) ? a : b; });  // NaN propagates
}
template <typename T> void minimum(const KernelContext& c) {
  binary_map<T, T>(c, [](T a, T b) { return (a <= b || a != a) ? a : b; });
}
template <typename T> void equal(const KernelContext& c) { binary_map<T, bool>(c, [](T a, T b) { return a == b; }); }
template <typename T> void not_equal(const KernelContext& c) { binary_map<T, bool>(c, [](T a, T b) { return a != b; }); }
template <typename T> void less(const KernelContext& c) { binary_map<T, bool>(c, [](T a, T b) { return a < b; }); }
template <typename T> void less_equal(const KernelContext& c) { binary_map<T, bool>(c, [](T a, T b) { return a <= b; }); }
template <typename T> void greater(const KernelContext& c) { binary_map<T, bool>(c, [](T a, T b) { return a > b; }); }
template <typename T> void greater_equal(const KernelContext& c) { binary_map<T, bool>(c, [](T a, T b) { return a >= b; }); }

template <typename T> void add_scalar(const KernelContext& c) {
  const T v = static_cast<T>(c.attrs.f("value"));
  unary_map<T>(c, [v](T x) { return x + v; });
}
template <typename T> void mul_scalar(const KernelContext& c) {
  const T v = static_cast<T>(c.attrs.f("value"));
  unary_map<T>(c, [v](T x) { return x * v; });
}
template <typename T> void pow_scalar(const KernelContext& c) {
  const T p = static_cast<T>(c.attrs.f("exponent"));
  if (p == T(2)) return unary_map<T>(c, [](T x) { return x * x; });
  if (p == T(1)) return unary_map<T>(c, [](T x) { return x; });
  if (p == T(0.5)) return unary_map<T>(c, [](T x) { return std::sqrt(x); });
  if (p == T(-1)) return unary_map<T>(c, [](T x) { return T(1) / x; });
  unary_map<T>(c, [p](T x) { return std::pow(x, p); });
}
template <typename T> void rdiv_scalar(const KernelContext& c) {
  const T v = static_cast<T>(c.attrs.f("value"));
  unary_map<T>(c, [v](T x) { return v / x; });
}

template <typename T> void neg(const KernelContext& c) { unary_map<T>(c, [](T x) { return -x; }); }
template <typename T> void exp_(const KernelContext& c) { unary_map<T>(c, [](T x) { return std::exp(x); }); }
template <typename T> void log_(const KernelContext& c) { unary_map<T>(c, [](T x) { return std::log(x); }); }
template <typename T> void sqrt_(const KernelContext& c) { unary_map<T>(c, [](T x) { return std::sqrt(x); }); }
template <typename T> void relu(const KernelContext& c) { unary_map<T>(c, [](T x) { return x > T(0) ? x : T(0); }); }
template <typename T> void sigmoid(const KernelContext& c) {
  // Stable for large |x|: exp of a non-positive number only.
  unary_map<T>(c, [](T x) {
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  });
}
template <typename T> void tanh_(const KernelContext& c) { unary_map<T>(c, [](T x) { return std::tanh(x); }); }

// Backward maps: inputs (grad, saved) have the output's shape.
template <typename T> void relu_backward(const KernelContext& c) {
  binary_map<T, T>(c, [](T g, T x) { return x > T(0) ? g : T(0); });
}
template <typename T> void sigmoid_backward(const KernelContext& c) {
  binary_map<T, T>(c, [](T g, T y) { return g * y * (T(1) - y); });
}
template <typename T> void tanh_backward(const KernelContext& c) {
  binary_map<T, T>(c, [](T g, T y) { return g * (T(1) - y * y); });
}

template <typename T> void where(const KernelContext& c) {
  const Tensor& cond = c.inputs[0];
  const Tensor& a = c.inputs[1];
  const Tensor& b = c.inputs[2];
  const Tensor& out = c.outputs[0];
  const Shape& shape = out.shape();
  for_each_row<T, const bool, const T, const T>(
      shape, {out.strides(), broadcast_strides(cond, shape), broadcast_strides(a, shape), broadcast_strides(b, shape)},
      std::make_tuple(out.data<T>(), cond.data<const bool>(), a.data<const T>(), b.data<const T>()),
      [](auto p, int64_t n, const std::array<int64_t, 4>& s) {
        T* o = std::get<0>(p);
        const bool* k = std::get<1>(p);
        const T* x = std::get<2>(p);
        const T* y = std::get<3>(p);
        for (int64_t i = 0; i < n; ++i) o[i] = k[i * s[1]] ? x[i * s[2]] : y[i * s[3]];
      });
}

template <typename T>
void register_float(KernelRegistry& r, DType dt) {
  const DeviceType cpu = DeviceType::CPU;
  r.add("Div", cpu, dt, div<T>);
  r.add("PowScalar", cpu, dt, pow_scalar<T>);
  r.add("RDivScalar", cpu, dt, rdiv_scalar<T>);
  r.add("Exp", cpu, dt, exp_<T>);
  r.add("Log", cpu, dt, log_<T>);
  r.add("Sqrt", cpu, dt, sqrt_<T>);
  r.add("ReLU", cpu, dt, relu<T>);
  r.add("Sigmoid", cpu, dt, sigmoid<T>);
  r.add("Tanh", cpu, dt, tanh_<T>);
  r.add("ReLUBackward", cpu, dt, relu_backward<T>);
  r.add("SigmoidBackward", cpu, dt, sigmoid_backward<T>);
  r.add("TanhBackward", cpu, dt, tanh_backward<T>);
}

template <typename T>
void register_numeric(KernelRegistry& r, DType dt) {
  const DeviceType cpu = DeviceType::CPU;
  r.add("Add", cpu, dt, add<T>);
  r.add("Sub", cpu, dt, sub<T>);
  r.add("Mul", cpu, dt, mul<T>);
  r.add("Maximum", cpu, dt, maximum<T>);
  r.add("Minimum", cpu, dt, minimum<T>);
  r.add("AddScalar", cpu, dt, add_scalar<T>);
  r.add("MulScalar", cpu, dt, mul_scalar<T>);
  r.add("Neg", cpu, dt, neg<T>);
}

template <typename T>
void register_compare(KernelRegistry& r, DType dt) {
  const DeviceType cpu = DeviceType::CPU;
  r.add("Equal", cpu, dt, equal<T>);
  r.add("NotEqual", cpu, dt, not_equal<T>);
  r.add("Less", cpu, dt, less<T>);
  r.add("LessEqual", cpu, dt, less_equal<T>);
  r.add("Greater", cpu, dt, greater<T>);
  r.add("GreaterEqual", cpu, dt, greater_equal<T>);
  r.add("Where", cpu, dt, where<T>);
}

}  // namespace

void register_cpu_elementwise_kernels(KernelRegistry& r) {
  register_float<float>(r, DType::Float32);
  register_float<double>(r, DType::Float64);
  register_numeric<float>(r, DType::Float32);
  register_numeric<double>(r, DType::Float64);
  register_numeric<int64_t>(r, DType::Int64);
  register_numeric<uint8_t>(r, DType::UInt8);
  register_compare<float>(r, DType::Float32);
  register_compare<double>(r, DType::Float64);
  register_compare<int64_t>(r, DType::Int64);
  register_compare<uint8_t>(r, DType::UInt8);
  register_compare<bool>(r, DType::Bool);
}

}  // namespace glassgrad
