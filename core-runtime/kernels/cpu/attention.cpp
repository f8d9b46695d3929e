// CPU kernels of scaled dot-product attention (autodiff-engine/src/ops/attention.cpp; shapes and
// attributes in glassgrad/autodiff/attention_geometry.h; the derivation in docs/attention.md),
// float32 and float64. Inputs at any strides (kernels/attention_layout.h); outputs dense.
//
// Forward, per (batch z, block of kRows query rows), FlashAttention's online softmax: for each
// block of kCols keys, the scores s = scale * Q K^T + mask (one GEMM), then per row with the
// running maximum m and sum l:
//     m' = max(m, max_j s_j),   a = exp(m - m'),   p_j = exp(s_j - m'),
//     l' = a l + sum_j p_j,     O' = a O + (keep / (1 - p_drop) * p) V   (a second GEMM),
// and at the end out = O / l, lse = m + log(l). Only a kRows x kCols tile of scores exists at a
// time. A row with no finite score (all masked) keeps m = -inf: out = 0, lse = -inf.
//
// Backward in two passes over the same tiles, p recomputed as exp(s - lse):
//   1. per (z, query block): D_i = sum_e g_ie out_ie (stored for pass 2), and for each key
//      block dp = keep / (1 - p_drop) * (g V^T), ds = p * (dp - D), dQ += scale * ds K.
//   2. per (z, key block): for each query block, the same p and ds transposed,
//      dV += pd^T g, dK += scale * ds^T Q, and dmask = ds when asked.
// Each pass writes only its own rows, so no two threads add into one value and the result does
// not depend on the thread count. Under is_causal, key blocks past a query block's last row
// (and query blocks before a key block's first key) are skipped.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "attention_layout.h"
#include "attention_rules.h"
#include "cpu/registration.h"
#include "gemm/gemm.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

constexpr int64_t kRows = 64;  // query rows of a tile
constexpr int64_t kCols = 64;  // keys of a tile

// A matrix of an operand: (i, j) at p[i * row + j * col].
template <typename T>
struct Mat {
  const T* p;
  int64_t row, col;
  const T* at(int64_t i, int64_t j) const { return p + i * row + j * col; }
};

// Per-thread scratch: the score tiles and the GEMM's packing buffer.
template <typename T>
struct Scratch {
  std::vector<T> s, dp, acc, acc2;
  std::vector<T> drop;  // keep / (1 - p) of a tile's scores (query r, key c at r * kCols + c)
  std::vector<char> gemm_bytes;
  cpu::GemmWorkspace ws() { return {gemm_bytes.data(), gemm_bytes.size()}; }
  Scratch(const AttentionGeometry& g) {
    const int64_t w = std::max(g.e, g.ev);
    s.resize(static_cast<size_t>(kRows * kCols));
    dp.resize(static_cast<size_t>(kRows * kCols));
    acc.resize(static_cast<size_t>(kRows * w));
    acc2.resize(static_cast<size_t>(kRows * w));
    if (g.dropout()) drop.resize(static_cast<size_t>(kRows * kCols));
    const DType dt = sizeof(T) == 4 ? DType::Float32 : DType::Float64;
    size_t bytes = 0;
    for (int64_t k : {g.e, g.ev, kRows, kCols}) {
      bytes = std::max(bytes, cpu::gemm_workspace_bytes(kRows, std::max(kCols, w), k, dt, true));
    }
    gemm_bytes.resize(bytes);
  }
};

// C[m, n] (dense, ldc) = alpha * A[m, k] B[k, n] + beta * C.
template <typename T>
void gemm(Scratch<T>& sc, int64_t m, int64_t n, int64_t k, Mat<T> a, Mat<T> b, T* c, int64_t ldc, T alpha, T beta) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  cpu::GemmProblem<T> p(m, n, k);
  p.a = cpu::strided(a.p, a.row, a.col);
  p.b = cpu::strided(b.p, b.row, b.col);
  p.c = c;
  p.ldc = ldc;
  p.alpha = alpha;
  p.beta = beta;
  cpu::gemm(p, sc.ws());
}

// Everything a tile needs to know about one batch element z.
template <typename T>
struct Problem {
  const AttentionGeometry& g;
  AttentionLayout lay;
  uint64_t seed = 0, threshold = 0;
  T keep_scale = T(1);

