// glassgrad's own GEMM for the CPU kernels (MatMul, Conv2D and its backwards).
//
//   C[i, j] = alpha * sum_{p < k} A[i, p] * B[p, j] + beta * C[i, j]     i < m, j < n
//
// A[i, p] = a[i * rsa + p * csa] and B[p, j] = b[p * rsb + j * csb]: any element strides, so a
// transposed view is passed by swapping its strides, never copied. C[i, j] = c[i * ldc + j]
// (unit column stride). beta == 0 means C is write-only: whatever it held (even NaN) is ignored.
//
// The work is a packed, cache-blocked loop nest (gemm_impl.h) compiled for three ISAs and picked
// at run time with cpu_isa(). Big problems are split across threads with parallel_for, over
// blocks of N (or of M when N is narrow); inside a parallel region it runs serially.
//
// Packing buffers: pass a workspace of gemm_workspace_bytes(...) bytes (kernels get one planned
// by the memory planner). With less (or none), gemm uses fewer threads, or allocates a
// temporary buffer through the CPU allocator when not even one thread's share fits.
//
// One problem struct (GemmProblem, gemm_kernel.h) with named fields describes a call:
//   cpu::GemmProblem<float> p(m, n, k);      // C [m, n] = A [m, k] x B [k, n]
//   p.a = cpu::row_major(w, k);              // or transpose_of(...), strided(...)
//   p.b = cpu::row_major(x, n);              // or p.b_rows / p.b_cols (row or column pointers),
//                                            // p.b_fill (the caller writes packed panels)
//   p.c = y;  p.ldc = n;  p.beta = 1;        // alpha 1 and beta 0 unless set
//   cpu::gemm(p, {workspace, bytes});
#pragma once
#include <cstddef>
#include <cstdint>

#include "gemm_kernel.h"
#include "glassgrad/autodiff/types.h"
#include "glassgrad/runtime/cpu_features.h"

namespace glassgrad {
namespace cpu {

// The row-major matrix at data with rows of ld elements: (i, j) at data[i * ld + j].
template <typename T>
MatrixView<T> row_major(const T* data, int64_t ld) {
  MatrixView<T> v;
  v.data = data;
  v.row_stride = ld;
  v.col_stride = 1;
  return v;
}
// The transpose of the row-major matrix at data with rows of ld elements: (i, j) at data[j * ld + i].
template <typename T>
MatrixView<T> transpose_of(const T* data, int64_t ld) {
  MatrixView<T> v;
  v.data = data;
  v.row_stride = 1;
  v.col_stride = ld;
  return v;
}
// Any element strides (a tensor view's last two strides).
template <typename T>
MatrixView<T> strided(const T* data, int64_t row_stride, int64_t col_stride) {
  MatrixView<T> v;
  v.data = data;
  v.row_stride = row_stride;
  v.col_stride = col_stride;
  return v;
}

// Packing buffers for one call (see above); {} lets gemm find its own.
struct GemmWorkspace {
  void* data = nullptr;
  size_t bytes = 0;
};

// C = alpha * A x B + beta * C on the loop nest of `isa` (default: this CPU's best; tests run
// every path the CPU has). The ISA must be cpu_isa() or below. T = float or double.
template <typename T>
void gemm(const GemmProblem<T>& p, GemmWorkspace workspace = {}, CpuIsa isa = cpu_isa());

// B [k, n] of p (its b, b_rows or b_cols) in the b_packed form of `isa`'s loop nest, into dst
// of gemm_packed_b_elems(k, n, ...) elements, 64-byte aligned: pack once, multiply many times
// (gemm with p.b_packed = dst and the same isa).
template <typename T>
void gemm_pack_b(const GemmProblem<T>& p, T* dst, CpuIsa isa = cpu_isa());
int64_t gemm_packed_b_elems(int64_t k, int64_t n, DType dtype, CpuIsa isa = cpu_isa());

// A [m, k] of p (its a) in the a_packed form of `isa`'s loop nest, into dst of
// gemm_packed_a_elems(m, k, ...) elements, 64-byte aligned: pack once, then every gemm with
// p.a_packed = dst, p.a_packed_m = m and the same isa reads it in place (a conv's weights,
// shared by the GEMMs of all its image batches).
template <typename T>
void gemm_pack_a(const GemmProblem<T>& p, T* dst, CpuIsa isa = cpu_isa());
int64_t gemm_packed_a_elems(int64_t m, int64_t k, DType dtype, CpuIsa isa = cpu_isa());
// Only rows [row0, row0 + rows) of A, into their places of the whole A's a_packed form at dst
// (row0 a multiple of gemm_mr; the row ranges of several calls together make the whole form).
// A caller packing several A's that read the same source rows (a conv's tap groups, all from one
// weight tensor: a_col_at) walks a few rows at a time for all of them, while they are in cache.
template <typename T>
void gemm_pack_a_rows(const GemmProblem<T>& p, int64_t row0, int64_t rows, T* dst, CpuIsa isa = cpu_isa());
// Rows of the micro-tile (MR) of `isa`'s loop nest: gemm_pack_a_rows's row0 is a multiple of it.
int gemm_mr(DType dtype, CpuIsa isa = cpu_isa());
// Columns of A per block of the a_packed form (the loop nest's KC): a caller writing A straight
// in that form (the Winograd weight gradient's transformed gradients) cuts its columns on it.
int64_t gemm_kc(DType dtype, CpuIsa isa = cpu_isa());

// C[i, j] = alpha * <A row i, B row j> + beta * C[i, j] (GemmDotProblem): serial, no workspace.
template <typename T>
void gemm_dot(const GemmDotProblem<T>& p, CpuIsa isa = cpu_isa());

// Workspace for one gemm call of this size and dtype (Float32 or Float64), enough for every
// thread it would use; with serial = true, enough for one thread (a call made inside a
// parallel region, e.g. per image of a conv).
size_t gemm_workspace_bytes(int64_t m, int64_t n, int64_t k, DType dtype, bool serial = false, CpuIsa isa = cpu_isa());

// Below this many multiply-adds (m * n * k) a second thread costs more (fork/join, duplicated
// packing) than it saves; callers splitting many small products over threads use it too.
constexpr int64_t kGemmMinParallelWork = int64_t(1) << 21;

// How many threads a call of this size would use outside a parallel region (1: it runs
// serially, so a caller with many such products should parallelize over them instead).
int gemm_threads(int64_t m, int64_t n, int64_t k, DType dtype);

// Columns of the micro-tile (NR) of `isa`'s loop nest: how wide B should be for the packed
// GEMM not to compute mostly padding, and the sliver width of the b_packed form.
int gemm_nr(DType dtype, CpuIsa isa = cpu_isa());

// "avx512 8x48 f32": the loop nest of `isa` for `dtype` (for logs and benchmarks).
const char* gemm_kernel_name(CpuIsa isa = cpu_isa(), DType dtype = DType::Float32);

}  // namespace cpu
}  // namespace glassgrad
