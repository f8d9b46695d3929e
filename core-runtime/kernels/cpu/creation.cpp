// Creation and conversion kernels: Full, Cast, ToDevice.
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/kernel.h"
#include "loops.h"

namespace glassgrad {

namespace {

void full(const KernelContext& c) { fill_tensor(c.outputs[0], c.attrs.f("value")); }

template <typename From, typename To>
void cast_typed(const Tensor& out, const Tensor& x) {
  cpu::for_each_row<To, const From>(out.shape(), {out.strides(), x.strides()},
                               std::make_tuple(out.data<To>(), static_cast<const From*>(x.data_ptr())),
                               [](auto p, int64_t n, const std::array<int64_t, 2>& s) {
                                 To* o = std::get<0>(p);
                                 const From* a = std::get<1>(p);
                                 for (int64_t i = 0; i < n; ++i) {
                                   if constexpr (std::is_same_v<To, bool>) o[i * s[0]] = a[i * s[1]] != From(0);
                                   else o[i * s[0]] = static_cast<To>(a[i * s[1]]);
                                 }
                               });
}

template <typename From>
void cast(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const Tensor& x = c.inputs[0];
  switch (out.dtype()) {
    case DType::Float32: cast_typed<From, float>(out, x); break;
    case DType::Float64: cast_typed<From, double>(out, x); break;
    case DType::Int64: cast_typed<From, int64_t>(out, x); break;
    case DType::UInt8: cast_typed<From, uint8_t>(out, x); break;
    case DType::Bool: cast_typed<From, bool>(out, x); break;
  }
}

void to_device(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0]); }

}  // namespace

void register_cpu_creation_kernels(KernelRegistry& r) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Bool}) {
    r.add("Full", DeviceType::CPU, dt, full);
    r.add("ToDevice", DeviceType::CPU, dt, to_device);
  }
  r.add("Cast", DeviceType::CPU, DType::Float32, cast<float>);
  r.add("Cast", DeviceType::CPU, DType::Float64, cast<double>);
  r.add("Cast", DeviceType::CPU, DType::Int64, cast<int64_t>);
  r.add("Cast", DeviceType::CPU, DType::UInt8, cast<uint8_t>);
  r.add("Cast", DeviceType::CPU, DType::Bool, cast<bool>);
}

}  // namespace glassgrad
