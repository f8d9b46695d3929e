// Elementwise CPU kernels: one per row of elementwise_ops.def and dtype it accepts, each the
// row's scalar function (elementwise_scalar.h) mapped over the output, plus Where.
//   Unary:           out[i] = f(x[i], s)                      (s: the scalar attribute, or 0)
//   Binary/Compare:  out[i] = f(a[bcast(i)], b[bcast(i)], s)  (NumPy broadcasting, any strides)
//   Backward maps:   dx[i] = f(grad[i], saved[i], s)
//   Where:           out[i] = cond[i] ? a[i] : b[i]
// Inputs may have any strides (stride 0 on broadcast axes); outputs are dense. The inner loop
// is a plain indexed loop over one collapsed row, which the compiler vectorizes when every
// operand has unit stride. float32 GELU and GELUBackward run such rows in loops compiled for
// AVX2 or AVX-512 when the CPU has them (gelu_impl.h; the same bits as the baseline loop).
#include <type_traits>

#include "cpu/gelu.h"
#include "cpu/registration.h"
#include "glassgrad/autodiff/elementwise.h"
#include "glassgrad/runtime/cpu_features.h"
#include "glassgrad/runtime/kernel.h"
#include "loops.h"

namespace glassgrad {

namespace {

using cpu::broadcast_strides;
using cpu::for_each_row;

// No dense-run function: the plain loop serves unit strides too.
struct NoDenseRun {};

template <typename T, typename R, typename F, typename D = NoDenseRun>
void binary_map(const KernelContext& c, F f, D dense = {}) {
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const Tensor& out = c.outputs[0];
  const Shape& shape = out.shape();
  for_each_row<R, const T, const T>(
      shape, {out.strides(), broadcast_strides(a, shape), broadcast_strides(b, shape)},
      std::make_tuple(out.data<R>(), a.data<const T>(), b.data<const T>()),
      [f, dense](auto p, int64_t n, const std::array<int64_t, 3>& s) {
        R* o = std::get<0>(p);
        const T* x = std::get<1>(p);
        const T* y = std::get<2>(p);
        if (s[1] == 1 && s[2] == 1) {
          if constexpr (!std::is_same<D, NoDenseRun>::value) {
            dense(o, x, y, n);
            return;
          }
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

template <typename T, typename F, typename D = NoDenseRun>
void unary_map(const KernelContext& c, F f, D dense = {}) {
  const Tensor& x = c.inputs[0];
  const Tensor& out = c.outputs[0];
  for_each_row<T, const T>(out.shape(), {out.strides(), x.strides()},
                           std::make_tuple(out.data<T>(), x.data<const T>()),
                           [f, dense](auto p, int64_t n, const std::array<int64_t, 2>& s) {
                             T* o = std::get<0>(p);
                             const T* a = std::get<1>(p);
                             if (s[1] == 1) {
                               if constexpr (!std::is_same<D, NoDenseRun>::value) {
                                 dense(o, a, n);
                                 return;
                               }
                               for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
                             } else {
                               for (int64_t i = 0; i < n; ++i) o[i] = f(a[i * s[1]]);
                             }
                           });
}

// float32 GELU / GELUBackward through the loops of the CPU's instruction set (gelu.h); false
// when the CPU has neither AVX2 nor AVX-512 (the baseline loop runs).
template <ElementwiseOp OP>
bool gelu_simd(const KernelContext& c) {
  const CpuIsa isa = cpu_isa();
  if (isa == CpuIsa::Generic) return false;
  const bool wide = isa == CpuIsa::Avx512;
  if constexpr (OP == ElementwiseOp::GELU) {
    auto run = wide ? cpu::gelu_avx512::gelu_f32 : cpu::gelu_avx2::gelu_f32;
    unary_map<float>(c, [](float x) { return gg_gelu<float>(x); },
                     [run](float* o, const float* x, int64_t n) { run(o, x, n); });
  } else {
    auto run = wide ? cpu::gelu_avx512::gelu_backward_f32 : cpu::gelu_avx2::gelu_backward_f32;
    binary_map<float, float>(c, [](float g, float x) { return g * gg_gelu_grad<float>(x); },
                             [run](float* o, const float* g, const float* x, int64_t n) { run(o, g, x, n); });
  }
  return true;
}

// The kernel of row OP for element type T.
template <ElementwiseOp OP, typename T>
void elementwise(const KernelContext& c) {
  using E = Elementwise<OP>;
  if constexpr (std::is_same<T, float>::value && (OP == ElementwiseOp::GELU || OP == ElementwiseOp::GELUBackward)) {
    if (gelu_simd<OP>(c)) return;
  }
  const T s = E::has_scalar ? static_cast<T>(c.attrs.f(elementwise_info(OP).scalar)) : T(0);
  if constexpr (E::kind == ElementwiseKind::Unary) {
    unary_map<T>(c, [s](T x) { return E::f(x, T(0), s); });
  } else if constexpr (E::kind == ElementwiseKind::Compare) {
    binary_map<T, bool>(c, [s](T a, T b) { return E::f(a, b, s); });
  } else {
    binary_map<T, T>(c, [s](T a, T b) { return E::f(a, b, s); });
  }
}

template <ElementwiseOp OP, typename T>
void add_if_accepted(KernelRegistry& r, DType dt, const char* name) {
  if constexpr (ElementwiseAccepts<Elementwise<OP>::dtypes, T>::value) {
    r.add(name, DeviceType::CPU, dt, elementwise<OP, T>);
  }
}

// Row OP's kernels, registered under its name.
template <ElementwiseOp OP>
void add_row(KernelRegistry& r) {
  const char* name = elementwise_info(OP).name;
  add_if_accepted<OP, float>(r, DType::Float32, name);
  add_if_accepted<OP, double>(r, DType::Float64, name);
  add_if_accepted<OP, int64_t>(r, DType::Int64, name);
  add_if_accepted<OP, uint8_t>(r, DType::UInt8, name);
  add_if_accepted<OP, bool>(r, DType::Bool, name);
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

// AddScalarInPlace (families/elementwise.def): AddScalar's kernels with the input's buffer as the
// output (the in-place output), each element read, then written; the row's dtypes are AddScalar's.
static_assert(Elementwise<ElementwiseOp::AddScalar>::dtypes == ElementwiseDTypes::Numeric,
              "AddScalarInPlace's row in families/elementwise.def must declare AddScalar's dtypes");
template <typename T>
constexpr KernelFn add_scalar_in_place = elementwise<ElementwiseOp::AddScalar, T>;

}  // namespace

void register_cpu_elementwise_kernels(KernelRegistry& r) {
#define GG_ELEMENTWISE(Name, ...) add_row<ElementwiseOp::Name>(r);
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/elementwise.def"
}

}  // namespace glassgrad
