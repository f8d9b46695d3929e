// The softmax family's CUDA kernels (softmax.cu), their parameters declared once for softmax.cu
// and its launchers (softmax.cpp); kernel_interface.h explains the columns. mode: 0 softmax, 1
// log-softmax; the tensor around the axis is [outer (rows), D, inner]. Cross-entropy: labels
// int64, weight null when absent, reduction the CEReduction code (families/softmax.h), bad the
// word where the first out-of-range label's row is recorded (null: none checked).
#pragma once
#include "kernel_interface.h"
#include "params.h"

#define GG_SOFTMAX_KERNELS(K)                                                                                \
  K(gg_softmax_rows, Float, GG_NO_BOUNDS, (int64_t rows, int64_t D, int mode, T* y, const T* x),              \
    gg_sm::forward_rows<T>(rows, D, mode, y, x))                                                              \
  K(gg_softmax_cols, Float, GG_NO_BOUNDS, (int64_t outer, int64_t D, int64_t inner, int mode, T* y, const T* x), \
    gg_sm::forward_cols<T>(outer, D, inner, mode, y, x))                                                      \
  K(gg_softmax_bwd_rows, Float, GG_NO_BOUNDS, (int64_t rows, int64_t D, int mode, T* dx, const T* g, const T* y), \
    gg_sm::backward_rows<T>(rows, D, mode, dx, g, y))                                                         \
  K(gg_softmax_bwd_cols, Float, GG_NO_BOUNDS,                                                                 \
    (int64_t outer, int64_t D, int64_t inner, int mode, T* dx, const T* g, const T* y),                       \
    gg_sm::backward_cols<T>(outer, D, inner, mode, dx, g, y))                                                 \
  K(gg_ce_rows, Float, GG_NO_BOUNDS,                                                                          \
    (int64_t N, int64_t C, T* loss, T* wrow, const T* z, const int64_t* labels, const T* weight,              \
     int64_t ignore_index, T smoothing, unsigned long long* bad),                                             \
    gg_sm::ce_rows<T>(N, C, loss, wrow, z, labels, gg_sm::CEOpts<T>{weight, ignore_index, smoothing}, bad))   \
  K(gg_ce_reduced, Float, GG_NO_BOUNDS,                                                                       \
    (int64_t N, int64_t C, T scale, int mean, T* out, const T* z, const int64_t* labels, const T* weight,     \
     int64_t ignore_index, T smoothing, unsigned long long* bad),                                             \
    gg_sm::ce_reduced<T>(N, C, scale, mean, out, z, labels, gg_sm::CEOpts<T>{weight, ignore_index, smoothing}, bad)) \
  K(gg_sum_all, Float, GG_NO_BOUNDS, (int64_t n, T scale, T* out, const T* v, const T* w),                   \
    gg_sm::sum_all<T>(n, scale, out, v, w))                                                                   \
  K(gg_ce_total_weight, Float, GG_NO_BOUNDS,                                                                  \
    (int64_t N, int64_t C, T* total, const int64_t* labels, const T* weight, int64_t ignore_index),           \
    gg_sm::ce_total_weight<T>(N, C, total, labels, gg_sm::CEOpts<T>{weight, ignore_index, T(0)}))             \
  K(gg_ce_backward, Float, GG_NO_BOUNDS,                                                                      \
    (int64_t N, int64_t C, int reduction, T* dz, const T* g, const T* z, const int64_t* labels, const T* weight, \
     int64_t ignore_index, T smoothing, const T* total, unsigned long long* bad),                             \
    gg_sm::ce_backward<T>(N, C, reduction, dz, g, z, labels, gg_sm::CEOpts<T>{weight, ignore_index, smoothing}, \
                          total, bad))

GG_DECLARE_KERNELS(GG_SOFTMAX_KERNELS)
