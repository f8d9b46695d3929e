// Scaled dot-product attention, forward and backward, FlashAttention-2's algorithm on the FP32
// (and FP64) arithmetic units: tiles staged in shared memory, register micro-tiles, an online
// softmax, and the probabilities recomputed from the saved log-sum-exp in the backward, so no
// [L, S] matrix is ever stored (memory linear in the sequence length). docs/attention.md derives
// the arithmetic; the CPU kernels (kernels/cpu/attention.cpp) do the same with other tiles.
// Geometry and strides: GGAttention (attention_params.h); any input strides, dense outputs.
//
//   gg_attn_fwd:  a block owns BR query rows (and a chunk of EC value columns); for each tile of
//                 BC keys: s = Q K^T (scores, base 2: times scale*log2(e), plus mask*log2(e)),
//                 m' = max(m, rowmax s), p = 2^(s - m'), l = 2^(m - m') l + rowsum p,
//                 O = 2^(m - m') O + (keep/(1-p_drop) p) V; at the end out = O / l and
//                 lse = (m + log2 l) ln 2.
//   gg_attn_dq:   a block owns BR query rows (and a chunk of EC columns of dq): D = rowsum(g * out)
//                 (also written to the workspace), then for each key tile p = 2^(s - lse log2 e),
//                 dp = keep/(1-p_drop) (g V^T), ds = p (dp - D), dq += scale ds K.
//   gg_attn_dkv:  a block owns BR key rows (and a chunk of EC columns of dk and dv); for each
//                 query tile the transposed p^T and ds^T, dv += pd^T g, dk += scale ds^T Q, and
//                 dmask = ds (block chunk 0) when asked. Launched after gg_attn_dq (reads D).
//   gg_attn_prep + gg_attn_bwd (float32 unless deterministic algorithms are asked for,
//                 attention_plan.h): gg_attn_prep writes D and zeroes dq; gg_attn_bwd is
//                 gg_attn_dkv that also adds each query tile's share scale ds K into dq with
//                 atomics: five tile products per key and query tile instead of seven.
//   gg_attn_bwd_resident: gg_attn_bwd where E and Ev fit one resident chunk (EC), with 128
//                 threads, the next query tile fetched into registers, four barriers a tile
//                 (backward_resident's comment); attention.cpp picks it there. Every kernel with
//                 causal row blocks takes its work items heaviest first (work_item).
// In gg_attn_dq and gg_attn_dkv each output element is written by one thread of one block, and
// each thread adds its terms in a fixed order: the results are deterministic (no atomics, so FP64
// needs no sm_60 atomicAdd). gg_attn_bwd's (and gg_attn_bwd_resident's) dq sums the key
// blocks' shares in the order the atomics land (their dk, dv and dmask are deterministic).
//
// Tiles (Cfg below): float BR = 64 (forward) or 32, BC = 32, EC = 64 features resident in
// shared memory; a thread owns a 4 x 4 block of each score tile (rows ty + TY i, keys tx + 8 j) and
// 4 rows x EC/8 columns (4 tx + 32 q + 0..3) of the output chunk. Score rows are reduced across
// the 8 lanes that share them with shuffles. Operand rows are stored with a pitch of EC + 4 words,
// so that the strided rows a warp reads in the score product (8 rows, 4 words apart in banks) fall
// on distinct banks, and 16-byte reads stay aligned. Features beyond EC are walked in chunks
// (query and key rows then reload per chunk); value and gradient columns beyond EC go to more
// blocks (grid.y), each recomputing the scores. Shared memory: at most 44 KB (float forward and
// gg_attn_bwd), 47 KB (double backward); only sm_50 features (FFMA, shuffles, static shared
// memory, float atomicAdd; sm_90's vector atomicAdd behind __CUDA_ARCH__, atomic_add4).
#include "../attention_rules.h"
#include "attention_params.h"
#include "common.cuh"

