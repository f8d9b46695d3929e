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
#pragma once
#include <cstddef>
#include <cstdint>

#include "gemm_kernel.h"
#include "glassgrad/autodiff/types.h"
#include "glassgrad/runtime/cpu_features.h"

namespace glassgrad {
namespace cpu {

void gemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa, int64_t csa,
          const float* b, int64_t rsb, int64_t csb, float beta, float* c, int64_t ldc,
          void* workspace = nullptr, size_t workspace_bytes = 0);
void gemm(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t rsa, int64_t csa,
          const double* b, int64_t rsb, int64_t csb, double beta, double* c, int64_t ldc,
          void* workspace = nullptr, size_t workspace_bytes = 0);

// The same with an explicit ISA (tests run every path this CPU has). The ISA must be one the
// CPU supports: cpu_isa() or below.
void gemm(CpuIsa isa, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa,
          int64_t csa, const float* b, int64_t rsb, int64_t csb, float beta, float* c, int64_t ldc,
          void* workspace = nullptr, size_t workspace_bytes = 0);
void gemm(CpuIsa isa, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t rsa,
          int64_t csa, const double* b, int64_t rsb, int64_t csb, double beta, double* c,
          int64_t ldc, void* workspace = nullptr, size_t workspace_bytes = 0);

// The same with row p of B a contiguous run at b_rows[p] (B[p, j] = b_rows[p][j]), e.g. the
// im2col rows of a stride-1 conv, which are runs of the image itself (gemm_kernel.h).
void gemm_rows(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa, int64_t csa,
               const float* const* b_rows, float beta, float* c, int64_t ldc, void* workspace = nullptr,
               size_t workspace_bytes = 0);
void gemm_rows(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t rsa, int64_t csa,
               const double* const* b_rows, double beta, double* c, int64_t ldc, void* workspace = nullptr,
               size_t workspace_bytes = 0);

// The same with column j of B a contiguous run at b_cols[j] (B[p, j] = b_cols[j][p]): B^T given
// by row pointers, e.g. the im2col rows of a conv's weight gradient. Packing transposes them
// block by block in registers.
void gemm_cols(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa, int64_t csa,
               const float* const* b_cols, float beta, float* c, int64_t ldc, void* workspace = nullptr,
               size_t workspace_bytes = 0);
void gemm_cols(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t rsa, int64_t csa,
               const double* const* b_cols, double beta, double* c, int64_t ldc, void* workspace = nullptr,
               size_t workspace_bytes = 0);

// C[i, j] = alpha * sum_p A[i, p] * B[j, p] + beta * C[i, j] with A row i at a + i * lda and
// B row j at b_rows[j], both contiguous along p (GemmDotProblem): dot products of rows, for
// small m x n and long k. Serial, no workspace.
void gemm_dot(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* const* b_rows,
              float beta, float* c, int64_t ldc);
void gemm_dot(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda, const double* const* b_rows,
              double beta, double* c, int64_t ldc);

// Every form above, spelled as the problem structs of gemm_kernel.h, for an explicit ISA (tests
// run each path this CPU has). The ISA must be cpu_isa() or below.
void gemm(CpuIsa isa, const GemmProblem<float>& p, void* workspace = nullptr, size_t workspace_bytes = 0);
void gemm(CpuIsa isa, const GemmProblem<double>& p, void* workspace = nullptr, size_t workspace_bytes = 0);
void gemm_dot(CpuIsa isa, const GemmDotProblem<float>& p);
void gemm_dot(CpuIsa isa, const GemmDotProblem<double>& p);

// Workspace for one gemm call of this size and dtype (Float32 or Float64), enough for every
// thread it would use; with serial = true, enough for one thread (a call made inside a
// parallel region, e.g. per image of a conv).
size_t gemm_workspace_bytes(int64_t m, int64_t n, int64_t k, DType dtype, bool serial = false);
size_t gemm_workspace_bytes(CpuIsa isa, int64_t m, int64_t n, int64_t k, DType dtype, bool serial);

// Below this many multiply-adds (m * n * k) a second thread costs more (fork/join, duplicated
// packing) than it saves; callers splitting many small products over threads use it too.
constexpr int64_t kGemmMinParallelWork = int64_t(1) << 21;

// How many threads a call of this size would use outside a parallel region (1: it runs
// serially, so a caller with many such products should parallelize over them instead).
int gemm_threads(int64_t m, int64_t n, int64_t k, DType dtype);

// Columns of the micro-tile (NR) of the loop nest cpu_isa() selects: how wide B should be for
// the packed GEMM not to compute mostly padding.
int gemm_nr(DType dtype);

// "avx512 8x48 f32": the loop nest cpu_isa() selects for float32 (for logs and benchmarks).
const char* gemm_kernel_name();
const char* gemm_kernel_name(CpuIsa isa, DType dtype);

}  // namespace cpu
}  // namespace glassgrad
