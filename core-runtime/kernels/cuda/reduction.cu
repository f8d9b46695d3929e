// The reduction family on CUDA (families/reduction.def; the rules:
// autodiff-engine/src/ops/reduction.cpp), in one file: the kernels' rows, their device code and
// their launchers. nvcc and NVRTC read the rows and the device part; the C++ compiler reads the
// rows and the host part (GG_CUDA_HOST; docs/architecture.md, "One CUDA file per family"). The
// rows' columns: kernel_interface.h; GGReduce, GGFastDiv, GGReduceOp (op): params.h. In the rows,
// out is null for ArgMax, iout (int64 indices) null for the others; pv, pi: the partials of split
// reductions (double, or int64 for int64 input), mean: Var's exact means (null: none).
//
// Reductions over any set of axes of a strided input: Sum, Mean, Max, Var, ArgMax.
//
//   sum[o]    = sum_j x[o, j]                    mean[o] = sum[o] / n
//   var[o]    = sum_j (x[o, j] - mean[o])^2 / (n - correction)      (two passes: exact mean first;
//               the launcher passes a correction clamped at n: PyTorch's max(0, n - correction))
//   max[o]    = max_j x[o, j]                    argmax[o] = first j with x[o, j] = max[o]
//
// o runs over the kept axes (outputs dense, row-major), j over the reduced axes, n = #j. The
// input is strided: GGReduce holds the kept and reduced axes with their input strides.
// float32 sums accumulate in double, as on the CPU (so long sums that cancel agree).
// Three shapes of launch: "rows" gives each output a block that strides over j and combines
// through shared memory (long reductions); "cols" gives each output a thread (many short
// reductions, e.g. a sum over the batch axis, where neighbouring threads read neighbouring
// elements); "col_sums" gives 32 unit-stride outputs a block and a chunk of rows (a Linear
// layer's bias gradient: long sums whose neighbouring outputs are neighbouring elements).
//
// The launchers of the reductions: Sum, Mean, Max, Var over attrs.dims (empty or absent: every
// axis), ArgMax over attrs.dim. The input may be strided. Kept and reduced axes are collapsed
// separately; a few outputs over very many elements are split across blocks ("partial" +
// "finish"), a long reduction gets a block per output ("rows"), many short ones a thread per
// output ("cols").
#include "kernel_interface.h"
#include "params.h"

#define GG_REDUCTION_KERNELS(K)                                                                             \
  K(gg_reduce_rows, FloatI64, GG_NO_BOUNDS,                                                                 \
    (GGReduce r, int op, double correction, T* out, int64_t* iout, const T* x),                             \
    gg_red::reduce_rows<T>(r, op, correction, out, iout, x))                                                \
  K(gg_reduce_cols, FloatI64, GG_NO_BOUNDS,                                                                 \
    (GGReduce r, int op, double correction, T* out, int64_t* iout, const T* x),                             \
    gg_red::reduce_cols<T>(r, op, correction, out, iout, x))                                                \
  K(gg_reduce_partial, FloatI64, GG_NO_BOUNDS,                                                              \
    (GGReduce r, int op, int64_t splits, const double* mean, void* pv, int64_t* pi, const T* x),            \
    gg_red::reduce_partial<T>(r, op, splits, mean, pv, pi, x))                                              \
  K(gg_reduce_finish, FloatI64, GG_NO_BOUNDS,                                                               \
    (int64_t n_out, int64_t n_red, int op, int64_t splits, double correction, const void* pv, const int64_t* pi, \
     T* out, int64_t* iout, double* mean_out),                                                              \
    gg_red::reduce_finish<T>(n_out, n_red, op, splits, correction, pv, pi, out, iout, mean_out))            \
  K(gg_reduce_channels, FloatI64, GG_BOUNDS(1024), (int C, int I, int M, GGFastDiv div_I, int op, T* out, const T* x), \
    gg_red::reduce_channels<T>(C, I, M, div_I, op, out, x))                                                 \
  K(gg_reduce_channels_vec, F32, GG_BOUNDS(1024), (int C, int I, int M, GGFastDiv div_I4, int op, T* out, const T* x), \
    gg_red::reduce_channels_vec(C, I, M, div_I4, op, out, x))                                               \
  K(gg_reduce_col_sums, FloatI64, GG_BOUNDS(256),                                                           \
    (int64_t n_out, int64_t n_red, int64_t pitch, int op, int64_t splits, T* out, void* pv, const T* x),    \
    gg_red::reduce_col_sums<T>(n_out, n_red, pitch, op, splits, out, pv, x))

