// Recurrent layers (RNNSequence, LSTMSequence, GRUSequence and their backward ops) and the
// packing ops (PackSequence, PadPackedSequence). Layouts and processing order:
// recurrent_geometry.h; the unit arithmetic: kernels/recurrent_cells.h (shared with the CPU
// kernels); the launch sequence: kernels/cuda/recurrent_plan.h; derivations: docs/recurrent.md.
//
//   gg_rnn_gemm_{nt,nn,tn}<tile>   C (+)= A B on gemm_engine.cuh's register tiles (recurrent_params.h,
//                                  GGRnnGemm): the whole sequence's input projection x W_ih^T + b,
//                                  each step's recurrent product h W_hh^T (forward) and dP W_hh
//                                  (backward), the projection h' W_hr^T, and after the backward
//                                  loop dx = dP W_ih, dW_ih = dP^T x, dW_hh = dP^hT h_prev,
//                                  dW_hr = dh^T h'
//   gg_rnn_gemm_reduce             the k partitions of a split product, added in z order
//   gg_{lstm,gru,rnn}_step         one step's fused cell pass: a thread per (row, unit) reads the
//                                  input part of its gates, adds the recurrent product's partial
//                                  sums (no separate reduction launch), applies the cell and
//                                  writes the saved values, h and c
//   gg_{lstm,gru,rnn}_step_back    one step of the backward: dh = grad_y + the carried gradient +
//                                  the next step's recurrent partial sums, the cell's backward,
//                                  dP rows, the direct part of dh_prev, and the h_prev row dW_hh
//                                  reads; rows the step does not have only collect their partial
//                                  sums (sequences that start late in a reversed packed batch)
//   gg_rnn_combine                 a projected LSTM's dh per step (its cell reads dh W_hr instead)
//   gg_rnn_colsum                  bias gradients: column sums of dP
//   gg_rnn_copy                    the initial states into the running ones (h0 -> h_n, grad_hn -> dh0)
//   gg_rnn_index_fill, gg_pack_gather, gg_pack_scatter, gg_pack_fill   the packing ops' row copies
//
// Index arithmetic is 32-bit (the launcher refuses tensors of 2^31 elements or more); every
// kernel takes its row pointers already offset to the step, so a launch reads and writes only
// its step's rows.
#include "../recurrent_cells.h"
#include "gemm_engine.cuh"
#include "recurrent_params.h"

