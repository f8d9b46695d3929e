// CPU kernels of the recurrent ops: RNNSequence, LSTMSequence, GRUSequence and their backward
// ops, float32 and float64 (autodiff-engine/src/ops/recurrent.cpp; layouts and processing order:
// recurrent_geometry.h; the unit arithmetic: kernels/recurrent_cells.h; derivations:
// docs/recurrent.md).
//
// Forward, one layer and direction:
//   P[N, G] = x[N, I] W_ih^T + b        one GEMM for the whole sequence (b: b_ih + b_hh, the GRU's
//                                       n part of b_hh excepted), into y (RNN) or the reserve
//   h_n = h0, c_n = c0                  the running state lives in the outputs
//   for each step s (rows r, first row o):
//     R[r, G] = h_n[:r] W_hh^T          the recurrent GEMM, W_hh^T packed once for every step
//     cell pass over the r rows         cells.h: gates, c, h into reserve / y / h_n / c_n
//     (projected LSTM: y[o:o+r] = h'[o:o+r] W_hr^T, then h_n[:r] = y[o:o+r])
// Backward, the steps in reverse:
//   dh0 = grad_hn, dc0 = grad_cn        the running gradients of the states live in the outputs
//   h_prev rows gathered from y (or h0) for dW_hh (and the GRU's cell)
//   for each step s, last first:
//     dh = grad_y[o:o+r] + dh0[:r]      (projected: dhs = that, dh' = dhs W_hr)
//     cell backward pass                dP rows, dc0[:r] (the part reaching c_prev)
//     dh0[:r] = direct part + dP^h[o:o+r] W_hh        the GEMM accumulates (beta = 1)
//   dx = dP W_ih, dW_ih = dP^T x, dW_hh = dP^{hT} h_prev, db = column sums, dW_hr = dhs^T h'
//
// Threads: the GEMMs split themselves; a step's cell pass is split over its rows when it has
// enough units (kCellGrain). An LSTM (not projected) runs its time loops in
// cpu/recurrent/lstm_units.h instead: slices of hidden units, one per thread when the steps are
// big enough, one parallel region for all steps. Inputs are dense (the schemas do not set
// strided_inputs).
#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "cpu/gemm/gemm.h"
#include "cpu/carver.h"
#include "cpu/recurrent/cell_table.h"
#include "cpu/recurrent/lstm_units.h"
#include "cpu/recurrent/pack_sequence.h"
#include "cpu/registration.h"
#include "cpu/rounding.h"
#include "glassgrad/runtime/cpu_features.h"
#include "glassgrad/autodiff/recurrent_geometry.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

// Units (rows x hidden) a thread's share of a cell pass should have at least.
constexpr int64_t kCellGrain = 8192;
using cpu::align_up;
using cpu::kAlign;

// Which schema a kernel serves; an RNN's nonlinearity comes from its attributes.
enum class Family { RNN, LSTM, GRU };

RecurrentCell cell_of(Family f, const Attrs& a) {
  if (f == Family::LSTM) return RecurrentCell::LSTM;
  if (f == Family::GRU) return RecurrentCell::GRU;
  return a.has("nonlinearity") && a.s("nonlinearity") == "relu" ? RecurrentCell::RNNReLU : RecurrentCell::RNNTanh;
}

using cpu::Carver;

// dst[0, n) = src[0, n); nothing for n == 0 (empty tensors may have no data pointer at all).
template <typename T>
void copy_n(T* dst, const T* src, int64_t n) {
  if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
}

// The GEMM packing space shared by a kernel's products: the most any of them needs.
size_t gemm_bytes(DType dt, std::initializer_list<std::array<int64_t, 3>> mnk) {
  size_t b = 0;
  for (const auto& p : mnk) b = std::max(b, cpu::gemm_workspace_bytes(p[0], p[1], p[2], dt));
  return b;
}

RecurrentGeometry geometry(Family f, const std::vector<TensorInfo>& in, int xi, int wi, int hri, const Attrs& a) {
  const Shape* hr = hri >= 0 && hri < static_cast<int>(in.size()) ? &in[static_cast<size_t>(hri)].shape : nullptr;
  return RecurrentGeometry::from(cell_of(f, a), in[static_cast<size_t>(xi)].shape, in[static_cast<size_t>(wi)].shape,
                                 in[static_cast<size_t>(wi) + 1].shape, hr, a);
}

