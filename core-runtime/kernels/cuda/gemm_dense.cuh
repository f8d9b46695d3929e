// The main loop of MatMul's float products over dense operands read 16 bytes at a time
// (docs/cuda.md, "Dense float products"):
//
//   C[m, n] = sum_{k in [kbeg, kend)} A(m, k) * B(k, n)
//
// gemm_engine.cuh's tile_product serves any gathered operand (the convolutions' im2col
// elements, zero padding): per-element row states, range flags and 64-bit addresses. Here each
// operand is a strided matrix with a unit stride (MatMul's layouts) whose rows are 16-byte
// aligned, so a thread stages its share of a k step as whole float4s from pointers that advance
// by a fixed amount each step.
//
// Tiling (TileConfig's 128 x 128, k steps of BK, two shared stages; DenseTile: T = 256 threads
// of 8 x 8 micro-tiles, 8 x 4 warps; the fragment layout is gemm_engine.cuh's, so its tile_store
// applies):
//   k-fast operand (A 'n': element (i, k) at p[i * ld + k]; B 't' likewise): 128 rows x BK k,
//     thread t the 4 k from 4 (t % (BK / 4)) of rows t / (BK / 4) + e * T / (BK / 4), stored
//     transposed (4 words each);
//   row-fast operand (A 't': element (i, k) at p[k * ld + i]; B 'n'): BK k rows x 128, thread t
//     the 4 rows from 4 (t % 32) of k rows t / 32 + (T / 32) e, stored as 16-byte words.
// Rows past M (N) read row M - 1 (rows M - 4 .. M - 1) instead: they feed only accumulators
// that no store writes. k past kend reads zeros (one predicated load), so the caller needs
// 16-byte aligned bases, ld % 4 == 0, and a multiple of 4 for the k extent of a k-fast operand
// and for the row extent of a row-fast one (matmul.cu's dense_operand).
#pragma once
#include "gemm_engine.cuh"

namespace gg {

// One operand's slice of a k step: 128 rows x BK k, NQ float4s a thread of THREADS.
template <bool KFast, int BK, int THREADS>
struct DenseQuads {
  static constexpr int TPR = BK / 4;                                   // k-fast: threads a row
  static constexpr int RPP = THREADS / TPR;                            // k-fast: rows a pass of the block
  static constexpr int KPP = THREADS / 32;                             // row-fast: k rows a pass
  static constexpr int NQ = KFast ? 128 * TPR / THREADS : BK / KPP;    // float4s a thread
  static_assert(NQ >= 1 && (KFast ? THREADS % TPR == 0 && 128 % RPP == 0 : BK % KPP == 0),
                "the block's threads must tile the slice");
  const float* p[KFast ? NQ : 1];  // the thread's float4s of the current k step (row-fast: the first)
  int ld;                          // row-fast: words between k rows
  int kk0, row0;                   // the first float4's k offset and row inside the slice
  float reg[NQ][4];