namespace gg_rnn {

namespace cell = glassgrad::recurrent_cell;

// ---- products ---------------------------------------------------------------------------------
// Operands: gemm_engine.cuh's DenseKFast (rows contiguous along k) and DenseRowFast.

template <typename T>
struct Store {
  typedef int Col;
  T* c;
  T* c2;
  const T* bias;
  const T* bias2;
  GGRnnGemm g;
  __device__ __forceinline__ int col(int n) const { return n; }
  __device__ __forceinline__ void operator()(int m, int n, T v) const {
    if (bias) v += bias[n];
    if (bias2 && n < g.bias2_cols) v += bias2[n];
    T* p = c + ((int64_t)m * g.ldc + n);
    if (g.accumulate) v += *p;
    *p = v;
    if (c2) c2[(int64_t)m * g.ldc2 + n] = v;
  }
};

template <typename T, typename Cfg, typename OpA, typename OpB>
__device__ void gemm(const GGRnnGemm& g, const OpA& a, const OpB& b, T* c, T* c2, const T* bias, const T* bias2, T* ws) {
  gg::gemm_tiled<T, Cfg>(a, b, Store<T>{c, c2, bias, bias2, g}, g.M, g.N, g.K, g.splits, ws);
}

typedef gg::TileConfig<32, 64, 4, 4> Tile32x64;      // 128 threads: a step's few rows
typedef gg::TileConfig<64, 128, 8, 8> Tile64x128;    // 128 threads
typedef gg::TileConfig<128, 128, 8, 8> Tile128x128;  // 256 threads

// ---- forward cell passes ------------------------------------------------------------------------
// The recurrent product's value at (row b, column n): its partitions added in z order.
template <typename T>
__device__ __forceinline__ T rec_sum(const T* ws, const GGRnnStep& s, int width, int b, int n) {
  const int64_t part = (int64_t)s.rec_rows * width;
  const T* p = ws + ((int64_t)b * width + n);
  T v = p[0];
  for (int z = 1; z < s.splits; ++z) v += p[z * part];
  return v;
}

// g: the step's reserve rows (ld W; the input part of the gates in [0, 4H)); c: c_n (the running
// cell state); h: where o * tanh(c) goes (ld hld: y, or the reserve's h' when projected); hn: the
// running h (null when projected: the projection's product writes it).
template <typename T>
__device__ void lstm_step(const GGRnnStep& s, T* g, const T* ws, T* c, T* h, int hld, T* hn) {
  const int H = s.H, G = s.G;
  GG_FOR(i, (int64_t)s.rows * H) {
    const int b = (int)(i / H), j = (int)(i - (int64_t)b * H);
    T* row = g + (int64_t)b * s.W;
    T iv, fv, gv, ov, cv, hv;
    cell::lstm<T, cell::ExactMath<T>>(row[j] + rec_sum(ws, s, G, b, j), row[H + j] + rec_sum(ws, s, G, b, H + j),
                                      row[2 * H + j] + rec_sum(ws, s, G, b, 2 * H + j),
                                      row[3 * H + j] + rec_sum(ws, s, G, b, 3 * H + j), c[i], iv, fv, gv, ov, cv, hv);
    row[j] = iv;
    row[H + j] = fv;
    row[2 * H + j] = gv;
    row[3 * H + j] = ov;
    row[4 * H + j] = cv;
    c[i] = cv;
    h[(int64_t)b * hld + j] = hv;
    if (hn) hn[i] = hv;
  }
}

// g: the reserve rows (input part x_r x_z x_n in [0, 3H), overwritten by r z n; hn at [3H, 4H));
// b_hn: null without biases; hn: the running h (h_prev in, h_t out); y: the step's output rows.
template <typename T>
__device__ void gru_step(const GGRnnStep& s, T* g, const T* ws, const T* b_hn, T* hn, T* y) {
  const int H = s.H, G = s.G;
  GG_FOR(i, (int64_t)s.rows * H) {
    const int b = (int)(i / H), j = (int)(i - (int64_t)b * H);
    T* row = g + (int64_t)b * s.W;
    const T hnv = rec_sum(ws, s, G, b, 2 * H + j) + (b_hn ? b_hn[j] : T(0));
    T r, z, n, h;
    cell::gru<T, cell::ExactMath<T>>(row[j], row[H + j], row[2 * H + j], rec_sum(ws, s, G, b, j),
                                     rec_sum(ws, s, G, b, H + j), hnv, hn[i], r, z, n, h);
    row[j] = r;
    row[H + j] = z;
    row[2 * H + j] = n;
    row[3 * H + j] = hnv;
    hn[i] = h;
    y[i] = h;
  }
}

// y: the step's rows (in: the input part; out: h_t); hn: the running h.
template <typename T>
__device__ void rnn_step(const GGRnnStep& s, T* y, const T* ws, T* hn) {
  GG_FOR(i, (int64_t)s.rows * s.H) {
    const int b = (int)(i / s.H), j = (int)(i - (int64_t)b * s.H);
    const T h = cell::rnn<T, cell::ExactMath<T>>(y[i] + rec_sum(ws, s, s.G, b, j), s.relu != 0);
    y[i] = h;
    hn[i] = h;
  }
}

// ---- backward cell passes -----------------------------------------------------------------------
// Common head of a backward step at (row b, unit j) of width Hout: the partial sums of the next
// step's recurrent product reaching row b (rows below rec_rows), or, for a row the step does not
// have, their collection into the carried gradient dhs (returns false: nothing else to do).
template <typename T>
__device__ __forceinline__ bool carried_gradient(const GGRnnStep& s, const T* ws, T* dhs, int b, int j, T& rec) {
  rec = b < s.rec_rows ? rec_sum(ws, s, s.Hout, b, j) : T(0);
  if (b < s.rows) return true;
  dhs[(int64_t)b * s.Hout + j] += rec;
  return false;
}

// The gradient reaching h_t of row b (unit j < Hout): grad_y + the carried gradient + the next
// step's product; h_prev's row for dW_hh (from the previous step's y or h0); the carried
// gradient cleared (the cell sets its direct part).
template <typename T>
__device__ __forceinline__ T step_dh(const GGRnnStep& s, const T* gy, T* dhs, T rec, const T* yprev, const T* h0,
                                     T* hprev, int b, int j) {
  const int64_t k = (int64_t)b * s.Hout + j;
  const T dh = gy[k] + dhs[k] + rec;
  hprev[k] = b < s.carried ? yprev[k] : h0[k];
  dhs[k] = T(0);
  return dh;
}

// dhp: a projected LSTM's gradients reaching o * tanh(c) ([rows, H]; gg_rnn_combine and the
// product with W_hr made them), else null. gprev: the previous step's reserve rows.
template <typename T>
__device__ void lstm_step_back(const GGRnnStep& s, const T* gy, T* dhs, const T* ws, const T* yprev, const T* h0,
                               T* hprev, const T* g, const T* gprev, const T* c0, T* dcs, const T* dhp, T* dp) {
  const int H = s.H;
  const int rows = s.rows > s.rec_rows ? s.rows : s.rec_rows;
  GG_FOR(i, (int64_t)rows * H) {
    const int b = (int)(i / H), j = (int)(i - (int64_t)b * H);
    T rec;
    if (!carried_gradient(s, ws, dhs, b, j, rec)) continue;
    const T dh = dhp ? dhp[i] : step_dh(s, gy, dhs, rec, yprev, h0, hprev, b, j);
    const T* row = g + (int64_t)b * s.W;
    const T c_prev = b < s.carried ? gprev[(int64_t)b * s.W + 4 * H + j] : c0[i];
    T dc = dcs[i], di, df, dgv, dov;
    cell::lstm_backward<T, cell::ExactMath<T>>(row[j], row[H + j], row[2 * H + j], row[3 * H + j], row[4 * H + j],
                                               c_prev, dh, dc, di, df, dgv, dov);
    dcs[i] = dc;
    T* out = dp + (int64_t)b * s.G;
    out[j] = di;
    out[H + j] = df;
    out[2 * H + j] = dgv;
    out[3 * H + j] = dov;
  }
}

template <typename T>
__device__ void gru_step_back(const GGRnnStep& s, const T* gy, T* dhs, const T* ws, const T* yprev, const T* h0,
                              T* hprev, const T* g, T* dpx, T* dph) {
  const int H = s.H;
  const int rows = s.rows > s.rec_rows ? s.rows : s.rec_rows;
  GG_FOR(i, (int64_t)rows * H) {
    const int b = (int)(i / H), j = (int)(i - (int64_t)b * H);
    T rec;
    if (!carried_gradient(s, ws, dhs, b, j, rec)) continue;
    const T dh = step_dh(s, gy, dhs, rec, yprev, h0, hprev, b, j);
    const T* row = g + (int64_t)b * s.W;
    T dpr, dpz, dpn, dhn, dprev;
    cell::gru_backward<T>(row[j], row[H + j], row[2 * H + j], row[3 * H + j], hprev[i], dh, dpr, dpz, dpn, dhn, dprev);
    T* x = dpx + (int64_t)b * s.G;
    T* h = dph + (int64_t)b * s.G;
    x[j] = dpr;
    x[H + j] = dpz;
    x[2 * H + j] = dpn;
    h[j] = dpr;
    h[H + j] = dpz;
    h[2 * H + j] = dhn;
    dhs[i] = dprev;
  }
}

// y: the step's output rows (the RNN's derivative follows from h_t).
template <typename T>
__device__ void rnn_step_back(const GGRnnStep& s, const T* gy, T* dhs, const T* ws, const T* yprev, const T* h0,
                              T* hprev, const T* y, T* dp) {
  const int H = s.H;
  const int rows = s.rows > s.rec_rows ? s.rows : s.rec_rows;
  GG_FOR(i, (int64_t)rows * H) {
    const int b = (int)(i / H), j = (int)(i - (int64_t)b * H);
    T rec;
    if (!carried_gradient(s, ws, dhs, b, j, rec)) continue;
    const T dh = step_dh(s, gy, dhs, rec, yprev, h0, hprev, b, j);
    dp[i] = cell::rnn_backward<T>(y[i], dh, s.relu != 0);
  }
}

// A projected LSTM's step head (units j < Hout = proj_size): dh_t into dsum's rows (the product
// with W_hr and dW_hr read them), h_prev's rows, the carried gradient cleared.
template <typename T>
__device__ void combine(const GGRnnStep& s, const T* gy, T* dhs, const T* ws, const T* yprev, const T* h0, T* hprev,
                        T* dsum) {
  const int P = s.Hout;
  const int rows = s.rows > s.rec_rows ? s.rows : s.rec_rows;
  GG_FOR(i, (int64_t)rows * P) {
    const int b = (int)(i / P), j = (int)(i - (int64_t)b * P);
    T rec;
    if (!carried_gradient(s, ws, dhs, b, j, rec)) continue;
    dsum[i] = step_dh(s, gy, dhs, rec, yprev, h0, hprev, b, j);
  }
}

// out[j] = sum over rows r (ascending) of m[r * ld + j].
template <typename T>
__device__ void colsum(int rows, int cols, int ld, const T* m, T* out) {
  GG_FOR(j, cols) {
    T v = T(0);
    for (int r = 0; r < rows; ++r) v += m[(int64_t)r * ld + j];
    out[j] = v;
  }
}

}  // namespace gg_rnn