GG_DECLARE_KERNELS(GG_REDUCTION_KERNELS)

#ifndef GG_CUDA_HOST
// ---- device part -------------------------------------------------------------------------------
#include "common.cuh"

namespace gg_red {

template <typename T> struct RAcc { typedef T type; };
template <> struct RAcc<float> { typedef double type; };

// Offset of the j-th reduced element. Two reduced axes (a conv bias gradient: N and H*W of
// NCHW) with j below 2^31 take a 32-bit division (the 64-bit one is several times longer).
__device__ __forceinline__ int64_t red_offset(const GGReduce& r, int64_t j) {
  if (r.red_rank == 1) return j * r.red_stride[0];
  if (r.red_rank == 2 && j < 0x7fffffff && r.red_size[1] < 0x7fffffff) {
    const uint32_t q = (uint32_t)j / (uint32_t)r.red_size[1];
    return (int64_t)q * r.red_stride[0] + (int64_t)((uint32_t)j - q * (uint32_t)r.red_size[1]) * r.red_stride[1];
  }
  return gg::strided_offset(j, r.red_rank, r.red_size, r.red_stride);
}

// sum of x[j] for j = j0, j0 + step, ... below j1, added in that order into an accumulator
// that starts at 0: four loads are issued before their four additions, so a thread has four
// reads in flight instead of one (the loop was load-latency bound), and the additions keep the
// plain loop's order, so the result is bitwise the plain loop's.
template <typename A, typename T>
__device__ __forceinline__ A strided_sum(const GGReduce& r, const T* base, int64_t j, int64_t j1, int64_t step) {
  A s = 0;
  for (; j + 3 * step < j1; j += 4 * step) {
    const A v0 = base[red_offset(r, j)], v1 = base[red_offset(r, j + step)];
    const A v2 = base[red_offset(r, j + 2 * step)], v3 = base[red_offset(r, j + 3 * step)];
    s += v0;
    s += v1;
    s += v2;
    s += v3;
  }
  for (; j < j1; j += step) s += base[red_offset(r, j)];
  return s;
}

// (value, index) pair for max/argmax: the larger value wins, ties go to the smaller index.
template <typename T>
__device__ __forceinline__ void pick(T& v, int64_t& i, T v2, int64_t i2) {
  if (v2 > v || (v2 == v && i2 < i) || (v2 != v2 && v == v)) {  // a NaN wins, as in NumPy
    v = v2;
    i = i2;
  }
}

// Combines every thread's (value, index) pair by pick(), warp by warp and then across the warps
// through sv and si (32 entries of shared memory each): thread 0 ends with the block's pair.
// Every thread of the block calls it; the caller reads the result on thread 0 and then
// synchronizes before sv and si are used again.
template <typename T, typename A>
__device__ __forceinline__ void block_pick(T& best, int64_t& bi, A* sv, int64_t* si) {
  for (int o2 = 16; o2 > 0; o2 >>= 1) {
    const T v2 = __shfl_down_sync(0xffffffffu, best, o2);
    const int64_t i2 = __shfl_down_sync(0xffffffffu, bi, o2);
    pick(best, bi, v2, i2);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    sv[warp] = best;
    si[warp] = bi;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)((blockDim.x + 31) >> 5); ++w) pick(best, bi, (T)sv[w], si[w]);
  }
}

