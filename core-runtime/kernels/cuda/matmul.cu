// The matmul family on CUDA (families/matmul.def; the rules: autodiff-engine/src/ops/matmul.cpp),
// in one file: the kernels' rows, their device code and their launcher. nvcc and NVRTC read the
// rows and the device part; the C++ compiler reads the rows and the host part (GG_CUDA_HOST;
// docs/architecture.md, "One CUDA file per family"). The rows' columns: kernel_interface.h;
// GGMatmul: params.h.
//
// MatMul: batched matrix product with NumPy broadcasting of the batch axes.
//
//   C[b, m, n] = sum_k A[b, m, k] * B[b, k, n]
//
// Layouts: A and B strided (any strides, including transposed views and stride-0 broadcast
// batch axes: GGMatmul carries them); C dense row-major [batch..., M, N]. The optional bias
// (fuse_matmul_bias, autodiff-engine fusion.h; GGMatmul::bias, any stride) is added to each
// product as it is stored: C[b, m, n] = sum_k ... + bias[n], by every kernel below (the split
// products in gg_matmul_reduce, after the partitions' sum), so the sum rounds as an Add after
// the product did. Tiles come from
// gemm_tile.cuh; the grid is (N tiles, M tiles, batch), each axis capped by the launcher and
// covered by grid-stride loops.
//
// The launcher: NumPy matmul semantics. a [..., M, K] (or [K]), b [..., K, N] (or [K]), batch
// axes broadcast; any strides (transposed views run without a copy). The output is dense
// [batch..., M, N] with the 1-D cases' axes dropped. The kernels:
//   gg_matmul_<ab><tile>  gemm_engine.cuh's register tiles (the convolutions' and recurrent
//                         layers' engine: 8 x 8 micro-tiles, two shared stages, 16-byte loads),
//                         for operands with a unit stride: a = 'n' when A's k is contiguous
//                         (row-major A), 't' when its m is; b = 'n' when B's n is contiguous
//                         (row-major B), 't' when its k is (a Linear layer's W^T). Tiles 32 x 64
//                         (float and double), 64 x 128 and 128 x 128 (float). A single product
//                         that would leave the GPU idle splits k; gg_matmul_reduce adds the
//                         partitions in order (docs/cuda.md, "Kernels").
//   gg_matmul_<a>n_dense  the 128 x 128 float tiles when both operands may be read 16 bytes at
//                         a time and B is row-major (gemm_dense.cuh; docs/cuda.md, "Dense float
//                         products"); a k-contiguous B shared by the batch (a Linear layer's
//                         W^T) is first copied row-major into the workspace by
//   gg_matmul_transpose_b 32 x 32 shared-memory tiles, B [N, K] (k contiguous) -> [K, N]
//   gg_matmul             64 x 64 shared-memory tiles over any strides (the rest)
//   gg_matmul_dot         one warp per output for few outputs over a long k
//   gg_matmul_thread      one thread per output for a short k over a few tiles' worth of outputs
#include "kernel_interface.h"
#include "params.h"

