// The GEMM loop nest and micro-kernel, written once in plain C++ and compiled once per ISA.
//
//   C[i, j] = alpha * sum_k A[i, k] * B[k, j] + beta * C[i, j]
//
// Include this file from exactly one translation unit per ISA, after defining
//   GG_GEMM_NS         namespace for this copy (gemm_generic, gemm_avx2, gemm_avx512)
//   GG_GEMM_VEC_BYTES  bytes per vector register (16, 32, 64)
//   GG_GEMM_NAME       "generic" / "avx2" / "avx512"
//   GG_GEMM_MR_F32, GG_GEMM_NR_F32, GG_GEMM_MR_F64, GG_GEMM_NR_F64: micro-tile rows and
//                      columns (NR a multiple of the vector lanes)
//   GG_GEMM_BLOCK_F32, GG_GEMM_BLOCK_F64: {mc, kc, nc}
// The flags of that translation unit (-mavx2 -mfma, -mavx512f ...) decide what the vector
// arithmetic compiles to; nothing here names an instruction.
//
// Loop nest (Goto, "Anatomy of High-Performance Matrix Multiplication", 2008; BLIS):
//   for jc in N step NC:                      B panel  KC x NC  -> packed, lives in L3/L2
//     for pc in K step KC:  pack B[pc:, jc:]
//       for ic in M step MC: pack A[ic:, pc:]   A block  MC x KC  -> packed, lives in L2
//         for jr in NC step NR:                B sliver KC x NR  -> stays in L1 across ir
//           for ir in MC step MR:              A sliver MR x KC  -> streamed from L2
//             C[ic+ir : +MR, jc+jr : +NR] (+)= alpha * Asliver * Bsliver   (registers)
// Vectors run along N (C rows are contiguous); each k step loads NR/lanes vectors of B and
// broadcasts MR scalars of A. Packed slivers are zero-padded to full MR / NR; a tile computes
// all MR rows but only the vectors of B its columns reach (micro_tile), and edge tiles store
// only their real part.
// B is packed from strides, from row pointers (pack_b_rows) or from column pointers
// (pack_b_cols: lanes x lanes blocks transposed in registers with two-source shuffles), by the
// caller's b_fill, or comes packed already (b_packed: one panel as deep as k, read in place).
// run_dot is the other form, for small m x n and long k: one vector accumulator per output,
// summed along k and reduced across lanes at the end.
//
// This file instantiates templates only inside its own namespace (anonymous inside GG_GEMM_NS)
// and uses no standard-library templates, so no ISA-specific copy of shared code can leak
// into the baseline build through the linker (see gemm_kernel.h).
#include <cstdint>
#include <cstring>

#include "gemm_kernel.h"

#if !defined(GG_GEMM_NS) || !defined(GG_GEMM_VEC_BYTES)
#error "define GG_GEMM_NS and GG_GEMM_VEC_BYTES before including gemm_impl.h"
#endif