std::vector<TensorInfo> infos(const std::vector<Tensor>& ts) {
  std::vector<TensorInfo> out;
  for (const Tensor& t : ts) out.push_back(t.info());
  return out;
}

// A step's cell pass over rows [0, r): fn(b) per row, split over threads when big enough.
template <typename Fn>
void for_rows(int64_t r, int64_t units_per_row, const Fn& fn) {
  const int64_t grain = std::max<int64_t>(1, kCellGrain / std::max<int64_t>(units_per_row, 1));
  if (r < 2 * grain) {
    for (int64_t b = 0; b < r; ++b) fn(b);
    return;
  }
  parallel_for(r, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) fn(b);
  });
}

// The GEMM packing space at `at` (the last of a kernel's buffers): `want` bytes (sized with this
// call's thread count), at most what the plan's workspace has left (sized with the thread count
// when the step was planned; the GEMM uses fewer threads when it gets less).
cpu::GemmWorkspace gemm_space(char* at, size_t want, const KernelContext& c) {
  const size_t offset = static_cast<size_t>(at - static_cast<char*>(c.workspace));
  return {at, std::min(want, c.workspace_bytes > offset ? c.workspace_bytes - offset : size_t(0))};
}

// How many parts an LSTM's steps are cut into (cpu/recurrent/lstm_units.h; 0: not such a layer,
// the step-by-step loops): lstm_unit_parts for this thread count, fewer while the buffers
// before the GEMM packing space (before_gemm(parts) bytes) do not fit the workspace (sized with
// the thread count when the step was planned). One part always fits: the size function counted
// at least one.
template <typename BeforeGemm>
int64_t unit_parts(const RecurrentGeometry& g, size_t have, const BeforeGemm& before_gemm) {
  int64_t parts = cpu::lstm_unit_parts(g, in_parallel_region() ? 1 : get_num_threads());
  while (parts > 1 && before_gemm(parts) + kAlign > have) --parts;
  return parts;
}

// C[m, n] (+)= A B through the packed GEMM with the kernel's shared packing space.
template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, cpu::MatrixView<T> a, cpu::MatrixView<T> b, T* c, int64_t ldc, T beta,
          cpu::GemmWorkspace ws) {
  cpu::GemmProblem<T> p(m, n, k);
  p.a = a;
  p.b = b;
  p.c = c;
  p.ldc = ldc;
  p.beta = beta;
  cpu::gemm(p, ws);
}

// Whether C [m, n] = A B costs less computed as C^T = B^T A^T and transposed back: the packed
// GEMM computes whole MR x NR tiles (8 x 48 floats with AVX-512), so a C 200 wide spends a sixth
// of its work on padding that the 800 rows of C^T's width would not; the transpose costs about
// 16 multiply-adds an element (a memory-bound pass). The same products in the same order either
// way, so the same bits.
bool transpose_is_cheaper(int64_t m, int64_t n, int64_t k, DType dt) {
  if (m <= 0 || n <= 0 || k <= 0) return false;
  const int64_t mr = cpu::gemm_packed_a_elems(1, 1, dt), nr = cpu::gemm_nr(dt);
  const auto padded = [](int64_t x, int64_t t) { return (x + t - 1) / t * t; };
  return padded(n, mr) * padded(m, nr) * k + 16 * m * n < padded(m, mr) * padded(n, nr) * k;
}