namespace gg_attn {

using glassgrad::attention_rule::group_counter;
using glassgrad::attention_rule::philox4;

template <typename T, int BR_>
struct Cfg;
// float: forward 64 rows and 128 threads, backward 32 rows and 64 threads; 64 resident features.
template <int BR_>
struct Cfg<float, BR_> {
  static constexpr int BR = BR_, BC = 32, EC = 64, TX = 8, TY = BR / 4, THREADS = TX * TY, NQ = EC / 32;
};
// double: 32 rows, 32 resident features (the tiles of 8-byte words must stay under 48 KB).
template <int BR_>
struct Cfg<double, BR_> {
  static constexpr int BR = 32, BC = 32, EC = 32, TX = 8, TY = 8, THREADS = TX * TY, NQ = EC / 32;
};

__device__ __forceinline__ float exp2_(float x) { return exp2f(x); }
__device__ __forceinline__ double exp2_(double x) { return exp2(x); }
__device__ __forceinline__ float log2_(float x) { return log2f(x); }
__device__ __forceinline__ double log2_(double x) { return log2(x); }

template <typename T>
__device__ __forceinline__ T neg_inf() {
  return gg::lowest<T>();
}

// Four consecutive words of a shared-memory row (16-byte aligned: the pitches are multiples of 4).
__device__ __forceinline__ void lds4(const float* p, float (&v)[4]) {
  const float4 q = *reinterpret_cast<const float4*>(p);
  v[0] = q.x;
  v[1] = q.y;
  v[2] = q.z;
  v[3] = q.w;
}
__device__ __forceinline__ void lds4(const double* p, double (&v)[4]) {
  const double2 a = *reinterpret_cast<const double2*>(p), b = *reinterpret_cast<const double2*>(p + 2);
  v[0] = a.x;
  v[1] = a.y;
  v[2] = b.x;
  v[3] = b.y;
}
__device__ __forceinline__ void ldg4(const float* p, float (&v)[4]) { lds4(p, v); }
__device__ __forceinline__ void ldg4(const double* p, double (&v)[4]) { lds4(p, v); }
__device__ __forceinline__ void stg4(float* p, const float (&v)[4]) {
  *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ void stg4(double* p, const double (&v)[4]) {
  *reinterpret_cast<double2*>(p) = make_double2(v[0], v[1]);
  *reinterpret_cast<double2*>(p + 2) = make_double2(v[2], v[3]);
}

// Sum or max over the 8 lanes that hold one score row (lanes 8k..8k+7 of a warp).
template <typename T>
__device__ __forceinline__ T row_max8(T v) {
#pragma unroll
  for (int o = 1; o < 8; o <<= 1) {
    const T u = __shfl_xor_sync(0xffffffffu, v, o);
    v = u > v ? u : v;
  }
  return v;
}
template <typename T>
__device__ __forceinline__ T row_sum8(T v) {
#pragma unroll
  for (int o = 1; o < 8; o <<= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The operands' matrices of batch element z: m[k] is operand k's pointer advanced by its batch
// offset (null for an operand the kernel does not read).
template <typename T>
struct Matrices {
  const T* p[GG_ATTN_OPERANDS];
  __device__ Matrices(const GGAttention& g, const T* const (&base)[GG_ATTN_OPERANDS], int64_t z) {
#pragma unroll
    for (int k = 0; k < GG_ATTN_OPERANDS; ++k) {
      p[k] = base[k] ? base[k] + gg::strided_offset(z, g.batch_rank, g.batch_size, g.batch_stride[k]) : nullptr;
    }
  }
  __device__ const T* operator[](int k) const { return p[k]; }
};

// dst[r][c] = A(row0 + r, col0 + c) of operand k for r < ROWS and c < EC, zero outside rows
// [0, rows - row0) and columns [0, cols - col0). A row's groups of four are one vector load
// where the operand allows (vec4) and the group is whole. A thread issues the loads of up to
// kTileBatch groups before it stores them to shared memory: the loop that stored each group
// after its load waited on global memory ROWS * EC / (4 THREADS) times a tile (eight), with few
// warps on a multiprocessor to cover it. (All of them at once cost the forward kernel its
// second block on a multiprocessor: registers.)
constexpr int kTileBatch = 4;
// Rows of D = rowsum(g * out) a warp sums at a time (row_sums).
constexpr int kDRows = 4;
// v = the group of four at A(r, col0 + c) of operand k (a, rs, cs: its matrix and strides) when
// `in`, zero outside `rows` rows and col0 + `valid_cols` columns; one vector load where the
// operand allows (vec4) and the group is whole.
template <typename T>
__device__ __forceinline__ void load_group(T (&v)[4], const GGAttention& g, const T* a, int k, int64_t rs, int64_t cs,
                                           bool in, int r, int rows, int col0, int c, int valid_cols) {
#pragma unroll
  for (int u = 0; u < 4; ++u) v[u] = T(0);
  if (in && r < rows && c < valid_cols) {
    const T* src = a + (int64_t)r * rs + (int64_t)(col0 + c) * cs;
    if (g.vec4[k] && c + 4 <= valid_cols) {
      ldg4(src, v);
    } else {
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = c + u < valid_cols ? src[u * cs] : T(0);
    }
  }
}

template <typename T, int ROWS, int EC, int THREADS>
__device__ void load_tile(T (*dst)[EC + 4], const GGAttention& g, const Matrices<T>& mat, int k, int row0, int rows,
                          int col0, int cols) {
  constexpr int QUADS = EC / 4, ITEMS = ROWS * QUADS, ITERS = (ITEMS + THREADS - 1) / THREADS;
  constexpr int BATCH = ITERS < kTileBatch ? ITERS : kTileBatch;
  const T* a = mat[k];
  const int valid_cols = min(EC, cols - col0);
  const int64_t rs = g.row[k], cs = g.col[k];
#pragma unroll 1
  for (int it0 = 0; it0 < ITERS; it0 += BATCH) {
    T v[BATCH][4];
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const int f = (int)threadIdx.x + (it0 + b) * THREADS;
      load_group(v[b], g, a, k, rs, cs, it0 + b < ITERS && f < ITEMS, row0 + f / QUADS, rows, col0, (f % QUADS) * 4,
                 valid_cols);
    }
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const int f = (int)threadIdx.x + (it0 + b) * THREADS;
      if (it0 + b < ITERS && f < ITEMS) stg4(&dst[f / QUADS][(f % QUADS) * 4], v[b]);
    }
  }
}

// acc[i][j] += sum_{k < kn} A[ty + TY i][k] * B[tx + TX j][k]   (kn a multiple of 4)
template <typename T, int TY, int TX, int PA, int PB>
__device__ __forceinline__ void dot_rows(const T (*A)[PA], const T (*B)[PB], T (&acc)[4][4], int kn, int ty, int tx) {
  for (int k = 0; k < kn; k += 4) {
    T a[4][4], b[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i) lds4(&A[ty + TY * i][k], a[i]);
#pragma unroll
    for (int j = 0; j < 4; ++j) lds4(&B[tx + TX * j][k], b[j]);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fma(a[i][kk], b[j][kk], acc[i][j]);
  }
}

// acc[i][4 q + u] += a[i] * brow[4 tx + 4 TX q + u]: one step k of times_rows and times_cols
// (brow = B[k], a[i] = the left operand's row ty + TY i at k).
template <typename T, int TX, int NQ>
__device__ __forceinline__ void add_outer(const T (&a)[4], const T* brow, T (&acc)[4][4 * NQ], int tx) {
  T b[NQ][4];
#pragma unroll
  for (int q = 0; q < NQ; ++q) lds4(&brow[4 * tx + 4 * TX * q], b[q]);
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int q = 0; q < NQ; ++q)
#pragma unroll
      for (int u = 0; u < 4; ++u) acc[i][4 * q + u] = fma(a[i], b[q][u], acc[i][4 * q + u]);
}

// acc[i][4 q + u] += sum_{k < kn} A[ty + TY i][k] * B[k][4 tx + 4 TX q + u]   (kn a multiple of 4)
template <typename T, int TY, int TX, int NQ, int PA, int PB>
__device__ __forceinline__ void times_rows(const T (*A)[PA], const T (*B)[PB], T (&acc)[4][4 * NQ], int kn, int ty,
                                           int tx) {
  for (int k = 0; k < kn; k += 4) {
    T a[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i) lds4(&A[ty + TY * i][k], a[i]);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const T ak[4] = {a[0][kk], a[1][kk], a[2][kk], a[3][kk]};
      add_outer<T, TX, NQ>(ak, B[k + kk], acc, tx);
    }
  }
}

// acc[i][4 q + u] += sum_{k < kn} At[k][ty + TY i] * B[k][4 tx + 4 TX q + u]: times_rows with
// the left operand stored transposed (scalar reads of At's columns; kn a multiple of 4).
template <typename T, int TY, int TX, int NQ, int PA, int PB>
__device__ __forceinline__ void times_cols(const T (*At)[PA], const T (*B)[PB], T (&acc)[4][4 * NQ], int kn, int ty,
                                           int tx) {
  for (int k = 0; k < kn; k += 4) {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const T a[4] = {At[k + kk][ty], At[k + kk][ty + TY], At[k + kk][ty + 2 * TY], At[k + kk][ty + 3 * TY]};
      add_outer<T, TX, NQ>(a, B[k + kk], acc, tx);
    }
  }
}

// Work item t of `blocks` row blocks times g.batch batch elements: its row block and batch
// element. With causal row blocks (docs/attention.md, "Order of the blocks"), the batch elements go in groups of kOrderGroup and, inside a group, row block by row block from the one
// with the most tiles to walk (causal: the first key block of the backward, the last query block
// of the forward), so the blocks that start last are the shortest and the grid ends together;
// a group's operands (128 heads of 256 x 64 floats: 16 MB of q and g) stay in the L2 cache
// between its row blocks. Otherwise the row blocks of one batch element follow each other.
constexpr int kOrderGroup = 128;
__device__ __forceinline__ void work_item(const GGAttention& g, int64_t t, int blocks, bool last_heaviest, int& blk,
                                          int64_t& z) {
  if (!g.causal) {
    blk = (int)(t % blocks);
    z = t / blocks;
    return;
  }
  const int64_t per = (int64_t)blocks * kOrderGroup, grp = t / per, r = t % per;
  const int64_t zg = min((int64_t)kOrderGroup, g.batch - grp * kOrderGroup);
  const int b = (int)(r / zg);
  z = grp * kOrderGroup + r % zg;
  blk = last_heaviest ? blocks - 1 - b : b;
}
__device__ __forceinline__ int64_t block_rank() {
  return blockIdx.x + (int64_t)gridDim.x * (blockIdx.y + (int64_t)gridDim.y * blockIdx.z);
}
__device__ __forceinline__ int64_t block_count() { return (int64_t)gridDim.x * gridDim.y * gridDim.z; }