  bool has(int slot) const { return lay.tensor[static_cast<size_t>(slot)] != nullptr; }
  // The matrix z of the operand in `slot`.
  Mat<T> mat(int slot, int64_t z) const {
    const size_t k = static_cast<size_t>(slot);
    return {lay.tensor[k]->template data<T>() + lay.offset(slot, z), lay.row[k], lay.col[k]};
  }
  // The scores s = scale * acc + mask of rows [i0, i0 + rows) and keys [j0, j0 + cols) of batch
  // element z, in place over the tile (ld kCols) that holds acc = Q K^T; -inf where masked out.
  void scores(int64_t z, int64_t i0, int64_t rows, int64_t j0, int64_t cols, T* s) const {
    const T scale = static_cast<T>(g.scale);
    const Mat<T> m = has(kAttnMask) ? mat(kAttnMask, z) : Mat<T>{nullptr, 0, 0};
    for (int64_t r = 0; r < rows; ++r) {
      T* row = s + r * kCols;
      for (int64_t c = 0; c < cols; ++c) {
        T x = scale * row[c];
        if (m.p) x += *m.at(i0 + r, j0 + c);
        if (g.causal && j0 + c > i0 + r) x = -std::numeric_limits<T>::infinity();
        row[c] = x;
      }
    }
  }
  // keep / (1 - p) of the scores of rows [i0, i0 + rows) and keys [j0, j0 + cols) of batch element
  // z into f (query r, key c at r * kCols + c). One Philox evaluation gives the four keys
  // j, j + 8, j + 16, j + 24 of a 32-key group (attention_rules.h), so a tile takes a quarter of
  // an evaluation a score; under is_causal a group whose four keys are all hidden is skipped
  // (its factors are never read).
  void dropout_tile(int64_t z, int64_t i0, int64_t rows, int64_t j0, int64_t cols, T* f) const {
    const int64_t g_lo = j0 / 32, g_hi = (j0 + cols + 31) / 32;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      const uint64_t row = static_cast<uint64_t>(z * g.l + i);
      T* fr = f + r * kCols;  // fr[j - j0] for key j
      for (int64_t grp = g_lo; grp < g_hi; ++grp) {
        for (int64_t w = 0; w < 8; ++w) {
          const int64_t j = grp * 32 + w;  // keys j, j + 8, j + 16, j + 24
          if (g.causal && j > i) break;    // every later key of the group is hidden too
          uint32_t words[4];
          attention_rule::philox4(attention_rule::group_counter(row, g.s, j), seed, words);
          for (int q = 0; q < 4; ++q) {
            const int64_t jq = j + 8 * q;
            if (jq >= j0 && jq < j0 + cols) fr[jq - j0] = static_cast<uint64_t>(words[q]) >= threshold ? keep_scale : T(0);
          }
        }
      }
    }
  }
  // Keys visible to some row of [i0, i0 + rows): all of them, or up to the last row under is_causal.
  int64_t key_end(int64_t i0, int64_t rows) const { return g.causal ? std::min(g.s, i0 + rows) : g.s; }
};

// The forward's (backward = false) or the backward's operands and dropout seed.
template <typename T>
Problem<T> problem(const KernelContext& c, const AttentionGeometry& g, bool backward) {
  Problem<T> pr{g, attention_layout(g, c.inputs, backward)};
  const int si = g.seed_input(backward ? 1 : 0);
  if (si >= 0) {
    pr.seed = static_cast<uint64_t>(*c.inputs[static_cast<size_t>(si)].data<int64_t>());
    pr.threshold = attention_rule::keep_threshold(g.dropout_p);
    pr.keep_scale = g.dropout_p >= 1.0 ? T(0) : static_cast<T>(1.0 / (1.0 - g.dropout_p));
  }
  return pr;
}

int64_t blocks(int64_t n, int64_t b) { return (n + b - 1) / b; }