// C [m, n] = A B (C row-major, ldc), through C^T in `scratch` (m * n elements) when
// transpose_is_cheaper says so.
template <typename T>
void product(int64_t m, int64_t n, int64_t k, cpu::MatrixView<T> a, cpu::MatrixView<T> b, T* c, int64_t ldc,
             T* scratch, cpu::GemmWorkspace ws) {
  if (!transpose_is_cheaper(m, n, k, sizeof(T) == 8 ? DType::Float64 : DType::Float32)) {
    gemm<T>(m, n, k, a, b, c, ldc, T(0), ws);
    return;
  }
  gemm<T>(n, m, k, cpu::strided(b.data, b.col_stride, b.row_stride), cpu::strided(a.data, a.col_stride, a.row_stride),
          scratch, m, T(0), ws);
  // c[i, j] = scratch[j, i], in 32 x 32 blocks, row blocks of c split over threads.
  constexpr int64_t kBlock = 32;
  parallel_for((m + kBlock - 1) / kBlock, std::max<int64_t>(1, 16384 / (kBlock * std::max<int64_t>(n, 1))),
               [&](int64_t b0, int64_t b1) {
                 for (int64_t i0 = b0 * kBlock; i0 < std::min(m, b1 * kBlock); i0 += kBlock) {
                   const int64_t i1 = std::min(m, i0 + kBlock);
                   for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
                     const int64_t j1 = std::min(n, j0 + kBlock);
                     for (int64_t i = i0; i < i1; ++i)
                       for (int64_t j = j0; j < j1; ++j) c[i * ldc + j] = scratch[j * m + i];
                   }
                 }
               });
}

// Elements of the scratch `product` needs for these products (each {m, n, k}).
int64_t product_scratch(DType dt, std::initializer_list<std::array<int64_t, 3>> mnk) {
  int64_t e = 0;
  for (const auto& p : mnk) {
    if (transpose_is_cheaper(p[0], p[1], p[2], dt)) e = std::max(e, p[0] * p[1]);
  }
  return e;
}

using cpu::Cells;

// ---- forward -----------------------------------------------------------------------------

template <typename T>
struct ForwardBuffers {
  T* packed;      // W_hh^T [H_out, G] in the GEMM's packed form
  T* rec;         // [B, G]: one step's recurrent product
  T* bias;        // [G]: the biases the input projection adds
  T* b_hn;        // [H]: the GRU's b_hn, or zeros
  char* units;    // the unit slices' buffers (lstm_units.h), when the steps are cut into parts
  char* gemm;     // packing space (last: its size depends on the thread count)
  size_t gemm_bytes;
  size_t before_gemm;
  size_t total;
};

// parts: the unit slices' count (0: none).
template <typename T>
ForwardBuffers<T> forward_buffers(const RecurrentGeometry& g, DType dt, void* ws, int64_t parts) {
  cpu::Carver c(ws);
  ForwardBuffers<T> b;
  b.packed = c.take<T>(cpu::gemm_packed_b_elems(g.out, g.gates(), dt));
  b.rec = c.take<T>(g.batch * g.gates());
  b.bias = c.take<T>(g.gates());
  b.b_hn = c.take<T>(g.hidden);
  b.units = c.take<char>(parts > 0 ? static_cast<int64_t>(cpu::lstm_units_forward_bytes(g, dt, parts)) : 0);
  b.before_gemm = c.used();
  b.gemm_bytes = gemm_bytes(dt, {{g.rows, g.gates(), g.input_size}, {g.batch, g.gates(), g.out},
                                  {g.batch, g.out, g.projected ? g.hidden : 0}});
  b.gemm = c.take<char>(static_cast<int64_t>(b.gemm_bytes));
  b.total = c.total();
  return b;
}

template <Family F>
size_t forward_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  const RecurrentGeometry g = geometry(F, in, 0, 1, RecurrentInputs::forward(cell_of(F, a), static_cast<int>(in.size())).w_hr, a);
  const DType dt = in[0].dtype;
  const int64_t parts = cpu::lstm_unit_parts(g, get_num_threads());
  return dt == DType::Float64 ? forward_buffers<double>(g, dt, nullptr, parts).total
                              : forward_buffers<float>(g, dt, nullptr, parts).total;
}