#define GG_MATMUL_KERNELS(K)                                                                                \
  K(gg_matmul, Float, GG_BOUNDS(256), (GGMatmul g, T* c, const T* a, const T* b), gg_mm::matmul<T>(g, c, a, b)) \
  K(gg_matmul_dot, Float, GG_NO_BOUNDS, (GGMatmul g, T* c, const T* a, const T* b),                          \
    gg_mm::matmul_dot<T>(g, c, a, b))                                                                        \
  K(gg_matmul_thread, Float, GG_NO_BOUNDS, (GGMatmul g, T* c, const T* a, const T* b),                        \
    gg_mm::matmul_thread<T>(g, c, a, b))                                                                      \
  K(gg_matmul_reduce, Float, GG_NO_BOUNDS, (GGMatmul g, T* c, const T* ws), gg_mm::reduce<T>(g, c, ws))       \
  K(gg_matmul_nn32x64, Float, GG_BOUNDS(128, 4), (GGMatmul g, T* c, const T* a, const T* b, T* ws),           \
    gg_mm::tiled<T, gg_mm::Tile32x64, gg_mm::Layout_nn>(g, c, a, b, ws))                                      \
  K(gg_matmul_nn64x128, F32, GG_BOUNDS(128, 2), (GGMatmul g, T* c, const T* a, const T* b, T* ws),            \
    gg_mm::tiled<T, gg_mm::Tile64x128, gg_mm::Layout_nn>(g, c, a, b, ws))                                     \
  K(gg_matmul_nn128x128, F32, GG_BOUNDS(256, 1), (GGMatmul g, T* c, const T* a, const T* b, T* ws),           \
    gg_mm::tiled<T, gg_mm::Tile128x128, gg_mm::Layout_nn>(g, c, a, b, ws))                                    \
  K(gg_matmul_nt32x64, Float, GG_BOUNDS(128, 4), (GGMatmul g, T* c, const T* a, const T* b, T* ws),           \
    gg_mm::tiled<T, gg_mm::Tile32x64, gg_mm::Layout_nt>(g, c, a, b, ws))                                      \
  K(gg_matmul_nt64x128, F32, GG_BOUNDS(128, 2), (GGMatmul g, T* c, const T* a, const T* b, T* ws),            \
    gg_mm::tiled<T, gg_mm::Tile64x128, gg_mm::Layout_nt>(g, c, a, b, ws))                                     \
  K(gg_matmul_nt128x128, F32, GG_BOUNDS(256, 1), (GGMatmul g, T* c, const T* a, const T* b, T* ws),           \
    gg_mm::tiled<T, gg_mm::Tile128x128, gg_mm::Layout_nt>(g, c, a, b, ws))                                    \
  K(gg_matmul_tn32x64, Float, GG_BOUNDS(128, 4), (GGMatmul g, T* c, const T* a, const T* b, T* ws),           \
    gg_mm::tiled<T, gg_mm::Tile32x64, gg_mm::Layout_tn>(g, c, a, b, ws))                                      \
  K(gg_matmul_tn64x128, F32, GG_BOUNDS(128, 2), (GGMatmul g, T* c, const T* a, const T* b, T* ws),            \
    gg_mm::tiled<T, gg_mm::Tile64x128, gg_mm::Layout_tn>(g, c, a, b, ws))                                     \
  K(gg_matmul_tn128x128, F32, GG_BOUNDS(256, 1), (GGMatmul g, T* c, const T* a, const T* b, T* ws),           \
    gg_mm::tiled<T, gg_mm::Tile128x128, gg_mm::Layout_tn>(g, c, a, b, ws))                                    \
  K(gg_matmul_tt32x64, Float, GG_BOUNDS(128, 4), (GGMatmul g, T* c, const T* a, const T* b, T* ws),           \
    gg_mm::tiled<T, gg_mm::Tile32x64, gg_mm::Layout_tt>(g, c, a, b, ws))                                      \
  K(gg_matmul_tt64x128, F32, GG_BOUNDS(128, 2), (GGMatmul g, T* c, const T* a, const T* b, T* ws),            \
    gg_mm::tiled<T, gg_mm::Tile64x128, gg_mm::Layout_tt>(g, c, a, b, ws))                                     \
  K(gg_matmul_tt128x128, F32, GG_BOUNDS(256, 1), (GGMatmul g, T* c, const T* a, const T* b, T* ws),           \
    gg_mm::tiled<T, gg_mm::Tile128x128, gg_mm::Layout_tt>(g, c, a, b, ws))                                    \
  K(gg_matmul_nn_dense, F32, GG_BOUNDS(256, 1), (GGMatmul g, T* c, const T* a, const T* b, T* ws),            \
    gg_mm::dense<gg_mm::Layout_nn>(g, c, a, b, ws))                                                           \
  K(gg_matmul_tn_dense, F32, GG_BOUNDS(256, 1), (GGMatmul g, T* c, const T* a, const T* b, T* ws),            \
    gg_mm::dense<gg_mm::Layout_tn>(g, c, a, b, ws))                                                           \
  K(gg_matmul_transpose_b, F32, GG_BOUNDS(256), (GGMatmul g, T* out, const T* b), gg_mm::transpose_b(g, out, b))

GG_DECLARE_KERNELS(GG_MATMUL_KERNELS)

#ifndef GG_CUDA_HOST
// ---- device part -------------------------------------------------------------------------------
#include "gemm_dense.cuh"
#include "gemm_engine.cuh"
#include "gemm_tile.cuh"