namespace glassgrad {
namespace cpu {
namespace GG_GEMM_NS {
namespace {

inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// Every loop over the micro-tile's rows or vectors unrolled before scalar replacement, so that the
// accumulators live in registers only: unrolled later, GCC kept them as a stack array as well,
// zeroed before each tile and written back after its k loop (8.6% of the micro-kernel's samples
// at the kc = 64 of a 64-channel Winograd point, AVX-512).
#define GG_GEMM_UNROLL _Pragma("GCC unroll 64")

#define GG_SIMD_VEC_BYTES GG_GEMM_VEC_BYTES
#include "../simd_impl.h"

// The packed form stores MR values a column, and a vector holds L >= MR of them: each column
// is stored as a whole vector at dst + t * MR, whose last L - MR values land on the next
// column's place and are overwritten when that column is stored (columns go in order). The
// sliver's last column is stored at its own size, so nothing is written past the sliver: the
// slivers of an a_packed A may be packed by several threads at once (gemm_pack_a_rows).
// Scalar, AVX2's 6-row slivers took one load and one store a value (pack_a was 6% of a
// ResNet-18 training step's samples on a 2-core AVX2 CPU, docs/cpu-threads.md).
template <typename T, int MR>
inline void store_column(T* dst, const typename Vec<T>::type& v, bool last) {
  if (last) {
    std::memcpy(dst, &v, sizeof(T) * MR);
  } else {
    store_vec<T>(dst, v);
  }
}

// One full sliver (MR rows) of a row-major A (row i at src + i * rsa, contiguous along k): L
// columns at a time, the MR row vectors transposed in registers (rows MR .. L - 1 zeros).
template <typename T, int MR>
void pack_a_rows_sliver(int64_t kc, const T* src, int64_t rsa, T* dst) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  int64_t p = 0;
  for (; p + L <= kc; p += L) {
    V v[L];
    GG_GEMM_UNROLL
    for (int i = 0; i < L; ++i) v[i] = i < MR ? load_vec<T>(src + i * rsa + p) : V{};
    transpose_block<T>(v);  // v[t]: column p + t, its MR rows in the first lanes
    GG_GEMM_UNROLL
    for (int t = 0; t < L; ++t) store_column<T, MR>(dst + (p + t) * MR, v[t], p + t + 1 == kc);
  }
  for (; p < kc; ++p)
    for (int i = 0; i < MR; ++i) dst[p * MR + i] = src[i * rsa + p];
}

// One full sliver of a column-major A (column k at src + k * csa, csa >= L - MR): a vector per
// column. Its L values run past the sliver's MR rows, at most L - MR values further, which lie
// before the end of A's last column for every column but the last (that one is copied value by
// value): the loads stay inside A's storage.
template <typename T, int MR>
void pack_a_cols_sliver(int64_t kc, const T* src, int64_t csa, T* dst) {
  for (int64_t p = 0; p + 1 < kc; ++p) store_vec<T>(dst + p * MR, load_vec<T>(src + p * csa));
  if (kc > 0)
    for (int i = 0; i < MR; ++i) dst[(kc - 1) * MR + i] = src[(kc - 1) * csa + i];
}

// Whether a full sliver of A goes by vectors: a column of it fits one vector and a vector's
// overhang reaches no further than the next column (MR <= L <= 2 MR: AVX2 and AVX-512 float32,
// AVX-512 float64), and A is column-major (with csa >= L - MR) or row-major.
template <typename T>
constexpr bool vector_columns(int mr) {
  return mr <= Vec<T>::lanes && Vec<T>::lanes <= 2 * mr;
}

template <typename T, int MR>
inline bool packs_by_vectors(int64_t rsa, int64_t csa) {
  constexpr int L = Vec<T>::lanes;
  return vector_columns<T>(MR) && ((rsa == 1 && csa >= L - MR) || csa == 1);
}

template <typename T, int MR>
void pack_a_sliver_by_vectors(int64_t kc, const T* src, int64_t rsa, int64_t csa, T* dst) {
  if constexpr (vector_columns<T>(MR)) {
    if (rsa == 1) {
      pack_a_cols_sliver<T, MR>(kc, src, csa, dst);
    } else {
      pack_a_rows_sliver<T, MR>(kc, src, rsa, dst);
    }
  }
}

// ap <- A[0:mc, 0:kc] as ceil(mc / MR) slivers; sliver s holds, for each k, the MR values
// A[s*MR + 0 .. s*MR + MR-1, k] (zeros past row mc). Column k at a + k * csa, or at
// a + col_at[k] when col_at is given (GemmProblem::a_col_at).
template <typename T, int MR>
void pack_a(int64_t mc, int64_t kc, const T* a, int64_t rsa, int64_t csa, const int64_t* col_at, T* ap) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    const int64_t rows = min64(MR, mc - i0);
    const T* src = a + i0 * rsa;
    T* dst = ap + i0 * kc;
    if (col_at != nullptr) {
      int64_t p = 0;
      if (rows == MR) {
        // Four columns at a time, read row by row (each row's four values lie close together
        // in a conv's weights) and stored as one contiguous 4 x MR block: one column at a time,
        // MR loads from MR rows apart, packing layer4.0.conv1's tap groups took 0.80 ms a call
        // against 0.28 (standalone, 1 thread).
        for (; p + 4 <= kc; p += 4) {
          const int64_t c0 = col_at[p], c1 = col_at[p + 1], c2 = col_at[p + 2], c3 = col_at[p + 3];
          T block[4][MR];
          GG_GEMM_UNROLL
          for (int i = 0; i < MR; ++i) {
            const T* r = src + i * rsa;
            block[0][i] = r[c0], block[1][i] = r[c1], block[2][i] = r[c2], block[3][i] = r[c3];
          }
          std::memcpy(dst + p * MR, block, sizeof(block));
        }
      }
      for (; p < kc; ++p) {
        const T* s = src + col_at[p];
        for (int64_t i = 0; i < rows; ++i) dst[p * MR + i] = s[i * rsa];
        for (int64_t i = rows; i < MR; ++i) dst[p * MR + i] = T(0);
      }
    } else if (rows == MR && packs_by_vectors<T, MR>(rsa, csa)) {
      pack_a_sliver_by_vectors<T, MR>(kc, src, rsa, csa, dst);
    } else if (rows == MR) {
      for (int64_t p = 0; p < kc; ++p) {
        const T* s = src + p * csa;
        for (int i = 0; i < MR; ++i) dst[p * MR + i] = s[i * rsa];
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t i = 0; i < rows; ++i) dst[p * MR + i] = src[i * rsa + p * csa];
        for (int64_t i = rows; i < MR; ++i) dst[p * MR + i] = T(0);
      }
    }
  }
}

