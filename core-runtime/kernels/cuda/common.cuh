// Device helpers shared by every kernel family: grid-stride loops, strided-offset
// decomposition, warp/block reductions. Only what compute capability 5.0 has: FP32/FP64
// arithmetic, warp shuffles, static shared memory; no tensor cores, no cp.async.
#pragma once
#include "fixed_width.h"
#include "glassgrad/autodiff/elementwise_scalar.h"
#include "params.h"

#define GG_KERNEL extern "C" __global__

// Grid-stride loop over [0, n): every launch is sized from the output, capped, and the loop
// covers what the cap leaves out, so no size can produce an invalid grid.
#define GG_FOR(i, n)                                                                  \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);          \
       i += (int64_t)gridDim.x * blockDim.x)

namespace gg {

template <typename T> struct Acc { typedef T type; };
template <> struct Acc<float> { typedef float type; };
template <> struct Acc<unsigned char> { typedef int64_t type; };

// Adds to off[k], for each operand k < n_ops (at most NOPS), its offset of dense output index
// i: i taken apart row-major over size[0..rank) (in 32-bit arithmetic when `small`, which the
// host sets when every index fits), each coordinate times stride[k][d]. GGIter's, GGFused's and
// the copies' operands all lay their strides out as stride[operand][axis].
template <int NOPS>
__device__ __forceinline__ void add_offsets(int64_t i, int rank, int small, const int64_t* size,
                                            const int64_t (*stride)[GG_MAX_DIMS], int n_ops, int64_t (&off)[NOPS]) {
  if (small) {
    uint32_t r = (uint32_t)i;
    for (int d = rank - 1; d >= 0; --d) {
      const uint32_t sz = (uint32_t)size[d];
      const uint32_t q = r / sz;
      const int64_t idx = (int64_t)(r - q * sz);
      r = q;
#pragma unroll
      for (int k = 0; k < NOPS; ++k)
        if (k < n_ops) off[k] += idx * stride[k][d];
    }
  } else {
    int64_t r = i;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t sz = size[d];
      const int64_t q = r / sz;
      const int64_t idx = r - q * sz;
      r = q;
#pragma unroll
      for (int k = 0; k < NOPS; ++k)
        if (k < n_ops) off[k] += idx * stride[k][d];
    }
  }
}

// Offsets of NOPS operands for dense output index i (row-major over it.size).
template <int NOPS>
__device__ __forceinline__ void iter_offsets(const GGIter& it, int64_t i, int64_t (&off)[NOPS]) {
#pragma unroll
  for (int k = 0; k < NOPS; ++k) off[k] = 0;
  add_offsets<NOPS>(i, it.rank, it.small, it.size, it.stride, NOPS, off);
}

// The grid-stride loop GG_FOR(i, n) over a GGIter of rank RANK whose indices fit 32 bits
// (it.small): calls f(i, off) with off[k] operand k's offset of dense index i. The coordinates
// are kept by increments: the loop's stride is taken apart into per-axis digits once a thread,
// and each step adds them with carries, so an element costs RANK compares and the offsets'
// multiply-adds instead of RANK divisions (iter_offsets). A GPT step's bias adds ([B*T, N] + a
// row broadcast) and its attention heads' reassembly ([B, H, T, D] read as [B, T, H, D]) were
// bound by those divisions on a few multiprocessors.
template <int RANK, int NOPS, typename F>
__device__ __forceinline__ void walk(int64_t n, const GGIter& it, F f) {
  const uint32_t step = gridDim.x * blockDim.x;
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if ((int64_t)i >= n) return;
  uint32_t size[RANK], idx[RANK], inc[RANK];
  uint32_t r = i, q = step;
#pragma unroll
  for (int d = RANK - 1; d > 0; --d) {
    size[d] = (uint32_t)it.size[d];
    idx[d] = r % size[d];
    r /= size[d];
    inc[d] = q % size[d];
    q /= size[d];
  }
  idx[0] = r;  // the outermost coordinate needs no bound: the loop ends at n
  inc[0] = q;
  for (; (int64_t)i < n; i += step) {
    int64_t off[NOPS];
#pragma unroll
    for (int k = 0; k < NOPS; ++k) {
      off[k] = 0;
#pragma unroll
      for (int d = 0; d < RANK; ++d) off[k] += (int64_t)idx[d] * it.stride[k][d];
    }
    f((int64_t)i, off);
    uint32_t carry = 0;  // digits below their sizes: one subtraction restores each
#pragma unroll
    for (int d = RANK - 1; d > 0; --d) {
      idx[d] += inc[d] + carry;
      carry = idx[d] >= size[d] ? 1u : 0u;
      if (carry) idx[d] -= size[d];
    }
    idx[0] += inc[0] + carry;
  }
}

