// Register-tiled matrix product over gathered operands, the engine of the implicit-GEMM
// convolutions (conv.cu):
//
//   C[m, n] = sum_{k in [k0, k1)} A(m, k) * B(k, n)
//
// Tiling (the classic FP32 SGEMM blocking, no tensor cores): a block owns a BM x BN tile of C
// and walks k in steps of BK (8; 16 for the float forward 64 x 128 tiles). Each step stages
// A[BM x BK] and B[BK x BN] in shared memory;
// each thread accumulates a TM x TN micro-tile in registers, so every shared-memory word read
// feeds TM (or TN) FMAs. A thread's rows are TM/4 groups of 4 consecutive rows spaced
// BM/(TM/4) apart (columns likewise), so a warp reads A as a broadcast of 2 addresses and B as
// 16 consecutive 4-vectors: no bank conflicts. Shared rows are padded by 4 words, which keeps
// the 4-vectors aligned and spreads the transposed stores of k-contiguous operands over all
// 32 banks. Two shared stages: the next step's global loads go to registers before this
// step's FMAs and to the other stage after them, one __syncthreads() per step.
// Shared memory: 2 * BK * (BM + BN + 8) words = 16.9 KB (float, 128 x 128), under 48 KB.
//
// Operands are functors that gather elements (zero padding included) instead of reading a
// materialized im2col matrix:
//   kKFast          true when consecutive k are adjacent in memory; threads then walk k
//   Index index(i)  state of row i (A: m, B: n), computed once per tile and thread
//   KIndex kindex(k) state of k, computed once per step (k-fast) or per element
//   T load(Index, KIndex)                      a computed element, or, for an element in memory,
//   const T* address(Index, KIndex), bool valid(Index, KIndex)
// Rows >= M (N) and k >= k1 load 0 without calling load(). An addressed operand is read by one
// predicated load (ldg_or_zero) under kin && valid(): kindex() is evaluated for every k, in
// range or not, so it must be plain arithmetic, and address() of an element that is not valid
// is formed but never read. Its rows >= M (N) gather row M - 1 (N - 1) instead: they only feed
// accumulator rows (columns) that no store writes, so they need no range test. With a branch
// around each load, the 128 x 128 forward's k step had 12 branches and 7 divergence regions,
// 302 instructions besides its 1024 FMAs (251 this way, with conv.cu's tap masks); on 8 SMs
// of an H200 the strided forwards went from 1.25x cuDNN's time to 1.12x.
// The store functor takes col(n) -> state once per column and (m, state, value) per element.
//
// Split k: blockIdx.z = z covers k in [z * chunk, (z + 1) * chunk), chunk a multiple of BK.
// With splits > 1 the partial tile goes densely to ws[z][M][N]; split_reduce() sums the
// partitions in z order (deterministic) and hands each sum to the store functor.
#pragma once
#include "common.cuh"

