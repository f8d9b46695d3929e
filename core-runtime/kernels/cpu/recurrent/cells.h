// The CPU's fused cell passes: one row of one time step, every hidden unit, in one loop over
// units that the compiler vectorizes (float: fast_math.h, in the ISA files of cells_impl.h;
// double: libm). M is the math policy; the ISA files pass one of internal linkage, so each
// file's instantiations are its own. The arithmetic is kernels/recurrent_cells.h's; the layouts
// are recurrent_geometry.h's and the drivers' (kernels/cpu/recurrent.cpp):
//   pre     the input projection's row (biases added), G = gates * H wide, gate q of unit j at q*H + j
//   rec     the recurrent GEMM's row h_prev W_hh^T, G wide
//   reserve the forward's saved row (LSTM: i f g o c [h']; GRU: r z n hn), the activations
//           overwriting the pre-activations in place
#pragma once
#include <cstdint>

#include "../../recurrent_cells.h"

namespace glassgrad {
namespace cpu {

// LSTM forward: g the reserve row (its pre-activations at gate stride gs, g[q * gs + j] for gate
// q, overwritten by i f g o; c_t at g[4 * gs + j]), rec (the recurrent product, gate stride rs),
// c (the running cell state, updated), h (where o * tanh(c_t) goes); units j < n. The strides
// let a caller hand over a slice of the units (gs = H, rs: its own product's width).
template <typename T, typename M>
void lstm_row(T* __restrict g, int64_t gs, const T* __restrict rec, int64_t rs, T* __restrict c, T* __restrict h,
              int64_t n) {
  T* __restrict gi = g;
  T* __restrict gf = g + gs;
  T* __restrict gg = g + 2 * gs;
  T* __restrict go = g + 3 * gs;
  T* __restrict gc = g + 4 * gs;
  for (int64_t j = 0; j < n; ++j) {
    T i, f, gv, o, cv, hv;
    recurrent_cell::lstm<T, M>(gi[j] + rec[j], gf[j] + rec[rs + j], gg[j] + rec[2 * rs + j], go[j] + rec[3 * rs + j],
                               c[j], i, f, gv, o, cv, hv);
    gi[j] = i;
    gf[j] = f;
    gg[j] = gv;
    go[j] = o;
    gc[j] = cv;
    c[j] = cv;
    h[j] = hv;
  }
}

// LSTM backward of one row: g the reserve row (i f g o c at gate stride gs), c_prev, dh (reaching
// o * tanh(c)), dc (in: from the next step; out: reaching c_prev), dp the row's pre-activation
// gradients (gate stride ps); units j < n.
template <typename T, typename M>
void lstm_backward_row(const T* __restrict g, int64_t gs, const T* __restrict c_prev, const T* __restrict dh,
                       T* __restrict dc, T* __restrict dp, int64_t ps, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    T dcj = dc[j], di, df, dgv, dov;
    recurrent_cell::lstm_backward<T, M>(g[j], g[gs + j], g[2 * gs + j], g[3 * gs + j], g[4 * gs + j], c_prev[j], dh[j],
                                        dcj, di, df, dgv, dov);
    dc[j] = dcj;
    dp[j] = di;
    dp[ps + j] = df;
    dp[2 * ps + j] = dgv;
    dp[3 * ps + j] = dov;
  }
}

// GRU forward: g the reserve row (input part x_r x_z x_n at [0, 3H), overwritten by r z n; hn at
// [3H, 4H)), rec [3H] (h_prev W_hh^T), b_hn [H] (zeros without biases), h (in: h_prev; out: h_t),
// y (h_t again).
template <typename T, typename M>
void gru_row(T* __restrict g, const T* __restrict rec, const T* __restrict b_hn, T* __restrict h, T* __restrict y,
             int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const T hn = rec[2 * H + j] + b_hn[j];
    T r, z, n, hv;
    recurrent_cell::gru<T, M>(g[j], g[H + j], g[2 * H + j], rec[j], rec[H + j], hn, h[j], r, z, n, hv);
    g[j] = r;
    g[H + j] = z;
    g[2 * H + j] = n;
    g[3 * H + j] = hn;
    h[j] = hv;
    y[j] = hv;
  }
}

// GRU backward of one row: dpx [3H] (input side), dph [3H] (hidden side), dh (in: reaching h_t;
// out: the direct part reaching h_prev).
template <typename T, typename M>
void gru_backward_row(const T* __restrict g, const T* __restrict h_prev, T* __restrict dh, T* __restrict dpx,
                      T* __restrict dph, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    T dpr, dpz, dpn, dhn, dprev;
    recurrent_cell::gru_backward<T>(g[j], g[H + j], g[2 * H + j], g[3 * H + j], h_prev[j], dh[j], dpr, dpz, dpn, dhn,
                                    dprev);
    dpx[j] = dpr;
    dpx[H + j] = dpz;
    dpx[2 * H + j] = dpn;
    dph[j] = dpr;
    dph[H + j] = dpz;
    dph[2 * H + j] = dhn;
    dh[j] = dprev;
  }
}

// RNN forward: y (in: the pre-activation's input part; out: h_t), rec, h (the running state).
template <typename T, typename M>
void rnn_row(T* __restrict y, const T* __restrict rec, T* __restrict h, int64_t H, bool relu) {
  if (relu) {
    for (int64_t j = 0; j < H; ++j) h[j] = y[j] = recurrent_cell::rnn<T, M>(y[j] + rec[j], true);
  } else {
    for (int64_t j = 0; j < H; ++j) h[j] = y[j] = recurrent_cell::rnn<T, M>(y[j] + rec[j], false);
  }
}

template <typename T, typename M>
void rnn_backward_row(const T* __restrict y, const T* __restrict dh, T* __restrict dp, int64_t H, bool relu) {
  if (relu) {
    for (int64_t j = 0; j < H; ++j) dp[j] = recurrent_cell::rnn_backward<T>(y[j], dh[j], true);
  } else {
    for (int64_t j = 0; j < H; ++j) dp[j] = recurrent_cell::rnn_backward<T>(y[j], dh[j], false);
  }
}

}  // namespace cpu
}  // namespace glassgrad