// f(i, off) for every index i of GG_FOR(i, n), off[k] operand k's offset (NOPS operands of it):
// walk() for ranks 1 to 4 of 32-bit indices, iter_offsets otherwise.
template <int NOPS, typename F>
__device__ __forceinline__ void for_offsets(int64_t n, const GGIter& it, F f) {
  if (it.small) {
    switch (it.rank) {
      case 1: walk<1, NOPS>(n, it, f); return;
      case 2: walk<2, NOPS>(n, it, f); return;
      case 3: walk<3, NOPS>(n, it, f); return;
      case 4: walk<4, NOPS>(n, it, f); return;
      default: break;
    }
  }
  GG_FOR(i, n) {
    int64_t off[NOPS];
    iter_offsets<NOPS>(it, i, off);
    f(i, off);
  }
}

// Offset of a multi-index given as a linear row-major index over (rank, size, stride).
__device__ __forceinline__ int64_t strided_offset(int64_t i, int rank, const int64_t* size,
                                                  const int64_t* stride) {
  int64_t off = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t q = i / size[d];
    off += (i - q * size[d]) * stride[d];
    i = q;
  }
  return off;
}

// n / d for 0 <= n < 2^31 with d's multiplier and shift (params.h, GGFastDiv; host side in
// fast_div.h): a multiply-high, an add and a shift instead of a ~20-instruction division.
__device__ __forceinline__ int fast_div(const GGFastDiv& f, int n) {
  return (int)((__umulhi((uint32_t)n, f.mul) + (uint32_t)n) >> f.shift);
}

// Offset of channel c's j-th value in a dense [N, C, I] (j = n*I + i; div_I divides by I):
// what a block that owns one channel reads (BatchNorm's and the bias sums' channel kernels).
__device__ __forceinline__ int channel_value(int C, int I, const GGFastDiv& div_I, int c, int j) {
  const int n = fast_div(div_I, j);
  return (n * C + c) * I + (j - n * I);
}

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Sum over the block; the result is valid in thread 0. blockDim.x is a multiple of 32, at most
// 1024. `scratch` holds 32 values. Ends with a barrier so scratch can be reused at once.
template <typename T>
__device__ T block_sum(T v, T* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int nwarps = (blockDim.x + 31) >> 5;
  v = (threadIdx.x < nwarps) ? scratch[threadIdx.x] : T(0);
  if (warp == 0) v = warp_sum(v);
  __syncthreads();
  return v;
}

// Same, broadcasting the result to every thread of the block.
template <typename T>
__device__ T block_sum_all(T v, T* scratch) {
  v = block_sum(v, scratch);
  if (threadIdx.x == 0) scratch[0] = v;
  __syncthreads();
  const T r = scratch[0];
  __syncthreads();
  return r;
}

template <typename T> __device__ __forceinline__ T lowest();
template <> __device__ __forceinline__ float lowest<float>() { return -__int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double lowest<double>() { return -__longlong_as_double(0x7ff0000000000000ll); }
template <> __device__ __forceinline__ int64_t lowest<int64_t>() { return (int64_t)0x8000000000000000ull; }
template <> __device__ __forceinline__ unsigned char lowest<unsigned char>() { return 0; }

// The math of the elementwise ops' scalar functions, one definition for every kernel.
using glassgrad::gg_exp;
using glassgrad::gg_log;
using glassgrad::gg_pow;
using glassgrad::gg_sqrt;
using glassgrad::gg_tanh;

}  // namespace gg