template <typename T>
__device__ void reduce_rows(const GGReduce& r, int op, double correction, T* out, int64_t* iout, const T* x) {
  typedef typename RAcc<T>::type A;
  __shared__ A sv[32];
  __shared__ int64_t si[32];
  const int64_t n = r.n_red;
  for (int64_t o = blockIdx.x; o < r.n_out; o += gridDim.x) {
    const T* base = x + gg::strided_offset(o, r.out_rank, r.out_size, r.out_stride);
    if (op == GG_SUM || op == GG_MEAN || op == GG_VAR) {
      A s = strided_sum<A>(r, base, threadIdx.x, n, blockDim.x);
      if (op != GG_VAR) {
        s = gg::block_sum(s, sv);
        if (threadIdx.x == 0) out[o] = op == GG_MEAN ? T(s / A(n)) : T(s);
      } else {
        const A mean = gg::block_sum_all(s, sv) / A(n);
        A q = 0;
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
          const A d = base[red_offset(r, j)] - mean;
          q += d * d;
        }
        q = gg::block_sum(q, sv);
        if (threadIdx.x == 0) out[o] = T(q / (A(n) - A(correction)));
      }
    } else {
      T best = gg::lowest<T>();
      int64_t bi = 0x7fffffffffffffffll;
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) pick(best, bi, base[red_offset(r, j)], j);
      block_pick(best, bi, sv, si);
      if (threadIdx.x == 0) {
        if (op == GG_ARGMAX) iout[o] = bi;
        else out[o] = best;
      }
      __syncthreads();
    }
  }
}

template <typename T>
__device__ void reduce_cols(const GGReduce& r, int op, double correction, T* out, int64_t* iout, const T* x) {
  typedef typename RAcc<T>::type A;
  const int64_t n = r.n_red;
  GG_FOR(o, r.n_out) {
    const T* base = x + gg::strided_offset(o, r.out_rank, r.out_size, r.out_stride);
    if (op == GG_SUM || op == GG_MEAN || op == GG_VAR) {
      A s = 0;
      for (int64_t j = 0; j < n; ++j) s += base[red_offset(r, j)];
      if (op == GG_VAR) {
        const A mean = s / A(n);
        A q = 0;
        for (int64_t j = 0; j < n; ++j) {
          const A d = base[red_offset(r, j)] - mean;
          q += d * d;
        }
        out[o] = T(q / (A(n) - A(correction)));
      } else {
        out[o] = op == GG_MEAN ? T(s / A(n)) : T(s);
      }
    } else {
      T best = gg::lowest<T>();
      int64_t bi = 0x7fffffffffffffffll;
      for (int64_t j = 0; j < n; ++j) pick(best, bi, base[red_offset(r, j)], j);
      if (op == GG_ARGMAX) iout[o] = bi;
      else out[o] = best;
    }
  }
}

template <typename T>
__device__ void reduce_partial(const GGReduce& r, int op, int64_t splits, const double* mean, void* pv_,
                               int64_t* pi, const T* x) {
  typedef typename RAcc<T>::type A;
  A* pv = (A*)pv_;
  __shared__ A sv[32];
  __shared__ int64_t si[32];
  const int64_t chunk = (r.n_red + splits - 1) / splits;
  for (int64_t b = blockIdx.x; b < r.n_out * splits; b += gridDim.x) {
    const int64_t o = b / splits, sp = b - o * splits;
    const int64_t j0 = sp * chunk, j1 = j0 + chunk < r.n_red ? j0 + chunk : r.n_red;
    const T* base = x + gg::strided_offset(o, r.out_rank, r.out_size, r.out_stride);
    if (op == GG_SUM || op == GG_MEAN || op == GG_VAR) {
      A acc = 0;
      if (op == GG_VAR) {
        const A mu = (A)mean[o];
        for (int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
          const A d = (A)base[red_offset(r, j)] - mu;
          acc += d * d;
        }
      } else {
        acc = strided_sum<A>(r, base, j0 + threadIdx.x, j1, blockDim.x);
      }
      acc = gg::block_sum(acc, sv);
      if (threadIdx.x == 0) pv[b] = acc;
    } else {
      T best = gg::lowest<T>();
      int64_t bi = 0x7fffffffffffffffll;
      for (int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) pick(best, bi, base[red_offset(r, j)], j);
      block_pick(best, bi, sv, si);
      if (threadIdx.x == 0) {
        pv[b] = best;
        pi[b] = bi;
      }
      __syncthreads();
    }
  }
}

