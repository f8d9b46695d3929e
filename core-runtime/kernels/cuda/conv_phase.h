// The strided input gradient's phases (conv.cu's BinA/BinB), shared by the launcher
// (kernels/cuda/conv.cpp) and the runtime tests that run the kernels on the CPU.
#pragma once
#include <algorithm>
#include <cstdint>

#include "fast_div.h"
#include "params.h"

namespace glassgrad {
namespace cuda {
namespace conv {

// Backward-input phase (ph, pw) of the strides (see GGConvGemm in params.h): its sub-image of
// dx, the taps that reach it and where they read dy. Stride 1 has the single phase (0, 0).
inline void set_phase(GGConvGemm& q, const GGConv& g, int64_t ph, int64_t pw) {
  const auto one_axis = [](int64_t p, int64_t stride, int64_t pad, int64_t taps, int64_t size, int32_t& first,
                           int32_t& count, int32_t& shift, int32_t& extent) {
    first = static_cast<int32_t>((p + pad) % stride);
    count = static_cast<int32_t>(taps > first ? (taps - first + stride - 1) / stride : 0);
    shift = static_cast<int32_t>((p + pad - first) / stride);
    extent = static_cast<int32_t>(size > p ? (size - p + stride - 1) / stride : 0);
  };
  q.ph = static_cast<int32_t>(ph);
  q.pw = static_cast<int32_t>(pw);
  one_axis(ph, g.sh, g.pt, g.R, g.H, q.r0, q.Ra, q.dh, q.Hp);
  one_axis(pw, g.sw, g.pl, g.S, g.W, q.s0, q.Sa, q.dw, q.Wp);
  q.div_PP = make_fast_div(std::max<int64_t>(1, int64_t(q.Hp) * q.Wp));
  q.div_Wp = make_fast_div(std::max<int32_t>(1, q.Wp));
  q.div_RaSa = make_fast_div(std::max<int64_t>(1, int64_t(q.Ra) * q.Sa));
  q.div_Sa = make_fast_div(std::max<int32_t>(1, q.Sa));
}

}  // namespace conv
}  // namespace cuda
}  // namespace glassgrad
