// Launcher of MatMul (kernels/cuda/matmul.cu): NumPy matmul semantics. a [..., M, K] (or [K]),
// b [..., K, N] (or [K]), batch axes broadcast; any strides (transposed views run without a
// copy). The output is dense [batch..., M, N] with the 1-D cases' axes dropped. Three kernels:
// 64 x 64 shared-memory tiles, one warp per output for few outputs over a long k, and one
// thread per output for a short k over a few tiles' worth of outputs.
#include <algorithm>

#include "matmul.h"

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
