// The arithmetic of one hidden unit of the recurrent cells (RNNSequence, LSTMSequence,
// GRUSequence and their backward ops; autodiff-engine/src/ops/recurrent.cpp), written once for
// the CPU kernels (kernels/cpu/recurrent.cpp) and the CUDA kernels (kernels/cuda/recurrent.cu).
// Each function takes a unit's pre-activations, already summed (input projection, biases and
// the recurrent GEMM), and returns what the kernels store. PyTorch's formulas
// (torch.nn.LSTM / GRU / RNN docs), with the derivatives of docs/recurrent.md:
//
//   LSTM  i = s(p_i), f = s(p_f), g = tanh(p_g), o = s(p_o)      (s: the logistic sigmoid)
//         c = f c' + i g,  h = o tanh(c)                          (c', h': the previous step's)
//     backward, from dh (reaching h) and dc (reaching c from the next step):
//         dc += dh o (1 - tanh^2 c);  dp_o = dh tanh(c) o (1 - o);  dp_i = dc g i (1 - i);
//         dp_g = dc i (1 - g^2);  dp_f = dc c' f (1 - f);  dc' = dc f
//   GRU   r = s(x_r + h_r), z = s(x_z + h_z), n = tanh(x_n + r h_n),  h = n + z (h' - n)
//         (x_*: the input part with b_ih and b_hh's r and z parts; h_n = (W_hn h') + b_hn)
//     backward: dn = dh (1 - z);  dp_n = dn (1 - n^2);  dp_z = dh (h' - n) z (1 - z);
//         dp_r = dp_n h_n r (1 - r);  the hidden side's n gradient is dp_n r;  dh' = dh z (+ the GEMM)
//   RNN   h = tanh(p) or max(p, 0);  dp = dh (1 - h^2) or dh [h > 0]
//
// Math is a policy with sigmoid(x) and tanh(x): ExactMath below (the scalar functions of
// elementwise_scalar.h, on both sides); the CPU's float loops use a vectorizable one
// (kernels/cpu/recurrent/fast_math.h). Like elementwise_scalar.h, on the device this includes
// nothing beyond it (NVRTC has no host headers).
#pragma once
#include "glassgrad/autodiff/elementwise_scalar.h"

#if defined(__CUDACC__)
#define GG_CELL_FN __device__ __forceinline__
#else
#define GG_CELL_FN inline
#endif

namespace glassgrad {
namespace recurrent_cell {

template <typename T>
struct ExactMath {
  static GG_CELL_FN T sigmoid(T x) { return gg_sigmoid(x); }
  static GG_CELL_FN T tanh(T x) { return gg_tanh(x); }
};

template <typename T, typename M>
GG_CELL_FN void lstm(T pi, T pf, T pg, T po, T c_prev, T& i, T& f, T& g, T& o, T& c, T& h) {
  i = M::sigmoid(pi);
  f = M::sigmoid(pf);
  g = M::tanh(pg);
  o = M::sigmoid(po);
  c = f * c_prev + i * g;
  h = o * M::tanh(c);
}

// dc: in, the gradient reaching c from the next step; out, the gradient reaching c_prev.
template <typename T, typename M>
GG_CELL_FN void lstm_backward(T i, T f, T g, T o, T c, T c_prev, T dh, T& dc, T& dpi, T& dpf, T& dpg, T& dpo) {
  const T tc = M::tanh(c);
  const T dct = dc + dh * o * (T(1) - tc * tc);
  dpo = dh * tc * o * (T(1) - o);
  dpi = dct * g * i * (T(1) - i);
  dpg = dct * i * (T(1) - g * g);
  dpf = dct * c_prev * f * (T(1) - f);
  dc = dct * f;
}

// hn: the recurrent n part with b_hn, saved for the backward.
template <typename T, typename M>
GG_CELL_FN void gru(T xr, T xz, T xn, T hr, T hz, T hn, T h_prev, T& r, T& z, T& n, T& h) {
  r = M::sigmoid(xr + hr);
  z = M::sigmoid(xz + hz);
  n = M::tanh(xn + r * hn);
  h = n + z * (h_prev - n);
}

// dpr, dpz, dpn: the input side's pre-activation gradients; dhn: the hidden side's n gradient
// (dpn r); dh_prev: the direct part of the gradient reaching h_prev (the GEMM adds the rest).
template <typename T>
GG_CELL_FN void gru_backward(T r, T z, T n, T hn, T h_prev, T dh, T& dpr, T& dpz, T& dpn, T& dhn, T& dh_prev) {
  const T dn = dh * (T(1) - z);
  dpn = dn * (T(1) - n * n);
  dpz = dh * (h_prev - n) * z * (T(1) - z);
  dpr = dpn * hn * r * (T(1) - r);
  dhn = dpn * r;
  dh_prev = dh * z;
}

template <typename T, typename M>
GG_CELL_FN T rnn(T p, bool relu) {
  return relu ? (p > T(0) ? p : T(0)) : M::tanh(p);
}

// From the output h (not the pre-activation): tanh' = 1 - h^2, relu' = [h > 0].
template <typename T>
GG_CELL_FN T rnn_backward(T h, T dh, bool relu) {
  return relu ? (h > T(0) ? dh : T(0)) : dh * (T(1) - h * h);
}

}  // namespace recurrent_cell
}  // namespace glassgrad
