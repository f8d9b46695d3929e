// The fused family's CUDA kernels (fused.cu), their parameters declared once for fused.cu and
// its launcher (fused.cpp); kernel_interface.h explains the columns. GGFused: params.h.
#pragma once
#include "kernel_interface.h"
#include "params.h"

// n output elements; gg_fused_small: programs of at most 4 inputs and 8 instructions.
#define GG_FUSED_KERNELS(K)                                                                        \
  K(gg_fused, Float, GG_NO_BOUNDS, (int64_t n, GGFused f, T* out), gg_fused::run<T>(n, f, out))    \
  K(gg_fused_small, Float, GG_NO_BOUNDS, (int64_t n, GGFused f, T* out), gg_fused::run_small<T, 4, 8>(n, f, out))

GG_DECLARE_KERNELS(GG_FUSED_KERNELS)
