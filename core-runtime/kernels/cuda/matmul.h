// The matmul family's CUDA kernels (matmul.cu), their parameters declared once for matmul.cu
// and its launcher (matmul.cpp); kernel_interface.h explains the columns. GGMatmul: params.h.
#pragma once
#include "kernel_interface.h"
#include "params.h"

#define GG_MATMUL_KERNELS(K)                                                                                \
  K(gg_matmul, Float, GG_BOUNDS(256), (GGMatmul g, T* c, const T* a, const T* b), gg_mm::matmul<T>(g, c, a, b)) \
  K(gg_matmul_dot, Float, GG_NO_BOUNDS, (GGMatmul g, T* c, const T* a, const T* b),                          \
    gg_mm::matmul_dot<T>(g, c, a, b))                                                                        \
  K(gg_matmul_thread, Float, GG_NO_BOUNDS, (GGMatmul g, T* c, const T* a, const T* b),                       \
    gg_mm::matmul_thread<T>(g, c, a, b))

GG_DECLARE_KERNELS(GG_MATMUL_KERNELS)