  __device__ __forceinline__ void init(const float* base, int ld_, int rows, int row_base, int kbeg, int tid) {
    ld = ld_;
    if constexpr (KFast) {
      kk0 = tid % TPR * 4;
      row0 = tid / TPR;
#pragma unroll
      for (int e = 0; e < NQ; ++e)
        p[e] = base + (int64_t)min(row_base + row0 + e * RPP, rows - 1) * ld + kbeg + kk0;
    } else {
      kk0 = tid / 32;
      row0 = (tid % 32) * 4;
      p[0] = base + (int64_t)(kbeg + kk0) * ld + min(row_base + row0, rows - 4);
    }
  }
  // The float4s of the k step at kb (p points at it); zeros past kend.
  __device__ __forceinline__ void fetch(int kb, int kend) {
#pragma unroll
    for (int e = 0; e < NQ; ++e) {
      if constexpr (KFast) ldg4_or_zero(p[e], kb + kk0 < kend, reg[e]);
      else ldg4_or_zero(p[0] + KPP * e * ld, kb + kk0 + KPP * e < kend, reg[e]);
    }
  }
  // fetch() of a step that ends at or before kend: no predicates, no zeroed registers.
  __device__ __forceinline__ void fetch_full() {
#pragma unroll
    for (int e = 0; e < NQ; ++e) {
      if constexpr (KFast) ldg4(p[e], reg[e]);
      else ldg4(p[0] + KPP * e * ld, reg[e]);
    }
  }
  __device__ __forceinline__ void advance() {
    if constexpr (KFast) {
#pragma unroll
      for (int e = 0; e < NQ; ++e) p[e] += BK;
    } else {
      p[0] += (int64_t)BK * ld;
    }
  }
  __device__ __forceinline__ void store(float (*s)[128 + 4]) const {
#pragma unroll
    for (int e = 0; e < NQ; ++e) {
      if constexpr (KFast) {
#pragma unroll
        for (int q = 0; q < 4; ++q) s[kk0 + q][row0 + e * RPP] = reg[e][q];
      } else {
        store4(&s[kk0 + KPP * e][row0], reg[e][0], reg[e][1], reg[e][2], reg[e][3]);
      }
    }
  }
};

// Accumulates the 128 x 128 tile at (m0, n0) over k in [kbeg, kend) into acc (zeroed by the
// caller). A is M x K (AKFast: A(m, k) at a[m * lda + k], else a[k * lda + m]); B is K x N
// (BKFast: B(k, n) at b[n * ldb + k], else b[k * ldb + n]). Every thread of the block calls it
// with the same arguments; it ends with a barrier, so the stages may be refilled at once.
// Cfg: DenseTile (256 threads, 8 x 8 micro-tiles; docs/cuda.md, "Dense float products", records
// the 8 x 16 micro-tiles of 128 threads that were timed and removed).
template <typename Cfg, bool AKFast, bool BKFast>
__device__ __forceinline__ void dense_tile_product(const float* a, int lda, const float* b, int ldb, int M, int N,
                                                   int m0, int n0, int kbeg, int kend,
                                                   float (&acc)[Cfg::TM][Cfg::TN]) {
  constexpr int BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN, THREADS = Cfg::THREADS;
  static_assert(Cfg::BM == 128 && Cfg::BN == 128, "the dense tiles are 128 x 128");
  __shared__ __align__(16) float As[2][BK][128 + 4];
  __shared__ __align__(16) float Bs[2][BK][128 + 4];
  const int tid = threadIdx.x;
  const int tx = thread_tx<Cfg>(tid), ty = thread_ty<Cfg>(tid);
  DenseQuads<AKFast, BK, THREADS> sa;
  DenseQuads<BKFast, BK, THREADS> sb;
  sa.init(a, lda, M, m0, kbeg, tid);
  sb.init(b, ldb, N, n0, kbeg, tid);
  sa.fetch(kbeg, kend);
  sb.fetch(kbeg, kend);
  sa.store(As[0]);
  sb.store(Bs[0]);
  __syncthreads();
  int cur = 0;
  for (int kb = kbeg; kb < kend; kb += BK) {
    const bool more = kb + BK < kend;
    if (more) {
      sa.advance();
      sb.advance();
      if (kb + 2 * BK <= kend) {  // a whole step: 4 zeroing moves a float4 fewer
        sa.fetch_full();
        sb.fetch_full();
      } else {
        sa.fetch(kb + BK, kend);
        sb.fetch(kb + BK, kend);
      }
    }
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float fa[TM], fb[TN];
      load_fragment<TM, 128>(&As[cur][kk][0], ty, fa);
      load_fragment<TN, 128>(&Bs[cur][kk][0], tx, fb);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
    }
    if (more) {
      sa.store(As[cur ^ 1]);
      sb.store(Bs[cur ^ 1]);
    }
    __syncthreads();  // the stage just read is rewritten next step (or next tile)
    cur ^= 1;
  }
}

typedef TileConfig<128, 128, 8, 8, 16, true, true> DenseTile;  // 256 threads, k steps of 16

}  // namespace gg