template <typename T>
void forward(const KernelContext& c) {
  const AttentionGeometry g =
      AttentionGeometry::from(c.inputs[0].shape(), c.inputs[1].shape(), c.inputs[2].shape(), c.attrs);
  T* out = c.outputs[0].data<T>();
  T* lse = c.outputs[1].data<T>();
  const int64_t batch = g.batch_count();
  if (batch == 0 || g.l == 0) return;
  const Problem<T> pr = problem<T>(c, g, false);
  const int64_t qblocks = blocks(g.l, kRows);
  const T neg_inf = -std::numeric_limits<T>::infinity();
  parallel_for(batch * qblocks, 1, [&](int64_t t0, int64_t t1) {
    Scratch<T> sc(g);
    std::vector<T> m(kRows), l(kRows);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t z = t / qblocks, i0 = (t % qblocks) * kRows, rows = std::min(kRows, g.l - i0);
      const Mat<T> q = pr.mat(kAttnQuery, z), k = pr.mat(kAttnKey, z), v = pr.mat(kAttnValue, z);
      T* o = sc.acc.data();  // [rows, ev], ld ev
      std::fill(o, o + rows * g.ev, T(0));
      std::fill(m.begin(), m.end(), neg_inf);
      std::fill(l.begin(), l.end(), T(0));
      const int64_t kend = pr.key_end(i0, rows);
      for (int64_t j0 = 0; j0 < kend; j0 += kCols) {
        const int64_t cols = std::min(kCols, kend - j0);
        T* s = sc.s.data();
        // s = Q K^T: A = Q rows [i0, i0 + rows), B[e, j] = K[j0 + j, e].
        gemm<T>(sc, rows, cols, g.e, {q.at(i0, 0), q.row, q.col}, {k.at(j0, 0), k.col, k.row}, s, kCols, T(1), T(0));
        pr.scores(z, i0, rows, j0, cols, s);
        if (g.dropout()) pr.dropout_tile(z, i0, rows, j0, cols, sc.drop.data());
        for (int64_t r = 0; r < rows; ++r) {
          T* row = s + r * kCols;
          T mx = m[static_cast<size_t>(r)];
          for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, row[j]);
          T* orow = o + r * g.ev;
          if (mx == neg_inf) {  // nothing visible yet: p = 0
            std::fill(row, row + cols, T(0));
            continue;
          }
          const T a = std::exp(m[static_cast<size_t>(r)] - mx);  // exp(-inf) = 0 on the first visible block
          T sum = 0;
          for (int64_t j = 0; j < cols; ++j) {
            const T p = std::exp(row[j] - mx);
            sum += p;
            row[j] = g.dropout() ? p * sc.drop[static_cast<size_t>(r * kCols + j)] : p;
          }
          l[static_cast<size_t>(r)] = a * l[static_cast<size_t>(r)] + sum;
          m[static_cast<size_t>(r)] = mx;
          if (a != T(1)) {
            for (int64_t e = 0; e < g.ev; ++e) orow[e] *= a;
          }
        }
        // O += P V
        gemm<T>(sc, rows, g.ev, cols, {s, kCols, 1}, {v.at(j0, 0), v.row, v.col}, o, g.ev, T(1), T(1));
      }
      for (int64_t r = 0; r < rows; ++r) {
        const T lr = l[static_cast<size_t>(r)];
        const T inv = lr > T(0) ? T(1) / lr : T(0);
        T* dst = out + (z * g.l + i0 + r) * g.ev;
        for (int64_t e = 0; e < g.ev; ++e) dst[e] = o[r * g.ev + e] * inv;
        lse[z * g.l + i0 + r] = lr > T(0) ? m[static_cast<size_t>(r)] + std::log(lr) : neg_inf;
      }
    }
  });
}

// p = exp(s - lse) over a tile of scores (rows: ld kCols), 0 where s or lse is -inf.
template <typename T>
void probabilities(T* s, int64_t rows, int64_t cols, const T* lse_of_row, int64_t lse_step) {
  for (int64_t r = 0; r < rows; ++r) {
    const T lse = lse_of_row[r * lse_step];
    T* row = s + r * kCols;
    for (int64_t j = 0; j < cols; ++j) row[j] = lse == -std::numeric_limits<T>::infinity() ? T(0) : std::exp(row[j] - lse);
  }
}