// One thread per output combines its splits in split order. With mean_out set (the first
// stage of Var), writes sum / n there instead of an output.
template <typename T>
__device__ void reduce_finish(int64_t n_out, int64_t n_red, int op, int64_t splits, double correction,
                              const void* pv_, const int64_t* pi, T* out, int64_t* iout, double* mean_out) {
  typedef typename RAcc<T>::type A;
  const A* pv = (const A*)pv_;
  GG_FOR(o, n_out) {
    const A* v = pv + o * splits;
    if (op == GG_SUM || op == GG_MEAN || op == GG_VAR) {
      A s = 0;
      for (int64_t k = 0; k < splits; ++k) s += v[k];
      if (mean_out) mean_out[o] = (double)s / (double)n_red;
      else if (op == GG_MEAN) out[o] = T(s / A(n_red));
      else if (op == GG_VAR) out[o] = T(s / (A(n_red) - A(correction)));
      else out[o] = T(s);
    } else {
      T best = (T)v[0];
      int64_t bi = pi[o * splits];
      for (int64_t k = 1; k < splits; ++k) pick(best, bi, (T)v[k], pi[o * splits + k]);
      if (op == GG_ARGMAX) iout[o] = bi;
      else out[o] = best;
    }
  }
}

// Sum or Mean of a dense [N, C, I] over N and I (a conv bias gradient; the launchers'
// channel_sums): a block per channel, each thread loading kChannelBatch values (or, for float32
// with I % 4 == 0 and an aligned x, groups of four) before it adds any, in its j order, so the
// loads are in flight together. The rows kernel's four loads in flight and 64-bit offsets left
// SimpleCNN's second bias gradient (32 sums of 3872) at 5.4 us on a GPU machine, and the split
// for its first (16 of 21632) took two launches.
constexpr int kChannelBatch = 8;

template <typename T>
__device__ void reduce_channels(int C, int I, int M, GGFastDiv div_I, int op, T* out, const T* x) {
  typedef typename RAcc<T>::type A;
  __shared__ A sv[32];
  const int step = blockDim.x;
  for (int c = blockIdx.x; c < C; c += gridDim.x) {
    A s = 0;
    for (int j0 = threadIdx.x; j0 < M; j0 += kChannelBatch * step) {
      T v[kChannelBatch];
#pragma unroll
      for (int u = 0; u < kChannelBatch; ++u) {
        const int j = j0 + u * step;
        v[u] = j < M ? x[gg::channel_value(C, I, div_I, c, j)] : T(0);
      }
#pragma unroll
      for (int u = 0; u < kChannelBatch; ++u)
        if (j0 + u * step < M) s += (A)v[u];
    }
    s = gg::block_sum(s, sv);
    if (threadIdx.x == 0) out[c] = op == GG_MEAN ? T(s / A(M)) : T(s);
  }
}

__device__ void reduce_channels_vec(int C, int I, int M, GGFastDiv div_I4, int op, float* out, const float* x) {
  __shared__ double sv[32];
  const int step = blockDim.x, I4 = I >> 2, M4 = M >> 2;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  constexpr int B = kChannelBatch / 2;
  for (int c = blockIdx.x; c < C; c += gridDim.x) {
    double s = 0;
    for (int j0 = threadIdx.x; j0 < M4; j0 += B * step) {
      float4 v[B];
#pragma unroll
      for (int u = 0; u < B; ++u) {
        const int j = j0 + u * step;
        v[u] = j < M4 ? x4[gg::channel_value(C, I4, div_I4, c, j)] : float4{0.f, 0.f, 0.f, 0.f};
      }
#pragma unroll
      for (int u = 0; u < B; ++u) {
        if (j0 + u * step < M4) {
          s += (double)v[u].x;
          s += (double)v[u].y;
          s += (double)v[u].z;
          s += (double)v[u].w;
        }
      }
    }
    s = gg::block_sum(s, sv);
    if (threadIdx.x == 0) out[c] = op == GG_MEAN ? float(s / double(M)) : float(s);
  }
}

// Sum or Mean over the rows of a matrix whose kept axis has unit stride: out[o] = sum_j
// x[j * pitch + o] (a Linear layer's bias gradient, [rows, N] summed over the rows). A block of
// kColWarps warps owns 32 columns, a lane a column, so a warp reads 128 contiguous bytes of a
// row, and kColRows rows (grid.y: the chunk); warp w adds rows w, w + kColWarps, ... of the
// chunk, issuing kChannelBatch loads before their additions. The warps' sums are then added in
// warp order; with one chunk the block writes the result, else chunk sp's partial goes to
// pv[o * splits + sp], which gg_reduce_finish adds in chunk order. Every addition's order
// depends on the shape alone. The rows kernel gave each output a block striding down its
// column: every load of a warp touched 32 rows, a 32-byte sector each for 4 bytes used.
constexpr int kColWarps = 8;
constexpr int64_t kColRows = GG_COL_SUM_ROWS;

