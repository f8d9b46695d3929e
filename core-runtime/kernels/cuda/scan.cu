// Scans and sorts along one axis (formulas and conventions: the engine's src/ops/scan.cpp).
// Layout: dense inputs viewed as [outer, n, inner]; line k starts at (k / inner) * n * inner +
// k % inner and its elements are `inner` apart (adjacent threads take adjacent lines, so the
// loads coalesce when inner > 1).
//
//   CumSum, CumProd, CumProdBackward: one thread per line, walking it in order (float32 sums and
//     products accumulate in double, as on the CPU).
//   Flip: one thread per output element (copied by its width: 1, 4 or 8 bytes).
//   Sort, TopK: one block per line (grid-stride over lines), a bitonic sorting network over the
//     line padded to P = the next power of two, in the workspace (P keys and P indices a line,
//     slot = blockIdx.x). The order is total and stable: padding last, then by value (NaN the
//     largest), equal values by index, so the network's result is the CPU's stable sort.
#include "common.cuh"

namespace gg_scan {

template <typename T> struct Acc { typedef T type; };
template <> struct Acc<float> { typedef double type; };

__device__ __forceinline__ int64_t line_start(int64_t k, int64_t n, int64_t inner) {
  return (k / inner) * n * inner + k % inner;
}

template <typename T>
__device__ void cumsum(int64_t lines, int64_t n, int64_t inner, int reverse, T* y, const T* x) {
  GG_FOR(k, lines) {
    const int64_t s = line_start(k, n, inner);
    typename Acc<T>::type acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = s + (reverse ? n - 1 - j : j) * inner;
      acc += x[at];
      y[at] = (T)acc;
    }
  }
}

template <typename T>
__device__ void cumprod(int64_t lines, int64_t n, int64_t inner, T* y, const T* x) {
  GG_FOR(k, lines) {
    const int64_t s = line_start(k, n, inner);
    typename Acc<T>::type acc = 1;
    for (int64_t j = 0; j < n; ++j) {
      acc *= x[s + j * inner];
      y[s + j * inner] = (T)acc;
    }
  }
}

template <typename T>
__device__ void cumprod_backward(int64_t lines, int64_t n, int64_t inner, T* dx, const T* g, const T* x,
                                 const T* y) {
  GG_FOR(k, lines) {
    const int64_t s = line_start(k, n, inner);
    int64_t z = 0;
    while (z < n && x[s + z * inner] != T(0)) ++z;
    double tail = 0;
    for (int64_t i = z - 1; i >= 0; --i) {
      tail += double(g[s + i * inner]) * double(y[s + i * inner]);
      dx[s + i * inner] = (T)(tail / double(x[s + i * inner]));
    }
    if (z < n) {
      double run = z > 0 ? double(y[s + (z - 1) * inner]) : 1.0, acc = 0;
      for (int64_t j = z; j < n; ++j) {
        if (j > z) run *= double(x[s + j * inner]);
        acc += double(g[s + j * inner]) * run;
      }
      dx[s + z * inner] = (T)acc;
      for (int64_t i = z + 1; i < n; ++i) dx[s + i * inner] = T(0);
    }
  }
}

// Whether (a, ia) comes before (b, ib): padding (index >= n) last, then by value (NaN largest;
// descending reverses the values' order, NaN first), then by index.
template <typename T>
__device__ __forceinline__ bool before(T a, int64_t ia, T b, int64_t ib, int64_t n, int descending) {
  if (ia >= n || ib >= n) return ia < ib;
  const bool a_nan = a != a, b_nan = b != b;
  if (a_nan != b_nan) return descending ? a_nan : b_nan;
  if (!a_nan && a != b) return descending ? a > b : a < b;
  return ia < ib;
}

