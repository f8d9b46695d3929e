// Host side of the recurrent kernels (kernels/cuda/recurrent.cu): the products' tiles and k
// splits, the workspace layout, and the launch sequence of a forward and a backward op.
// Header-only and free of driver calls, so the CUDA launcher (recurrent.cpp) and the CPU
// emulation of the kernels (core-runtime/tests/test_cuda_emulated_recurrent.cpp) run the very
// same sequence (winograd_plan.h is the model).
//
// Forward of one layer and direction (recurrent_geometry.h's rows and steps):
//   copy h0 -> h_n, c0 -> c_n; P = x W_ih^T + b (one product, into y or the reserve);
//   per step s: R = h_n[:r] W_hh^T (partial sums in the workspace), the cell kernel (adds R's
//   partitions itself), and for a projected LSTM y[o:o+r] = h_n[:r] = h' W_hr^T.
// Backward: copy grad_hn -> dh0, grad_cn -> dc0; per step s from the last: the cell's backward
//   kernel (it adds the partial sums of step s + 1's product dP^h W_hh) then step s's product;
//   once more with no rows to collect step 0's sums into dh0; then dW_ih, dW_hh, dx, db, dW_hr.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "recurrent_params.h"
#include "glassgrad/autodiff/recurrent_geometry.h"

