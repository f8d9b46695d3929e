// The float cell passes of one ISA (cell_rows.h), included by cells_{generic,avx2,avx512}.cpp
// after defining GG_RECURRENT_NS. Everything the table points to is instantiated here with a
// math policy of internal linkage, so each ISA's code stays in its own file. Compiled without
// trapping math: GCC keeps a select of a float comparison (fast_math.h's clamps and blends) a
// branch otherwise, and the loops would not vectorize (no floating-point exceptions are read
// anywhere in glassgrad).
#if !defined(GG_RECURRENT_NS)
#error "define GG_RECURRENT_NS before including cells_impl.h"
#endif
#pragma GCC optimize("no-trapping-math")

#include "cell_rows.h"
#include "cells.h"
#include "fast_math.h"

namespace glassgrad {
namespace cpu {
namespace GG_RECURRENT_NS {

namespace {

struct Math {
  static float sigmoid(float x) { return fast_sigmoid(x); }
  static float tanh(float x) { return fast_tanh(x); }
};

}  // namespace

const CellRowsF32& cell_rows() {
  static const CellRowsF32 rows{lstm_row<float, Math>,      lstm_backward_row<float, Math>, gru_row<float, Math>,
                                gru_backward_row<float, Math>, rnn_row<float, Math>,        rnn_backward_row<float, Math>};
  return rows;
}

}  // namespace GG_RECURRENT_NS
}  // namespace cpu
}  // namespace glassgrad