template <typename T>
__device__ void reduce_col_sums(int64_t n_out, int64_t n_red, int64_t pitch, int op, int64_t splits, T* out,
                                void* pv, const T* x) {
  typedef typename RAcc<T>::type A;
  __shared__ A part[kColWarps][32];
  const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
  const int64_t o = (int64_t)blockIdx.x * 32 + lane;
  const int64_t sp = blockIdx.y;
  const int64_t j0 = sp * kColRows, j1 = j0 + kColRows < n_red ? j0 + kColRows : n_red;
  A s = 0;
  if (o < n_out) {
    const T* col = x + o;
    for (int64_t j = j0 + warp; j < j1; j += kColWarps * kChannelBatch) {
      T v[kChannelBatch];
#pragma unroll
      for (int u = 0; u < kChannelBatch; ++u) {
        const int64_t jj = j + (int64_t)u * kColWarps;
        v[u] = jj < j1 ? col[jj * pitch] : T(0);
      }
#pragma unroll
      for (int u = 0; u < kChannelBatch; ++u)
        if (j + (int64_t)u * kColWarps < j1) s += (A)v[u];
    }
  }
  part[warp][lane] = s;
  __syncthreads();
  if (warp == 0 && o < n_out) {
    A t = part[0][lane];
    for (int w = 1; w < kColWarps; ++w) t += part[w][lane];
    if (splits == 1) out[o] = op == GG_MEAN ? T(t / A(n_red)) : T(t);
    else ((A*)pv)[o * splits + sp] = t;
  }
}

}  // namespace gg_red

GG_DEFINE_KERNELS(GG_REDUCTION_KERNELS)
#endif  // !GG_CUDA_HOST

#ifdef GG_CUDA_HOST
// ---- host part: the launchers ------------------------------------------------------------------
#include <algorithm>

#include "fast_div.h"

#include <type_traits>

#include "cuda/launch.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/families/reduction.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_REDUCTION_KERNELS)

