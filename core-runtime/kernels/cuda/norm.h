// The norm family's CUDA kernels (norm.cu), their parameters declared once for norm.cu and its
// launchers (norm.cpp); kernel_interface.h explains the columns. GGBatchNorm, GGRunningUpdate:
// params.h. relu: the fused ReLU (fusion.h); gmean, gvar: the optional gradients of the
// training outputs mean and var (null when absent); part, coef: double scratch (norm.cu).
#pragma once
#include "kernel_interface.h"
#include "params.h"

// Group normalization of x [N, C, I] in G groups of cg = C / G channels: the S = cg * I values
// of sample n's group k are contiguous at (n*C + k*cg)*I. 32-bit indices (the launcher refuses
// 2^31 elements or more).
struct GGGroupNorm {
  int32_t N, C, I, G, cg, pad_;
  double eps;
};

#define GG_NORM_KERNELS(K)                                                                                   \
  K(gg_bn_partial_stats, Float, GG_NO_BOUNDS, (GGBatchNorm p, const T* x, double* part),                    \
    gg_bn::partial_stats<T>(p, x, part))                                                                     \
  K(gg_bn_train_apply, Float, GG_NO_BOUNDS,                                                                  \
    (GGBatchNorm p, double eps, GGRunningUpdate u, int relu, const T* x, const T* gamma, const T* beta, T* y, \
     T* mean, T* var, const double* part),                                                                   \
    gg_bn::train_apply<T>(p, eps, u, relu, x, gamma, beta, y, mean, var, part))                              \
  K(gg_bn_backward_apply, Float, GG_NO_BOUNDS,                                                               \
    (GGBatchNorm p, double eps, const T* g, const T* x, const T* gamma, const T* center, const T* var,       \
     const T* gmean, const T* gvar, T* dx, T* dgamma, T* dbeta, const double* part),                         \
    gg_bn::backward_apply<T>(p, eps, g, x, gamma, center, var, gmean, gvar, dx, dgamma, dbeta, part))        \
  K(gg_bn_inference_coef, Float, GG_NO_BOUNDS,                                                               \
    (int64_t C, double eps, const T* gamma, const T* beta, const T* rm, const T* rv, double* coef),          \
    gg_bn::inference_coef<T>(C, eps, gamma, beta, rm, rv, coef))                                             \
  K(gg_bn_affine, Float, GG_NO_BOUNDS, (GGBatchNorm p, int n, int relu, T* y, const T* x, const double* coef), \
    gg_bn::affine<T>(p, n, relu, y, x, coef))                                                                \
  K(gg_bn_partial_sums, Float, GG_NO_BOUNDS,                                                                 \
    (GGBatchNorm p, const T* g, const T* x, const T* center, double* part),                                  \
    gg_bn::partial_sums<T>(p, g, x, center, part))                                                           \
  K(gg_bn_backward_sums, Float, GG_NO_BOUNDS,                                                                \
    (int mode, GGBatchNorm p, double eps, const T* gamma, const T* center, const T* var, const T* gmean,     \
     const T* gvar, T* dgamma, T* dbeta, T* drm, T* drv, double* coef, const double* part),                  \
    gg_bn::backward_sums<T>(mode, p, eps, gamma, center, var, gmean, gvar, dgamma, dbeta, drm, drv, coef, part)) \
  K(gg_bn_backward_dx, Float, GG_NO_BOUNDS, (GGBatchNorm p, int n, T* dx, const T* g, const T* x, const double* coef), \
    gg_bn::backward_dx<T>(p, n, dx, g, x, coef))                                                             \
  K(gg_bn_train_channel, Float, GG_BOUNDS(1024),                                                             \
    (GGBatchNorm p, double eps, GGRunningUpdate u, int relu, const T* x, const T* gamma, const T* beta, T* y, \
     T* mean, T* var),                                                                                       \
    gg_bn::train_channel<T>(p, eps, u, relu, x, gamma, beta, y, mean, var))                                  \
  K(gg_bn_backward_channel, Float, GG_BOUNDS(1024),                                                          \
    (GGBatchNorm p, double eps, const T* g, const T* x, const T* gamma, const T* center, const T* var,       \
     const T* gmean, const T* gvar, T* dx, T* dgamma, T* dbeta),                                             \
    gg_bn::backward_channel<T>(p, eps, g, x, gamma, center, var, gmean, gvar, dx, dgamma, dbeta))            \
  K(gg_bn_update_stats, Float, GG_NO_BOUNDS,                                                                 \
    (int64_t C, double momentum, double count, T* rm_out, T* rv_out, const T* rm, const T* rv, const T* mean, \
     const T* var),                                                                                          \
    gg_bn::update_stats<T>(C, momentum, count, rm_out, rv_out, rm, rv, mean, var))                           \
  K(gg_bn_train_channel_vec, F32, GG_BOUNDS(1024),                                                           \
    (GGBatchNorm p, double eps, GGRunningUpdate u, int relu, const T* x, const T* gamma, const T* beta, T* y, \
     T* mean, T* var),                                                                                       \
    gg_bn::train_channel_vec(p, eps, u, relu, x, gamma, beta, y, mean, var))                                 \
  K(gg_bn_backward_channel_vec, F32, GG_BOUNDS(1024),                                                        \
    (GGBatchNorm p, double eps, const T* g, const T* x, const T* gamma, const T* center, const T* var,       \
     const T* gmean, const T* gvar, T* dx, T* dgamma, T* dbeta),                                             \
    gg_bn::backward_channel_vec(p, eps, g, x, gamma, center, var, gmean, gvar, dx, dgamma, dbeta))            \
  K(gg_gn_forward, Float, GG_BOUNDS(256),                                                                    \
    (GGGroupNorm p, const T* x, const T* w, const T* b, T* y, T* mean, T* rstd),                             \
    gg_gn::forward<T>(p, x, w, b, y, mean, rstd))                                                            \
  K(gg_gn_backward, Float, GG_BOUNDS(256),                                                                   \
    (GGGroupNorm p, const T* g, const T* x, const T* mean, const T* rstd, const T* w, T* dx, double* part),  \
    gg_gn::backward<T>(p, g, x, mean, rstd, w, dx, part))                                                    \
  K(gg_gn_param_grads, Float, GG_NO_BOUNDS, (GGGroupNorm p, const double* part, T* dw, T* db),               \
    gg_gn::param_grads<T>(p, part, dw, db))

GG_DECLARE_KERNELS(GG_NORM_KERNELS)
