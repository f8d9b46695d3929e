// CPU registrations from a family's declaration (glassgrad/autodiff/family.h): every row's
// Kernel<T>, for each element type T of its dtype set. A family's kernel file ends with
//   void register_cpu_pool_kernels(KernelRegistry& r) {
//   #define GG_OP GG_ADD_CPU_KERNEL
//   #include "glassgrad/autodiff/families/pool.def"
//   }
// A family whose kernels are one function for every dtype (they move bytes, or switch on the
// dtype themselves: movement, creation) expands its rows with GG_ADD_CPU_UNTYPED_KERNEL instead,
// which registers Kernel itself for each dtype of the row's set.
#pragma once
#include <cstdint>

#include "glassgrad/autodiff/family.h"
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {
namespace cpu {

template <typename T>
struct Element {
  using type = T;
};

// Calls f(Element<T>{}) for the element type T of each dtype in Set (bool for Bool, uint8_t for
// UInt8), with the dtype.
template <DTypeSet Set, typename F>
void for_each_element(F&& f) {
  static_assert(Set != DTypeSet::Every, "the storage types have no element type here: GG_ADD_CPU_UNTYPED_KERNEL");
  f(Element<float>{}, DType::Float32);
  f(Element<double>{}, DType::Float64);
  if constexpr (Set != DTypeSet::Float) {
    f(Element<int64_t>{}, DType::Int64);
    if constexpr (Set != DTypeSet::FloatInt64) {
      f(Element<uint8_t>{}, DType::UInt8);
      if constexpr (Set != DTypeSet::Numeric) f(Element<bool>{}, DType::Bool);
    }
  }
}

}  // namespace cpu
}  // namespace glassgrad

#define GG_ADD_CPU_KERNEL(Name, Kernel, DTypes, Inputs, Outputs, Formula)                    \
  ::glassgrad::cpu::for_each_element<::glassgrad::DTypeSet::DTypes>([&r](auto e, ::glassgrad::DType dt) { \
    using T = typename decltype(e)::type;                                                     \
    r.add(#Name, ::glassgrad::DeviceType::CPU, dt, ::glassgrad::kernel_entry(Kernel<T>));     \
  });
#define GG_ADD_CPU_UNTYPED_KERNEL(Name, Kernel, DTypes, Inputs, Outputs, Formula)           \
  for (::glassgrad::DType dt : ::glassgrad::dtypes_of(::glassgrad::DTypeSet::DTypes)) {      \
    r.add(#Name, ::glassgrad::DeviceType::CPU, dt, ::glassgrad::kernel_entry(Kernel));       \
  }