namespace {

// Merges axes of one group (sizes, strides) that are contiguous with each other.
void collapse_group(const Shape& size, const Strides& stride, int64_t* out_size, int64_t* out_stride, int32_t& rank,
                    const LaunchSite& site) {
  const CollapsedAxes c = collapse_for_kernel(size, {stride}, site, "make the input contiguous first: x.contiguous()", 0);
  rank = static_cast<int32_t>(c.shape.size());
  for (size_t d = 0; d < c.shape.size(); ++d) {
    out_size[d] = c.shape[d];
    out_stride[d] = c.strides[0][d];
  }
}

// A Sum or Mean of a dense [N, C, I] over N and I (the kept axis in the middle: a conv bias
// gradient) of at most kChannelValues values a channel and 2^31 in all, at least 256 a
// channel: a block per channel (gg_reduce_channels) in one launch.
constexpr int64_t kChannelValues = 32768;
bool channel_sums(const GGReduce& r, int op) {
  if (op != GG_SUM && op != GG_MEAN) return false;
  if (r.out_rank != 1 || r.red_rank != 2 || r.red_stride[1] != 1) return false;
  const int64_t I = r.red_size[1];
  return r.out_stride[0] == I && r.red_stride[0] == r.n_out * I && r.n_red >= 256 && r.n_red <= kChannelValues &&
         r.n_out * r.n_red < (int64_t(1) << 31);
}

// A Sum or Mean over the rows of a matrix whose kept axis has unit stride (a Linear layer's
// bias gradient: [B, T, N] summed over B and T; a position embedding's, [B, T*C] over B), at
// least 32 columns: gg_reduce_col_sums, a lane a column, then gg_reduce_finish over the chunks
// of GG_COL_SUM_ROWS rows when there are several. Taken wherever the rows or split kernels would
// be (a long reduction, or too few outputs for a thread each) and for sums of 32 rows or more,
// which the cols kernel (a thread an output, one load in flight) would add one row at a time;
// many outputs of fewer rows keep the cols kernel.
bool column_sums(const GGReduce& r, int op, int64_t sms) {
  if (op != GG_SUM && op != GG_MEAN) return false;
  if (r.out_rank != 1 || r.red_rank != 1 || r.out_stride[0] != 1 || r.n_out < 32) return false;
  const int64_t splits = (r.n_red + GG_COL_SUM_ROWS - 1) / GG_COL_SUM_ROWS;
  return splits <= 65535 && (r.n_out + 31) / 32 <= INT32_MAX && (r.n_red >= 32 || r.n_out < sms * 64);
}

void run_reduce(const KernelContext& c, const char* opname, int op, const std::vector<bool>& reduced,
                double correction) {
  const Tensor& x = c.inputs[0];
  const Tensor& out = c.outputs[0];
  if (out.numel() == 0) return;
  LaunchSite site{opname, &c};
  Shape ks, rs;
  Strides kst, rst;
  for (int d = 0; d < x.rank(); ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      rs.push_back(x.shape()[d]);
      rst.push_back(x.strides()[d]);
    } else {
      ks.push_back(x.shape()[d]);
      kst.push_back(x.strides()[d]);
    }
  }
  GGReduce r{};
  collapse_group(ks, kst, r.out_size, r.out_stride, r.out_rank, site);
  collapse_group(rs, rst, r.red_size, r.red_stride, r.red_rank, site);
  r.n_out = numel(ks);
  r.n_red = numel(rs);
  DeviceState& s = state_of(c);
  const bool is_arg = op == GG_ARGMAX;
  int64_t* iout = is_arg ? out.data<int64_t>() : nullptr;
  const int opc = op;
  CUstream st = stream_of(s, &c);
  const int64_t sms = s.info.multiprocessors;
  dispatch_float_int64(x.dtype(), [&](auto t) {
    using T = decltype(t);
    T* outp = is_arg ? nullptr : ptr<T>(out);
    const T* xp = ptr<const T>(x);
    if (channel_sums(r, op)) {
      const int64_t C = r.n_out, I = r.red_size[1], M = r.n_red;
      const bool vec = float4_channels(x.dtype(), I, {x.data_ptr()});
      const GGFastDiv div = make_fast_div(vec ? I / 4 : I);
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(C, 65535))}, block{channel_block(vec ? M / 4 : M)};
      if constexpr (std::is_same<T, float>::value) {
        if (vec) {
          launch<kernels::gg_reduce_channels_vec<T>>(s, st, grid, block, site, static_cast<int>(C),
                                                     static_cast<int>(I), static_cast<int>(M), div, opc, outp, xp);
          return;
        }
      }
      launch<kernels::gg_reduce_channels<T>>(s, st, grid, block, site, static_cast<int>(C), static_cast<int>(I),
                                             static_cast<int>(M), div, opc, outp, xp);
      return;
    }
    if (column_sums(r, op, sms)) {
      const int64_t splits = (r.n_red + GG_COL_SUM_ROWS - 1) / GG_COL_SUM_ROWS;
      const Dim3 grid{static_cast<unsigned>((r.n_out + 31) / 32), static_cast<unsigned>(splits)};
      const DType acc = x.dtype() == DType::Int64 ? DType::Int64 : DType::Float64;
      const Tensor pv = splits > 1 ? Tensor::empty({r.n_out * splits}, acc, x.device(), "reduction partials") : Tensor();
      void* pvp = splits > 1 ? pv.data_ptr() : nullptr;
      launch<kernels::gg_reduce_col_sums<T>>(s, st, grid, Dim3{256}, site, r.n_out, r.n_red, r.red_stride[0], opc,
                                             splits, outp, pvp, xp);
      if (splits > 1) {
        const int64_t* no_index = nullptr;
        int64_t* no_iout = nullptr;
        double* no_mean_out = nullptr;
        launch<kernels::gg_reduce_finish<T>>(s, st, Dim3{blocks_for(s, r.n_out, 256)}, Dim3{256}, site, r.n_out,
                                             r.n_red, opc, splits, correction, pv.data_ptr(), no_index, outp,
                                             no_iout, no_mean_out);
      }
      return;
    }
    if (r.n_out < sms * 4 && r.n_red >= 16384) {
      // Split each output's elements across blocks, then combine the splits in order.
      const int64_t splits = std::max<int64_t>(1, std::min<int64_t>((r.n_red + 2047) / 2048,
                                                                    std::max<int64_t>(1, sms * 8 / r.n_out)));
      const DType acc = x.dtype() == DType::Int64 ? DType::Int64 : DType::Float64;
      const Tensor pv = Tensor::empty({r.n_out * splits}, acc, x.device(), "reduction partials");
      const Tensor pi = Tensor::empty({r.n_out * splits}, DType::Int64, x.device(), "reduction partial indices");
      const Dim3 pgrid{static_cast<unsigned>(std::min<int64_t>(r.n_out * splits, sms * 32))}, pblock{256};
      const Dim3 fgrid{blocks_for(s, r.n_out, 256)}, fblock{256};
      using Partial = kernels::gg_reduce_partial<T>;
      using Finish = kernels::gg_reduce_finish<T>;
      const double* no_mean = nullptr;
      double* no_mean_out = nullptr;
      if (op == GG_VAR) {  // exact mean first (two passes, as on the CPU)
        const Tensor mean = Tensor::empty({r.n_out}, DType::Float64, x.device(), "reduction means");
        const int sum = GG_SUM;
        launch<Partial>(s, st, pgrid, pblock, site, r, sum, splits, no_mean, pv.data_ptr(), pi.data<int64_t>(), xp);
        launch<Finish>(s, st, fgrid, fblock, site, r.n_out, r.n_red, sum, splits, correction, pv.data_ptr(),
                       pi.data<int64_t>(), outp, iout, mean.data<double>());
        launch<Partial>(s, st, pgrid, pblock, site, r, opc, splits, ptr<const double>(mean), pv.data_ptr(),
                        pi.data<int64_t>(), xp);
      } else {
        launch<Partial>(s, st, pgrid, pblock, site, r, opc, splits, no_mean, pv.data_ptr(), pi.data<int64_t>(), xp);
      }
      launch<Finish>(s, st, fgrid, fblock, site, r.n_out, r.n_red, opc, splits, correction, pv.data_ptr(),
                     pi.data<int64_t>(), outp, iout, no_mean_out);
      return;
    }
    if (r.n_red >= 128 || r.n_out < sms * 64) {
      const unsigned threads = pow2_block(r.n_red, 32, 256);
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(r.n_out, int64_t(s.info.multiprocessors) * 32))};
      launch<kernels::gg_reduce_rows<T>>(s, st, grid, Dim3{threads}, site, r, opc, correction, outp, iout, xp);
    } else {
      launch<kernels::gg_reduce_cols<T>>(s, st, Dim3{blocks_for(s, r.n_out, 256)}, Dim3{256}, site, r, opc,
                                         correction, outp, iout, xp);
    }
  });
}

