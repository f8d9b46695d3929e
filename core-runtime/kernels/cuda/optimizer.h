// The optimizer family's CUDA kernels (optimizer.cu), their parameters declared once for
// optimizer.cu and its launchers (optimizer.cpp); kernel_interface.h explains the columns.
// GGIter (operand 0 the dense parameter, 1 the strided gradient), GGOptTable (the multi-tensor
// launches): params.h. lr is a 0-d tensor of dtype lr_dtype; step the int64 step count.
#pragma once
#include "kernel_interface.h"
#include "params.h"

#define GG_OPTIMIZER_KERNELS(K)                                                                             \
  K(gg_sgd, Float, GG_NO_BOUNDS,                                                                            \
    (int64_t n, GGIter it, double wd, T* p_out, const T* p, const T* g, const void* lr, int lr_dtype),       \
    gg_opt::sgd<T>(n, it, wd, p_out, p, g, lr, lr_dtype))                                                   \
  K(gg_sgd_momentum, Float, GG_NO_BOUNDS,                                                                   \
    (int64_t n, GGIter it, double dampening, double wd, int nesterov, T* p_out, T* buf_out, const T* p,      \
     const T* buf, const T* g, const void* lr, int lr_dtype, const T* momentum),                            \
    gg_opt::sgd_momentum<T>(n, it, dampening, wd, nesterov, p_out, buf_out, p, buf, g, lr, lr_dtype, momentum)) \
  K(gg_adam, Float, GG_NO_BOUNDS,                                                                           \
    (int64_t n, GGIter it, double b2, double eps, double wd, int decoupled, T* p_out, T* m_out, T* v_out,    \
     T* v_max_out, const T* p, const T* m, const T* v, const T* v_max, const T* g, const void* lr, int lr_dtype, \
     const T* beta1, const int64_t* step),                                                                  \
    gg_opt::adam<T>(n, it, b2, eps, wd, decoupled, p_out, m_out, v_out, v_max_out, p, m, v, v_max, g, lr,    \
                    lr_dtype, beta1, step))                                                                 \
  K(gg_sgd_multi, Float, GG_NO_BOUNDS, (GGOptTable tab), gg_opt::sgd_multi<T>(tab))                         \
  K(gg_adam_multi, Float, GG_NO_BOUNDS, (GGOptTable tab), gg_opt::adam_multi<T>(tab))                       \
  K(gg_adam_step, None, GG_NO_BOUNDS, (int64_t* step_out, const int64_t* step), gg_opt::adam_step(step_out, step)) \
  K(gg_adam_step_multi, None, GG_NO_BOUNDS, (GGOptTable tab), gg_opt::adam_step_multi(tab))

GG_DECLARE_KERNELS(GG_OPTIMIZER_KERNELS)