// ---- kernels ------------------------------------------------------------------------------------
#define GG_RNN_GEMM(layout, OpA, OpB, tile, T, suffix, threads, min_blocks)                                  \
  GG_KERNEL void __launch_bounds__(threads, min_blocks) gg_rnn_gemm_##layout##tile##_##suffix(                \
      GGRnnGemm g, T* c, T* c2, const T* a, const T* b, const T* bias, const T* bias2, T* ws) {              \
    gg_rnn::gemm<T, gg_rnn::Tile##tile>(g, OpA, OpB, c, c2, bias, bias2, ws);                                \
  }
#define GG_RNN_GEMMS(tile, T, suffix, threads, min_blocks)                                                    \
  GG_RNN_GEMM(nt, (gg::DenseKFast<T>{a, g.lda, g.K}), (gg::DenseKFast<T>{b, g.ldb, g.K}), tile, T, suffix, threads, \
              min_blocks)                                                                                     \
  GG_RNN_GEMM(nn, (gg::DenseKFast<T>{a, g.lda, g.K}), (gg::DenseRowFast<T>{b, g.ldb}), tile, T, suffix, threads,   \
              min_blocks)                                                                                     \
  GG_RNN_GEMM(tn, (gg::DenseRowFast<T>{a, g.lda}), (gg::DenseRowFast<T>{b, g.ldb}), tile, T, suffix, threads,     \
              min_blocks)

