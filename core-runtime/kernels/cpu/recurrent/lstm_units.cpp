// The LSTM time loops cut into slices of hidden units (lstm_units.h says what each part does).
#include "lstm_units.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cpu/carver.h"
#include "cell_table.h"
#include "cpu/gemm/gemm.h"
#include "rows_product.h"
#include "step_parts.h"

namespace glassgrad {
namespace cpu {

namespace {

// A part's slice should have at least this many units, and a step's recurrent product at least
// this many multiply-adds (B * 4H * H), for the parts to gain over one thread doing the step:
// below it, the wait at each step costs about what the part's share saves.
constexpr int64_t kMinPartUnits = 8;
constexpr int64_t kMinStepWork = int64_t(1) << 16;

struct UnitRange {
  int64_t j0, n;
};
UnitRange unit_range(int64_t hidden, int64_t parts, int64_t p) {
  const int64_t j0 = hidden * p / parts;
  return {j0, hidden * (p + 1) / parts - j0};
}
int64_t widest_part(int64_t hidden, int64_t parts) { return (hidden + parts - 1) / parts; }

template <typename T>
void copy_n(T* dst, const T* src, int64_t n) {
  if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
}

// The parts' per-step products: float32 through rows_product.h (B packed in its slivers; no
// packing space), float64 through the GEMM (B in its b_packed form, A packed per call).
template <typename T>
constexpr bool kRows = std::is_same<T, float>::value;

template <typename T>
int64_t packed_elems(int64_t K, int64_t n, DType dt) {
  return kRows<T> ? rows_product_packed_elems(K, n, rows_product_f32().lanes) : gemm_packed_b_elems(K, n, dt);
}

// C [m, n] (+)= A [m, K] (rows lda apart) B (packed).
template <typename T>
void step_product(int64_t m, int64_t n, int64_t K, const T* a, int64_t lda, const T* packed, T* c, int64_t ldc,
                  bool accumulate, char* space, size_t space_bytes) {
  if (m <= 0) return;
  if constexpr (kRows<T>) {
    rows_product_f32().run(m, n, K, a, lda, packed, c, ldc, accumulate);
  } else {
    GemmProblem<T> pr(m, n, K);
    pr.a = row_major(a, lda);
    pr.b_packed = packed;
    pr.c = c;
    pr.ldc = ldc;
    pr.beta = accumulate ? T(1) : T(0);
    gemm(pr, GemmWorkspace{space, space_bytes});
  }
}

// ---- forward: per part, W_hh's gate rows of its units packed as B [H, 4n], its product R_p
// [B, 4n] (gate q of unit j0 + i at column q * n + i), the GEMM's packing space for one thread.
template <typename T>
struct ForwardPart {
  T* packed;
  T* rec;
  const T** rows;  // the 4n rows of W_hh, B's columns
  char* gemm;
};

size_t forward_gemm_bytes(const RecurrentGeometry& g, DType dt, int64_t n) {
  return dt == DType::Float32 ? 0 : gemm_workspace_bytes(g.batch, 4 * n, g.out, dt, /*serial=*/true);
}

template <typename T>
std::vector<ForwardPart<T>> forward_parts(const RecurrentGeometry& g, DType dt, int64_t parts, void* ws, size_t* total) {
  cpu::Carver c(ws);  // carver.h's (a unity build may hold another file's local Carver)
  const int64_t n = widest_part(g.hidden, parts);
  const size_t gemm = forward_gemm_bytes(g, dt, n);
  std::vector<ForwardPart<T>> out(static_cast<size_t>(parts));
  for (ForwardPart<T>& part : out) {
    part.packed = c.take<T>(packed_elems<T>(g.out, 4 * n, dt));
    part.rec = c.take<T>(g.batch * 4 * n);
    part.rows = c.take<const T*>(4 * n);
    part.gemm = c.take<char>(static_cast<int64_t>(gemm));
  }
  if (total) *total = c.total();
  return out;
}

// ---- backward: per part, W_hh's columns of its units packed as B [G, n], the GEMM's space.
template <typename T>
struct BackwardPart {
  T* packed;
  char* gemm;
};

size_t backward_gemm_bytes(const RecurrentGeometry& g, DType dt, int64_t n) {
  return dt == DType::Float32 ? 0 : gemm_workspace_bytes(g.batch, n, g.gates(), dt, /*serial=*/true);
}

template <typename T>
std::vector<BackwardPart<T>> backward_parts(const RecurrentGeometry& g, DType dt, int64_t parts, void* ws,
                                            size_t* total) {
  cpu::Carver c(ws);  // carver.h's (a unity build may hold another file's local Carver)
  const int64_t n = widest_part(g.hidden, parts);
  const size_t gemm = backward_gemm_bytes(g, dt, n);
  std::vector<BackwardPart<T>> out(static_cast<size_t>(parts));
  for (BackwardPart<T>& part : out) {
    part.packed = c.take<T>(packed_elems<T>(g.gates(), n, dt));
    part.gemm = c.take<char>(static_cast<int64_t>(gemm));
  }
  if (total) *total = c.total();
  return out;
}

template <typename T>
DType float_dtype() {
  return sizeof(T) == 8 ? DType::Float64 : DType::Float32;
}

}  // namespace

int64_t lstm_unit_parts(const RecurrentGeometry& g, int threads) {
  if (g.cell != RecurrentCell::LSTM || g.projected || g.rows == 0) return 0;
  if (threads < 2 || g.batch * g.gates() * g.out < kMinStepWork) return 1;
  return std::max<int64_t>(1, std::min<int64_t>(threads, g.hidden / kMinPartUnits));
}

size_t lstm_units_forward_bytes(const RecurrentGeometry& g, DType dt, int64_t parts) {
  size_t total = 0;
  dt == DType::Float64 ? (void)forward_parts<double>(g, dt, parts, nullptr, &total)
                       : (void)forward_parts<float>(g, dt, parts, nullptr, &total);
  return total;
}

size_t lstm_units_backward_bytes(const RecurrentGeometry& g, DType dt, int64_t parts) {
  size_t total = 0;
  dt == DType::Float64 ? (void)backward_parts<double>(g, dt, parts, nullptr, &total)
                       : (void)backward_parts<float>(g, dt, parts, nullptr, &total);
  return total;
}

template <typename T>
void lstm_forward_by_units(const RecurrentGeometry& g, const LstmForwardSteps<T>& a, int64_t parts, void* workspace) {
  const DType dt = float_dtype<T>();
  const int64_t H = g.hidden, W = g.reserve_width();
  const size_t gemm_size = forward_gemm_bytes(g, dt, widest_part(H, parts));
  const std::vector<ForwardPart<T>> bufs = forward_parts<T>(g, dt, parts, workspace, nullptr);
  const auto& cells = Cells<T>::rows();
  run_step_parts(parts, g.steps, [&](int64_t p, int64_t s) {
    const ForwardPart<T>& part = bufs[static_cast<size_t>(p)];
    const UnitRange u = unit_range(H, parts, p);
    const int64_t n4 = 4 * u.n;
    if (s == 0) {  // B [H, 4n]: column q * n + i is W_hh's row q * H + j0 + i
      for (int64_t q = 0; q < 4; ++q)
        for (int64_t i = 0; i < u.n; ++i) part.rows[q * u.n + i] = a.w_hh + (q * H + u.j0 + i) * H;
      if constexpr (kRows<T>) {
        rows_product_pack(H, n4, rows_product_f32().lanes, 1, [&](int64_t j) { return part.rows[j]; }, part.packed);
      } else {
        GemmProblem<T> pb(g.batch, n4, H);
        pb.b_cols = part.rows;
        gemm_pack_b(pb, part.packed);
      }
    }
    const int64_t r = g.rows_at(s), o = g.offset_at(s), carried = g.carried_rows(s);
    // R_p = h_{s-1} B: the carried rows' h is step s - 1's y, the others start from h0.
    if (carried > 0) {
      step_product<T>(carried, n4, H, a.y + g.offset_at(s - 1) * H, H, part.packed, part.rec, n4, false, part.gemm,
                      gemm_size);
    }
    step_product<T>(r - carried, n4, H, a.h0 + carried * H, H, part.packed, part.rec + carried * n4, n4, false,
                    part.gemm, gemm_size);
    for (int64_t b = 0; b < r; ++b) {
      T* h = a.y + (o + b) * H + u.j0;
      cells.lstm(a.reserve + (o + b) * W + u.j0, H, part.rec + b * n4, u.n, a.cn + b * H + u.j0, h, u.n);
      copy_n(a.hn + b * H + u.j0, h, u.n);
    }
  });
}

template <typename T>
void lstm_backward_by_units(const RecurrentGeometry& g, const LstmBackwardSteps<T>& a, int64_t parts,
                            void* workspace) {
  const DType dt = float_dtype<T>();
  const int64_t H = g.hidden, G = g.gates(), W = g.reserve_width();
  const size_t gemm_size = backward_gemm_bytes(g, dt, widest_part(H, parts));
  const std::vector<BackwardPart<T>> bufs = backward_parts<T>(g, dt, parts, workspace, nullptr);
  const auto& cells = Cells<T>::rows();
  // Loop step k runs processing step s = steps - 1 - k; k = steps (s = -1) only adds dP_0's product.
  run_step_parts(parts, g.steps + 1, [&](int64_t p, int64_t k) {
    const BackwardPart<T>& part = bufs[static_cast<size_t>(p)];
    const UnitRange u = unit_range(H, parts, p);
    const int64_t s = g.steps - 1 - k;
    if (k == 0) {  // B = W_hh[:, j0 : j0 + n]
      if constexpr (kRows<T>) {
        rows_product_pack(G, u.n, rows_product_f32().lanes, H, [&](int64_t j) { return a.w_hh + u.j0 + j; },
                          part.packed);
      } else {
        GemmProblem<T> pb(g.batch, u.n, G);
        pb.b = row_major(a.w_hh + u.j0, H);
        gemm_pack_b(pb, part.packed);
      }
    }
    if (k > 0) {  // dh[:r', units] += dP_{s+1}[:r'] W_hh[:, units]
      const int64_t r1 = g.rows_at(s + 1), o1 = g.offset_at(s + 1);
      step_product<T>(r1, u.n, G, a.dp + o1 * G, G, part.packed, a.dh + u.j0, H, true, part.gemm, gemm_size);
    }
    if (s < 0) return;
    const int64_t r = g.rows_at(s), o = g.offset_at(s), carried = g.carried_rows(s);
    const int64_t po = s > 0 ? g.offset_at(s - 1) : 0;
    for (int64_t b = 0; b < r; ++b) {
      T* dh = a.dh + b * H + u.j0;
      const T* gy = a.grad_y + (o + b) * H + u.j0;
      const T* c_prev = b < carried ? a.reserve + (po + b) * W + 4 * H + u.j0 : a.c0 + b * H + u.j0;
      for (int64_t j = 0; j < u.n; ++j) dh[j] += gy[j];
      cells.lstm_backward(a.reserve + (o + b) * W + u.j0, H, c_prev, dh, a.dc + b * H + u.j0,
                          a.dp + (o + b) * G + u.j0, H, u.n);
      std::fill(dh, dh + u.n, T(0));
    }
  });
}

template void lstm_forward_by_units<float>(const RecurrentGeometry&, const LstmForwardSteps<float>&, int64_t, void*);
template void lstm_forward_by_units<double>(const RecurrentGeometry&, const LstmForwardSteps<double>&, int64_t, void*);
template void lstm_backward_by_units<float>(const RecurrentGeometry&, const LstmBackwardSteps<float>&, int64_t, void*);
template void lstm_backward_by_units<double>(const RecurrentGeometry&, const LstmBackwardSteps<double>&, int64_t,
                                             void*);

}  // namespace cpu
}  // namespace glassgrad
