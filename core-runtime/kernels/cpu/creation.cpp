// Creation and conversion kernels (families/creation.def): Full, Cast, ToDevice.
#include "cpu/registration.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/kernel.h"
#include "half_rules.h"
#include "loops.h"

namespace glassgrad {

namespace {

void full(const KernelContext& c) { fill_tensor(c.outputs[0], c.attrs.f("value")); }

// The 16-bit floating types as stored bits (half_rules.h converts them).
struct HalfBits {
  uint16_t bits;
};
struct BFloat16Bits {
  uint16_t bits;
};

// A stored element as the value it converts from: integers stay exact, the 16-bit floats widen to
// float (every conversion out of them goes through float32, as PyTorch's).
template <typename T>
auto widen(T v) {
  if constexpr (std::is_same_v<T, HalfBits>) return half_rules::half_to_float(v.bits);
  else if constexpr (std::is_same_v<T, BFloat16Bits>) return half_rules::bfloat16_to_float(v.bits);
  else return v;
}

// One element converted (docs/dtypes.md "Casts"): to bool, nonzero; into the 16-bit floats through
// float32 rounded to nearest even; a float into an integer truncates toward zero through int64 and
// an integer into a narrower one keeps the low bits (two's complement wrap-around, C's casts).
template <typename To, typename From>
To convert(From x) {
  const auto v = widen(x);
  using V = decltype(v);
  if constexpr (std::is_same_v<To, bool>) {
    return v != V(0);
  } else if constexpr (std::is_same_v<To, HalfBits>) {
    return HalfBits{half_rules::float_to_half(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<To, BFloat16Bits>) {
    return BFloat16Bits{half_rules::float_to_bfloat16(static_cast<float>(v))};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<V>) {
    return static_cast<To>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <typename From, typename To>
void cast_typed(const Tensor& out, const Tensor& x) {
  cpu::for_each_row<To, const From>(out.shape(), {out.strides(), x.strides()},
                                    std::make_tuple(static_cast<To*>(out.data_ptr()),
                                                    static_cast<const From*>(x.data_ptr())),
                                    [](auto p, int64_t n, const std::array<int64_t, 2>& s) {
                                      To* o = std::get<0>(p);
                                      const From* a = std::get<1>(p);
                                      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = convert<To>(a[i * s[1]]);
                                    });
}

// Calls f(T{}) with the element type of dt.
template <typename F>
void with_element(DType dt, F&& f) {
  switch (dt) {
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Int64: return f(int64_t{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Bool: return f(bool{});
    case DType::Int8: return f(int8_t{});
    case DType::Int16: return f(int16_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Float16: return f(HalfBits{});
    case DType::BFloat16: return f(BFloat16Bits{});
  }
}

// out (any strides) = convert(x), between every pair of dtypes.
void cast(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const Tensor& x = c.inputs[0];
  with_element(x.dtype(), [&](auto from) {
    with_element(out.dtype(), [&](auto to) { cast_typed<decltype(from), decltype(to)>(out, x); });
  });
}

void to_device(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0]); }

}  // namespace

// Every dtype, the storage types included (compute_dtypes.h: the ops that take them as they are):
// one function each, for all of them.
void register_cpu_creation_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_UNTYPED_KERNEL
#include "glassgrad/autodiff/families/creation.def"
}

}  // namespace glassgrad