// The scores of a tile in base 2 (scale * log2(e) * acc + log2(e) * mask), -inf where hidden
// (key past S, the causal triangle) or where the mask is -inf. Rows i0 + ty + TY a, keys
// j0 + tx + TX b (a transposed tile swaps the roles: `rows_are_keys`).
template <typename T, int TY, int TX, bool ROWS_ARE_KEYS>
__device__ __forceinline__ void base2_scores(const GGAttention& g, const T* mask, int r0, int c0, T (&s)[4][4], int ty,
                                             int tx) {
  const T scale = (T)g.scale_log2, log2e = (T)1.4426950408889634;
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int i = ROWS_ARE_KEYS ? c0 + tx + TX * b : r0 + ty + TY * a;  // query
      const int j = ROWS_ARE_KEYS ? r0 + ty + TY * a : c0 + tx + TX * b;  // key
      T x = s[a][b] * scale;
      if (j >= g.S || i >= g.L || (g.causal && j > i)) {
        x = neg_inf<T>();
      } else if (g.masked) {
        x += log2e * mask[(int64_t)i * g.row[GG_ATTN_MASK] + (int64_t)j * g.col[GG_ATTN_MASK]];
      }
      s[a][b] = x;
    }
}

// keep / (1 - p_drop) for the four keys key0 + 8 b (b < 4) of flat query row `row`; key0 % 32 < 8.
template <typename T>
__device__ __forceinline__ void dropout4(const GGAttention& g, uint64_t seed, int64_t row, int key0, T (&f)[4]) {
  uint32_t w[4];
  philox4(group_counter((uint64_t)row, g.S, key0), seed, w);
#pragma unroll
  for (int b = 0; b < 4; ++b) f[b] = (uint64_t)w[b] >= g.keep_threshold ? (T)g.keep_scale : T(0);
}

template <typename T>
__device__ __forceinline__ void store4(T* dst, const T (&v)[4], int valid, bool vec) {
  if (valid >= 4 && vec) {
    stg4(dst, v);
  } else {
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (u < valid) dst[u] = v[u];
  }
}

template <typename T>
__device__ __forceinline__ bool aligned16(const T* p) {
  return ((uintptr_t)p & 15u) == 0;
}

// ---- forward -------------------------------------------------------------------------------
template <typename T>
__device__ void forward(const GGAttention& g, T* out, T* lse, const T* q, const T* k, const T* v, const T* mask,
                        const int64_t* seed_ptr) {
  typedef Cfg<T, 64> C;
  constexpr int BR = C::BR, BC = C::BC, EC = C::EC, TY = C::TY, TX = C::TX, NQ = C::NQ;
  __shared__ __align__(16) T Qs[BR][EC + 4];
  __shared__ __align__(16) T Ks[BC][EC + 4];
  __shared__ __align__(16) T Vs[BC][EC + 4];
  __shared__ __align__(16) T Ps[BR][BC + 4];
  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  const uint64_t seed = g.dropout ? (uint64_t)*seed_ptr : 0;
  const int q_blocks = (g.L + BR - 1) / BR, v_chunks = (g.Ev + EC - 1) / EC;
  const bool q_resident = g.E <= EC;
  const T* const base[GG_ATTN_OPERANDS] = {q, k, v, nullptr, nullptr, nullptr, g.masked ? mask : nullptr};
  // Work items (query block, batch element) over the blocks of grid.x and grid.z; grid.y the
  // value chunks.
  const int64_t items = (int64_t)q_blocks * g.batch;
  for (int64_t t = blockIdx.x + (int64_t)gridDim.x * blockIdx.z; t < items; t += (int64_t)gridDim.x * gridDim.z) {
    int qb;
    int64_t z;
    work_item(g, t, q_blocks, true, qb, z);
    const Matrices<T> mat(g, base, z);
    {
      const int i0 = qb * BR;
      for (int vc = blockIdx.y; vc < max(v_chunks, 1); vc += gridDim.y) {
        const int v0 = vc * EC;
        T m[4], l[4], o[4][4 * NQ];
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          m[a] = neg_inf<T>();
          l[a] = T(0);
#pragma unroll
          for (int c = 0; c < 4 * NQ; ++c) o[a][c] = T(0);
        }
        const int key_end = g.causal ? min(g.S, i0 + BR) : g.S;
        for (int j0 = 0; j0 < key_end; j0 += BC) {
          T s[4][4];
#pragma unroll
          for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) s[a][b] = T(0);
          for (int e0 = 0; e0 < g.E; e0 += EC) {
            __syncthreads();  // the previous tile's readers of Qs and Ks are done
            if (!q_resident || j0 == 0) load_tile<T, BR, EC, C::THREADS>(Qs, g, mat, GG_ATTN_Q, i0, g.L, e0, g.E);
            load_tile<T, BC, EC, C::THREADS>(Ks, g, mat, GG_ATTN_K, j0, g.S, e0, g.E);
            __syncthreads();
            dot_rows<T, TY, TX, EC + 4, EC + 4>(Qs, Ks, s, (min(EC, g.E - e0) + 3) & ~3, ty, tx);
          }
          base2_scores<T, TY, TX, false>(g, mat[GG_ATTN_MASK], i0, j0, s, ty, tx);
#pragma unroll
          for (int a = 0; a < 4; ++a) {
            T mx = m[a];
#pragma unroll
            for (int b = 0; b < 4; ++b) mx = s[a][b] > mx ? s[a][b] : mx;
            mx = row_max8(mx);
            T f[4] = {T(1), T(1), T(1), T(1)};
            if (g.dropout) dropout4(g, seed, z * (int64_t)g.L + i0 + ty + TY * a, j0 + tx, f);
            T sum = T(0);
            if (mx == neg_inf<T>()) {  // nothing visible yet in this row: p = 0, nothing to rescale
#pragma unroll
              for (int b = 0; b < 4; ++b) s[a][b] = T(0);
            } else {
              const T alpha = exp2_(m[a] - mx);  // 0 on the row's first visible tile
#pragma unroll
              for (int b = 0; b < 4; ++b) {
                const T p = exp2_(s[a][b] - mx);
                sum += p;
                s[a][b] = p * f[b];
              }
#pragma unroll
              for (int c = 0; c < 4 * NQ; ++c) o[a][c] *= alpha;
              l[a] *= alpha;
              m[a] = mx;
            }
            l[a] += row_sum8(sum);
          }
          __syncthreads();  // the previous tile's readers of Ps and Vs are done
#pragma unroll
          for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) Ps[ty + TY * a][tx + TX * b] = s[a][b];
          load_tile<T, BC, EC, C::THREADS>(Vs, g, mat, GG_ATTN_V, j0, g.S, v0, g.Ev);
          __syncthreads();
          times_rows<T, TY, TX, NQ, BC + 4, EC + 4>(Ps, Vs, o, (min(BC, g.S - j0) + 3) & ~3, ty, tx);
        }
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          const int i = i0 + ty + TY * a;
          if (i >= g.L) continue;
          const T inv = l[a] > T(0) ? T(1) / l[a] : T(0);
          T* dst = out + ((int64_t)z * g.L + i) * g.Ev + v0;
#pragma unroll
          for (int qd = 0; qd < NQ; ++qd) {
            const int c = 4 * tx + 4 * TX * qd;
            T w[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) w[u] = o[a][4 * qd + u] * inv;
            store4(dst + c, w, min(EC, g.Ev - v0) - c, aligned16(dst + c));
          }
          if (vc == 0 && tx == 0) {
            lse[(int64_t)z * g.L + i] = l[a] > T(0) ? (m[a] + log2_(l[a])) * (T)0.6931471805599453 : neg_inf<T>();
          }
        }
        __syncthreads();  // Qs is reloaded by the next row block
      }
    }
  }
}

