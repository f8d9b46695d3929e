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
// batch axes: GGMatmul carries them); C dense row-major [batch..., M, N]. Tiles come from
// gemm_tile.cuh; the grid is (N tiles, M tiles, batch), each axis capped by the launcher and
// covered by grid-stride loops.
//
// The launcher: NumPy matmul semantics. a [..., M, K] (or [K]), b [..., K, N] (or [K]), batch
// axes broadcast; any strides (transposed views run without a copy). The output is dense
// [batch..., M, N] with the 1-D cases' axes dropped. Three kernels: 64 x 64 shared-memory tiles,
// one warp per output for few outputs over a long k, and one thread per output for a short k
// over a few tiles' worth of outputs.
#include "kernel_interface.h"
#include "params.h"

#define GG_MATMUL_KERNELS(K)                                                                                \
  K(gg_matmul, Float, GG_BOUNDS(256), (GGMatmul g, T* c, const T* a, const T* b), gg_mm::matmul<T>(g, c, a, b)) \
  K(gg_matmul_dot, Float, GG_NO_BOUNDS, (GGMatmul g, T* c, const T* a, const T* b),                          \
    gg_mm::matmul_dot<T>(g, c, a, b))                                                                        \
  K(gg_matmul_thread, Float, GG_NO_BOUNDS, (GGMatmul g, T* c, const T* a, const T* b),                       \
    gg_mm::matmul_thread<T>(g, c, a, b))

GG_DECLARE_KERNELS(GG_MATMUL_KERNELS)

#ifndef GG_CUDA_HOST
// ---- device part -------------------------------------------------------------------------------
#include "gemm_tile.cuh"

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
#endif  // !GG_CUDA_HOST

#ifdef GG_CUDA_HOST
// ---- host part: the launcher -------------------------------------------------------------------
#include <algorithm>

#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_MATMUL_KERNELS)

namespace {

// Products whose 64 x 64 tiles would occupy fewer than kDotMaxTiles blocks while k is long run
// as one warp per output (gg_matmul_dot): the tiles would leave the GPU idle.
constexpr int64_t kDotMaxTiles = 16, kDotMinK = 256;
// Products of at most kThreadMaxK terms per output that would occupy fewer than
// kThreadMaxTiles tile blocks run as one thread per output (gg_matmul_thread).
constexpr int64_t kThreadMaxK = 32, kThreadMaxTiles = 64;

void matmul(const KernelContext& c) {
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
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const int64_t tiles_m = (g.M + 63) / 64, tiles_n = (g.N + 63) / 64;
  dispatch_float(out.dtype(), [&](auto t) {
    using T = decltype(t);
    T* cp = ptr<T>(out);
    const T* ap = ptr<const T>(a);
    const T* bp = ptr<const T>(b);
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

}  // namespace

void add_matmul_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/matmul.def"
}

}  // namespace cuda
}  // namespace glassgrad
#endif  // GG_CUDA_HOST
