// One tile of a matrix product, shared by MatMul and the implicit-GEMM convolutions:
//
//   C[m, n] = sum_{k in [k0, k1)} A(m, k) * B(k, n)      for the BM x BN tile at (m0, n0)
//
// A and B are functors that return an element (the convolutions gather it from the image,
// with zero padding, instead of materializing an im2col matrix); Store receives each finished
// element. 256 threads; each tile step stages a BM x BK slice of A and a BK x BN slice of B in
// shared memory (2 * 16 * 65 words: 8.3 KB for float, 16.6 KB for double), then every thread
// accumulates a 4 x 4 block of C with plain FMAs (no tensor cores). Thread (tx, ty) owns rows
// ty + 16 i and columns tx + 16 j, so a warp reads 16 consecutive B words (no bank conflicts)
// and two broadcast A words. Each functor says which of its indices has unit stride
// (k_major / n_major) so that consecutive threads load consecutive addresses.
#pragma once
#include "common.cuh"

namespace gg {

constexpr int kBM = 64, kBN = 64, kBK = 16, kGemmThreads = 256;

template <typename T, typename LA, typename LB, typename ST>
__device__ __forceinline__ void gemm_tile(const LA& la, const LB& lb, const ST& st, int64_t M, int64_t N,
                                          int64_t m0, int64_t n0, int64_t k0, int64_t k1) {
  __shared__ T As[kBK][kBM + 1];
  __shared__ T Bs[kBK][kBN + 1];
  const int tid = threadIdx.x;
  const int tx = tid & 15, ty = tid >> 4;
  T acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = T(0);

  for (int64_t kb = k0; kb < k1; kb += kBK) {
#pragma unroll
    for (int e0 = 0; e0 < kBM * kBK; e0 += kGemmThreads) {
      const int e = e0 + tid;
      int mm, kk;
      if (la.k_major) { kk = e % kBK; mm = e / kBK; } else { mm = e % kBM; kk = e / kBM; }
      const int64_t m = m0 + mm, k = kb + kk;
      As[kk][mm] = (m < M && k < k1) ? la(m, k) : T(0);
    }
#pragma unroll
    for (int e0 = 0; e0 < kBN * kBK; e0 += kGemmThreads) {
      const int e = e0 + tid;
      int nn, kk;
      if (lb.n_major) { nn = e % kBN; kk = e / kBN; } else { kk = e % kBK; nn = e / kBK; }
      const int64_t n = n0 + nn, k = kb + kk;
      Bs[kk][nn] = (n < N && k < k1) ? lb(k, n) : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      T a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int64_t m = m0 + ty + 16 * i;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t n = n0 + tx + 16 * j;
      if (n < N) st(m, n, acc[i][j]);
    }
  }
}

}  // namespace gg