namespace gg_mm {

template <typename T>
__device__ __forceinline__ const T* bias_of(const GGMatmul& g) {
  return static_cast<const T*>(g.bias);
}

// ---- register-tiled products (gemm_engine.cuh) -----------------------------------------------
// The launcher takes this path only when each operand has a unit stride along one of its axes
// and every offset inside one matrix fits 32 bits; the batch offsets are 64-bit.
typedef gg::TileConfig<32, 64, 4, 4> Tile32x64;                     // 128 threads
typedef gg::TileConfig<64, 128, 8, 8> Tile64x128;                   // 128 threads
typedef gg::TileConfig<128, 128, 8, 8, 16, true, true> Tile128x128;  // 256 threads, 8 x 4 warps, k steps of 16

// The two operands of a layout as gemm_engine.cuh views: A's rows are m, B's rows are n.
template <typename T, bool AKFast>
struct OperandA;
template <typename T>
struct OperandA<T, true> {
  static __device__ __forceinline__ gg::DenseKFast<T> make(const T* p, const GGMatmul& g) {
    return gg::DenseKFast<T>{p, (int)g.a_sm, (int)g.K};
  }
};
template <typename T>
struct OperandA<T, false> {
  static __device__ __forceinline__ gg::DenseRowFast<T> make(const T* p, const GGMatmul& g) {
    return gg::DenseRowFast<T>{p, (int)g.a_sk};
  }
};
template <typename T, bool BKFast>
struct OperandB;
template <typename T>
struct OperandB<T, true> {
  static __device__ __forceinline__ gg::DenseKFast<T> make(const T* p, const GGMatmul& g) {
    return gg::DenseKFast<T>{p, (int)g.b_sn, (int)g.K};
  }
};
template <typename T>
struct OperandB<T, false> {
  static __device__ __forceinline__ gg::DenseRowFast<T> make(const T* p, const GGMatmul& g) {
    return gg::DenseRowFast<T>{p, (int)g.b_sk};
  }
};
// Layout names as BLAS writes them: A 'n' (k contiguous) or 't' (m contiguous); B 'n' (n
// contiguous) or 't' (k contiguous).
struct Layout_nn { static constexpr bool a_kfast = true, b_kfast = false; };
struct Layout_nt { static constexpr bool a_kfast = true, b_kfast = true; };
struct Layout_tn { static constexpr bool a_kfast = false, b_kfast = false; };
struct Layout_tt { static constexpr bool a_kfast = false, b_kfast = true; };

// C[z] dense row-major [M, N] (16-byte stores where aligned), plus the bias of each column
// (gemm_engine.cuh's ColBias) when there is one.
template <typename T>
struct DenseC {
  typedef T* Col;
  static constexpr bool kRowMajor = true;
  static constexpr bool add = false;
  T* c;
  int ld;
  const T* bias;  // null: no bias
  int64_t bias_sn;
  __device__ __forceinline__ T col_bias(int n, T v) const { return bias ? v + bias[n * bias_sn] : v; }
  __device__ __forceinline__ T* col(int n) const { return c + n; }
  __device__ __forceinline__ void operator()(int m, T* p, T v) const { p[(int64_t)m * ld] = v; }
  __device__ __forceinline__ bool aligned4() const { return ld % 4 == 0 && ((uintptr_t)c & (4 * sizeof(T) - 1)) == 0; }
  __device__ __forceinline__ T* ptr(int m, int n) const { return c + (int64_t)m * ld + n; }
};

// Every product of the batch, each tile a block (grid z over the batch); a single product
// (g.batch == 1) may split k into g.splits partitions, written densely to ws[z][M][N]. The batch
// offsets are read from g in place (a copy of g indexed by the batch axis would live in local
// memory).
template <typename T, typename Cfg, typename L>
__device__ void tiled(const GGMatmul& g, T* c, const T* a, const T* b, T* ws) {
  typedef OperandA<T, L::a_kfast> OA;
  typedef OperandB<T, L::b_kfast> OB;
  const int M = (int)g.M, N = (int)g.N, K = (int)g.K;
  if (g.splits > 1) {
    gg::gemm_tiled<T, Cfg>(OA::make(a, g), OB::make(b, g), DenseC<T>{c, N, bias_of<T>(g), g.bias_sn}, M, N, K,
                           g.splits, ws);
    return;
  }
  const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
  for (int64_t z = blockIdx.z; z < g.batch; z += gridDim.z) {
    const auto oa = OA::make(a + gg::strided_offset(z, g.batch_rank, g.batch_size, g.a_bstride), g);
    const auto ob = OB::make(b + gg::strided_offset(z, g.batch_rank, g.batch_size, g.b_bstride), g);
    const DenseC<T> oc{c + z * g.M * g.N, N, bias_of<T>(g), g.bias_sn};
    for (int tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
      for (int tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
        T acc[Cfg::TM][Cfg::TN];
        gg::zero<T, Cfg>(acc);
        gg::tile_product<T, Cfg>(oa, ob, M, N, tm * Cfg::BM, tn * Cfg::BN, 0, K, acc);
        gg::tile_store<T, Cfg>(oc, M, N, tm * Cfg::BM, tn * Cfg::BN, acc);
      }
  }
}

// tiled() for float operands that gemm_dense.cuh reads 16 bytes at a time (the launcher's
// dense_operand holds for both, every batch offset included): the 128 x 128 tile.
template <typename L>
__device__ void dense(const GGMatmul& g, float* c, const float* a, const float* b, float* ws) {
  typedef gg::DenseTile Cfg;
  const int M = (int)g.M, N = (int)g.N, K = (int)g.K;
  const int lda = (int)(L::a_kfast ? g.a_sm : g.a_sk), ldb = (int)(L::b_kfast ? g.b_sn : g.b_sk);
  const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
  if (g.splits > 1) {
    const int chunk = gg::split_chunk<Cfg::BK>(K, g.splits);
    for (int z = blockIdx.z; z < g.splits; z += gridDim.z)
      for (int tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
        for (int tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
          const int kbeg = z * chunk, kend = min(kbeg + chunk, K);
          float acc[Cfg::TM][Cfg::TN];
          gg::zero<float, Cfg>(acc);
          if (kbeg < kend)
            gg::dense_tile_product<Cfg, L::a_kfast, L::b_kfast>(a, lda, b, ldb, M, N, tm * Cfg::BM, tn * Cfg::BN, kbeg,
                                                           kend, acc);
          gg::tile_store<float, Cfg>(gg::PartialStore<float>{ws + (int64_t)z * M * N, N}, M, N, tm * Cfg::BM,
                                     tn * Cfg::BN, acc);
        }
    return;
  }
  for (int64_t z = blockIdx.z; z < g.batch; z += gridDim.z) {
    const float* az = a + gg::strided_offset(z, g.batch_rank, g.batch_size, g.a_bstride);
    const float* bz = b + gg::strided_offset(z, g.batch_rank, g.batch_size, g.b_bstride);
    const DenseC<float> oc{c + z * g.M * g.N, N, bias_of<float>(g), g.bias_sn};
    for (int tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
      for (int tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
        float acc[Cfg::TM][Cfg::TN];
        gg::zero<float, Cfg>(acc);
        gg::dense_tile_product<Cfg, L::a_kfast, L::b_kfast>(az, lda, bz, ldb, M, N, tm * Cfg::BM, tn * Cfg::BN, 0, K, acc);
        gg::tile_store<float, Cfg>(oc, M, N, tm * Cfg::BM, tn * Cfg::BN, acc);
      }
  }
}

// B (k contiguous: B(k, n) at b[n * g.b_sn + k]) copied row-major: out[k * N + n]. 32 x 32 tiles
// through shared memory (one row of padding: the transposed reads hit 32 banks), 256 threads a
// block as 32 x 8; reads and writes are both 128-byte rows of a warp.
__device__ void transpose_b(const GGMatmul& g, float* out, const float* b) {
  __shared__ float tile[32][33];
  const int N = (int)g.N, K = (int)g.K, tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  for (int k0 = blockIdx.y * 32; k0 < K; k0 += gridDim.y * 32)
    for (int n0 = blockIdx.x * 32; n0 < N; n0 += gridDim.x * 32) {
#pragma unroll
      for (int r = ty; r < 32; r += 8)
        if (n0 + r < N && k0 + tx < K) tile[r][tx] = b[(int64_t)(n0 + r) * g.b_sn + k0 + tx];
      __syncthreads();
#pragma unroll
      for (int r = ty; r < 32; r += 8)
        if (k0 + r < K && n0 + tx < N) out[(int64_t)(k0 + r) * N + n0 + tx] = tile[tx][r];
      __syncthreads();  // the tile is refilled by the next pair
    }
}

// The k partitions of a split product added in partition order (results do not depend on timing).
template <typename T>
__device__ void reduce(const GGMatmul& g, T* c, const T* ws) {
  gg::split_reduce<T>(DenseC<T>{c, (int)g.N, bias_of<T>(g), g.bias_sn}, (int)g.M, (int)g.N, g.splits, ws);
}

template <typename T>
struct LoadA {
  const T* p;
  int64_t sm, sk;
  int k_major;
  __device__ T operator()(int64_t m, int64_t k) const { return p[m * sm + k * sk]; }
};
template <typename T>
struct LoadB {
  const T* p;
  int64_t sk, sn;
  int n_major;
  __device__ T operator()(int64_t k, int64_t n) const { return p[k * sk + n * sn]; }
};
template <typename T>
struct StoreC {
  T* p;
  int64_t ld;
  const T* bias;
  int64_t bias_sn;
  __device__ void operator()(int64_t m, int64_t n, T v) const { p[m * ld + n] = bias ? v + bias[n * bias_sn] : v; }
};

template <typename T>
__device__ void matmul(const GGMatmul& g, T* c, const T* a, const T* b) {
  const int64_t tiles_m = (g.M + gg::kBM - 1) / gg::kBM, tiles_n = (g.N + gg::kBN - 1) / gg::kBN;
  for (int64_t z = blockIdx.z; z < g.batch; z += gridDim.z) {
    const int64_t ao = gg::strided_offset(z, g.batch_rank, g.batch_size, g.a_bstride);
    const int64_t bo = gg::strided_offset(z, g.batch_rank, g.batch_size, g.b_bstride);
    const LoadA<T> la{a + ao, g.a_sm, g.a_sk, g.a_k_major};
    const LoadB<T> lb{b + bo, g.b_sk, g.b_sn, g.b_n_major};
    const StoreC<T> st{c + z * g.M * g.N, g.N, bias_of<T>(g), g.bias_sn};
    for (int64_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
      for (int64_t tn = blockIdx.x; tn < tiles_n; tn += gridDim.x)
        gg::gemm_tile<T>(la, lb, st, g.M, g.N, tm * gg::kBM, tn * gg::kBN, 0, g.K);
  }
}

// Few outputs and a long k (a Linear layer's forward on a small batch, [32, 800] x [800, 10]):
// one warp per output element, lanes striding k, a warp reduction for the sum. The tile
// kernel would give such a product one or two blocks that walk k serially.
template <typename T>
__device__ void matmul_dot(const GGMatmul& g, T* c, const T* a, const T* b) {
  const int64_t per_batch = g.M * g.N, total = g.batch * per_batch;
  const int lane = threadIdx.x & 31;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t o = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; o < total; o += warps) {
    const int64_t z = o / per_batch, mn = o - z * per_batch, m = mn / g.N, n = mn - m * g.N;
    const T* pa = a + gg::strided_offset(z, g.batch_rank, g.batch_size, g.a_bstride) + m * g.a_sm;
    const T* pb = b + gg::strided_offset(z, g.batch_rank, g.batch_size, g.b_bstride) + n * g.b_sn;
    T s = 0;
    for (int64_t k = lane; k < g.K; k += 32) s += pa[k * g.a_sk] * pb[k * g.b_sk];
    s = gg::warp_sum(s);
    if (lane == 0) c[o] = g.bias ? s + bias_of<T>(g)[n * g.bias_sn] : s;
  }
}

// A short k over a few tiles' worth of outputs (a Linear layer's gradients on a small batch:
// dW [10, 800] = dy^T [10, 32] x [32, 800], dx [32, 800] = dy [32, 10] x W [10, 800]): one
// thread per output, k ascending (n fastest across threads, so B's rows are read coalesced).
// The tile kernel would give such a product a dozen blocks that mostly stage tiles.
template <typename T>
__device__ void matmul_thread(const GGMatmul& g, T* c, const T* a, const T* b) {
  const int64_t per_batch = g.M * g.N, total = g.batch * per_batch;
  GG_FOR(o, total) {
    const int64_t z = o / per_batch, mn = o - z * per_batch, m = mn / g.N, n = mn - m * g.N;
    const T* pa = a + gg::strided_offset(z, g.batch_rank, g.batch_size, g.a_bstride) + m * g.a_sm;
    const T* pb = b + gg::strided_offset(z, g.batch_rank, g.batch_size, g.b_bstride) + n * g.b_sn;
    T s = 0;
    for (int64_t k = 0; k < g.K; ++k) s += pa[k * g.a_sk] * pb[k * g.b_sk];
    c[o] = g.bias ? s + bias_of<T>(g)[n * g.bias_sn] : s;
  }
}

}  // namespace gg_mm

GG_DEFINE_KERNELS(GG_MATMUL_KERNELS)
#endif  // !GG_CUDA_HOST

#ifdef GG_CUDA_HOST
// ---- host part: the launcher -------------------------------------------------------------------
#include <algorithm>
#include <type_traits>

#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_MATMUL_KERNELS)

namespace {

// ---- the register-tiled path ----
// Tiles (matmul.cu's rows): kernel infix, rows, columns, threads. Double has the first only.
struct Tile {
  const char* name;
  int64_t bm, bn, threads, bk;
};
constexpr Tile kTiles[3] = {{"32x64", 32, 64, 128, 8}, {"64x128", 64, 128, 128, 8}, {"128x128", 128, 128, 256, 16}};
constexpr int64_t kMinSplitLength = 64;                 // k per partition, at least
constexpr int64_t kMaxSplits = 16;
constexpr int64_t kMaxPartialElems = int64_t(8) << 20;  // split partial sums, at most
constexpr double kSplitGain = 0.05;                    // a split must be this much sooner

struct TiledChoice {
  int tile = 0;
  int64_t splits = 1;
};

// Multiprocessors of the device a product runs on (at least 1).
int64_t sms_of(const DeviceState& s) { return std::max<int64_t>(1, s.info.multiprocessors); }

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Blocks of each tile one multiprocessor holds at once (their registers: 128 x 128 about 215 a
// thread, 64 x 128 about 200 under GG_BOUNDS(128, 2), 32 x 64 under GG_BOUNDS(128, 4)).
constexpr int64_t kTileBlocksPerSm[3] = {4, 2, 1};

// The tile by rows (few rows take the narrow tiles), 128 x 128 only when its tiles, or for a
// single product its tiles' k partitions, give every multiprocessor 256 threads (a GPT layer's
// weight gradients, [1152, 384] over k = 16384 say, fill 27 tiles of 128 x 128 on a
// 132-multiprocessor GPU: they took 64 x 128 with k split when only unsplit 128 x 128 tiles
// counted, 0.51 ms a product at 26 TFLOP/s, where the step's 128 x 128 products ran at 38).
// Then, for a single product, the split of k (any count up to kMaxSplits, partitions of at
// least kMinSplitLength, partial sums within kMaxPartialElems) that finishes soonest when blocks
// run in waves of kTileBlocksPerSm a multiprocessor: waves(splits) x chunk(splits), the longest
// partition's k rounded up to the tile's k step (gemm_engine.cuh's split_chunk). A split is taken
// only when it beats the best so far by kSplitGain: its partial sums are written and read once
// more, so near-equals keep fewer partitions. Powers of two alone left waves part empty on a
// 132-multiprocessor GPU: a GPT layer's [384, 384] weight gradient (9 tiles) split 8 ways is 72
// blocks, 55% of one wave (14 ways: 126 blocks, 95%), [1536, 384] (36 tiles) 8 ways 288 blocks in
// three waves, 73% (7 ways: 252 blocks in two, 95%); the first split that filled one wave could
// leave a second nearly empty (36 tiles split four ways: 144 blocks).
TiledChoice choose_tiled(int64_t M, int64_t N, int64_t K, int64_t batch, bool is_float, int64_t sms) {
  TiledChoice c;
  const auto blocks = [&](int t) { return ceil_div(M, kTiles[t].bm) * ceil_div(N, kTiles[t].bn) * batch; };
  const auto may_split = [&](int64_t splits) {
    return batch == 1 && splits <= kMaxSplits && K / splits >= kMinSplitLength && splits * M * N <= kMaxPartialElems;
  };
  const int64_t target = sms * 256;
  const auto fills = [&](int t) {
    int64_t splits = 1;
    while (blocks(t) * splits * kTiles[t].threads < target && may_split(2 * splits)) splits *= 2;
    return blocks(t) * splits * kTiles[t].threads >= target;
  };
  if (is_float) {
    c.tile = M <= 32 ? 0 : M <= 64 ? 1 : 2;
    if (c.tile == 2 && !fills(2)) c.tile = 1;
  }
  const int64_t slots = sms * kTileBlocksPerSm[c.tile], b = blocks(c.tile), bk = kTiles[c.tile].bk;
  const auto cost = [&](int64_t splits) {  // waves x the longest partition's k
    return static_cast<double>(ceil_div(b * splits, slots) * (ceil_div(ceil_div(K, splits), bk) * bk));
  };
  double best = cost(1);
  for (int64_t splits = 2; may_split(splits); ++splits) {
    const double t = cost(splits);
    if (t < best * (1.0 - kSplitGain)) {
      c.splits = splits;
      best = t;
    }
  }
  return c;
}

// Products of at most kDotMaxOutputs outputs whose 64 x 64 tiles would occupy fewer than
// kDotMaxTiles blocks while k is long run as one warp per output (gg_matmul_dot): the tiles
// would leave the GPU idle. More outputs split k on the register tiles instead: a GPT's
// [65, 384] = [65, 16384] x [16384, 384] weight gradient took 2.7 ms as a warp per output on an
// H200.
constexpr int64_t kDotMaxTiles = 16, kDotMinK = 256, kDotMaxOutputs = 4096;
// Products of at most kThreadMaxK terms per output that would occupy fewer than
// kThreadMaxTiles tile blocks run as one thread per output (gg_matmul_thread).
constexpr int64_t kThreadMaxK = 32, kThreadMaxTiles = 64;

// M, N, K and the broadcast batch count of a product, from the shapes alone (the workspace is
// planned before strides are known).
struct Dims {
  int64_t M = 1, N = 1, K = 1, batch = 1;
};
Dims dims_of(const Shape& a, const Shape& b) {
  Dims d;
  const size_t ra = a.size(), rb = b.size();
  d.K = a[ra - 1];
  if (ra >= 2) d.M = a[ra - 2];
  if (rb >= 2) d.N = b[rb - 1];
  Shape ab(a.begin(), a.end() - std::min<size_t>(ra, 2)), bb(b.begin(), b.end() - std::min<size_t>(rb, 2)), batch;
  if (broadcast_shapes(ab, bb, batch))
    for (int64_t n : batch) d.batch *= n;
  return d;
}

bool dot_applies(const Dims& d) {
  return ceil_div(d.M, 64) * ceil_div(d.N, 64) * d.batch < kDotMaxTiles && d.K >= kDotMinK &&
         d.M * d.N * d.batch <= kDotMaxOutputs;
}
bool thread_applies(const Dims& d) {
  return ceil_div(d.M, 64) * ceil_div(d.N, 64) * d.batch < kThreadMaxTiles && d.K <= kThreadMaxK;
}

// A float product on the 128 x 128 tiles may copy a k-contiguous B row-major (gg_matmul_transpose_b)
// when B has at most kMaxTransposedB elements: a Linear layer's weights. The shapes alone do not say
// whether B will be k-contiguous (the workspace is planned before strides are known), so every such
// product reserves the copy: N x K floats, 6.75 MB for a [1152, 1536] weight.
constexpr int64_t kMaxTransposedB = int64_t(4) << 20;

// Whether a product planned as ch reserves the row-major copy of B (the launcher makes it only when B
// turns out k-contiguous and shared by the batch).
bool plans_transposed_b(const TiledChoice& ch, int64_t N, int64_t K) { return ch.tile == 2 && N * K <= kMaxTransposedB; }

// Where the workspace's row-major copy of B starts, in elements: after the split-k partial sums,
// rounded up to 16 bytes.
int64_t transposed_b_offset(int64_t splits, int64_t M, int64_t N) { return splits > 1 ? (splits * M * N + 3) / 4 * 4 : 0; }

// Split-k partial sums of the register-tiled path, then the room for B copied row-major.
size_t matmul_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs&) {
  if (out.at(0).numel() == 0 || in.at(0).rank() == 0 || in.at(1).rank() == 0) return 0;
  const Dims d = dims_of(in[0].shape, in[1].shape);
  if (dot_applies(d) || thread_applies(d)) return 0;
  const bool is_float = out[0].dtype == DType::Float32;
  const TiledChoice ch = choose_tiled(d.M, d.N, d.K, d.batch, is_float, sms_of(state(out[0].device.index)));
  int64_t elems = ch.splits > 1 ? ch.splits * d.M * d.N : 0;
  if (plans_transposed_b(ch, d.N, d.K)) elems = transposed_b_offset(ch.splits, d.M, d.N) + d.N * d.K;
  return static_cast<size_t>(elems) * dtype_size(out[0].dtype);
}

// Whether an operand viewed as rows x k (strides sr, sk) suits the register tiles: a unit
// stride along one axis (kfast: along k), non-negative strides, and 32-bit offsets inside it.
bool tiles_take(int64_t rows, int64_t k, int64_t sr, int64_t sk, bool& kfast) {
  if (sr < 0 || sk < 0) return false;
  if ((rows - 1) * sr + (k - 1) * sk + 1 >= (int64_t(1) << 31) || rows * k >= (int64_t(1) << 31)) return false;
  if (sk == 1 || k == 1) {
    kfast = true;
    return rows == 1 || sr < (int64_t(1) << 31);
  }
  if (sr == 1 || rows == 1) {
    kfast = false;
    return true;
  }
  return false;
}

// Whether an operand viewed as rows x k suits gemm_dense.cuh (16-byte loads): its base and every
// batch offset 16-byte aligned, its rows (ld) a multiple of 4 words apart, and a multiple of 4
// along its unit stride (k when kfast, rows otherwise).
bool dense_operand(const void* p, int64_t rows, int64_t k, int64_t sr, int64_t sk, bool kfast, const int64_t* bstride,
                   int rank) {
  if ((reinterpret_cast<uintptr_t>(p) & 15) != 0) return false;
  if ((kfast ? sr : sk) % 4 != 0 || (kfast ? k : rows) % 4 != 0) return false;
  for (int d = 0; d < rank; ++d)
    if (bstride[d] % 4 != 0) return false;
  return true;
}

template <template <typename> class K, typename T>
void launch_tiled(DeviceState& s, CUstream st, const LaunchSite& site, const TiledChoice& ch, const GGMatmul& g, T* c,
                  const T* a, const T* b, T* ws) {
  const Tile& t = kTiles[ch.tile];
  const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(ceil_div(g.N, t.bn), 1 << 30)), cap_yz(ceil_div(g.M, t.bm)),
                  cap_yz(ch.splits > 1 ? ch.splits : g.batch)};
  launch<K<T>>(s, st, grid, Dim3{static_cast<unsigned>(t.threads)}, site, g, c, a, b, ws);
}

// The tiled kernel of layout (a_kfast, b_kfast) and tile: the rows of matmul.cu's table.
template <typename T>
void launch_layout(DeviceState& s, CUstream st, const LaunchSite& site, const TiledChoice& ch, const GGMatmul& g, T* c,
                   const T* a, const T* b, T* ws, bool a_kfast, bool b_kfast, bool dense) {
#define GG_MM_TILES(ab)                                                                                      \
  do {                                                                                                      \
    if constexpr (std::is_same<T, float>::value) {                                                          \
      if (ch.tile == 2) return launch_tiled<kernels::gg_matmul_##ab##128x128, T>(s, st, site, ch, g, c, a, b, ws); \
      if (ch.tile == 1) return launch_tiled<kernels::gg_matmul_##ab##64x128, T>(s, st, site, ch, g, c, a, b, ws);  \
    }                                                                                                       \
    return launch_tiled<kernels::gg_matmul_##ab##32x64, T>(s, st, site, ch, g, c, a, b, ws);                  \
  } while (0)
  // gemm_dense.cuh's tiles take a row-major B only: with B k-contiguous they ran 10-20% slower than
  // the gathered tiles (docs/cuda.md, "Dense float products"); run_matmul copies a shared
  // k-contiguous B row-major first where it can.
  if constexpr (std::is_same<T, float>::value) {
    if (ch.tile == 2 && dense && !b_kfast) {
      if (a_kfast) return launch_tiled<kernels::gg_matmul_nn_dense, T>(s, st, site, ch, g, c, a, b, ws);
      return launch_tiled<kernels::gg_matmul_tn_dense, T>(s, st, site, ch, g, c, a, b, ws);
    }
  }
  if (a_kfast && !b_kfast) GG_MM_TILES(nn);
  if (a_kfast && b_kfast) GG_MM_TILES(nt);
  if (!a_kfast && !b_kfast) GG_MM_TILES(tn);
  GG_MM_TILES(tt);
#undef GG_MM_TILES
}

void run_matmul(const KernelContext& c) {
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const Tensor& out = c.outputs[0];
  if (out.numel() == 0) return;
  LaunchSite site{"MatMul", &c};
  GGMatmul g{};
  const int ra = a.rank(), rb = b.rank();
  Shape ab, bb;
  Strides abs, bbs;
  if (ra == 1) {
    g.M = 1;
    g.K = a.shape()[0];
    g.a_sm = 0;
    g.a_sk = a.strides()[0];
  } else {
    g.M = a.shape()[ra - 2];
    g.K = a.shape()[ra - 1];
    g.a_sm = a.strides()[ra - 2];
    g.a_sk = a.strides()[ra - 1];
    ab.assign(a.shape().begin(), a.shape().end() - 2);
    abs.assign(a.strides().begin(), a.strides().end() - 2);
  }
  if (rb == 1) {
    g.N = 1;
    g.b_sk = b.strides()[0];
    g.b_sn = 0;
  } else {
    g.N = b.shape()[rb - 1];
    g.b_sk = b.strides()[rb - 2];
    g.b_sn = b.strides()[rb - 1];
    bb.assign(b.shape().begin(), b.shape().end() - 2);
    bbs.assign(b.strides().begin(), b.strides().end() - 2);
  }
  Shape batch;
  if (!broadcast_shapes(ab, bb, batch)) throw InternalError("MatMul (CUDA): batch shapes do not broadcast");
  const CollapsedAxes ax = collapse_for_kernel(batch, {broadcast_strides(ab, abs, batch), broadcast_strides(bb, bbs, batch)},
                                              site, "make the inputs contiguous first: x.contiguous()", 0);
  g.batch_rank = static_cast<int32_t>(ax.shape.size());
  g.batch = 1;
  for (size_t d = 0; d < ax.shape.size(); ++d) {
    g.batch_size[d] = ax.shape[d];
    g.a_bstride[d] = ax.strides[0][d];
    g.b_bstride[d] = ax.strides[1][d];
    g.batch *= ax.shape[d];
  }
  if (g.batch * g.M * g.N != out.numel()) throw InternalError("MatMul (CUDA): output size disagrees with the inputs");
  g.a_k_major = g.a_sk == 1 ? 1 : 0;
  g.b_n_major = g.b_sn == 1 ? 1 : 0;
  if (c.inputs.size() > 2) {  // the fused bias [N]
    g.bias = c.inputs[2].data_ptr();
    g.bias_sn = c.inputs[2].strides()[0];
  }
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const int64_t tiles_m = (g.M + 63) / 64, tiles_n = (g.N + 63) / 64;
  const Dims d{g.M, g.N, g.K, g.batch};
  bool a_kfast = false, b_kfast = false;
  const bool tiled = !dot_applies(d) && !thread_applies(d) && g.K > 0 &&
                     tiles_take(g.M, g.K, g.a_sm, g.a_sk, a_kfast) && tiles_take(g.N, g.K, g.b_sn, g.b_sk, b_kfast) &&
                     g.M * g.N < (int64_t(1) << 31);
  dispatch_float(out.dtype(), [&](auto t) {
    using T = decltype(t);
    T* cp = ptr<T>(out);
    const T* ap = ptr<const T>(a);
    const T* bp = ptr<const T>(b);
    if (tiled) {
      TiledChoice ch = choose_tiled(g.M, g.N, g.K, g.batch, sizeof(T) == 4, sms_of(s));
      const size_t ws_bytes = static_cast<size_t>(ch.splits * g.M * g.N) * sizeof(T);
      if (ch.splits > 1 && (c.workspace == nullptr || c.workspace_bytes < ws_bytes)) ch.splits = 1;
      GGMatmul gt = g;
      gt.splits = static_cast<int32_t>(ch.splits);
      T* ws = ch.splits > 1 ? static_cast<T*>(c.workspace) : nullptr;
      const bool dense_a = dense_operand(ap, g.M, g.K, g.a_sm, g.a_sk, a_kfast, g.a_bstride, g.batch_rank);
      bool dense = dense_a && dense_operand(bp, g.N, g.K, g.b_sn, g.b_sk, b_kfast, g.b_bstride, g.batch_rank);
      if constexpr (std::is_same<T, float>::value) {
        // A k-contiguous B shared by every product of the batch, copied row-major into the
        // workspace, lets the dense tiles read it (docs/cuda.md, "Dense float products"); the
        // copy's rows are N apart, so N % 4 == 0 keeps them 16-byte aligned.
        const int64_t off = transposed_b_offset(ch.splits, g.M, g.N);
        const bool shared_b = std::all_of(g.b_bstride, g.b_bstride + g.batch_rank, [](int64_t v) { return v == 0; });
        if (plans_transposed_b(ch, g.N, g.K) && dense_a && b_kfast && shared_b && g.N % 4 == 0 &&
            c.workspace != nullptr && c.workspace_bytes >= static_cast<size_t>(off + g.N * g.K) * sizeof(T)) {
          T* bt = static_cast<T*>(c.workspace) + off;
          launch<kernels::gg_matmul_transpose_b<T>>(
              s, st, Dim3{static_cast<unsigned>(std::min<int64_t>(ceil_div(g.N, 32), 1 << 30)), cap_yz(ceil_div(g.K, 32))},
              Dim3{256}, site, g, bt, bp);
          bp = bt;
          gt.b_sk = g.N;
          gt.b_sn = 1;
          gt.b_n_major = 1;
          b_kfast = false;
          dense = true;
        }
      }
      launch_layout<T>(s, st, site, ch, gt, cp, ap, bp, ws, a_kfast, b_kfast, dense);
      if (ch.splits > 1)
        launch<kernels::gg_matmul_reduce<T>>(s, st, Dim3{blocks_for(s, g.M * g.N * (ch.splits >= 8 ? 8 : 1), 256)},
                                             Dim3{256}, site, gt, cp, static_cast<const T*>(ws));
      return;
    }
    if (tiles_m * tiles_n * g.batch < kDotMaxTiles && g.K >= kDotMinK) {
      const int64_t threads = g.batch * g.M * g.N * 32;
      launch<kernels::gg_matmul_dot<T>>(s, st, Dim3{blocks_for(s, threads, 256)}, Dim3{256}, site, g, cp, ap, bp);
      return;
    }
    if (tiles_m * tiles_n * g.batch < kThreadMaxTiles && g.K <= kThreadMaxK) {
      const int64_t n = g.batch * g.M * g.N;
      launch<kernels::gg_matmul_thread<T>>(s, st, Dim3{blocks_for(s, n, 128)}, Dim3{128}, site, g, cp, ap, bp);
      return;
    }
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(tiles_n, 1 << 30)), cap_yz(tiles_m), cap_yz(g.batch)};
    launch<kernels::gg_matmul<T>>(s, st, grid, Dim3{256}, site, g, cp, ap, bp);
  });
}

// The op's kernel symbol (families/matmul.def): the launcher and its split-k workspace.
constexpr KernelEntry matmul{run_matmul, matmul_workspace, nullptr};

}  // namespace

void add_matmul_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/matmul.def"
}

}  // namespace cuda
}  // namespace glassgrad
#endif  // GG_CUDA_HOST