namespace gg {

// VEC: whether tile_store may take the 16-byte path (below); off where the extra path spilled.
// WARPS: how threads map to micro-tiles. false: thread t is (tx, ty) = (t % TX, t / TX), so a
// warp of a 16-wide grid covers 16 x 2 micro-tiles and reads 2 A and 16 B fragments a k step
// (576 distinct bytes of shared memory for 8 x 8 micro-tiles); true: a warp covers 8 x 4
// micro-tiles (lane l is (l % 8, l / 8) within its warp's block), 4 A and 8 B fragments
// (384 bytes): a third less shared-memory traffic per FMA, the layout of the classic SGEMMs.
template <int BM_, int BN_, int TM_, int TN_, int BK_ = 8, bool VEC_ = true, bool WARPS_ = false>
struct TileConfig {
  static constexpr int BM = BM_, BN = BN_, TM = TM_, TN = TN_, BK = BK_;
  static constexpr bool VEC = VEC_, WARPS = WARPS_;
  static constexpr int TX = BN / TN, TY = BM / TM, THREADS = TX * TY;
  static_assert(TM % 4 == 0 && TN % 4 == 0, "micro-tiles are groups of 4 rows and columns");
  static_assert(BM % 32 == 0 && BN % 32 == 0, "padded rows must start on bank 4 * k");
  static_assert(!WARPS || (TX % 8 == 0 && TY % 4 == 0), "8 x 4 warps must tile the thread grid");
};

// The micro-tile column tx and row ty of thread tid (TileConfig's WARPS).
// Unsigned arithmetic: the thread index is never negative.
template <typename Cfg>
__device__ __forceinline__ int thread_tx(unsigned tid) {
  if constexpr (Cfg::WARPS) return (int)((tid / 32) % (Cfg::TX / 8) * 8 + tid % 8);
  return (int)(tid % Cfg::TX);
}
template <typename Cfg>
__device__ __forceinline__ int thread_ty(unsigned tid) {
  if constexpr (Cfg::WARPS) return (int)((tid / 32) / (Cfg::TX / 8) * 4 + (tid % 32) / 8);
  return (int)(tid / Cfg::TX);
}

__device__ __forceinline__ void load4(const float* p, float* v) {
  const float4 q = *reinterpret_cast<const float4*>(p);
  v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
}
__device__ __forceinline__ void load4(const double* p, double* v) {
  const double2 a = *reinterpret_cast<const double2*>(p), b = *reinterpret_cast<const double2*>(p + 2);
  v[0] = a.x; v[1] = a.y; v[2] = b.x; v[3] = b.y;
}

// *p where ok, else 0, without a branch: one predicated load through the read-only path (the
// operands are inputs the kernel never writes). The host branch serves the CPU emulation of the
// kernels (runtime tests).
__device__ __forceinline__ float ldg_or_zero(const float* p, bool ok) {
#ifdef __CUDA_ARCH__
  float v;
  asm("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %2, 0;\n\tmov.f32 %0, 0f00000000;\n\t@q ld.global.nc.f32 %0, [%1];\n\t}"
      : "=f"(v)
      : "l"(p), "r"((int)ok));
  return v;
#else
  return ok ? *p : 0.f;
#endif
}
__device__ __forceinline__ double ldg_or_zero(const double* p, bool ok) {
#ifdef __CUDA_ARCH__
  double v;
  asm("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %2, 0;\n\tmov.f64 %0, 0d0000000000000000;\n\t@q ld.global.nc.f64 %0, [%1];\n\t}"
      : "=d"(v)
      : "l"(p), "r"((int)ok));
  return v;
#else
  return ok ? *p : 0.0;
#endif
}

// float (the kernels are also compiled by NVRTC, which has no <type_traits>).
template <typename T>
struct IsFloat {
  static constexpr bool value = false;
};
template <>
struct IsFloat<float> {
  static constexpr bool value = true;
};

// p[0..3] where ok, else zeros: one predicated 16-byte load (p 16-byte aligned).
__device__ __forceinline__ void ldg4_or_zero(const float* p, bool ok, float* v) {
#ifdef __CUDA_ARCH__
  asm("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %5, 0;\n\tmov.f32 %0, 0f00000000;\n\tmov.f32 %1, 0f00000000;"
      "\n\tmov.f32 %2, 0f00000000;\n\tmov.f32 %3, 0f00000000;\n\t@q ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];\n\t}"
      : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
      : "l"(p), "r"((int)ok));
#else
  for (int q = 0; q < 4; ++q) v[q] = ok ? p[q] : 0.f;
#endif
}

// p[0..3] through the read-only path (p 16-byte aligned): ldg4_or_zero where ok is known.
__device__ __forceinline__ void ldg4(const float* p, float* v) {
#ifdef __CUDA_ARCH__
  asm("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]) : "l"(p));
#else
  for (int q = 0; q < 4; ++q) v[q] = p[q];
#endif
}

// Whether an operand is addressed (address() and valid()) rather than computed (load()).
template <typename Op, typename = void>
struct Addressed {
  static constexpr bool value = false;
};
template <typename Op>
struct Addressed<Op, decltype((void)&Op::address, void())> {
  static constexpr bool value = true;
};
// Whether a k-fast addressed operand is dense along k (kDenseK): element (i, k + q) sits at
// address(i, kindex(k)) + q and is always valid, and vector_ok() says when its rows may be read
// 16 bytes at a time (k steps a multiple of 4, 16-byte aligned rows).
template <typename Op, typename = void>
struct DenseK {
  static constexpr bool value = false;
};
template <typename Op>
struct DenseK<Op, decltype((void)Op::kDenseK, void())> {
  static constexpr bool value = Op::kDenseK;
};

__device__ __forceinline__ void store4(float* p, float a, float b, float c, float d) {
  *reinterpret_cast<float4*>(p) = float4{a, b, c, d};
}
__device__ __forceinline__ void store4(double* p, double a, double b, double c, double d) {
  reinterpret_cast<double2*>(p)[0] = double2{a, b};
  reinterpret_cast<double2*>(p)[1] = double2{c, d};
}

// TM-element fragment of a shared row for thread index t (ty for A, tx for B).
template <int TM, int BM, typename T>
__device__ __forceinline__ void load_fragment(const T* row, int t, T (&v)[TM]) {
#pragma unroll
  for (int g = 0; g < TM / 4; ++g) load4(row + g * (BM / (TM / 4)) + t * 4, v + 4 * g);
}
template <int TM, int BM>
__device__ __forceinline__ int fragment_row(int t, int i) {
  return (i / 4) * (BM / (TM / 4)) + t * 4 + (i % 4);
}

// Global -> register -> shared staging of one operand's slice (ROWS rows x BK k), EPT elements
// per thread. k-fast: thread t has k offset t % BK and rows t / BK + e * (THREADS / BK), so it
// computes one k state per step. Row-fast: a warp takes 32 consecutive rows (coalesced), thread
// t has rows t % 32 + 32 j and k offsets t / 32 + (THREADS / 32) i, so it computes ROWS / 32
// row states per tile and BK / (THREADS / 32) k states per step. Quads (k-fast operands dense
// along k, DenseK): thread t has the 4 consecutive k from 4 * (t % (BK / 4)) of rows
// t / (BK / 4) + e * RPP, one address a row and step and, when vector_ok(), one 16-byte load (the
// forward's weights: 8 rows of scalar loads took 5 instructions each a k step).
template <typename T, typename Op, int ROWS, int BK, int THREADS>
struct Stager {
  static constexpr bool kKFast = Op::kKFast;
  static constexpr bool kAddr = Addressed<Op>::value;
  static constexpr int EPT = ROWS * BK / THREADS;
  static constexpr int KT = THREADS / 32;  // row-fast: k rows one pass of the block covers
  static constexpr int RG = ROWS / 32;     // row-fast: row groups per thread
  static constexpr int KI = BK / KT;       // row-fast: k offsets per thread
  static constexpr int TPR = BK / 4;       // quads: threads a row's k step
  static constexpr int RPP = THREADS / TPR;  // quads: rows a pass of the block covers
  static constexpr bool kQuad = DenseK<Op>::value && kKFast && kAddr && BK % 4 == 0 && RPP <= ROWS &&
                                ROWS % RPP == 0;
  static constexpr int NQ = kQuad ? ROWS / RPP : 1;  // quads: rows a thread
  static_assert(kKFast ? THREADS % BK == 0 && (ROWS * BK) % THREADS == 0
                       : THREADS % 32 == 0 && ROWS % 32 == 0 && BK % KT == 0 && RG * KI == EPT,
                "thread mapping must tile the slice");
  static_assert(!kQuad || NQ * 4 == EPT, "quads must tile the slice");
  static constexpr int NIDX = kQuad ? NQ : kKFast ? EPT : RG;
  typename Op::Index idx[NIDX];
  bool ok[NIDX];
  T reg[EPT];
  int kk0, row0;
  bool vec;  // quads: 16-byte loads

  __device__ __forceinline__ void init(const Op& op, int tid, int base, int limit) {
    kk0 = kQuad ? tid % TPR * 4 : kKFast ? tid % BK : tid / 32;
    row0 = kQuad ? tid / TPR : kKFast ? tid / BK : tid % 32;
    if constexpr (kQuad) vec = IsFloat<T>::value && op.vector_ok();
#pragma unroll
    for (int e = 0; e < NIDX; ++e) {
      const int row = base + row0 + e * (kQuad ? RPP : kKFast ? THREADS / BK : 32);
      ok[e] = row < limit;
      if (kAddr) idx[e] = op.index(min(row, limit - 1));
      else if (ok[e]) idx[e] = op.index(row);
    }
  }
  // One element: addressed operands by a predicated load, computed ones behind the range test.
  __device__ __forceinline__ T element(const Op& op, int e, const typename Op::KIndex& ki, bool kin) const {
    if constexpr (kAddr) {
      return ldg_or_zero(op.address(idx[e], ki), kin && op.valid(idx[e], ki));
    } else {
      return (kin && ok[e]) ? op.load(idx[e], ki) : T(0);
    }
  }
  __device__ __forceinline__ void fetch(const Op& op, int kb, int kend) {
    if constexpr (kQuad) {
      const int k = kb + kk0;
      const typename Op::KIndex ki = op.kindex(k);
      if constexpr (IsFloat<T>::value) {
        if (vec) {  // vector_ok(): k and kend are multiples of 4
#pragma unroll
          for (int e = 0; e < NQ; ++e) ldg4_or_zero(op.address(idx[e], ki), k < kend, &reg[4 * e]);
          return;
        }
      }
#pragma unroll
      for (int e = 0; e < NQ; ++e)
#pragma unroll
        for (int q = 0; q < 4; ++q) reg[4 * e + q] = ldg_or_zero(op.address(idx[e], ki) + q, k + q < kend);
    } else if (kKFast) {
      const int k = kb + kk0;
      const bool kin = k < kend;
      typename Op::KIndex ki;
      if (kAddr || kin) ki = op.kindex(k);
#pragma unroll
      for (int e = 0; e < EPT; ++e) reg[e] = element(op, e, ki, kin);
    } else {
#pragma unroll
      for (int i = 0; i < KI; ++i) {
        const int k = kb + kk0 + i * KT;
        const bool kin = k < kend;
        typename Op::KIndex ki;
        if (kAddr || kin) ki = op.kindex(k);
#pragma unroll
        for (int j = 0; j < RG; ++j) reg[i * RG + j] = element(op, j, ki, kin);
      }
    }
  }
  __device__ __forceinline__ void store(T (*s)[ROWS + 4]) const {
    if constexpr (kQuad) {
#pragma unroll
      for (int e = 0; e < NQ; ++e)
#pragma unroll
        for (int q = 0; q < 4; ++q) s[kk0 + q][row0 + e * RPP] = reg[4 * e + q];
    } else if (kKFast) {
#pragma unroll
      for (int e = 0; e < EPT; ++e) s[kk0][row0 + e * (THREADS / BK)] = reg[e];
    } else {
#pragma unroll
      for (int i = 0; i < KI; ++i)
#pragma unroll
        for (int j = 0; j < RG; ++j) s[kk0 + i * KT][row0 + 32 * j] = reg[i * RG + j];
    }
  }
};

// Accumulates the BM x BN tile at (m0, n0) of A B over k in [kbeg, kend) into acc (which the
// caller zeroed). Every thread of the block calls it with the same arguments (it holds
// barriers); it ends with one, so the shared stages may be refilled at once.
template <typename T, typename Cfg, typename OpA, typename OpB>
__device__ __forceinline__ void tile_product(const OpA& opa, const OpB& opb, int M, int N, int m0, int n0,
                                             int kbeg, int kend, T (&acc)[Cfg::TM][Cfg::TN]) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN, THREADS = Cfg::THREADS;
  __shared__ __align__(16) T As[2][BK][BM + 4];
  __shared__ __align__(16) T Bs[2][BK][BN + 4];
  const int tid = threadIdx.x, tx = thread_tx<Cfg>(tid), ty = thread_ty<Cfg>(tid);
  Stager<T, OpA, BM, BK, THREADS> sa;
  Stager<T, OpB, BN, BK, THREADS> sb;
  sa.init(opa, tid, m0, M);
  sb.init(opb, tid, n0, N);
  sa.fetch(opa, kbeg, kend);
  sb.fetch(opb, kbeg, kend);
  sa.store(As[0]);
  sb.store(Bs[0]);
  __syncthreads();
  int cur = 0;
  for (int kb = kbeg; kb < kend; kb += BK) {
    const bool more = kb + BK < kend;
    if (more) {
      sa.fetch(opa, kb + BK, kend);
      sb.fetch(opb, kb + BK, kend);
    }
    // Fragments in two register sets: k row kk + 1's shared-memory reads are issued before
    // row kk's FMAs, so they wait on nothing.
    T a[2][TM], b[2][TN];
    load_fragment<TM, BM>(&As[cur][0][0], ty, a[0]);
    load_fragment<TN, BN>(&Bs[cur][0][0], tx, b[0]);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk + 1 < BK) {
        load_fragment<TM, BM>(&As[cur][kk + 1][0], ty, a[(kk + 1) & 1]);
        load_fragment<TN, BN>(&Bs[cur][kk + 1][0], tx, b[(kk + 1) & 1]);
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fma(a[kk & 1][i], b[kk & 1][j], acc[i][j]);
    }
    if (more) {
      sa.store(As[cur ^ 1]);
      sb.store(Bs[cur ^ 1]);
    }
    __syncthreads();  // the stage just read is rewritten next step (or next tile)
    cur ^= 1;
  }
}