// The reduced axes (the family's attributes, glassgrad/autodiff/families/reduction.h) as a mask.
std::vector<bool> reduced_axes(const ReductionAttrs& a, int rank) {
  std::vector<bool> red(static_cast<size_t>(rank), false);
  for (int d = 0; d < rank; ++d) red[static_cast<size_t>(d)] = a.reduces(d);
  return red;
}

template <int OP>
void reduce(const KernelContext& c) {
  static const char* names[] = {"Sum", "Mean", "Max", "Var", "ArgMax"};
  const int rank = c.inputs[0].rank();
  const ReductionAttrs a = ReductionAttrs::from(c.attrs, rank, OP == GG_ARGMAX);
  const int64_t count = a.count(c.inputs[0].shape());
  const double correction = OP == GG_VAR ? static_cast<double>(count - a.var_divisor(count)) : 0.0;
  run_reduce(c, names[OP], OP, reduced_axes(a, rank), correction);
}

// The row symbols of families/reduction.def.
constexpr KernelFn sum = reduce<GG_SUM>;
constexpr KernelFn mean = reduce<GG_MEAN>;
constexpr KernelFn max = reduce<GG_MAX>;
constexpr KernelFn var = reduce<GG_VAR>;
constexpr KernelFn argmax = reduce<GG_ARGMAX>;

}  // namespace

void add_reduction_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/reduction.def"
}

}  // namespace cuda
}  // namespace glassgrad
#endif  // GG_CUDA_HOST