namespace glassgrad {
namespace cuda {
namespace recurrent {

// Product tiles (gemm_engine.cuh TileConfig, recurrent.cu): kernel infix, rows, columns, threads.
// Double has the first only.
struct Tile {
  const char* name;
  int64_t bm, bn, threads;
};
constexpr int kTileCount = 3;
inline const Tile& tile(int i) {
  static const Tile t[kTileCount] = {{"32x64", 32, 64, 128}, {"64x128", 64, 128, 128}, {"128x128", 128, 128, 256}};
  return t[i];
}

struct GemmChoice {
  int tile = 0;
  int64_t splits = 1;
};

constexpr int64_t kMinSplitLength = 64;  // k per partition, at least
constexpr int64_t kMaxSplits = 16;
// Partial sums of one split product, at most (the products of an op share them).
constexpr int64_t kMaxPartialElems = int64_t(8) << 20;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Tile and k split of C[M, N] over K aiming at `target` threads: the tile by rows (a step's few
// rows take 32-row tiles), the 128 x 128 one only when its tiles fill the target, then k split
// (partitions of at least kMinSplitLength) until they do. split = false: one partition (a
// product whose destination the kernel must write itself).
inline GemmChoice choose(int64_t M, int64_t N, int64_t K, bool is_float, int64_t target, bool split = true) {
  GemmChoice c;
  const auto blocks = [&](int t) { return ceil_div(M, tile(t).bm) * ceil_div(N, tile(t).bn); };
  if (is_float) {
    c.tile = M <= 32 ? 0 : M <= 64 ? 1 : 2;
    if (c.tile == 2 && blocks(2) * tile(2).threads < target) c.tile = 1;
  }
  const int64_t threads = tile(c.tile).threads;
  while (split && blocks(c.tile) * c.splits * threads < target && K / (2 * c.splits) >= kMinSplitLength &&
         2 * c.splits <= kMaxSplits && 2 * c.splits * M * N <= kMaxPartialElems)
    c.splits *= 2;
  return c;
}

inline const char* suffix(bool is_float) { return is_float ? "f32" : "f64"; }

// The split choices of an op, decided once from its geometry, dtype and target.
struct Choices {
  GemmChoice input, step, dw_ih, dw_hh, dx, dw_hr;
};
inline Choices choices(const RecurrentGeometry& g, bool is_float, int64_t target) {
  Choices c;
  const int64_t G = g.gates();
  c.input = choose(g.rows, G, g.input_size, is_float, target);
  c.step = choose(g.batch, G, g.out, is_float, target);  // forward; every step uses the batch's split
  c.dw_ih = choose(G, g.input_size, g.rows, is_float, target);
  c.dw_hh = choose(G, g.out, g.rows, is_float, target);
  c.dx = choose(g.rows, g.input_size, G, is_float, target);
  c.dw_hr = choose(g.out, g.hidden, g.rows, is_float, target);
  return c;
}
inline GemmChoice backward_step_choice(const RecurrentGeometry& g, bool is_float, int64_t target) {
  return choose(g.batch, g.out, g.gates(), is_float, target);
}

inline int64_t partials(const GemmChoice& c, int64_t M, int64_t N) { return c.splits > 1 ? c.splits * M * N : 0; }

// Workspace elements of the forward op: the partial sums of the input projection or of a step's
// recurrent product (never both at once).
inline int64_t forward_workspace_elems(const RecurrentGeometry& g, bool is_float, int64_t target) {
  const Choices c = choices(g, is_float, target);
  return std::max(partials(c.input, g.rows, g.gates()), c.step.splits * g.batch * g.gates());
}

// The backward op's workspace, in elements from its start.
struct BackwardLayout {
  int64_t dp = 0, dph = 0, hprev = 0, dsum = 0, dhp = 0, partial = 0, total = 0;
};
inline BackwardLayout backward_layout(const RecurrentGeometry& g, bool is_float, int64_t target) {
  const int64_t G = g.gates(), N = g.rows;
  const Choices c = choices(g, is_float, target);
  const GemmChoice step = backward_step_choice(g, is_float, target);
  BackwardLayout l;
  const auto take = [&](int64_t elems) {
    const int64_t at = l.total;
    l.total += ceil_div(elems, 4) * 4;  // 16-byte aligned pieces (the products' vector loads)
    return at;
  };
  l.dp = take(N * G);
  l.dph = g.cell == RecurrentCell::GRU ? take(N * G) : l.dp;
  l.hprev = take(N * g.out);
  l.dsum = take(g.projected ? N * g.out : 0);
  l.dhp = take(g.projected ? g.batch * g.hidden : 0);
  l.partial = take(std::max({step.splits * g.batch * g.out, partials(c.dw_ih, G, g.input_size),
                             partials(c.dw_hh, G, g.out), partials(c.dx, N, g.input_size),
                             g.projected ? partials(c.dw_hr, g.out, g.hidden) : int64_t(0)}));
  return l;
}

// Launches through launch(name, grid_x, grid_y, grid_z, threads, args...), whose argument types
// are exactly the kernels'. max_blocks caps the cell kernels' grid-stride grids.
template <typename T, typename Launch>
struct Runner {
  Launch& launch;
  int64_t max_blocks;
  bool is_float = sizeof(T) == 4;

  std::string name(const std::string& base) const { return base + "_" + suffix(is_float); }
  unsigned grid(int64_t n) const {
    return static_cast<unsigned>(std::max<int64_t>(1, std::min(ceil_div(n, 256), max_blocks)));
  }
  static unsigned yz(int64_t n) { return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(n, 65535))); }

  void copy(T* dst, const T* src, int64_t n) {
    if (n > 0) launch(name("gg_rnn_copy").c_str(), grid(n), 1u, 1u, 256u, n, src, dst);
  }