// ---- backward: D = rowsum(grad_out * out) ---------------------------------------------------
// D_i = sum_e g_ie out_ie for the BR rows from i0 of batch element z: a warp per row, lanes
// along e (e = lane, lane + 32, ...), a fixed-order warp sum. A warp takes kDRows rows at a time
// with their loads issued together (a row at a time waited on memory twice a row, 32 rows a
// block, before the first key tile). BR is a multiple of kDRows times the warps: every lane of
// the block reaches every shuffle. Row r's D goes to drow[r] and, when given, dsum; its lse in
// base 2 to lse2[r] when given (-inf past L).
template <typename T, int BR, int THREADS>
__device__ void row_sums(const GGAttention& g, const Matrices<T>& mat, int64_t z, int i0, T* drow, T* lse2, T* dsum) {
  static_assert(BR % (kDRows * (THREADS / 32)) == 0, "the rows of D split evenly over the warps");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int r0 = warp * kDRows; r0 < BR; r0 += kDRows * (THREADS / 32)) {
    T d[kDRows];
#pragma unroll
    for (int u = 0; u < kDRows; ++u) d[u] = T(0);
    for (int e0 = 0; e0 < g.Ev; e0 += 32) {
      const int e = e0 + lane;
#pragma unroll
      for (int u = 0; u < kDRows; ++u) {
        const int i = i0 + r0 + u;
        if (i < g.L && e < g.Ev) {
          d[u] += mat[GG_ATTN_GO][(int64_t)i * g.row[GG_ATTN_GO] + (int64_t)e * g.col[GG_ATTN_GO]] *
                  mat[GG_ATTN_OUT][(int64_t)i * g.row[GG_ATTN_OUT] + (int64_t)e * g.col[GG_ATTN_OUT]];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kDRows; ++u)
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) d[u] += __shfl_xor_sync(0xffffffffu, d[u], o);
    if (lane < kDRows) {  // lane u writes row r0 + u (its d, after the butterfly, is the sum)
      T du = d[0];
#pragma unroll
      for (int u = 1; u < kDRows; ++u)
        if (lane == u) du = d[u];
      const int r = r0 + lane, i = i0 + r;
      if (drow) drow[r] = du;
      if (lse2) {
        lse2[r] = i < g.L ? mat[GG_ATTN_LSE][(int64_t)i * g.row[GG_ATTN_LSE]] * (T)1.4426950408889634 : neg_inf<T>();
      }
      if (dsum && i < g.L) dsum[z * g.L + i] = du;
    }
  }
}

// ---- backward: dq (and D) -------------------------------------------------------------------
template <typename T>
__device__ void backward_dq(const GGAttention& g, T* dq, T* dsum, const T* go, const T* q, const T* k, const T* v,
                            const T* out, const T* lse, const T* mask, const int64_t* seed_ptr) {
  typedef Cfg<T, 32> C;
  constexpr int BR = C::BR, BC = C::BC, EC = C::EC, TY = C::TY, TX = C::TX, NQ = C::NQ;
  __shared__ __align__(16) T Qs[BR][EC + 4];
  __shared__ __align__(16) T Gs[BR][EC + 4];
  __shared__ __align__(16) T Ks[BC][EC + 4];
  __shared__ __align__(16) T Vs[BC][EC + 4];
  __shared__ __align__(16) T Ds[BR][BC + 4];
  __shared__ T lse2[BR], drow[BR];
  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  const uint64_t seed = g.dropout ? (uint64_t)*seed_ptr : 0;
  const int q_blocks = (g.L + BR - 1) / BR, e_chunks = (g.E + EC - 1) / EC;
  const bool q_resident = g.E <= EC, g_resident = g.Ev <= EC;
  const T* const base[GG_ATTN_OPERANDS] = {q, k, v, go, out, lse, g.masked ? mask : nullptr};
  for (int64_t z = blockIdx.z; z < g.batch; z += gridDim.z) {
    const Matrices<T> mat(g, base, z);
    for (int qb = blockIdx.x; qb < q_blocks; qb += gridDim.x) {
      const int i0 = qb * BR;
      for (int ec = blockIdx.y; ec < max(e_chunks, 1); ec += gridDim.y) {
        const int d0 = ec * EC;
        __syncthreads();  // lse2, drow, Qs and Gs of the previous block are read
        row_sums<T, BR, C::THREADS>(g, mat, z, i0, drow, lse2, ec == 0 ? dsum : nullptr);
        __syncthreads();  // lse2 and drow are complete
        T acc[4][4 * NQ];
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int c = 0; c < 4 * NQ; ++c) acc[a][c] = T(0);
        const int key_end = g.causal ? min(g.S, i0 + BR) : g.S;
        for (int j0 = 0; j0 < key_end; j0 += BC) {
          T s[4][4], dp[4][4];
#pragma unroll
          for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) s[a][b] = dp[a][b] = T(0);
          for (int e0 = 0; e0 < g.E; e0 += EC) {
            __syncthreads();
            if (!q_resident || j0 == 0) load_tile<T, BR, EC, C::THREADS>(Qs, g, mat, GG_ATTN_Q, i0, g.L, e0, g.E);
            load_tile<T, BC, EC, C::THREADS>(Ks, g, mat, GG_ATTN_K, j0, g.S, e0, g.E);
            __syncthreads();
            dot_rows<T, TY, TX, EC + 4, EC + 4>(Qs, Ks, s, (min(EC, g.E - e0) + 3) & ~3, ty, tx);
          }
          for (int e0 = 0; e0 < g.Ev; e0 += EC) {
            __syncthreads();
            if (!g_resident || j0 == 0) load_tile<T, BR, EC, C::THREADS>(Gs, g, mat, GG_ATTN_GO, i0, g.L, e0, g.Ev);
            load_tile<T, BC, EC, C::THREADS>(Vs, g, mat, GG_ATTN_V, j0, g.S, e0, g.Ev);
            __syncthreads();
            dot_rows<T, TY, TX, EC + 4, EC + 4>(Gs, Vs, dp, (min(EC, g.Ev - e0) + 3) & ~3, ty, tx);
          }
          base2_scores<T, TY, TX, false>(g, mat[GG_ATTN_MASK], i0, j0, s, ty, tx);
#pragma unroll
          for (int a = 0; a < 4; ++a) {
            const int r = ty + TY * a;
            const T lr = lse2[r], d = drow[r];
            T f[4] = {T(1), T(1), T(1), T(1)};
            if (g.dropout) dropout4(g, seed, z * (int64_t)g.L + i0 + r, j0 + tx, f);
#pragma unroll
            for (int b = 0; b < 4; ++b) {
              const T p = lr == neg_inf<T>() ? T(0) : exp2_(s[a][b] - lr);
              s[a][b] = p * (dp[a][b] * f[b] - d);  // ds
            }
          }
          __syncthreads();  // Ks (reloaded below for a chunk of dq) and Ds are free
#pragma unroll
          for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) Ds[ty + TY * a][tx + TX * b] = s[a][b];
          if (!q_resident) load_tile<T, BC, EC, C::THREADS>(Ks, g, mat, GG_ATTN_K, j0, g.S, d0, g.E);
          __syncthreads();
          times_rows<T, TY, TX, NQ, BC + 4, EC + 4>(Ds, Ks, acc, (min(BC, g.S - j0) + 3) & ~3, ty, tx);
        }
        const T scale = (T)(g.scale_log2 * 0.6931471805599453);
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          const int i = i0 + ty + TY * a;
          if (i >= g.L) continue;
          T* dst = dq + ((int64_t)z * g.L + i) * g.E + d0;
#pragma unroll
          for (int qd = 0; qd < NQ; ++qd) {
            const int c = 4 * tx + 4 * TX * qd;
            T w[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) w[u] = acc[a][4 * qd + u] * scale;
            store4(dst + c, w, min(EC, g.E - d0) - c, aligned16(dst + c));
          }
        }
      }
    }
  }
}