// dst[k * NR + l] <- src[l][k] for k < kc, l < lanes: a group of `lanes` columns of B, each
// contiguous along k, into one sliver's lanes, moved as lanes x lanes blocks transposed in
// registers. Element by element, each k wrote another cache line of the sliver: packing a
// transposed [1152, 4096] B (a Linear layer's W^T) took 50 ms on a 2-core CPU.
template <typename T, int NR>
void pack_column_group(int64_t kc, const T* const* src, T* dst) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  const int64_t kv = kc - kc % L;
  for (int64_t kb = 0; kb < kv; kb += L) {
    V v[L];
    for (int l = 0; l < L; ++l) std::memcpy(&v[l], src[l] + kb, sizeof(V));
    transpose_block<T>(v);
    for (int t = 0; t < L; ++t) std::memcpy(dst + (kb + t) * NR, &v[t], sizeof(V));
  }
  for (int64_t k = kv; k < kc; ++k)
    for (int l = 0; l < L; ++l) dst[k * NR + l] = src[l][k];
}

// bp <- B[0:kc, 0:nc] as ceil(nc / NR) slivers; sliver s holds, for each k, the NR values
// B[k, s*NR + 0 .. s*NR + NR-1] (zeros past column nc).
template <typename T, int NR>
void pack_b(int64_t kc, int64_t nc, const T* b, int64_t rsb, int64_t csb, T* bp) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    const int64_t cols = min64(NR, nc - j0);
    const T* src = b + j0 * csb;
    T* dst = bp + j0 * kc;
    if (cols == NR && csb == 1) {  // row-major B: each k is NR contiguous values
      for (int64_t p = 0; p < kc; ++p) {
        const T* s = src + p * rsb;
        for (int j = 0; j < NR; ++j) dst[p * NR + j] = s[j];
      }
    } else if (cols == NR && rsb == 1) {  // transposed B: columns contiguous along k
      constexpr int L = Vec<T>::lanes;
      for (int g = 0; g < NR; g += L) {
        const T* col[L];
        for (int l = 0; l < L; ++l) col[l] = src + (g + l) * csb;
        pack_column_group<T, NR>(kc, col, dst + g);
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t j = 0; j < cols; ++j) dst[p * NR + j] = src[p * rsb + j * csb];
        for (int64_t j = cols; j < NR; ++j) dst[p * NR + j] = T(0);
      }
    }
  }
}