template <typename T, Family F>
void forward(const KernelContext& c) {
  const RecurrentInputs in = RecurrentInputs::forward(cell_of(F, c.attrs), static_cast<int>(c.inputs.size()));
  const RecurrentGeometry g = geometry(F, infos(c.inputs), 0, 1, in.w_hr, c.attrs);
  const bool relu = g.cell == RecurrentCell::RNNReLU;
  const int64_t G = g.gates(), H = g.hidden, Ho = g.out, W = g.reserve_width();
  const T* x = c.inputs[0].data<T>();
  const T* w_ih = c.inputs[1].data<T>();
  const T* w_hh = c.inputs[2].data<T>();
  const T* b_ih = in.b_ih >= 0 ? c.inputs[static_cast<size_t>(in.b_ih)].data<T>() : nullptr;
  const T* b_hh = in.b_hh >= 0 ? c.inputs[static_cast<size_t>(in.b_hh)].data<T>() : nullptr;
  const T* w_hr = in.w_hr >= 0 ? c.inputs[static_cast<size_t>(in.w_hr)].data<T>() : nullptr;
  T* y = c.outputs[0].data<T>();
  T* hn = c.outputs[1].data<T>();
  T* cn = F == Family::LSTM ? c.outputs[2].data<T>() : nullptr;
  T* reserve = F == Family::RNN ? nullptr : c.outputs[F == Family::LSTM ? 3 : 2].data<T>();
  const DType dt = c.inputs[0].dtype();
  const int64_t parts =
      unit_parts(g, c.workspace_bytes, [&](int64_t p) { return forward_buffers<T>(g, dt, nullptr, p).before_gemm; });
  const ForwardBuffers<T> buf = forward_buffers<T>(g, dt, c.workspace, parts);
  const cpu::GemmWorkspace gws = gemm_space(buf.gemm, buf.gemm_bytes, c);

  // States: the outputs hold the running h (and c).
  copy_n(hn, c.inputs[3].data<T>(), g.batch * Ho);
  if (cn) copy_n(cn, c.inputs[static_cast<size_t>(in.c0)].data<T>(), g.batch * H);
  if (g.rows == 0) return;

  // The input projection P = x W_ih^T + b, rows of width ld in `proj` (y for an RNN).
  T* proj = F == Family::RNN ? y : reserve;
  const int64_t ld = F == Family::RNN ? Ho : W;
  for (int64_t j = 0; j < G; ++j) {
    const bool hidden_n = F == Family::GRU && j >= 2 * H;  // b_hn stays in the cell (r scales it)
    buf.bias[j] = (b_ih ? b_ih[j] : T(0)) + (b_hh && !hidden_n ? b_hh[j] : T(0));
  }
  const bool biased = b_ih != nullptr;
  if (biased) {
    parallel_for(g.rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(G, 1)), [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) copy_n(proj + n * ld, buf.bias, G);
    });
  }
  gemm<T>(g.rows, G, g.input_size, cpu::row_major(x, g.input_size), cpu::transpose_of(w_ih, g.input_size), proj, ld,
          biased ? T(1) : T(0), gws);

  if (parts > 0) {
    const cpu::LstmForwardSteps<T> steps{w_hh, c.inputs[3].data<T>(), y, hn, cn, reserve};
    cpu::lstm_forward_by_units(g, steps, parts, buf.units);
    return;
  }

  // W_hh^T [H_out, G] packed once for every step.
  {
    cpu::GemmProblem<T> p(g.batch, G, Ho);
    p.b = cpu::transpose_of(w_hh, Ho);
    cpu::gemm_pack_b(p, buf.packed);
  }
  for (int64_t j = 0; j < H; ++j) buf.b_hn[j] = F == Family::GRU && b_hh ? b_hh[2 * H + j] : T(0);
  const auto& cells = Cells<T>::rows();
  for (int64_t s = 0; s < g.steps; ++s) {
    const int64_t r = g.rows_at(s), o = g.offset_at(s);
    {
      cpu::GemmProblem<T> p(r, G, Ho);
      p.a = cpu::row_major(hn, Ho);
      p.b_packed = buf.packed;
      p.c = buf.rec;
      p.ldc = G;
      cpu::gemm(p, gws);
    }
    for_rows(r, G, [&](int64_t b) {
      const T* rec = buf.rec + b * G;
      if (F == Family::LSTM) {
        T* row = reserve + (o + b) * W;
        T* h = g.projected ? row + 5 * H : y + (o + b) * Ho;
        cells.lstm(row, H, rec, H, cn + b * H, h, H);
        if (!g.projected) copy_n(hn + b * Ho, h, Ho);
      } else if (F == Family::GRU) {
        cells.gru(reserve + (o + b) * W, rec, buf.b_hn, hn + b * H, y + (o + b) * H, H);
      } else {
        cells.rnn(y + (o + b) * H, rec, hn + b * H, H, relu);
      }
    });
    if (g.projected) {  // h_t = W_hr h'_t, into y and the running state
      gemm<T>(r, Ho, H, cpu::row_major(reserve + o * W + 5 * H, W), cpu::transpose_of(w_hr, H), y + o * Ho, Ho, T(0),
              gws);
      copy_n(hn, y + o * Ho, r * Ho);
    }
  }
}

