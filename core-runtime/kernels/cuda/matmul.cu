// MatMul: batched matrix product with NumPy broadcasting of the batch axes.
//
//   C[b, m, n] = sum_k A[b, m, k] * B[b, k, n]
//
// Layouts: A and B strided (any strides, including transposed views and stride-0 broadcast
// batch axes: GGMatmul carries them); C dense row-major [batch..., M, N]. Tiles come from
// gemm_tile.cuh; the grid is (N tiles, M tiles, batch), each axis capped by the launcher and
// covered by grid-stride loops.
#include "gemm_tile.cuh"
#include "matmul.h"

namespace gg_mm {

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
  __device__ void operator()(int64_t m, int64_t n, T v) const { p[m * ld + n] = v; }
};

template <typename T>
__device__ void matmul(const GGMatmul& g, T* c, const T* a, const T* b) {
  const int64_t tiles_m = (g.M + gg::kBM - 1) / gg::kBM, tiles_n = (g.N + gg::kBN - 1) / gg::kBN;
  for (int64_t z = blockIdx.z; z < g.batch; z += gridDim.z) {
    const int64_t ao = gg::strided_offset(z, g.batch_rank, g.batch_size, g.a_bstride);
    const int64_t bo = gg::strided_offset(z, g.batch_rank, g.batch_size, g.b_bstride);
    const LoadA<T> la{a + ao, g.a_sm, g.a_sk, g.a_k_major};
    const LoadB<T> lb{b + bo, g.b_sk, g.b_sn, g.b_n_major};
    const StoreC<T> st{c + z * g.M * g.N, g.N};
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
    if (lane == 0) c[o] = s;
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
    c[o] = s;
  }
}

}  // namespace gg_mm

GG_DEFINE_KERNELS(GG_MATMUL_KERNELS)