// Operands in memory with one unit stride (MatMul's strided views, the recurrent layers'
// weights and activations), 32-bit offsets (their launchers refuse larger matrices):
// DenseKFast: element (i, k) at p[i * ld + k], consecutive k adjacent (quads, 16-byte loads
// when vector_ok()); DenseRowFast: element (i, k) at p[k * ld + i], consecutive i adjacent.
template <typename T>
struct DenseKFast {
  static constexpr bool kKFast = true;
  static constexpr bool kDenseK = true;
  typedef int Index;
  typedef int KIndex;
  const T* p;
  int ld, K;
  __device__ __forceinline__ int index(int i) const { return i * ld; }
  __device__ __forceinline__ int kindex(int k) const { return k; }
  __device__ __forceinline__ bool valid(int, int) const { return true; }
  __device__ __forceinline__ const T* address(int i, int k) const { return p + (i + k); }
  __device__ __forceinline__ bool vector_ok() const { return ld % 4 == 0 && K % 4 == 0 && ((uintptr_t)p & 15) == 0; }
};
template <typename T>
struct DenseRowFast {
  static constexpr bool kKFast = false;
  typedef int Index;
  typedef int KIndex;
  const T* p;
  int ld;
  __device__ __forceinline__ int index(int i) const { return i; }
  __device__ __forceinline__ int kindex(int k) const { return k * ld; }
  __device__ __forceinline__ bool valid(int, int) const { return true; }
  __device__ __forceinline__ const T* address(int i, int k) const { return p + (i + k); }
};