// bp <- B[0:kc, 0:nc] with row k at rows[k][col0:col0 + nc] (contiguous), in the layout of pack_b.
// (Vector moves, not memcpy: GCC turns a variable-length memcpy into `rep movs`, whose
// start-up cost dominates copies this short.)
template <typename T, int NR>
void pack_b_rows(int64_t kc, int64_t nc, const T* const* rows, int64_t col0, T* bp) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  for (int64_t p = 0; p < kc; ++p) {
    const T* src = rows[p] + col0;
    T* dst = bp + p * NR;
    int64_t j0 = 0;
    for (; j0 + NR <= nc; j0 += NR, dst += kc * NR) {
      for (int j = 0; j < NR; j += L) {
        V v;
        std::memcpy(&v, src + j0 + j, sizeof(V));
        std::memcpy(dst + j, &v, sizeof(V));
      }
    }
    if (j0 < nc) {
      for (int64_t j = 0; j < NR; ++j) dst[j] = j0 + j < nc ? src[j0 + j] : T(0);
    }
  }
}

// bp <- B[0:kc, 0:nc] with column j at cols[j][0:kc] (contiguous), in the layout of pack_b.
// Full groups of `lanes` columns are moved as lanes x lanes blocks transposed in registers.
template <typename T, int NR>
void pack_b_cols(int64_t kc, int64_t nc, const T* const* cols, int64_t k0, T* bp) {
  constexpr int L = Vec<T>::lanes;
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    const int64_t ncols = min64(NR, nc - j0);
    T* dst = bp + j0 * kc;
    for (int64_t g = 0; g < NR; g += L) {
      if (g + L <= ncols) {
        const T* src[L];
        for (int l = 0; l < L; ++l) src[l] = cols[j0 + g + l] + k0;
        pack_column_group<T, NR>(kc, src, dst + g);
      } else {
        for (int64_t k = 0; k < kc; ++k)
          for (int64_t l = 0; l < L; ++l) dst[k * NR + g + l] = g + l < ncols ? cols[j0 + g + l][k0 + k] : T(0);
      }
    }
  }
}

// C[0:mr, 0:nr] = alpha * (a_sliver x b_sliver) + beta * C, where a holds kc steps of MR
// values and b kc steps of NB * lanes values (the packed sliver's width), of which the first
// NV vectors are multiplied (NV < NB: an edge sliver whose columns end within NV vectors).
// beta == 0: C is not read.
template <typename T, int MR, int NV, int NB>
void micro_kernel(int64_t kc, const T* __restrict a, const T* __restrict b, T* __restrict c,
                  int64_t ldc, int64_t mr, int64_t nr, T alpha, T beta) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  constexpr int NR = NV * L;
  constexpr int BS = NB * L;  // elements from one k step of the sliver to the next
  V acc[MR][NV];
  GG_GEMM_UNROLL
  for (int i = 0; i < MR; ++i)
    GG_GEMM_UNROLL
    for (int j = 0; j < NV; ++j) acc[i][j] = V{};
  for (int64_t p = 0; p < kc; ++p) {
    V bv[NV];
    GG_GEMM_UNROLL
    for (int j = 0; j < NV; ++j) std::memcpy(&bv[j], b + p * BS + j * L, sizeof(V));
    GG_GEMM_UNROLL
    for (int i = 0; i < MR; ++i) {
      const T ai = a[p * MR + i];
      GG_GEMM_UNROLL
      for (int j = 0; j < NV; ++j) acc[i][j] += ai * bv[j];
    }
  }
  if (mr == MR && nr == NR) {
    GG_GEMM_UNROLL
    for (int i = 0; i < MR; ++i) {
      GG_GEMM_UNROLL
      for (int j = 0; j < NV; ++j) {
        T* cp = c + i * ldc + j * L;
        V out = alpha * acc[i][j];
        if (beta != T(0)) {
          V old;
          std::memcpy(&old, cp, sizeof(V));
          out += beta * old;
        }
        std::memcpy(cp, &out, sizeof(V));
      }
    }
    return;
  }
  // Edge tile: whole vectors while they fit, then single lanes. (Written out so GCC does not
  // turn it into a memcpy call, which costs more than the copy for a row this short.) The
  // accumulators are read at constant indices only, into a buffer that the runtime bounds mr
  // and nr index: indexed by those bounds, they were an array in memory for every tile
  // (GG_GEMM_UNROLL).
  alignas(64) T tile[MR * NR];
  GG_GEMM_UNROLL
  for (int i = 0; i < MR; ++i)
    GG_GEMM_UNROLL
    for (int j = 0; j < NV; ++j) std::memcpy(tile + i * NR + j * L, &acc[i][j], sizeof(V));
  for (int64_t i = 0; i < mr; ++i) {
    T* cp = c + i * ldc;
    const T* t = tile + i * NR;
    int64_t j = 0;
    for (; j + L <= nr; j += L) {
      V out = alpha * load_vec<T>(t + j);
      if (beta != T(0)) out += beta * load_vec<T>(cp + j);
      store_vec<T>(cp + j, out);
    }
    if (j < nr) {  // the lanes of a partial vector, computed as the whole vectors are
      const V out = alpha * load_vec<T>(t + j);
      T lanes[L];
      std::memcpy(lanes, &out, sizeof(V));
      for (int64_t l = 0; j + l < nr; ++l) cp[j + l] = beta == T(0) ? lanes[l] : lanes[l] + beta * cp[j + l];
    }
  }
}