template <typename T>
__device__ void sort_lines(int64_t lines, int64_t n, int64_t inner, int64_t P, int64_t k, int descending,
                           T* values, int64_t* indices, const T* x, T* keys, int64_t* idx) {
  T* key = keys + (int64_t)blockIdx.x * P;
  int64_t* id = idx + (int64_t)blockIdx.x * P;
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    const int64_t s = line_start(line, n, inner);
    for (int64_t j = threadIdx.x; j < P; j += blockDim.x) {
      key[j] = j < n ? x[s + j * inner] : T(0);
      id[j] = j;
    }
    __syncthreads();
    for (int64_t size = 2; size <= P; size <<= 1) {
      for (int64_t stride = size >> 1; stride > 0; stride >>= 1) {
        for (int64_t t = threadIdx.x; t < P / 2; t += blockDim.x) {
          const int64_t lo = 2 * t - (t & (stride - 1)), hi = lo + stride;
          const bool up = (lo & size) == 0;
          const bool swap = up ? before(key[hi], id[hi], key[lo], id[lo], n, descending)
                               : before(key[lo], id[lo], key[hi], id[hi], n, descending);
          if (swap) {
            const T kt = key[lo];
            key[lo] = key[hi];
            key[hi] = kt;
            const int64_t it = id[lo];
            id[lo] = id[hi];
            id[hi] = it;
          }
        }
        __syncthreads();
      }
    }
    const int64_t out = (line / inner) * k * inner + line % inner;
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
      values[out + j * inner] = key[j];
      indices[out + j * inner] = id[j];
    }
    __syncthreads();
  }
}

// out[o, j, i] = x[o, n - 1 - j, i] for element e = (o * n + j) * inner + i.
template <typename T>
__device__ void flip(int64_t total, int64_t n, int64_t inner, T* y, const T* x) {
  GG_FOR(e, total) {
    const int64_t i = e % inner, j = (e / inner) % n, o = e / (inner * n);
    y[e] = x[(o * n + (n - 1 - j)) * inner + i];
  }
}

}  // namespace gg_scan

GG_KERNEL void gg_flip_w1(int64_t total, int64_t n, int64_t inner, unsigned char* y, const unsigned char* x) {
  gg_scan::flip(total, n, inner, y, x);
}
GG_KERNEL void gg_flip_w4(int64_t total, int64_t n, int64_t inner, unsigned int* y, const unsigned int* x) {
  gg_scan::flip(total, n, inner, y, x);
}
GG_KERNEL void gg_flip_w8(int64_t total, int64_t n, int64_t inner, unsigned long long* y,
                          const unsigned long long* x) {
  gg_scan::flip(total, n, inner, y, x);
}

#define GG_SCAN(suffix, T)                                                                          \
  GG_KERNEL void gg_cumsum_##suffix(int64_t lines, int64_t n, int64_t inner, int reverse, T* y, const T* x) { \
    gg_scan::cumsum<T>(lines, n, inner, reverse, y, x);                                             \
  }                                                                                                 \
  GG_KERNEL void gg_cumprod_##suffix(int64_t lines, int64_t n, int64_t inner, T* y, const T* x) {   \
    gg_scan::cumprod<T>(lines, n, inner, y, x);                                                     \
  }                                                                                                 \
  GG_KERNEL void gg_sort_lines_##suffix(int64_t lines, int64_t n, int64_t inner, int64_t P, int64_t k,   \
                                        int descending, T* values, int64_t* indices, const T* x, T* keys, \
                                        int64_t* idx) {                                             \
    gg_scan::sort_lines<T>(lines, n, inner, P, k, descending, values, indices, x, keys, idx);        \
  }
GG_SCAN(f32, float)
GG_SCAN(f64, double)
GG_SCAN(i64, int64_t)

#define GG_SCAN_BACKWARD(suffix, T)                                                                 \
  GG_KERNEL void gg_cumprod_bwd_##suffix(int64_t lines, int64_t n, int64_t inner, T* dx, const T* g,  \
                                         const T* x, const T* y) {                                  \
    gg_scan::cumprod_backward<T>(lines, n, inner, dx, g, x, y);                                     \
  }
GG_SCAN_BACKWARD(f32, float)
GG_SCAN_BACKWARD(f64, double)