// Pass 1: D and dQ, per (z, query block).
template <typename T>
void backward_dq(const Problem<T>& pr, T* dq, T* dsum) {
  const AttentionGeometry& g = pr.g;
  const int64_t qblocks = blocks(g.l, kRows);
  parallel_for(g.batch_count() * qblocks, 1, [&](int64_t t0, int64_t t1) {
    Scratch<T> sc(g);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t z = t / qblocks, i0 = (t % qblocks) * kRows, rows = std::min(kRows, g.l - i0);
      const Mat<T> q = pr.mat(kAttnQuery, z), k = pr.mat(kAttnKey, z), v = pr.mat(kAttnValue, z);
      const Mat<T> go = pr.mat(kAttnGradOut, z), out = pr.mat(kAttnOut, z), lse = pr.mat(kAttnLse, z);
      T* dsum_z = dsum + z * g.l;
      for (int64_t r = 0; r < rows; ++r) {
        T d = 0;
        for (int64_t e = 0; e < g.ev; ++e) d += *go.at(i0 + r, e) * *out.at(i0 + r, e);
        dsum_z[i0 + r] = d;
      }
      T* acc = sc.acc.data();  // dQ rows, ld e
      std::fill(acc, acc + rows * g.e, T(0));
      const int64_t kend = pr.key_end(i0, rows);
      for (int64_t j0 = 0; j0 < kend; j0 += kCols) {
        const int64_t cols = std::min(kCols, kend - j0);
        T* s = sc.s.data();
        T* dp = sc.dp.data();
        gemm<T>(sc, rows, cols, g.e, {q.at(i0, 0), q.row, q.col}, {k.at(j0, 0), k.col, k.row}, s, kCols, T(1), T(0));
        pr.scores(z, i0, rows, j0, cols, s);
        probabilities(s, rows, cols, lse.at(i0, 0), lse.row);
        if (g.dropout()) pr.dropout_tile(z, i0, rows, j0, cols, sc.drop.data());
        // dpd = g V^T
        gemm<T>(sc, rows, cols, g.ev, {go.at(i0, 0), go.row, go.col}, {v.at(j0, 0), v.col, v.row}, dp, kCols, T(1),
                T(0));
        for (int64_t r = 0; r < rows; ++r) {
          const T d = dsum_z[i0 + r];
          for (int64_t j = 0; j < cols; ++j) {
            T dpj = dp[r * kCols + j];
            if (g.dropout()) dpj *= sc.drop[static_cast<size_t>(r * kCols + j)];
            s[r * kCols + j] *= dpj - d;  // ds
          }
        }
        // dQ += scale * ds K
        gemm<T>(sc, rows, g.e, cols, {s, kCols, 1}, {k.at(j0, 0), k.row, k.col}, acc, g.e, static_cast<T>(g.scale),
                T(1));
      }
      std::memcpy(dq + (z * g.l + i0) * g.e, acc, static_cast<size_t>(rows * g.e) * sizeof(T));
    }
  });
}