// One MR x nr tile through the narrowest micro-kernel that covers its nr columns: an edge
// sliver (nr <= (NB - 1) lanes, e.g. 64 = 48 + 16 columns) multiplies only its real vectors,
// where the full-width kernel spent as many FMAs on its zero padding as on the full slivers
// (64 output channels: a third of the products). Each C value is still the same sum over k in
// the same order, so the result does not depend on which kernel ran.
template <typename T, int MR, int NV, int NB>
void micro_tile(int64_t kc, const T* __restrict a, const T* __restrict b, T* __restrict c, int64_t ldc, int64_t mr,
                int64_t nr, T alpha, T beta) {
  if constexpr (NV > 1) {
    if (nr <= (NV - 1) * Vec<T>::lanes) {
      micro_tile<T, MR, NV - 1, NB>(kc, a, b, c, ldc, mr, nr, alpha, beta);
      return;
    }
  }
  micro_kernel<T, MR, NV, NB>(kc, a, b, c, ldc, mr, nr, alpha, beta);
}

// bp <- B[pc : pc + kc, jc : jc + nc] of p, from whichever form p gives B in (not b_packed).
template <typename T, int NR>
void pack_panel(const GemmProblem<T>& p, int64_t kc, int64_t nc, int64_t jc, int64_t pc, T* bp) {
  if (p.b_fill != nullptr) {
    p.b_fill(p.b_fill_ctx, pc, kc, p.b_col0 + jc, nc, NR, bp);
  } else if (p.b_rows != nullptr) {
    pack_b_rows<T, NR>(kc, nc, p.b_rows + pc, p.b_col0 + jc, bp);
  } else if (p.b_cols != nullptr) {
    pack_b_cols<T, NR>(kc, nc, p.b_cols + jc, pc, bp);
  } else {
    pack_b<T, NR>(kc, nc, p.b.data + pc * p.b.row_stride + jc * p.b.col_stride, p.b.row_stride, p.b.col_stride, bp);
  }
}

// The whole B in the b_packed form: one panel k deep, so sliver s lands at s * NR * k.
template <typename T, int NR>
void pack_b_all(const GemmProblem<T>& p, T* dst) {
  pack_panel<T, NR>(p, p.k, p.n, 0, 0, dst);
}

