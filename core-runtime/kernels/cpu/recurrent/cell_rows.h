// The contract between the recurrent drivers (kernels/cpu/recurrent.cpp, baseline ISA) and the
// float cell passes compiled per ISA (cells_impl.h in cells_{generic,avx2,avx512}.cpp), as
// gemm_kernel.h is for the GEMM: a table of plain function pointers, one row of one step each
// (cells.h says what each reads and writes).
#pragma once
#include <cstdint>

namespace glassgrad {
namespace cpu {

struct CellRowsF32 {
  void (*lstm)(float* g, int64_t gs, const float* rec, int64_t rs, float* c, float* h, int64_t n);
  void (*lstm_backward)(const float* g, int64_t gs, const float* c_prev, const float* dh, float* dc, float* dp,
                        int64_t ps, int64_t n);
  void (*gru)(float* g, const float* rec, const float* b_hn, float* h, float* y, int64_t H);
  void (*gru_backward)(const float* g, const float* h_prev, float* dh, float* dpx, float* dph, int64_t H);
  void (*rnn)(float* y, const float* rec, float* h, int64_t H, bool relu);
  void (*rnn_backward)(const float* y, const float* dh, float* dp, int64_t H, bool relu);
};

namespace recurrent_generic {
const CellRowsF32& cell_rows();
}
namespace recurrent_avx2 {
const CellRowsF32& cell_rows();
}
namespace recurrent_avx512 {
const CellRowsF32& cell_rows();
}

}  // namespace cpu
}  // namespace glassgrad