// Pass 2: dK, dV (and dmask), per (z, key block). Tiles are transposed: rows are keys.
template <typename T>
void backward_dkv(const Problem<T>& pr, const T* dsum, T* dk, T* dv, T* dmask) {
  const AttentionGeometry& g = pr.g;
  const int64_t kblocks = blocks(g.s, kRows);
  parallel_for(g.batch_count() * kblocks, 1, [&](int64_t t0, int64_t t1) {
    Scratch<T> sc(g);
    std::vector<T> lse_tile(kCols);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t z = t / kblocks, j0 = (t % kblocks) * kRows, keys = std::min(kRows, g.s - j0);
      const Mat<T> q = pr.mat(kAttnQuery, z), k = pr.mat(kAttnKey, z), v = pr.mat(kAttnValue, z);
      const Mat<T> go = pr.mat(kAttnGradOut, z), lse = pr.mat(kAttnLse, z);
      const Mat<T> m = pr.has(kAttnMask) ? pr.mat(kAttnMask, z) : Mat<T>{nullptr, 0, 0};
      const T* dsum_z = dsum + z * g.l;
      T* dka = sc.acc.data();   // [keys, e]
      T* dva = sc.acc2.data();  // [keys, ev]
      std::fill(dka, dka + keys * g.e, T(0));
      std::fill(dva, dva + keys * g.ev, T(0));
      const T scale = static_cast<T>(g.scale);
      const int64_t istart = g.causal ? j0 : 0;  // rows before the first key see none of the block
      for (int64_t i0 = istart; i0 < g.l; i0 += kCols) {
        const int64_t rows = std::min(kCols, g.l - i0);
        T* st = sc.s.data();   // s^T, then p^T, then ds^T: [keys, rows]
        T* dpt = sc.dp.data();  // dpd^T, then pd^T
        gemm<T>(sc, keys, rows, g.e, {k.at(j0, 0), k.row, k.col}, {q.at(i0, 0), q.col, q.row}, st, kCols, T(1), T(0));
        for (int64_t r = 0; r < rows; ++r) lse_tile[static_cast<size_t>(r)] = *lse.at(i0 + r, 0);
        for (int64_t c = 0; c < keys; ++c) {
          T* row = st + c * kCols;
          for (int64_t r = 0; r < rows; ++r) {
            T x = scale * row[r];
            if (m.p) x += *m.at(i0 + r, j0 + c);
            const T lr = lse_tile[static_cast<size_t>(r)];
            const bool hidden = (g.causal && j0 + c > i0 + r) || lr == -std::numeric_limits<T>::infinity();
            row[r] = hidden ? T(0) : std::exp(x - lr);  // p^T
          }
        }
        // pd^T into dpt, then dV += pd^T g
        const T* f = sc.drop.data();  // query r, key c at r * kCols + c
        if (g.dropout()) pr.dropout_tile(z, i0, rows, j0, keys, sc.drop.data());
        for (int64_t c = 0; c < keys; ++c)
          for (int64_t r = 0; r < rows; ++r)
            dpt[c * kCols + r] = g.dropout() ? st[c * kCols + r] * f[r * kCols + c] : st[c * kCols + r];
        gemm<T>(sc, keys, g.ev, rows, {dpt, kCols, 1}, {go.at(i0, 0), go.row, go.col}, dva, g.ev, T(1), T(1));
        // dpd^T = V g^T
        gemm<T>(sc, keys, rows, g.ev, {v.at(j0, 0), v.row, v.col}, {go.at(i0, 0), go.col, go.row}, dpt, kCols, T(1),
                T(0));
        for (int64_t c = 0; c < keys; ++c) {
          for (int64_t r = 0; r < rows; ++r) {
            T dp = dpt[c * kCols + r];
            if (g.dropout()) dp *= f[r * kCols + c];
            st[c * kCols + r] *= dp - dsum_z[i0 + r];  // ds^T
          }
        }
        if (dmask) {
          for (int64_t c = 0; c < keys; ++c)
            for (int64_t r = 0; r < rows; ++r) dmask[(z * g.l + i0 + r) * g.s + j0 + c] = st[c * kCols + r];
        }
        // dK += scale * ds^T Q
        gemm<T>(sc, keys, g.e, rows, {st, kCols, 1}, {q.at(i0, 0), q.row, q.col}, dka, g.e, scale, T(1));
      }
      if (dmask && g.causal) {  // the query rows before the block see none of its keys: ds = 0
        for (int64_t i = 0; i < std::min(istart, g.l); ++i)
          for (int64_t c = 0; c < keys; ++c) dmask[(z * g.l + i) * g.s + j0 + c] = T(0);
      }
      std::memcpy(dk + (z * g.s + j0) * g.e, dka, static_cast<size_t>(keys * g.e) * sizeof(T));
      std::memcpy(dv + (z * g.s + j0) * g.ev, dva, static_cast<size_t>(keys * g.ev) * sizeof(T));
    }
  });
}

template <typename T>
void backward(const KernelContext& c) {
  const AttentionGeometry g =
      AttentionGeometry::from(c.inputs[1].shape(), c.inputs[2].shape(), c.inputs[3].shape(), c.attrs);
  T* dq = c.outputs[0].data<T>();
  T* dk = c.outputs[1].data<T>();
  T* dv = c.outputs[2].data<T>();
  T* dmask = g.mask_grad ? c.outputs[3].data<T>() : nullptr;
  const int64_t batch = g.batch_count();
  if (batch == 0) return;
  if (g.l == 0) {  // no query: nothing flows to the keys and values
    std::fill(dk, dk + c.outputs[1].numel(), T(0));
    std::fill(dv, dv + c.outputs[2].numel(), T(0));
    return;
  }
  const Problem<T> pr = problem<T>(c, g, true);
  T* dsum = static_cast<T*>(c.workspace);  // D: [batch, L]
  backward_dq(pr, dq, dsum);
  backward_dkv(pr, dsum, dk, dv, dmask);
}


}  // namespace

// The rows' kernel symbols (families/attention.def): the forward, and the backward with its workspace.
template <typename T>
constexpr KernelEntry scaled_dot_product_attention{forward<T>, nullptr, nullptr};
template <typename T>
constexpr KernelEntry scaled_dot_product_attention_backward{backward<T>, attention_backward_workspace, nullptr};

void register_cpu_attention_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/attention.def"
}

}  // namespace glassgrad