// Rows [row0, row0 + rows) of A in the a_packed form of the whole A: per block of kc_step
// columns, every MR-row sliver (pack_a's layout), block pc at dst + pc * Mp, sliver s of it at
// + s * MR * (block width); row0 is a multiple of MR.
template <typename T, int MR>
void pack_a_blocks(const GemmProblem<T>& p, int64_t kc_step, int64_t row0, int64_t rows, T* dst) {
  const int64_t mp = (p.m + MR - 1) / MR * MR;
  const T* a = p.a.data + row0 * p.a.row_stride;
  for (int64_t pc = 0; pc < p.k; pc += kc_step) {
    const int64_t kc = min64(kc_step, p.k - pc);
    pack_a<T, MR>(rows, kc, p.a_col_at != nullptr ? a : a + pc * p.a.col_stride, p.a.row_stride, p.a.col_stride,
                  p.a_col_at != nullptr ? p.a_col_at + pc : nullptr, dst + pc * mp + row0 * kc);
  }
}

template <typename T, int MR, int NV>
void run(const GemmProblem<T>& p, const GemmBlocking& blk, T* ap, T* bp) {
  constexpr int NR = NV * Vec<T>::lanes;
  const int64_t a_mp = (p.a_packed_m + MR - 1) / MR * MR;  // a_packed: rows of one K block
  // Column blocks of whole slivers, so that a b_packed B is cut on its sliver boundaries.
  const int64_t nc_step = blk.nc / NR * NR;
  for (int64_t jc = 0; jc < p.n; jc += nc_step) {
    const int64_t nc = min64(nc_step, p.n - jc);
    for (int64_t pc = 0; pc < p.k; pc += blk.kc) {
      const int64_t kc = min64(blk.kc, p.k - pc);
      // Later K blocks accumulate onto what the first one wrote.
      const T beta = pc == 0 ? p.beta : T(1);
      // Packed B of this (jc, pc) step: slivers bs(jr) = panel + jr * sliver_stride.
      const T* panel = bp;
      int64_t sliver_stride = kc;
      if (p.b_packed != nullptr) {
        panel = p.b_packed + jc * p.k + pc * NR;
        sliver_stride = p.k;
      } else {
        pack_panel<T, NR>(p, kc, nc, jc, pc, bp);
      }
      for (int64_t ic = 0; ic < p.m; ic += blk.mc) {
        const int64_t mc = min64(blk.mc, p.m - ic);
        const T* ablk = ap;  // this step's A block, packed here or taken from a_packed
        if (p.a_packed != nullptr) {
          ablk = p.a_packed + pc * a_mp + (p.a_row0 + ic) * kc;
        } else {
          const T* a = p.a.data + ic * p.a.row_stride;
          pack_a<T, MR>(mc, kc, p.a_col_at != nullptr ? a : a + pc * p.a.col_stride, p.a.row_stride, p.a.col_stride,
                        p.a_col_at != nullptr ? p.a_col_at + pc : nullptr, ap);
        }
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const T* bs = panel + jr * sliver_stride;
          T* cc = p.c + ic * p.ldc + jc + jr;
          const int64_t nr = min64(NR, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += MR) {
            micro_tile<T, MR, NV, NV>(kc, ablk + ir * kc, bs, cc + ir * p.ldc, p.ldc, min64(MR, mc - ir), nr,
                                      p.alpha, beta);
          }
        }
      }
    }
  }
}

