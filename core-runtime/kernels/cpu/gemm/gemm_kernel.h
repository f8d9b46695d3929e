// The contract between the GEMM driver (gemm.cpp, baseline ISA) and the per-ISA loop nests
// (gemm_generic.cpp, gemm_avx2.cpp, gemm_avx512.cpp, all built from gemm_impl.h).
//
// Only plain data crosses this boundary: a problem description and a table of function
// pointers. The ISA files instantiate no templates that the baseline code also instantiates,
// so the linker can never pick an AVX-512 copy of a shared inline function for baseline code.
#pragma once
#include <cstddef>
#include <cstdint>

namespace glassgrad {
namespace cpu {

// A matrix read through element strides: element (i, j) is data[i * row_stride + j * col_stride].
// gemm.h builds them by name (row_major, transpose_of, strided), never by position.
template <typename T>
struct MatrixView {
  const T* data = nullptr;
  int64_t row_stride = 0, col_stride = 0;
};

// C[i, j] = alpha * sum_p A[i, p] * B[p, j] + beta * C[i, j]   for i < m, j < n, p < k
// A[i, p] is, by the first of these that is set:
//   a_packed               already in the loop nest's packed form (gemm_pack_a), for an A that
//                          several calls share (a conv's weights, one call per image batch):
//                          for each block of KC columns (the kernel's blocking; the last may be
//                          narrower), the MR-row slivers of all a_packed_m rows, block pc at
//                          a_packed + pc * Mp (Mp: a_packed_m rounded up to MR), sliver s of it at
//                          + s * MR * (block width), zeros past row a_packed_m; this call's rows
//                          start at row a_row0 of it (a multiple of MR: a thread's row range);
//   a_col_at               column p at a.data + a_col_at[p], its rows a.row_stride apart
//                          (a.col_stride unused): columns in any order, e.g. a conv's weights
//                          [K, C, R, S] read with their taps regrouped, never copied;
//   a                      a MatrixView.
// B[p, j] is, by the first of these that is set:
//   b_packed               already in the loop nest's packed form (gemm_pack_b, or written
//                          directly: ceil(n / NR) slivers of NR columns, sliver s holding
//                          B[p, s*NR + j] at b_packed[s*NR*k + p*NR + j], zeros past column n),
//                          for a B that several calls share (e.g. transformed weights);
//   b_fill                 written into the packed form by the caller, one panel at a time:
//                          b_fill(b_fill_ctx, pc, kc, j0, nc, NR, dst) writes B[pc : pc + kc,
//                          j0 : j0 + nc] as ceil(nc / NR) slivers, sliver s at dst + s * NR * kc
//                          holding B[pc + p, j0 + s*NR + j] at p * NR + j, zeros past column nc
//                          (j0 counts from b_col0, so a thread's column range arrives as such).
//                          A conv gathers its im2col straight into the panels this way, never
//                          storing the whole matrix. Called by the thread that multiplies the panel;
//                          several threads call it at once when the call is split along N;
//   b_rows[p][b_col0 + j]  each row a contiguous run anywhere in memory (b_col0: the first
//                          column of this call when a thread works on a column range);
//   b_cols[j][p]           each column a contiguous run (packing transposes blocks of them in
//                          registers);
//   b                      a MatrixView.
// Row or column pointers let a conv hand its im2col matrix over without storing it: each of its
// rows is a run of the image. C[i, j] is c[i * ldc + j]. beta == 0 means C is write-only (it may
// hold NaNs before the call).
// The sizes are the constructor's only arguments; every other field is set by name, e.g.
//   GemmProblem<float> p(m, n, k);  p.a = row_major(w, k);  p.b = row_major(x, n);  p.c = y;  p.ldc = n;
template <typename T>
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  T alpha = T(1), beta = T(0);
  MatrixView<T> a;
  const T* a_packed = nullptr;
  int64_t a_packed_m = 0, a_row0 = 0;
  const int64_t* a_col_at = nullptr;
  MatrixView<T> b;
  const T* b_packed = nullptr;
  void (*b_fill)(const void* ctx, int64_t pc, int64_t kc, int64_t j0, int64_t nc, int64_t nr, T* dst) = nullptr;
  const void* b_fill_ctx = nullptr;
  const T* const* b_rows = nullptr;
  int64_t b_col0 = 0;
  const T* const* b_cols = nullptr;
  T* c = nullptr;
  int64_t ldc = 0;

  GemmProblem(int64_t m_, int64_t n_, int64_t k_) : m(m_), n(n_), k(k_) {}
};

// Cache blocking (Goto/BLIS): a KC x NC panel of B is packed once per (jc, pc) step, an MC x KC
// block of A once per (jc, pc, ic) step; the micro-kernel multiplies an MR x KC sliver of packed
// A by a KC x NR sliver of packed B into an MR x NR tile of C held in registers.
struct GemmBlocking {
  int64_t mc, kc, nc;
};

// C[i, j] = alpha * sum_p A[i, p] * B[j, p] + beta * C[i, j]   for i < m, j < n, p < k
// with A row i at a + i * lda and B row j at b_rows[j], both contiguous along p: every entry
// of C is a dot product of two contiguous rows. For small m x n and long k, where a packed
// MR x NR tile would be mostly padding (the weight gradient of a conv with few input channels).
// Built like GemmProblem: sizes in the constructor, the rest by name.
template <typename T>
struct GemmDotProblem {
  int64_t m = 0, n = 0, k = 0;
  T alpha = T(1), beta = T(0);
  const T* a = nullptr;
  int64_t lda = 0;
  const T* const* b_rows = nullptr;
  T* c = nullptr;
  int64_t ldc = 0;

  GemmDotProblem(int64_t m_, int64_t n_, int64_t k_) : m(m_), n(n_), k(k_) {}
};

template <typename T>
struct GemmKernel {
  const char* name;  // "avx512 12x32"
  int mr, nr;
  GemmBlocking blocking;
  // Packing buffer sizes (elements) for one serial call on an m x n x k problem.
  // ap: ceil(min(m, mc) / mr) * mr * min(k, kc);  bp: min(k, kc) * ceil(min(n, nc) / nr) * nr.
  // Both must be 64-byte aligned. Runs the whole loop nest serially.
  void (*run)(const GemmProblem<T>& p, const GemmBlocking& blk, T* ap, T* bp);
  // Serial; no workspace.
  void (*run_dot)(const GemmDotProblem<T>& p);
  // dst <- B [k, n] of p (rows, columns or strides) in the b_packed form.
  void (*pack_b)(const GemmProblem<T>& p, T* dst);
  // Rows [row0, row0 + rows) of A [m, k] of p (its MatrixView, or a_col_at) into their places
  // of the a_packed form of the whole A at dst, KC = blocking.kc (row0 a multiple of mr).
  void (*pack_a)(const GemmProblem<T>& p, int64_t row0, int64_t rows, T* dst);
};

// One table per ISA; each lives in its own translation unit compiled for that ISA.
namespace gemm_generic {
const GemmKernel<float>& kernel_f32();
const GemmKernel<double>& kernel_f64();
}  // namespace gemm_generic
namespace gemm_avx2 {
const GemmKernel<float>& kernel_f32();
const GemmKernel<double>& kernel_f64();
}  // namespace gemm_avx2
namespace gemm_avx512 {
const GemmKernel<float>& kernel_f32();
const GemmKernel<double>& kernel_f64();
}  // namespace gemm_avx512

}  // namespace cpu
}  // namespace glassgrad