// Stores of a dense row-major destination (kRowMajor; ptr(m, n) the element, columns n..n+3
// consecutive for n a multiple of 4; `add` to accumulate) take a thread's 4 consecutive columns
// as one 16-byte store when aligned4(): a quarter of the store instructions, whole sectors.
// Winograd's products (DenseOut) and the convolution forward (FwdStore), whose short reductions
// (few channels, taps or tiles) leave the epilogue a large share; the split-k partial sums and
// the weight gradient's dW keep the scalar path (the 64 x 128 weight gradient, capped at 168
// registers, spilled with both).
template <typename S, typename = void>
struct RowMajorStore {
  static constexpr bool value = false;
};
template <typename S>
struct RowMajorStore<S, decltype((void)S::kRowMajor, void())> {
  static constexpr bool value = S::kRowMajor;
};
// row_offset(m): a value added to every element of row m (the forward's bias), 0 by default.
template <typename S, typename T, typename = void>
struct RowOffset {
  static __device__ __forceinline__ T get(const S&, int) { return T(0); }
};
template <typename S, typename T>
struct RowOffset<S, T, decltype((void)&S::row_offset, void())> {
  static __device__ __forceinline__ T get(const S& s, int m) { return s.row_offset(m); }
};

// col_bias(n, v): v plus column n's bias (a MatMul's fused Linear bias), v itself by default.
template <typename S, typename T, typename = void>
struct ColBias {
  static __device__ __forceinline__ T add(const S&, int, T v) { return v; }
};
template <typename S, typename T>
struct ColBias<S, T, decltype((void)&S::col_bias, void())> {
  static __device__ __forceinline__ T add(const S& s, int n, T v) { return s.col_bias(n, v); }
};