// Float: a tile for a step's few rows and two for the whole-sequence products (the launcher
// picks by rows, recurrent_plan.h); double, whose kernels exist for gradient checks rather
// than speed, the small one.
GG_RNN_GEMMS(32x64, float, f32, 128, 4)
GG_RNN_GEMMS(64x128, float, f32, 128, 2)  // capped at 168 registers (3 blocks) it spilled
GG_RNN_GEMMS(128x128, float, f32, 256, 1)
GG_RNN_GEMMS(32x64, double, f64, 128, 1)

#define GG_RNN_FAMILY(T, suffix)                                                                              \
  GG_KERNEL void gg_rnn_gemm_reduce_##suffix(GGRnnGemm g, T* c, T* c2, const T* bias, const T* bias2,          \
                                             const T* ws) {                                                    \
    gg::split_reduce<T>(gg_rnn::Store<T>{c, c2, bias, bias2, g}, g.M, g.N, g.splits, ws);                      \
  }                                                                                                           \
  GG_KERNEL void gg_lstm_step_##suffix(GGRnnStep s, T* g, const T* ws, T* c, T* h, int hld, T* hn) {           \
    gg_rnn::lstm_step<T>(s, g, ws, c, h, hld, hn);                                                             \
  }                                                                                                           \
  GG_KERNEL void gg_gru_step_##suffix(GGRnnStep s, T* g, const T* ws, const T* b_hn, T* hn, T* y) {            \
    gg_rnn::gru_step<T>(s, g, ws, b_hn, hn, y);                                                                \
  }                                                                                                           \
  GG_KERNEL void gg_rnn_step_##suffix(GGRnnStep s, T* y, const T* ws, T* hn) { gg_rnn::rnn_step<T>(s, y, ws, hn); } \
  GG_KERNEL void gg_lstm_step_back_##suffix(GGRnnStep s, const T* gy, T* dhs, const T* ws, const T* yprev,      \
                                            const T* h0, T* hprev, const T* g, const T* gprev, const T* c0,     \
                                            T* dcs, const T* dhp, T* dp) {                                     \
    gg_rnn::lstm_step_back<T>(s, gy, dhs, ws, yprev, h0, hprev, g, gprev, c0, dcs, dhp, dp);                   \
  }                                                                                                           \
  GG_KERNEL void gg_gru_step_back_##suffix(GGRnnStep s, const T* gy, T* dhs, const T* ws, const T* yprev,       \
                                           const T* h0, T* hprev, const T* g, T* dpx, T* dph) {                \
    gg_rnn::gru_step_back<T>(s, gy, dhs, ws, yprev, h0, hprev, g, dpx, dph);                                   \
  }                                                                                                           \
  GG_KERNEL void gg_rnn_step_back_##suffix(GGRnnStep s, const T* gy, T* dhs, const T* ws, const T* yprev,       \
                                           const T* h0, T* hprev, const T* y, T* dp) {                         \
    gg_rnn::rnn_step_back<T>(s, gy, dhs, ws, yprev, h0, hprev, y, dp);                                         \
  }                                                                                                           \
  GG_KERNEL void gg_rnn_combine_##suffix(GGRnnStep s, const T* gy, T* dhs, const T* ws, const T* yprev,         \
                                         const T* h0, T* hprev, T* dsum) {                                     \
    gg_rnn::combine<T>(s, gy, dhs, ws, yprev, h0, hprev, dsum);                                                \
  }                                                                                                           \
  GG_KERNEL void gg_rnn_colsum_##suffix(int rows, int cols, int ld, const T* m, T* out) {                      \
    gg_rnn::colsum<T>(rows, cols, ld, m, out);                                                                 \
  }                                                                                                           \
  GG_KERNEL void gg_rnn_copy_##suffix(int64_t n, const T* src, T* dst) {                                      \
    GG_FOR(i, n) dst[i] = src[i];                                                                             \
  }
