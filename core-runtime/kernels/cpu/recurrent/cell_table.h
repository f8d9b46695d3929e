// The cell passes of T for the recurrent drivers (kernels/cpu/recurrent.cpp and
// lstm_units.cpp): float through this CPU's table (cell_rows.h, one per ISA), double with libm.
#pragma once
#include <cstdint>

#include "cell_rows.h"
#include "cells.h"
#include "glassgrad/runtime/cpu_features.h"

namespace glassgrad {
namespace cpu {

template <typename T>
struct Cells;
template <>
struct Cells<float> {
  static const CellRowsF32& rows() {
    switch (cpu_isa()) {
      case CpuIsa::Avx512: return recurrent_avx512::cell_rows();
      case CpuIsa::Avx2: return recurrent_avx2::cell_rows();
      default: return recurrent_generic::cell_rows();
    }
  }
};
template <>
struct Cells<double> {
  typedef recurrent_cell::ExactMath<double> M;
  static const Cells& rows() {
    static const Cells c;
    return c;
  }
  void (*lstm)(double*, int64_t, const double*, int64_t, double*, double*, int64_t) = lstm_row<double, M>;
  void (*lstm_backward)(const double*, int64_t, const double*, const double*, double*, double*, int64_t, int64_t) =
      lstm_backward_row<double, M>;
  void (*gru)(double*, const double*, const double*, double*, double*, int64_t) = gru_row<double, M>;
  void (*gru_backward)(const double*, const double*, double*, double*, double*, int64_t) = gru_backward_row<double, M>;
  void (*rnn)(double*, const double*, double*, int64_t, bool) = rnn_row<double, M>;
  void (*rnn_backward)(const double*, const double*, double*, int64_t, bool) = rnn_backward_row<double, M>;
};

}  // namespace cpu
}  // namespace glassgrad
