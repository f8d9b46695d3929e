// The pool family's CUDA kernels (pool.cu), their parameters declared once for pool.cu and its
// launchers (pool.cpp); kernel_interface.h explains the columns. GGPool: params.h.
#pragma once
#include "kernel_interface.h"
#include "params.h"

// relu: the fused ReLUBackward (fusion.h): dx = x > 0 ? dx : 0.
#define GG_POOL_KERNELS(K)                                                                                  \
  K(gg_maxpool_fwd, Float, GG_NO_BOUNDS, (GGPool g, T* y, const T* x), gg_pool::max_fwd<T>(g, y, x))        \
  K(gg_maxpool_bwd, Float, GG_NO_BOUNDS, (GGPool g, int relu, T* dx, const T* dy, const T* x),              \
    gg_pool::max_bwd<T>(g, relu, dx, dy, x))                                                                \
  K(gg_maxpool_bwd_tiled, Float, GG_NO_BOUNDS, (GGPool g, int relu, T* dx, const T* dy, const T* x),        \
    gg_pool::max_bwd_tiled<T>(g, relu, dx, dy, x))                                                          \
  K(gg_avgpool_fwd, Float, GG_NO_BOUNDS, (GGPool g, T* y, const T* x), gg_pool::avg_fwd<T>(g, y, x))        \
  K(gg_avgpool_bwd, Float, GG_NO_BOUNDS, (GGPool g, T* dx, const T* dy), gg_pool::avg_bwd<T>(g, dx, dy))

GG_DECLARE_KERNELS(GG_POOL_KERNELS)
