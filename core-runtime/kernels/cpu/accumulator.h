// The type a CPU reduction or scan accumulates element type T in: double for floating-point
// types (a float32 sum of many terms keeps float64's rounding until its one final cast), T itself
// for integers and bool.
#pragma once
#include <type_traits>

namespace glassgrad {
namespace cpu {

template <typename T> using Accumulator = std::conditional_t<std::is_floating_point_v<T>, double, T>;

}  // namespace cpu
}  // namespace glassgrad