// Dot-product form: a tile of MD rows of A x ND rows of B, each pair's products summed in its
// own vector accumulator along p, lanes added up at the end.
template <typename T, int MD, int ND>
void dot_tile(const GemmDotProblem<T>& p, int64_t i0, int64_t j0) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  const int64_t mi = min64(MD, p.m - i0), nj = min64(ND, p.n - j0);
  const T* ar[MD];
  const T* br[ND];
  // Rows past the edge repeat the last real one; their results are not stored.
  for (int i = 0; i < MD; ++i) ar[i] = p.a + (i0 + min64(i, mi - 1)) * p.lda;
  for (int j = 0; j < ND; ++j) br[j] = p.b_rows[j0 + min64(j, nj - 1)];
  V acc[MD][ND];
  for (int i = 0; i < MD; ++i)
    for (int j = 0; j < ND; ++j) acc[i][j] = V{};
  const int64_t kv = p.k - p.k % L;
  for (int64_t q = 0; q < kv; q += L) {
    V av[MD], bv[ND];
    for (int i = 0; i < MD; ++i) std::memcpy(&av[i], ar[i] + q, sizeof(V));
    for (int j = 0; j < ND; ++j) std::memcpy(&bv[j], br[j] + q, sizeof(V));
    for (int i = 0; i < MD; ++i)
      for (int j = 0; j < ND; ++j) acc[i][j] += av[i] * bv[j];
  }
  for (int64_t i = 0; i < mi; ++i) {
    for (int64_t j = 0; j < nj; ++j) {
      T sum = T(0);
      for (int l = 0; l < L; ++l) sum += acc[i][j][l];
      for (int64_t q = kv; q < p.k; ++q) sum += ar[i][q] * br[j][q];
      T* cp = p.c + (i0 + i) * p.ldc + j0 + j;
      *cp = p.alpha * sum + (p.beta == T(0) ? T(0) : p.beta * *cp);
    }
  }
}

template <typename T>
void run_dot(const GemmDotProblem<T>& p) {
  constexpr int MD = 4, ND = 3;  // 12 accumulators; 7 loads per 12 FMAs
  for (int64_t i0 = 0; i0 < p.m; i0 += MD)
    for (int64_t j0 = 0; j0 < p.n; j0 += ND) dot_tile<T, MD, ND>(p, i0, j0);
}

constexpr int kNvF32 = GG_GEMM_NR_F32 / Vec<float>::lanes;
constexpr int kNvF64 = GG_GEMM_NR_F64 / Vec<double>::lanes;
static_assert(kNvF32 * Vec<float>::lanes == GG_GEMM_NR_F32, "NR must be a multiple of the lanes");
static_assert(kNvF64 * Vec<double>::lanes == GG_GEMM_NR_F64, "NR must be a multiple of the lanes");

constexpr GemmBlocking kBlockF32 = GG_GEMM_BLOCK_F32;
constexpr GemmBlocking kBlockF64 = GG_GEMM_BLOCK_F64;

// The a_packed form cut on the blocking's KC, the same blocks run() steps through.
template <typename T, int MR, int64_t KC>
void pack_a_rows(const GemmProblem<T>& p, int64_t row0, int64_t rows, T* dst) {
  pack_a_blocks<T, MR>(p, KC, row0, rows, dst);
}

#define GG_GEMM_STR2(x) #x
#define GG_GEMM_STR(x) GG_GEMM_STR2(x)

const GemmKernel<float> kF32 = {
    GG_GEMM_NAME " " GG_GEMM_STR(GG_GEMM_MR_F32) "x" GG_GEMM_STR(GG_GEMM_NR_F32) " f32",
    GG_GEMM_MR_F32, GG_GEMM_NR_F32, kBlockF32, &run<float, GG_GEMM_MR_F32, kNvF32>, &run_dot<float>,
    &pack_b_all<float, GG_GEMM_NR_F32>, &pack_a_rows<float, GG_GEMM_MR_F32, kBlockF32.kc>};
const GemmKernel<double> kF64 = {
    GG_GEMM_NAME " " GG_GEMM_STR(GG_GEMM_MR_F64) "x" GG_GEMM_STR(GG_GEMM_NR_F64) " f64",
    GG_GEMM_MR_F64, GG_GEMM_NR_F64, kBlockF64, &run<double, GG_GEMM_MR_F64, kNvF64>, &run_dot<double>,
    &pack_b_all<double, GG_GEMM_NR_F64>, &pack_a_rows<double, GG_GEMM_MR_F64, kBlockF64.kc>};

}  // namespace

const GemmKernel<float>& kernel_f32() { return kF32; }
const GemmKernel<double>& kernel_f64() { return kF64; }

}  // namespace GG_GEMM_NS
}  // namespace cpu
}  // namespace glassgrad