  // C (+)= A B of layout "nt", "nn" or "tn" (recurrent_params.h); with splits > 1 the partial sums
  // go to ws and, unless keep_partials, gg_rnn_gemm_reduce adds them into c.
  void gemm(const char* layout, const GemmChoice& ch, int64_t M, int64_t N, int64_t K, const T* a, int64_t lda,
            const T* b, int64_t ldb, T* c, int64_t ldc, T* ws, const T* bias = nullptr, const T* bias2 = nullptr,
            int64_t bias2_cols = 0, T* c2 = nullptr, int64_t ldc2 = 0, bool accumulate = false,
            bool keep_partials = false) {
    if (M <= 0 || N <= 0) return;
    GGRnnGemm g{};
    g.M = static_cast<int32_t>(M);
    g.N = static_cast<int32_t>(N);
    g.K = static_cast<int32_t>(K);
    g.lda = static_cast<int32_t>(lda);
    g.ldb = static_cast<int32_t>(ldb);
    g.ldc = static_cast<int32_t>(ldc);
    g.ldc2 = static_cast<int32_t>(ldc2);
    g.splits = static_cast<int32_t>(ch.splits);
    g.accumulate = accumulate ? 1 : 0;
    g.bias2_cols = static_cast<int32_t>(bias2_cols);
    const Tile& t = tile(ch.tile);
    launch(name(std::string("gg_rnn_gemm_") + layout + t.name).c_str(),
           static_cast<unsigned>(std::min<int64_t>(ceil_div(N, t.bn), int64_t(1) << 30)), yz(ceil_div(M, t.bm)),
           yz(ch.splits), static_cast<unsigned>(t.threads), g, c, c2, a, b, bias, bias2, ws);
    if (ch.splits > 1 && !keep_partials) {
      launch(name("gg_rnn_gemm_reduce").c_str(), grid(M * N * (ch.splits >= 8 ? 8 : 1)), 1u, 1u, 256u, g, c, c2, bias,
             bias2, static_cast<const T*>(ws));
    }
  }
};

template <typename T>
struct ForwardArgs {
  const T *x, *w_ih, *w_hh, *h0, *c0, *b_ih, *b_hh, *w_hr;  // absent: null
  T *y, *hn, *cn, *reserve;                                   // cn, reserve: null where the cell has none
  T* ws;                                                      // forward_workspace_elems() of T
};

template <typename T, typename Launch>
void run_forward(Launch& launch, const RecurrentGeometry& g, int64_t target, int64_t max_blocks,
                 const ForwardArgs<T>& a) {
  Runner<T, Launch> run{launch, max_blocks};
  const Choices ch = choices(g, run.is_float, target);
  const int64_t G = g.gates(), H = g.hidden, Ho = g.out, W = g.reserve_width();
  const bool lstm = g.cell == RecurrentCell::LSTM, gru = g.cell == RecurrentCell::GRU;
  const bool rnn = !lstm && !gru;
  run.copy(a.hn, a.h0, g.batch * Ho);
  if (lstm) run.copy(a.cn, a.c0, g.batch * H);
  T* proj = rnn ? a.y : a.reserve;
  // P = x W_ih^T + b_ih + b_hh (the GRU's n part of b_hh excepted: r scales it in the cell).
  run.gemm("nt", ch.input, g.rows, G, g.input_size, a.x, g.input_size, a.w_ih, g.input_size, proj, rnn ? Ho : W, a.ws,
           a.b_ih, a.b_hh, gru ? 2 * H : G);
  GGRnnStep st{};
  st.splits = static_cast<int32_t>(ch.step.splits);
  st.H = static_cast<int32_t>(H);
  st.Hout = static_cast<int32_t>(Ho);
  st.G = static_cast<int32_t>(G);
  st.W = static_cast<int32_t>(W);
  st.relu = g.cell == RecurrentCell::RNNReLU ? 1 : 0;
  for (int64_t s = 0; s < g.steps; ++s) {
    const int64_t r = g.rows_at(s), o = g.offset_at(s);
    if (r == 0) continue;
    // R = h_n[:r] W_hh^T, its partitions left in ws for the cell kernel (one partition: written there).
    run.gemm("nt", ch.step, r, G, Ho, a.hn, Ho, a.w_hh, Ho, a.ws, G, a.ws, nullptr, nullptr, 0, nullptr, 0, false, true);
    st.rows = st.rec_rows = static_cast<int32_t>(r);
    st.carried = static_cast<int32_t>(g.carried_rows(s));
    const unsigned grid = run.grid(r * H);
    if (lstm) {
      T* h = g.projected ? a.reserve + o * W + 5 * H : a.y + o * Ho;
      launch(run.name("gg_lstm_step").c_str(), grid, 1u, 1u, 256u, st, a.reserve + o * W, static_cast<const T*>(a.ws),
             a.cn, h, static_cast<int>(g.projected ? W : Ho), g.projected ? static_cast<T*>(nullptr) : a.hn);
      if (g.projected) {  // y[o:o+r] = h_n[:r] = h' W_hr^T
        run.gemm("nt", GemmChoice{ch.step.tile, 1}, r, Ho, H, a.reserve + o * W + 5 * H, W, a.w_hr, H, a.y + o * Ho,
                 Ho, nullptr, nullptr, nullptr, 0, a.hn, Ho);
      }
    } else if (gru) {
      launch(run.name("gg_gru_step").c_str(), grid, 1u, 1u, 256u, st, a.reserve + o * W, static_cast<const T*>(a.ws),
             a.b_hh ? a.b_hh + 2 * H : static_cast<const T*>(nullptr), a.hn, a.y + o * H);
    } else {
      launch(run.name("gg_rnn_step").c_str(), grid, 1u, 1u, 256u, st, a.y + o * H, static_cast<const T*>(a.ws), a.hn);
    }
  }
}

template <typename T>
struct BackwardArgs {
  const T *grad_y, *grad_hn, *grad_cn, *x, *w_ih, *w_hh, *h0, *c0, *y, *reserve, *w_hr;  // absent: null
  T *dx, *dw_ih, *dw_hh, *dh0, *dc0, *db_ih, *db_hh, *dw_hr;  // not wanted or absent: null
  T* ws;                                                       // backward_layout().total of T
};

template <typename T, typename Launch>
void run_backward(Launch& launch, const RecurrentGeometry& g, int64_t target, int64_t max_blocks,
                  const BackwardArgs<T>& a) {
  Runner<T, Launch> run{launch, max_blocks};
  const Choices ch = choices(g, run.is_float, target);
  const GemmChoice step = backward_step_choice(g, run.is_float, target);
  const BackwardLayout l = backward_layout(g, run.is_float, target);
  const int64_t G = g.gates(), H = g.hidden, Ho = g.out, W = g.reserve_width(), N = g.rows;
  const bool lstm = g.cell == RecurrentCell::LSTM, gru = g.cell == RecurrentCell::GRU;
  T* dp = a.ws + l.dp;
  T* dph = a.ws + l.dph;
  T* hprev = a.ws + l.hprev;
  T* dsum = a.ws + l.dsum;
  T* dhp = a.ws + l.dhp;
  T* part = a.ws + l.partial;
  run.copy(a.dh0, a.grad_hn, g.batch * Ho);
  if (lstm) run.copy(a.dc0, a.grad_cn, g.batch * H);
  GGRnnStep st{};
  st.splits = static_cast<int32_t>(step.splits);
  st.H = static_cast<int32_t>(H);
  st.Hout = static_cast<int32_t>(Ho);
  st.G = static_cast<int32_t>(G);
  st.W = static_cast<int32_t>(W);
  st.relu = g.cell == RecurrentCell::RNNReLU ? 1 : 0;
  const T* none = nullptr;
  // One backward step's cell kernels (rows r from row o, the previous step's rows from po; with
  // r = 0 they only collect the partial sums of rec rows into dh0).
  const auto cell_back = [&](int64_t r, int64_t o, int64_t po, int64_t carried, int64_t rec) {
    st.rows = static_cast<int32_t>(r);
    st.carried = static_cast<int32_t>(carried);
    st.rec_rows = static_cast<int32_t>(rec);
    const T* gy = a.grad_y + o * Ho;
    const T* yprev = carried > 0 ? a.y + po * Ho : none;
    const unsigned grid = run.grid(std::max(r, rec) * (g.projected ? Ho : H));
    if (r == 0 && rec == 0) return;
    if (g.projected) {
      launch(run.name("gg_rnn_combine").c_str(), grid, 1u, 1u, 256u, st, gy, a.dh0, static_cast<const T*>(part), yprev,
             a.h0, hprev + o * Ho, dsum + o * Ho);
      if (r == 0) return;
      run.gemm("nn", GemmChoice{step.tile, 1}, r, H, Ho, dsum + o * Ho, Ho, a.w_hr, H, dhp, H, nullptr);
      GGRnnStep own = st;
      own.rec_rows = 0;
      launch(run.name("gg_lstm_step_back").c_str(), run.grid(r * H), 1u, 1u, 256u, own, none, a.dh0, none, none, none,
             hprev, a.reserve + o * W, carried > 0 ? a.reserve + po * W : none, a.c0, a.dc0,
             static_cast<const T*>(dhp), dp + o * G);
    } else if (lstm) {
      launch(run.name("gg_lstm_step_back").c_str(), grid, 1u, 1u, 256u, st, gy, a.dh0, static_cast<const T*>(part),
             yprev, a.h0, hprev + o * Ho, a.reserve + o * W, carried > 0 ? a.reserve + po * W : none, a.c0, a.dc0, none,
             dp + o * G);
    } else if (gru) {
      launch(run.name("gg_gru_step_back").c_str(), grid, 1u, 1u, 256u, st, gy, a.dh0, static_cast<const T*>(part), yprev,
             a.h0, hprev + o * Ho, a.reserve + o * W, dp + o * G, dph + o * G);
    } else {
      launch(run.name("gg_rnn_step_back").c_str(), grid, 1u, 1u, 256u, st, gy, a.dh0, static_cast<const T*>(part), yprev,
             a.h0, hprev + o * Ho, a.y + o * Ho, dp + o * G);
    }
  };
  int64_t rec = 0;  // rows of the product whose partial sums wait in `part`
  for (int64_t s = g.steps - 1; s >= 0; --s) {
    const int64_t r = g.rows_at(s), o = g.offset_at(s);
    cell_back(r, o, s > 0 ? g.offset_at(s - 1) : 0, g.carried_rows(s), rec);
    // dh_prev's product part dP^h W_hh, left in `part` for the next cell kernel.
    run.gemm("nn", step, r, Ho, G, dph + o * G, G, a.w_hh, Ho, part, Ho, part, nullptr, nullptr, 0, nullptr, 0, false,
             true);
    rec = r;
  }
  cell_back(0, 0, 0, 0, rec);
  // The products over the whole sequence (their split partials reuse `part`).
  run.gemm("tn", ch.dw_ih, G, g.input_size, N, dp, G, a.x, g.input_size, a.dw_ih, g.input_size, part);
  run.gemm("tn", ch.dw_hh, G, Ho, N, dph, G, hprev, Ho, a.dw_hh, Ho, part);
  if (a.dx) run.gemm("nn", ch.dx, N, g.input_size, G, dp, G, a.w_ih, g.input_size, a.dx, g.input_size, part);
  if (a.db_ih) {
    launch(run.name("gg_rnn_colsum").c_str(), run.grid(G), 1u, 1u, 256u, static_cast<int>(N), static_cast<int>(G),
           static_cast<int>(G), static_cast<const T*>(dp), a.db_ih);
  }
  if (a.db_hh) {
    launch(run.name("gg_rnn_colsum").c_str(), run.grid(G), 1u, 1u, 256u, static_cast<int>(N), static_cast<int>(G),
           static_cast<int>(G), static_cast<const T*>(dph), a.db_hh);
  }
  if (a.dw_hr) run.gemm("tn", ch.dw_hr, Ho, H, N, dsum, Ho, a.reserve + 5 * H, W, a.dw_hr, H, part);
}

}  // namespace recurrent
}  // namespace cuda
}  // namespace glassgrad
