// The arithmetic of the optimizer updates (SGDUpdate, SGDMomentumUpdate, AdamUpdate,
// AdamAMSGradUpdate; autodiff-engine/src/ops/optimizer.cpp), written once for the CPU kernels
// (kernels/cpu/optimizer.cpp) and the CUDA kernels (kernels/cuda/optimizer.cu, one parameter
// per launch or many), so every backend and launch shape computes an element with the same
// expression in the same order: PyTorch's single-tensor implementations (torch/optim/sgd.py,
// adam.py). With d = g + wd * p (L2 decay):
//
//   sgd:           p - lr * d
//   sgd_momentum:  buf = momentum * buf + (1 - dampening) * d;
//                  p - lr * (nesterov ? d + momentum * buf : buf)
//   adam:          t = step + 1; AdamW (decoupled): p = p (1 - lr wd), d = g;
//                  m = b1 m + (1 - b1) d;  v = b2 v + (1 - b2) d^2;
//                  AMSGrad: v_max = max(v_max, v), used in place of v below;
//                  p - (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
//                  (= p - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps))
//
// The per-step scalars are computed in double and rounded once to the parameter's dtype T
// (sgd_scalars, adam_scalars); the element rules then run in T. Like elementwise_scalar.h, on
// the device this includes nothing beyond it (NVRTC has no host headers).
#pragma once
#include "glassgrad/autodiff/elementwise_scalar.h"

#if defined(__CUDACC__)
#define GG_OPT_RULE __device__ __forceinline__
#else
#define GG_OPT_RULE inline
#endif

namespace glassgrad {
namespace optimizer_rule {

template <typename T>
struct SgdScalars {
  T lr, wd, momentum, keep;  // keep = 1 - dampening
  bool nesterov;
};

// lr and momentum as the 0-d tensors hold them (dtype T); the attributes as doubles.
template <typename T>
GG_OPT_RULE SgdScalars<T> sgd_scalars(T lr, T momentum, double weight_decay, double dampening, bool nesterov) {
  SgdScalars<T> s;
  s.lr = lr;
  s.wd = static_cast<T>(weight_decay);
  s.momentum = momentum;
  s.keep = static_cast<T>(1.0 - dampening);
  s.nesterov = nesterov;
  return s;
}

// The new parameter value of plain SGD.
template <typename T>
GG_OPT_RULE T sgd(T p, T g, const SgdScalars<T>& s) {
  return p - s.lr * (g + s.wd * p);
}

// The new parameter value of SGD with momentum; buf is updated in place.
template <typename T>
GG_OPT_RULE T sgd_momentum(T p, T g, T& buf, const SgdScalars<T>& s) {
  const T d = g + s.wd * p;
  const T b = s.momentum * buf + s.keep * d;
  buf = b;
  return p - s.lr * (s.nesterov ? d + s.momentum * b : b);
}

template <typename T>
struct AdamScalars {
  T step_size, bc2_sqrt, b1, b2, one_b1, one_b2, eps, wd, shrink;
  bool decoupled;
};

// t = the step count after this step (step + 1).
template <typename T>
GG_OPT_RULE AdamScalars<T> adam_scalars(double lr, double b1, double b2, double eps, double weight_decay,
                                        bool decoupled, double t) {
  AdamScalars<T> s;
  s.step_size = static_cast<T>(lr / (1.0 - gg_pow(b1, t)));
  s.bc2_sqrt = static_cast<T>(gg_sqrt(1.0 - gg_pow(b2, t)));
  s.b1 = static_cast<T>(b1);
  s.b2 = static_cast<T>(b2);
  s.one_b1 = static_cast<T>(1.0 - b1);
  s.one_b2 = static_cast<T>(1.0 - b2);
  s.eps = static_cast<T>(eps);
  s.wd = decoupled ? T(0) : static_cast<T>(weight_decay);
  s.shrink = static_cast<T>(1.0 - lr * (decoupled ? weight_decay : 0.0));
  s.decoupled = decoupled;
  return s;
}

// The new parameter value of Adam/AdamW; m, v (and v_max with AMSGrad, else null) are updated
// in place. max keeps a NaN of v (as torch.maximum does).
template <typename T>
GG_OPT_RULE T adam(T p, T g, T& m, T& v, T* v_max, const AdamScalars<T>& s) {
  const T pi = s.decoupled ? p * s.shrink : p;
  const T d = g + s.wd * pi;
  const T mi = s.b1 * m + s.one_b1 * d;
  const T vi = s.b2 * v + s.one_b2 * d * d;
  m = mi;
  v = vi;
  T denom_v = vi;
  if (v_max != nullptr) {
    denom_v = *v_max > vi ? *v_max : vi;
    *v_max = denom_v;
  }
  return pi - s.step_size * mi / (gg_sqrt(denom_v) / s.bc2_sqrt + s.eps);
}

}  // namespace optimizer_rule
}  // namespace glassgrad