GG_RNN_FAMILY(float, f32)
GG_RNN_FAMILY(double, f64)

// ---- packing ------------------------------------------------------------------------------------
GG_KERNEL void gg_rnn_index_fill(GGIndexChunk chunk, int32_t* table) {
  GG_FOR(i, chunk.count) table[chunk.start + i] = chunk.value[i];
}
// dst row r = src row table[r] (gather) or dst row table[r] = src row r (scatter), rows of
// `feature` elements.
#define GG_PACK(T, suffix)                                                                                    \
  GG_KERNEL void gg_pack_gather_##suffix(int64_t rows, int64_t feature, const int32_t* table, const T* src,    \
                                         T* dst) {                                                             \
    GG_FOR(e, rows * feature) {                                                                               \
      const int64_t r = e / feature;                                                                          \
      dst[e] = src[(int64_t)table[r] * feature + (e - r * feature)];                                          \
    }                                                                                                         \
  }                                                                                                           \
  GG_KERNEL void gg_pack_scatter_##suffix(int64_t rows, int64_t feature, const int32_t* table, const T* src,   \
                                          T* dst) {                                                            \
    GG_FOR(e, rows * feature) {                                                                               \
      const int64_t r = e / feature;                                                                          \
      dst[(int64_t)table[r] * feature + (e - r * feature)] = src[e];                                          \
    }                                                                                                         \
  }                                                                                                           \
  GG_KERNEL void gg_pack_fill_##suffix(int64_t n, double value, T* dst) {                                     \
    GG_FOR(e, n) dst[e] = (T)value;                                                                           \
  }
GG_PACK(float, f32)
GG_PACK(double, f64)
GG_PACK(int64_t, i64)
GG_PACK(uint8_t, u8)