// Hands the tile's accumulators to a store functor: col(n) once per column, then
// (m, col, value) for every in-range element.
template <typename T, typename Cfg, typename Store>
__device__ __forceinline__ void tile_store(const Store& st, int M, int N, int m0, int n0,
                                           const T (&acc)[Cfg::TM][Cfg::TN]) {
  const int tx = thread_tx<Cfg>(threadIdx.x), ty = thread_ty<Cfg>(threadIdx.x);
  // 8-wide micro-tiles only: with 4 (the 64 x 64 product tiles) the extra path cost the main
  // loop its register allocation (a 64 x 64 k-16 weight gradient ran 28% slower on 8 SMs).
  if constexpr (RowMajorStore<Store>::value && Cfg::TN == 8 && Cfg::VEC) {
    if (st.aligned4()) {
#pragma unroll
      for (int i = 0; i < Cfg::TM; ++i) {
        const int m = m0 + fragment_row<Cfg::TM, Cfg::BM>(ty, i);
        if (m >= M) continue;
        const T off = RowOffset<Store, T>::get(st, m);
#pragma unroll
        for (int g = 0; g < Cfg::TN / 4; ++g) {
          const int n = n0 + fragment_row<Cfg::TN, Cfg::BN>(tx, 4 * g);  // a multiple of 4
          if (n >= N) continue;
          T* p = st.ptr(m, n);
          if (n + 3 < N) {
            T v0 = ColBias<Store, T>::add(st, n, acc[i][4 * g] + off),
              v1 = ColBias<Store, T>::add(st, n + 1, acc[i][4 * g + 1] + off),
              v2 = ColBias<Store, T>::add(st, n + 2, acc[i][4 * g + 2] + off),
              v3 = ColBias<Store, T>::add(st, n + 3, acc[i][4 * g + 3] + off);
            if (st.add) {
              T o[4];
              load4(p, o);
              v0 += o[0], v1 += o[1], v2 += o[2], v3 += o[3];
            }
            store4(p, v0, v1, v2, v3);
          } else {
#pragma unroll
            for (int q = 0; q < 4; ++q)
              if (n + q < N)
                p[q] = st.add ? p[q] + acc[i][4 * g + q] : ColBias<Store, T>::add(st, n + q, acc[i][4 * g + q] + off);
          }
        }
      }
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < Cfg::TN; ++j) {
    const int n = n0 + fragment_row<Cfg::TN, Cfg::BN>(tx, j);
    if (n >= N) continue;
    const typename Store::Col col = st.col(n);
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
      const int m = m0 + fragment_row<Cfg::TM, Cfg::BM>(ty, i);
      if (m < M) st(m, col, ColBias<Store, T>::add(st, n, acc[i][j]));
    }
  }
}