// With DQ: dq[i0 + r][d0 + c] += scale sum_j ds[r][j] k[j0 + j][d0 + c] for the query tile's
// rows r < BC, from ds (DSq, queries x keys) and the key chunk (Ks). The products go through
// Gs (free here: the dv and dp^T products that read it are done) so that a warp's atomics hit
// 32 consecutive words of one row; the caller's next tile starts with a barrier before Gs, Ks
// and DSq are written again.
template <typename T, typename C>
__device__ void add_dq_share(const GGAttention& g, T* dq, const T (*DSq)[C::BR + 4], const T (*Ks)[C::EC + 4],
                             T (*Gs)[C::EC + 4], int64_t z, int i0, int j0, int d0, T scale, int ty, int tx) {
  constexpr int BR = C::BR, BC = C::BC, EC = C::EC, TY = C::TY, TX = C::TX, NQ = C::NQ;
  T acc[4][4 * NQ];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int c = 0; c < 4 * NQ; ++c) acc[a][c] = T(0);
  times_rows<T, TY, TX, NQ, BR + 4, EC + 4>(DSq, Ks, acc, (min(BR, g.S - j0) + 3) & ~3, ty, tx);
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int qd = 0; qd < NQ; ++qd) {
      T w[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) w[u] = acc[a][4 * qd + u] * scale;
      stg4(&Gs[ty + TY * a][4 * tx + 4 * TX * qd], w);
    }
  __syncthreads();
  const int rows = min(BC, g.L - i0), cols = min(EC, g.E - d0);
  T* dst = dq + ((int64_t)z * g.L + i0) * g.E + d0;
  for (int f = threadIdx.x; f < BC * EC; f += C::THREADS) {
    const int r = f / EC, c = f % EC;
    if (r < rows && c < cols) atomicAdd(dst + (int64_t)r * g.E + c, Gs[r][c]);
  }
}

// ---- backward with dq by atomics: D and a zeroed dq --------------------------------------------
// Launched before gg_attn_bwd (which adds every key block's share into dq), on the same stream:
// D into the workspace and dq = 0, a block per BR query rows.
template <typename T>
__device__ void backward_prep(const GGAttention& g, T* dq, T* dsum, const T* go, const T* out) {
  typedef Cfg<T, 32> C;
  constexpr int BR = C::BR;
  const T* const base[GG_ATTN_OPERANDS] = {nullptr, nullptr, nullptr, go, out, nullptr, nullptr};
  const int q_blocks = (g.L + BR - 1) / BR;
  for (int64_t z = blockIdx.z; z < g.batch; z += gridDim.z) {
    const Matrices<T> mat(g, base, z);
    for (int qb = blockIdx.x; qb < q_blocks; qb += gridDim.x) {
      const int i0 = qb * BR;
      row_sums<T, BR, C::THREADS>(g, mat, z, i0, nullptr, nullptr, dsum);
      T* rows = dq + ((int64_t)z * g.L + i0) * g.E;
      const int64_t n = (int64_t)min(BR, g.L - i0) * g.E;
      for (int64_t f = threadIdx.x; f < n; f += C::THREADS) rows[f] = T(0);
    }
  }
}

