// The reduction family's CUDA kernels (reduction.cu), their parameters declared once for
// reduction.cu and its launchers (reduction.cpp); kernel_interface.h explains the columns.
// GGReduce, GGFastDiv, GGReduceOp (op): params.h. out is null for ArgMax, iout (int64 indices)
// null for the others; pv, pi: the partials of split reductions (double, or int64 for int64
// input), mean: Var's exact means (null: none).
#pragma once
#include "kernel_interface.h"
#include "params.h"

#define GG_REDUCTION_KERNELS(K)                                                                             \
  K(gg_reduce_rows, FloatI64, GG_NO_BOUNDS,                                                                 \
    (GGReduce r, int op, double correction, T* out, int64_t* iout, const T* x),                             \
    gg_red::reduce_rows<T>(r, op, correction, out, iout, x))                                                \
  K(gg_reduce_cols, FloatI64, GG_NO_BOUNDS,                                                                 \
    (GGReduce r, int op, double correction, T* out, int64_t* iout, const T* x),                             \
    gg_red::reduce_cols<T>(r, op, correction, out, iout, x))                                                \
  K(gg_reduce_partial, FloatI64, GG_NO_BOUNDS,                                                              \
    (GGReduce r, int op, int64_t splits, const double* mean, void* pv, int64_t* pi, const T* x),            \
    gg_red::reduce_partial<T>(r, op, splits, mean, pv, pi, x))                                              \
  K(gg_reduce_finish, FloatI64, GG_NO_BOUNDS,                                                               \
    (int64_t n_out, int64_t n_red, int op, int64_t splits, double correction, const void* pv, const int64_t* pi, \
     T* out, int64_t* iout, double* mean_out),                                                              \
    gg_red::reduce_finish<T>(n_out, n_red, op, splits, correction, pv, pi, out, iout, mean_out))            \
  K(gg_reduce_channels, FloatI64, GG_BOUNDS(1024), (int C, int I, int M, GGFastDiv div_I, int op, T* out, const T* x), \
    gg_red::reduce_channels<T>(C, I, M, div_I, op, out, x))                                                 \
  K(gg_reduce_channels_vec, F32, GG_BOUNDS(1024), (int C, int I, int M, GGFastDiv div_I4, int op, T* out, const T* x), \
    gg_red::reduce_channels_vec(C, I, M, div_I4, op, out, x))

GG_DECLARE_KERNELS(GG_REDUCTION_KERNELS)
