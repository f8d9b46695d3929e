// Carves 64-byte aligned buffers out of a kernel's workspace, in a fixed order, so that a size
// function (base null: only counts) and the kernel agree on the layout (the recurrent drivers:
// kernels/cpu/recurrent.cpp, lstm_units.cpp; the Winograd convolution, conv_winograd.cpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cpu/rounding.h"

namespace glassgrad {
namespace cpu {

class Carver {
 public:
  explicit Carver(void* base) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(base);
    base_ = base ? reinterpret_cast<char*>(align_up(a)) : nullptr;
  }
  template <typename T>
  T* take(int64_t elems) {
    char* p = base_ ? base_ + used_ : nullptr;
    const size_t bytes = static_cast<size_t>(std::max<int64_t>(elems, 0)) * sizeof(T);
    used_ += align_up(bytes);
    return reinterpret_cast<T*>(p);
  }
  size_t used() const { return used_; }             // bytes carved so far, from the aligned base
  size_t total() const { return used_ + kAlign; }  // + kAlign: room to align the base

 private:
  char* base_ = nullptr;
  size_t used_ = 0;
};

}  // namespace cpu
}  // namespace glassgrad