// ---- backward: dk, dv (and dmask; with DQ, dq too) ---------------------------------------------
// DQ (gg_attn_bwd): each query tile's dq share of this key block, scale ds k, is added into dq
// (zeroed by backward_prep) with atomics, coalesced through shared memory: dq's sum over key
// blocks then runs in any order (not bit-reproducible), and gg_attn_dq's two score products
// are saved. Without DQ (gg_attn_dkv) gg_attn_dq computes dq.
template <typename T, bool DQ>
__device__ void backward_dkv(const GGAttention& g, T* dq, T* dk, T* dv, T* dmask, const T* dsum, const T* go,
                             const T* q, const T* k, const T* v, const T* lse, const T* mask,
                             const int64_t* seed_ptr) {
  typedef Cfg<T, 32> C;
  constexpr int BR = C::BR, BC = C::BC, EC = C::EC, TY = C::TY, TX = C::TX, NQ = C::NQ;
  static_assert(BR == BC, "the dq product's rows (queries) take the key rows' places in the thread layout");
  __shared__ __align__(16) T Ks[BR][EC + 4];
  __shared__ __align__(16) T Vs[BR][EC + 4];
  __shared__ __align__(16) T Qs[BC][EC + 4];
  __shared__ __align__(16) T Gs[BC][EC + 4];
  __shared__ __align__(16) T Ps[BR][BC + 4];
  // ds (not transposed) for the dq product; the pitch BR + 4 makes the transposing stores of a
  // warp (query tx + 8 b, key ty + 8 a) fall on 32 distinct banks.
  __shared__ __align__(16) T DSq[DQ ? BC : 1][BR + 4];
  __shared__ T lse2[BC], drow[BC];
  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  const uint64_t seed = g.dropout ? (uint64_t)*seed_ptr : 0;
  const int k_blocks = (g.S + BR - 1) / BR, chunks = max(max((g.E + EC - 1) / EC, (g.Ev + EC - 1) / EC), 1);
  const bool k_resident = g.E <= EC, v_resident = g.Ev <= EC;
  const T log2e = (T)1.4426950408889634, scale = (T)(g.scale_log2 * 0.6931471805599453);
  const T* const base[GG_ATTN_OPERANDS] = {q, k, v, go, nullptr, lse, g.masked ? mask : nullptr};
  for (int64_t z = blockIdx.z; z < g.batch; z += gridDim.z) {
    const Matrices<T> mat(g, base, z);
    for (int kb = blockIdx.x; kb < k_blocks; kb += gridDim.x) {
      const int j0 = kb * BR;
      for (int ch = blockIdx.y; ch < chunks; ch += gridDim.y) {
        const int d0 = ch * EC;
        T ak[4][4 * NQ], av[4][4 * NQ];
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int c = 0; c < 4 * NQ; ++c) ak[a][c] = av[a][c] = T(0);
        // Queries before the block's first key see none of its keys (causal): start at its tile
        // (their rows of dmask, those that exist, are zero).
        const int first = g.causal ? (j0 / BC) * BC : 0;
        if (g.mask_grad && ch == 0 && first > 0) {
          for (int f = threadIdx.x; f < min(first, g.L) * BR; f += C::THREADS) {
            const int i = f / BR, j = j0 + f % BR;
            if (j < g.S) dmask[((int64_t)z * g.L + i) * g.S + j] = T(0);
          }
        }
        for (int i0 = first; i0 < g.L; i0 += BC) {
          T st[4][4], dpt[4][4];
#pragma unroll
          for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) st[a][b] = dpt[a][b] = T(0);
          for (int e0 = 0; e0 < g.E; e0 += EC) {
            __syncthreads();
            if (!k_resident || i0 == first) load_tile<T, BR, EC, C::THREADS>(Ks, g, mat, GG_ATTN_K, j0, g.S, e0, g.E);
            load_tile<T, BC, EC, C::THREADS>(Qs, g, mat, GG_ATTN_Q, i0, g.L, e0, g.E);
            __syncthreads();
            dot_rows<T, TY, TX, EC + 4, EC + 4>(Ks, Qs, st, (min(EC, g.E - e0) + 3) & ~3, ty, tx);
          }
          for (int e0 = 0; e0 < g.Ev; e0 += EC) {
            __syncthreads();
            if (!v_resident || i0 == first) load_tile<T, BR, EC, C::THREADS>(Vs, g, mat, GG_ATTN_V, j0, g.S, e0, g.Ev);
            load_tile<T, BC, EC, C::THREADS>(Gs, g, mat, GG_ATTN_GO, i0, g.L, e0, g.Ev);
            __syncthreads();
            dot_rows<T, TY, TX, EC + 4, EC + 4>(Vs, Gs, dpt, (min(EC, g.Ev - e0) + 3) & ~3, ty, tx);
          }
          __syncthreads();  // Ps, Gs and Qs are free; lse2 and drow of the previous tile are read
          if (threadIdx.x < BC) {
            const int i = i0 + threadIdx.x;
            lse2[threadIdx.x] = i < g.L ? mat[GG_ATTN_LSE][(int64_t)i * g.row[GG_ATTN_LSE]] * log2e : neg_inf<T>();
            drow[threadIdx.x] = i < g.L ? dsum[(int64_t)z * g.L + i] : T(0);
          }
          __syncthreads();
          base2_scores<T, TY, TX, true>(g, mat[GG_ATTN_MASK], j0, i0, st, ty, tx);
          T f[4][4];
#pragma unroll
          for (int b = 0; b < 4; ++b) {  // query i0 + tx + TX b: one Philox for its four keys
            T w[4] = {T(1), T(1), T(1), T(1)};
            if (g.dropout) dropout4(g, seed, z * (int64_t)g.L + i0 + tx + TX * b, j0 + ty, w);
#pragma unroll
            for (int a = 0; a < 4; ++a) f[a][b] = w[a];
          }
#pragma unroll
          for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) {
              const int r = tx + TX * b;
              const T p = lse2[r] == neg_inf<T>() ? T(0) : exp2_(st[a][b] - lse2[r]);
              st[a][b] = p * (dpt[a][b] * f[a][b] - drow[r]);  // ds^T
              dpt[a][b] = p * f[a][b];                        // pd^T
            }
          if (g.mask_grad && ch == 0) {
#pragma unroll
            for (int a = 0; a < 4; ++a)
#pragma unroll
              for (int b = 0; b < 4; ++b) {
                const int i = i0 + tx + TX * b, j = j0 + ty + TY * a;
                if (i < g.L && j < g.S) dmask[((int64_t)z * g.L + i) * g.S + j] = st[a][b];
              }
          }
          if (d0 < g.Ev) {  // dv chunk += pd^T g
#pragma unroll
            for (int a = 0; a < 4; ++a)
#pragma unroll
              for (int b = 0; b < 4; ++b) Ps[ty + TY * a][tx + TX * b] = dpt[a][b];
            if (!v_resident) load_tile<T, BC, EC, C::THREADS>(Gs, g, mat, GG_ATTN_GO, i0, g.L, d0, g.Ev);
            __syncthreads();
            times_rows<T, TY, TX, NQ, BC + 4, EC + 4>(Ps, Gs, av, (min(BC, g.L - i0) + 3) & ~3, ty, tx);
            __syncthreads();
          }
          if (d0 < g.E) {  // dk chunk += ds^T q (and with DQ: dq chunk += scale ds k)
#pragma unroll
            for (int a = 0; a < 4; ++a)
#pragma unroll
              for (int b = 0; b < 4; ++b) Ps[ty + TY * a][tx + TX * b] = st[a][b];
            if (!k_resident) load_tile<T, BC, EC, C::THREADS>(Qs, g, mat, GG_ATTN_Q, i0, g.L, d0, g.E);
            if constexpr (DQ) {
#pragma unroll
              for (int a = 0; a < 4; ++a)
#pragma unroll
                for (int b = 0; b < 4; ++b) DSq[tx + TX * b][ty + TY * a] = st[a][b];
              // Ks holds the last feature chunk of the score product; dq's chunk is d0's.
              if (!k_resident) load_tile<T, BR, EC, C::THREADS>(Ks, g, mat, GG_ATTN_K, j0, g.S, d0, g.E);
            }
            __syncthreads();
            times_rows<T, TY, TX, NQ, BC + 4, EC + 4>(Ps, Qs, ak, (min(BC, g.L - i0) + 3) & ~3, ty, tx);
            if constexpr (DQ) add_dq_share<T, C>(g, dq, DSq, Ks, Gs, z, i0, j0, d0, scale, ty, tx);
          }
        }
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          const int j = j0 + ty + TY * a;
          if (j >= g.S) continue;
#pragma unroll
          for (int qd = 0; qd < NQ; ++qd) {
            const int c = 4 * tx + 4 * TX * qd;
            T w[4];
            if (d0 < g.E) {
              T* dst = dk + ((int64_t)z * g.S + j) * g.E + d0;
#pragma unroll
              for (int u = 0; u < 4; ++u) w[u] = ak[a][4 * qd + u] * scale;
              store4(dst + c, w, min(EC, g.E - d0) - c, aligned16(dst + c));
            }
            if (d0 < g.Ev) {
              T* dst = dv + ((int64_t)z * g.S + j) * g.Ev + d0;
#pragma unroll
              for (int u = 0; u < 4; ++u) w[u] = av[a][4 * qd + u];
              store4(dst + c, w, min(EC, g.Ev - d0) - c, aligned16(dst + c));
            }
          }
        }
        __syncthreads();  // Ks and Vs are reloaded by the next key block
      }
    }
  }
}

// dst[u] += v[u] for u < valid with atomics: one 16-byte vector atomic where the GPU has them
// (sm_90) and the group is whole and aligned, else one atomic a value.
__device__ __forceinline__ void atomic_add4(float* dst, const float (&v)[4], int valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
  if (valid >= 4 && aligned16(dst)) {
    atomicAdd(reinterpret_cast<float4*>(dst), make_float4(v[0], v[1], v[2], v[3]));
    return;
  }
#endif
#pragma unroll
  for (int u = 0; u < 4; ++u)
    if (u < valid) atomicAdd(dst + u, v[u]);
}