// Dense partial-sum store of split z: ws[z][m][n].
template <typename T>
struct PartialStore {
  typedef T* Col;
  T* ws;
  int N;
  __device__ __forceinline__ T* col(int n) const { return ws + n; }
  __device__ __forceinline__ void operator()(int m, T* c, T v) const { c[(int64_t)m * N] = v; }
};

template <typename T, typename Cfg>
__device__ __forceinline__ void zero(T (&acc)[Cfg::TM][Cfg::TN]) {
#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::TN; ++j) acc[i][j] = T(0);
}

// k range of split z: chunks of whole BK steps.
template <int BK>
__device__ __forceinline__ int split_chunk(int Kdim, int splits) {
  return ((Kdim + splits - 1) / splits + BK - 1) / BK * BK;
}

// One launch computes every (tile, split) of the grid-stride loops below.
template <typename T, typename Cfg, typename OpA, typename OpB, typename Store>
__device__ void gemm_tiled(const OpA& opa, const OpB& opb, const Store& st, int M, int N, int Kdim, int splits,
                           T* ws) {
  const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
  const int chunk = split_chunk<Cfg::BK>(Kdim, splits);
  for (int z = blockIdx.z; z < splits; z += gridDim.z)
    for (int tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
      for (int tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
        const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
        const int kbeg = z * chunk, kend = min(kbeg + chunk, Kdim);
        T acc[Cfg::TM][Cfg::TN];
        zero<T, Cfg>(acc);
        if (kbeg < kend) tile_product<T, Cfg>(opa, opb, M, N, m0, n0, kbeg, kend, acc);
        if (splits > 1)
          tile_store<T, Cfg>(PartialStore<T>{ws + (int64_t)z * M * N, N}, M, N, m0, n0, acc);
        else
          tile_store<T, Cfg>(st, M, N, m0, n0, acc);
      }
}

// A batch of products of one shape (Winograd's one product per transform element):
// blockIdx.z runs over batch * splits; product b's operands are pb.a(b), pb.b(b), and split z
// of it stores through pb.store(b, z) (every split stores its tile, zeros included, so a
// consumer may sum all splits).
template <typename T, typename Cfg, typename Batch>
__device__ void gemm_batched(const Batch& pb, int M, int N, int Kdim, int batch, int splits) {
  const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
  const int chunk = split_chunk<Cfg::BK>(Kdim, splits);
  for (int bz = blockIdx.z; bz < batch * splits; bz += gridDim.z) {
    const int b = bz / splits, z = bz - b * splits;
    const int kbeg = z * chunk, kend = min(kbeg + chunk, Kdim);
    for (int tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
      for (int tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
        const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
        T acc[Cfg::TM][Cfg::TN];
        zero<T, Cfg>(acc);
        if (kbeg < kend) tile_product<T, Cfg>(pb.a(b), pb.b(b), M, N, m0, n0, kbeg, kend, acc);
        tile_store<T, Cfg>(pb.store(b, z), M, N, m0, n0, acc);
      }
  }
}

// out(m, n) = sum_z ws[z][m][n], handed to the store functor, in a fixed order (results do not
// depend on timing). Few splits: one thread per element sums z ascending. Many (>= 8, a long
// reduction over a small output, e.g. a first layer's weight gradient): the serial chain of
// `splits` loads per thread was the kernel's time, so a block of 256 threads takes 32
// consecutive elements (coalesced) x 8 groups of z (z = g, g + 8, ...), and the 8 group sums are
// added g ascending through shared memory. blockDim.x is 256.
template <typename T, typename Store>
__device__ void split_reduce(const Store& st, int M, int N, int splits, const T* ws) {
  const int64_t total = (int64_t)M * N;
  if (splits < 8) {
    GG_FOR(i, total) {
      T s = 0;
      for (int z = 0; z < splits; ++z) s += ws[z * total + i];
      const int m = (int)(i / N), n = (int)(i - (int64_t)m * N);
      st(m, st.col(n), ColBias<Store, T>::add(st, n, s));
    }
    return;
  }
  __shared__ T part[8][33];
  const int lane = threadIdx.x & 31, grp = threadIdx.x >> 5;
  for (int64_t i0 = (int64_t)blockIdx.x * 32; i0 < total; i0 += (int64_t)gridDim.x * 32) {
    const int64_t i = i0 + lane;
    T s = 0;
    if (i < total)
      for (int z = grp; z < splits; z += 8) s += ws[z * total + i];
    part[grp][lane] = s;
    __syncthreads();
    if (grp == 0 && i < total) {
      T t = part[0][lane];
#pragma unroll
      for (int g2 = 1; g2 < 8; ++g2) t += part[g2][lane];
      const int m = (int)(i / N), n = (int)(i - (int64_t)m * N);
      st(m, st.col(n), ColBias<Store, T>::add(st, n, t));
    }
    __syncthreads();  // part is rewritten by the next chunk
  }
}

}  // namespace gg