// ---- backward ----------------------------------------------------------------------------

template <typename T>
struct BackwardBuffers {
  T* dp;       // [N, G]: pre-activation gradients (the input side's, for the GRU)
  T* dph;      // [N, G]: the hidden side's (the GRU; else dp)
  T* hprev;    // [N, H_out]: each row's previous hidden state
  T* dhs;      // [N, P]: a projected LSTM's gradients reaching h_t (else unused)
  T* dhp;      // [B, H]: a projected LSTM's step gradients reaching o * tanh(c) (else unused)
  T* packed;   // W_hh [G, H_out] in the GEMM's packed form
  T* tr;       // the whole-sequence products' transposed results (product())
  char* units;  // the unit slices' buffers (lstm_units.h), when the steps are cut into parts
  char* gemm;   // packing space (last: its size depends on the thread count)
  size_t gemm_bytes;
  size_t before_gemm;
  size_t total;
};

// parts: the unit slices' count (0: none).
template <typename T>
BackwardBuffers<T> backward_buffers(const RecurrentGeometry& g, DType dt, void* ws, int64_t parts) {
  cpu::Carver c(ws);
  BackwardBuffers<T> b;
  const int64_t G = g.gates();
  b.dp = c.take<T>(g.rows * G);
  b.dph = g.cell == RecurrentCell::GRU ? c.take<T>(g.rows * G) : b.dp;
  b.hprev = c.take<T>(g.rows * g.out);
  b.dhs = c.take<T>(g.projected ? g.rows * g.out : 0);
  b.dhp = c.take<T>(g.projected ? g.batch * g.hidden : 0);
  b.packed = c.take<T>(cpu::gemm_packed_b_elems(G, g.out, dt));
  b.tr = c.take<T>(product_scratch(dt, {{G, g.input_size, g.rows}, {G, g.out, g.rows}, {g.rows, g.input_size, G}}));
  b.units = c.take<char>(parts > 0 ? static_cast<int64_t>(cpu::lstm_units_backward_bytes(g, dt, parts)) : 0);
  b.before_gemm = c.used();
  b.gemm_bytes = gemm_bytes(dt, {{g.batch, g.out, G},
                                  {g.batch, g.hidden, g.projected ? g.out : 0},
                                  {G, g.input_size, g.rows},
                                  {G, g.out, g.rows},
                                  {g.rows, g.input_size, G},
                                  {g.input_size, G, g.rows},
                                  {g.out, G, g.rows},
                                  {g.input_size, g.rows, G},
                                  {g.out, g.hidden, g.projected ? g.rows : 0}});
  b.gemm = c.take<char>(static_cast<int64_t>(b.gemm_bytes));
  b.total = c.total();
  return b;
}

template <Family F>
size_t backward_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  const RecurrentInputs bi = RecurrentInputs::backward(cell_of(F, a), static_cast<int>(in.size()));
  const RecurrentGeometry g = geometry(F, in, bi.x, bi.w_ih, bi.w_hr, a);
  const DType dt = in[static_cast<size_t>(bi.x)].dtype;
  const int64_t parts = cpu::lstm_unit_parts(g, get_num_threads());
  return dt == DType::Float64 ? backward_buffers<double>(g, dt, nullptr, parts).total
                              : backward_buffers<float>(g, dt, nullptr, parts).total;
}

// out[j] = sum over rows n of m[n * ld + j], j < cols (a bias gradient), columns split over threads.
template <typename T>
void column_sums(const T* m, int64_t rows, int64_t cols, int64_t ld, T* out) {
  parallel_for(cols, std::max<int64_t>(64, 65536 / std::max<int64_t>(rows, 1)), [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) out[j] = T(0);
    for (int64_t n = 0; n < rows; ++n) {
      const T* row = m + n * ld;
      for (int64_t j = j0; j < j1; ++j) out[j] += row[j];
    }
  });
}