// ---- backward, features resident (E, Ev <= EC): dk, dv, dq by atomics (and dmask) --------------
// gg_attn_bwd's arithmetic (float32) for features within one chunk, by 128 threads: two halves
// of Cfg<float, 32>'s 64-thread layout. Per query tile:
//   1. the tile's q and g (fetched into registers during the previous tile) go to shared memory;
//   2. half 0 computes the scores k q^T, half 1 dp^T = v g^T (4 x 4 register blocks each), into
//      DS (transposed: queries x keys) and Ps (keys x queries);
//   3. each thread turns 8 of them into ds and pd (queries tx + TX b, b = 2 half, 2 half + 1:
//      one Philox each for its four keys), in place: ds into DS, pd^T into Ps;
//   4. half h computes columns 32 h.. of the three products: scale ds k (added into dq with
//      atomics, vector atomics on sm_90, by each thread for its 4 rows x 4 columns), dv += pd^T g
//      and dk += ds^T q (reading DS transposed); the next tile's q, g, lse and D are fetched
//      into registers meanwhile.
// Four barriers a tile (gg_attn_bwd: nine); the key block's k and v are loaded once; no wait on
// global memory inside a tile; work items heaviest first (work_item). 128 threads with at most
// 168 registers: 12 warps on a 64K-register multiprocessor (gg_attn_bwd: 8), one word spilled.
constexpr int kResidentThreads = 128;
template <typename T>
__device__ void backward_resident(const GGAttention& g, T* dq, T* dk, T* dv, T* dmask, const T* dsum, const T* go,
                                  const T* q, const T* k, const T* v, const T* lse, const T* mask,
                                  const int64_t* seed_ptr) {
  typedef Cfg<T, 32> C;
  constexpr int BR = C::BR, BC = C::BC, EC = C::EC, TY = C::TY, TX = C::TX, THREADS = kResidentThreads;
  constexpr int QUADS = EC / 4, FETCH = BC * QUADS / THREADS, HALF = EC / 2;  // FETCH: groups a thread fetches
  static_assert(BR == BC && BC * QUADS % THREADS == 0 && THREADS == 2 * C::THREADS && HALF == 4 * TX,
                "two halves of the 64-thread layout; a half's products cover EC / 2 columns");
  __shared__ __align__(16) T Ks[BR][EC + 4];
  __shared__ __align__(16) T Vs[BR][EC + 4];
  __shared__ __align__(16) T Qs[BC][EC + 4];
  __shared__ __align__(16) T Gs[BC][EC + 4];
  __shared__ __align__(16) T Ps[BR][BC + 4];  // dp^T, then pd^T (keys x queries): dv's left operand
  // scores, then ds (queries x keys): dq's left operand, and dk's read transposed; the pitch
  // BR + 4 puts the transposing stores of a warp (query tx + 8 b, key ty + 8 a) on 32 banks.
  __shared__ __align__(16) T DS[BC][BR + 4];
  const int half = (int)threadIdx.x / C::THREADS, lt = (int)threadIdx.x % C::THREADS;
  const int tx = lt % TX, ty = lt / TX, col = HALF * half;
  const uint64_t seed = g.dropout ? (uint64_t)*seed_ptr : 0;
  const int k_blocks = (g.S + BR - 1) / BR;
  const T log2e = (T)1.4426950408889634, scale = (T)(g.scale_log2 * 0.6931471805599453);
  const int kq = (g.E + 3) & ~3, kv = (g.Ev + 3) & ~3;
  const T* const base[GG_ATTN_OPERANDS] = {q, k, v, go, nullptr, lse, g.masked ? mask : nullptr};
  // This half's columns of the right operands of step 4.
  const T(*Kh)[EC + 4] = reinterpret_cast<const T(*)[EC + 4]>(&Ks[0][col]);
  const T(*Qh)[EC + 4] = reinterpret_cast<const T(*)[EC + 4]>(&Qs[0][col]);
  const T(*Gh)[EC + 4] = reinterpret_cast<const T(*)[EC + 4]>(&Gs[0][col]);
  const int64_t items = (int64_t)k_blocks * g.batch;
  for (int64_t t = block_rank(); t < items; t += block_count()) {
    int kb;
    int64_t z;
    work_item(g, t, k_blocks, false, kb, z);
    const Matrices<T> mat(g, base, z);
    const int j0 = kb * BR;
    __syncthreads();  // the previous item's readers of Ks and Vs are done
    load_tile<T, BR, EC, THREADS>(Ks, g, mat, GG_ATTN_K, j0, g.S, 0, g.E);
    load_tile<T, BR, EC, THREADS>(Vs, g, mat, GG_ATTN_V, j0, g.S, 0, g.Ev);
    // Queries before the block's first key see none of its keys (causal): start at its tile
    // (their rows of dmask, those that exist, are zero).
    const int first = g.causal ? j0 : 0;
    if (g.mask_grad && first > 0) {
      for (int f = threadIdx.x; f < min(first, g.L) * BR; f += THREADS) {
        const int i = f / BR, j = j0 + f % BR;
        if (j < g.S) dmask[((int64_t)z * g.L + i) * g.S + j] = T(0);
      }
    }
    T ak[4][4], av[4][4];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int c = 0; c < 4; ++c) ak[a][c] = av[a][c] = T(0);
    // Query tile i0's operands in registers: groups n of q and g (tile row f / QUADS, columns
    // 4 (f % QUADS).., f = threadIdx.x + n THREADS), and lse (base 2) and D of the thread's
    // queries of step 3, i0 + tx + TX (2 half + n).
    T qf[FETCH][4], gf[FETCH][4], lf[2], df[2];
    auto fetch = [&](int i0) {
#pragma unroll
      for (int n = 0; n < FETCH; ++n) {
        const int f = (int)threadIdx.x + n * THREADS, r = i0 + f / QUADS, c = (f % QUADS) * 4;
        load_group(qf[n], g, mat[GG_ATTN_Q], GG_ATTN_Q, g.row[GG_ATTN_Q], g.col[GG_ATTN_Q], true, r, g.L, 0, c, g.E);
        load_group(gf[n], g, mat[GG_ATTN_GO], GG_ATTN_GO, g.row[GG_ATTN_GO], g.col[GG_ATTN_GO], true, r, g.L, 0, c,
                   g.Ev);
      }
#pragma unroll
      for (int n = 0; n < 2; ++n) {
        const int i = i0 + tx + TX * (2 * half + n);
        lf[n] = i < g.L ? mat[GG_ATTN_LSE][(int64_t)i * g.row[GG_ATTN_LSE]] * log2e : neg_inf<T>();
        df[n] = i < g.L ? dsum[(int64_t)z * g.L + i] : T(0);
      }
    };
    if (first < g.L) fetch(first);
    for (int i0 = first; i0 < g.L; i0 += BC) {
      __syncthreads();  // the previous tile's readers of Qs, Gs, Ps and DS are done
#pragma unroll
      for (int n = 0; n < FETCH; ++n) {
        const int f = (int)threadIdx.x + n * THREADS;
        stg4(&Qs[f / QUADS][(f % QUADS) * 4], qf[n]);
        stg4(&Gs[f / QUADS][(f % QUADS) * 4], gf[n]);
      }
      T lr[2], dr[2];
#pragma unroll
      for (int n = 0; n < 2; ++n) {
        lr[n] = lf[n];
        dr[n] = df[n];
      }
      __syncthreads();  // Qs and Gs (and, on the first tile, Ks and Vs) are complete
      {  // step 2
        T s[4][4];
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int b = 0; b < 4; ++b) s[a][b] = T(0);
        if (half == 0) {
          dot_rows<T, TY, TX, EC + 4, EC + 4>(Ks, Qs, s, kq, ty, tx);
          base2_scores<T, TY, TX, true>(g, mat[GG_ATTN_MASK], j0, i0, s, ty, tx);
#pragma unroll
          for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) DS[tx + TX * b][ty + TY * a] = s[a][b];
        } else {
          dot_rows<T, TY, TX, EC + 4, EC + 4>(Vs, Gs, s, kv, ty, tx);
#pragma unroll
          for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) Ps[ty + TY * a][tx + TX * b] = s[a][b];
        }
      }
      __syncthreads();  // the scores and dp^T are complete
#pragma unroll
      for (int n = 0; n < 2; ++n) {  // step 3: query i0 + tx + TX b, keys j0 + ty + TY a
        const int b = 2 * half + n;
        T w[4] = {T(1), T(1), T(1), T(1)};
        if (g.dropout) dropout4(g, seed, z * (int64_t)g.L + i0 + tx + TX * b, j0 + ty, w);
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          T& sc = DS[tx + TX * b][ty + TY * a];
          T& dp = Ps[ty + TY * a][tx + TX * b];
          const T p = lr[n] == neg_inf<T>() ? T(0) : exp2_(sc - lr[n]);
          const T ds = p * (dp * w[a] - dr[n]);
          sc = ds;
          dp = p * w[a];
          const int i = i0 + tx + TX * b, j = j0 + ty + TY * a;
          if (g.mask_grad && i < g.L && j < g.S) dmask[((int64_t)z * g.L + i) * g.S + j] = ds;
        }
      }
      __syncthreads();  // ds and pd^T are complete
      {  // step 4: dq rows i0.. += scale ds k, this thread's rows ty + TY a and columns col + 4 tx..
        T acc[4][4];
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int c = 0; c < 4; ++c) acc[a][c] = T(0);
        times_rows<T, TY, TX, 1, BR + 4, EC + 4>(DS, Kh, acc, (min(BR, g.S - j0) + 3) & ~3, ty, tx);
        const int c = col + 4 * tx;
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          const int i = i0 + ty + TY * a;
          if (i >= g.L || c >= g.E) continue;
          T w[4];
#pragma unroll
          for (int u = 0; u < 4; ++u) w[u] = acc[a][u] * scale;
          atomic_add4(dq + ((int64_t)z * g.L + i) * g.E + c, w, g.E - c);
        }
      }
      if (i0 + BC < g.L) fetch(i0 + BC);  // waited on at the next tile's stores
      const int kl = (min(BC, g.L - i0) + 3) & ~3;
      times_rows<T, TY, TX, 1, BC + 4, EC + 4>(Ps, Gh, av, kl, ty, tx);  // dv += pd^T g
      times_cols<T, TY, TX, 1, BR + 4, EC + 4>(DS, Qh, ak, kl, ty, tx);  // dk += ds^T q
    }
    const int c = col + 4 * tx;
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      const int j = j0 + ty + TY * a;
      if (j >= g.S) continue;
      T w[4];
      T* dst = dk + ((int64_t)z * g.S + j) * g.E + c;
#pragma unroll
      for (int u = 0; u < 4; ++u) w[u] = ak[a][u] * scale;
      if (c < g.E) store4(dst, w, g.E - c, aligned16(dst));
      dst = dv + ((int64_t)z * g.S + j) * g.Ev + c;
      if (c < g.Ev) store4(dst, av[a], g.Ev - c, aligned16(dst));
    }
  }
}

}  // namespace gg_attn

#define GG_ATTN(suffix, T)                                                                                         \
  GG_KERNEL void __launch_bounds__(gg_attn::Cfg<T, 64>::THREADS)                                                   \
      gg_attn_fwd_##suffix(GGAttention g, T* out, T* lse, const T* q, const T* k, const T* v, const T* mask,      \
                           const int64_t* seed) {                                                                 \
    gg_attn::forward<T>(g, out, lse, q, k, v, mask, seed);                                                        \
  }                                                                                                                \
  GG_KERNEL void __launch_bounds__(gg_attn::Cfg<T, 32>::THREADS)                                                   \
      gg_attn_dq_##suffix(GGAttention g, T* dq, T* dsum, const T* go, const T* q, const T* k, const T* v,         \
                          const T* out, const T* lse, const T* mask, const int64_t* seed) {                       \
    gg_attn::backward_dq<T>(g, dq, dsum, go, q, k, v, out, lse, mask, seed);                                      \
  }                                                                                                                \
  GG_KERNEL void __launch_bounds__(gg_attn::Cfg<T, 32>::THREADS)                                                   \
      gg_attn_dkv_##suffix(GGAttention g, T* dk, T* dv, T* dmask, const T* dsum, const T* go, const T* q,         \
                           const T* k, const T* v, const T* lse, const T* mask, const int64_t* seed) {            \
    gg_attn::backward_dkv<T, false>(g, nullptr, dk, dv, dmask, dsum, go, q, k, v, lse, mask, seed);               \
  }
GG_ATTN(f32, float)
GG_ATTN(f64, double)

// The backward with dq by atomics (attention.cpp picks it unless deterministic algorithms are
// asked for): float only, so float64 keeps needing no sm_60 atomicAdd.
GG_KERNEL void __launch_bounds__(gg_attn::Cfg<float, 32>::THREADS)
    gg_attn_prep_f32(GGAttention g, float* dq, float* dsum, const float* go, const float* out) {
  gg_attn::backward_prep<float>(g, dq, dsum, go, out);
}
GG_KERNEL void __launch_bounds__(gg_attn::Cfg<float, 32>::THREADS)
    gg_attn_bwd_f32(GGAttention g, float* dq, float* dk, float* dv, float* dmask, const float* dsum,
                    const float* go, const float* q, const float* k, const float* v, const float* lse,
                    const float* mask, const int64_t* seed) {
  gg_attn::backward_dkv<float, true>(g, dq, dk, dv, dmask, dsum, go, q, k, v, lse, mask, seed);
}
// gg_attn_bwd for query/key and value features within one chunk (E, Ev <= 64); attention.cpp
// picks it there. Three blocks a multiprocessor, so at most 168 registers a thread: with four (128
// registers, 16 warps) a few words spilled and the GPT's backward took 4% longer on a GPU
// (docs/attention.md, "The backward").
GG_KERNEL void __launch_bounds__(gg_attn::kResidentThreads, 3)
    gg_attn_bwd_resident_f32(GGAttention g, float* dq, float* dk, float* dv, float* dmask, const float* dsum,
                             const float* go, const float* q, const float* k, const float* v, const float* lse,
                             const float* mask, const int64_t* seed) {
  gg_attn::backward_resident<float>(g, dq, dk, dv, dmask, dsum, go, q, k, v, lse, mask, seed);
}