template <typename T, Family F>
void backward(const KernelContext& c) {
  const RecurrentInputs in = RecurrentInputs::backward(cell_of(F, c.attrs), static_cast<int>(c.inputs.size()));
  const RecurrentGeometry g = geometry(F, infos(c.inputs), in.x, in.w_ih, in.w_hr, c.attrs);
  const bool relu = g.cell == RecurrentCell::RNNReLU;
  const int64_t G = g.gates(), H = g.hidden, Ho = g.out, W = g.reserve_width(), N = g.rows;
  const auto input = [&](int i) { return i >= 0 ? c.inputs[static_cast<size_t>(i)].data<T>() : nullptr; };
  const T* grad_y = input(0);
  const T* x = input(in.x);
  const T* w_ih = input(in.w_ih);
  const T* w_hh = input(in.w_hh);
  const T* h0 = input(in.h0);
  const T* c0 = input(in.c0);
  const T* y = input(in.y);
  const T* reserve = input(in.reserve);
  const T* w_hr = input(in.w_hr);
  // Outputs: dx, dw_ih, dw_hh, dh0, [dc0], db (db_ih, db_hh), [dw_hr].
  T* dx = c.outputs[0].numel() > 0 ? c.outputs[0].data<T>() : nullptr;
  T* dw_ih = c.outputs[1].data<T>();
  T* dw_hh = c.outputs[2].data<T>();
  T* dh0 = c.outputs[3].data<T>();
  T* dc0 = F == Family::LSTM ? c.outputs[4].data<T>() : nullptr;
  const size_t db_at = F == Family::LSTM ? 5 : 4;
  T* db_ih = c.outputs[db_at].numel() > 0 ? c.outputs[db_at].data<T>() : nullptr;
  T* db_hh = F == Family::GRU && db_ih ? c.outputs[db_at + 1].data<T>() : nullptr;
  T* dw_hr = g.projected ? c.outputs[db_at + 1].data<T>() : nullptr;
  const DType dt = c.inputs[static_cast<size_t>(in.x)].dtype();
  const int64_t parts =
      unit_parts(g, c.workspace_bytes, [&](int64_t p) { return backward_buffers<T>(g, dt, nullptr, p).before_gemm; });
  const BackwardBuffers<T> buf = backward_buffers<T>(g, dt, c.workspace, parts);
  const cpu::GemmWorkspace gws = gemm_space(buf.gemm, buf.gemm_bytes, c);
  const auto& cells = Cells<T>::rows();

  copy_n(dh0, input(1), g.batch * Ho);
  if (F == Family::LSTM) copy_n(dc0, input(in.grad_cn), g.batch * H);
  // Each row's previous hidden state (for dW_hh, and the GRU's cell), from y or h0.
  parallel_for(g.steps, std::max<int64_t>(1, 65536 / std::max<int64_t>(g.batch * Ho, 1)), [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t r = g.rows_at(s), o = g.offset_at(s), carried = g.carried_rows(s);
      const int64_t po = s > 0 ? g.offset_at(s - 1) : 0;
      for (int64_t b = 0; b < r; ++b) copy_n(buf.hprev + (o + b) * Ho, b < carried ? y + (po + b) * Ho : h0 + b * Ho, Ho);
    }
  });
  if (parts > 0) {
    const cpu::LstmBackwardSteps<T> steps{w_hh, grad_y, c0, reserve, dh0, dc0, buf.dp};
    cpu::lstm_backward_by_units(g, steps, parts, buf.units);
  } else {
    {  // W_hh [G, H_out] packed once for every step's dh_prev += dP^h W_hh.
      cpu::GemmProblem<T> p(g.batch, Ho, G);
      p.b = cpu::row_major(w_hh, Ho);
      cpu::gemm_pack_b(p, buf.packed);
    }
    for (int64_t s = g.steps - 1; s >= 0; --s) {
      const int64_t r = g.rows_at(s), o = g.offset_at(s), carried = g.carried_rows(s);
      const int64_t po = s > 0 ? g.offset_at(s - 1) : 0;
      if (g.projected) {  // dhs = grad_y + dh0 (both P wide), dh' = dhs W_hr
        T* dhs = buf.dhs + o * Ho;
        for (int64_t i = 0; i < r * Ho; ++i) dhs[i] = grad_y[o * Ho + i] + dh0[i];
        std::fill(dh0, dh0 + r * Ho, T(0));
        gemm<T>(r, H, Ho, cpu::row_major(dhs, Ho), cpu::row_major(w_hr, H), buf.dhp, H, T(0), gws);
      }
      for_rows(r, G, [&](int64_t b) {
        T* dh = dh0 + b * Ho;
        const T* gy = grad_y + (o + b) * Ho;
        if (F == Family::LSTM) {
          const T* row = reserve + (o + b) * W;
          const T* c_prev = b < carried ? reserve + (po + b) * W + 4 * H : c0 + b * H;
          if (g.projected) {
            cells.lstm_backward(row, H, c_prev, buf.dhp + b * H, dc0 + b * H, buf.dp + (o + b) * G, H, H);
          } else {
            for (int64_t j = 0; j < H; ++j) dh[j] += gy[j];
            cells.lstm_backward(row, H, c_prev, dh, dc0 + b * H, buf.dp + (o + b) * G, H, H);
            std::fill(dh, dh + H, T(0));
          }
        } else if (F == Family::GRU) {
          for (int64_t j = 0; j < H; ++j) dh[j] += gy[j];
          cells.gru_backward(reserve + (o + b) * W, buf.hprev + (o + b) * H, dh, buf.dp + (o + b) * G,
                                   buf.dph + (o + b) * G, H);
        } else {
          for (int64_t j = 0; j < H; ++j) dh[j] += gy[j];
          cells.rnn_backward(y + (o + b) * H, dh, buf.dp + (o + b) * G, H, relu);
          std::fill(dh, dh + H, T(0));
        }
      });
      cpu::GemmProblem<T> p(r, Ho, G);  // dh_prev += dP^h W_hh
      p.a = cpu::row_major(buf.dph + o * G, G);
      p.b_packed = buf.packed;
      p.c = dh0;
      p.ldc = Ho;
      p.beta = T(1);
      cpu::gemm(p, gws);
    }
  }
  // The products over the whole sequence.
  product<T>(G, g.input_size, N, cpu::transpose_of(buf.dp, G), cpu::row_major(x, g.input_size), dw_ih, g.input_size,
             buf.tr, gws);
  product<T>(G, Ho, N, cpu::transpose_of(buf.dph, G), cpu::row_major(buf.hprev, Ho), dw_hh, Ho, buf.tr, gws);
  if (dx) {
    product<T>(N, g.input_size, G, cpu::row_major(buf.dp, G), cpu::row_major(w_ih, g.input_size), dx, g.input_size,
               buf.tr, gws);
  }
  if (db_ih) column_sums(buf.dp, N, G, G, db_ih);
  if (db_hh) column_sums(buf.dph, N, G, G, db_hh);
  if (dw_hr) gemm<T>(Ho, H, N, cpu::transpose_of(buf.dhs, Ho), cpu::row_major(reserve + 5 * H, W), dw_hr, H, T(0), gws);
}

// The rows' kernels: the drivers above with their workspaces, and the packing kernels
// (cpu/recurrent/pack_sequence.h).
template <typename T, Family F>
constexpr KernelEntry forward_entry{forward<T, F>, forward_workspace<F>, nullptr};
template <typename T, Family F>
constexpr KernelEntry backward_entry{backward<T, F>, backward_workspace<F>, nullptr};
template <typename T> constexpr KernelEntry rnn_sequence = forward_entry<T, Family::RNN>;
template <typename T> constexpr KernelEntry lstm_sequence = forward_entry<T, Family::LSTM>;
template <typename T> constexpr KernelEntry gru_sequence = forward_entry<T, Family::GRU>;
template <typename T> constexpr KernelEntry rnn_sequence_backward = backward_entry<T, Family::RNN>;
template <typename T> constexpr KernelEntry lstm_sequence_backward = backward_entry<T, Family::LSTM>;
template <typename T> constexpr KernelEntry gru_sequence_backward = backward_entry<T, Family::GRU>;
using cpu::pack_sequence;
using cpu::pad_packed_sequence;

}  // namespace

void register_cpu_recurrent_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/recurrent.def"
}

}  // namespace glassgrad
