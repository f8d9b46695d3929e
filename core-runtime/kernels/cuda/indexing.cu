// Indexing ops (the engine's src/ops/indexing.cpp has the formulas): reads and writes of the
// elements an int64 index names, along the walks of glassgrad/autodiff/indexing.h (GGIndexWalk,
// params.h).
//
//   read            out[p] = x[target(p)]                       one thread per position p
//   write           out[target(p)] (=, +=, *=) src[source(p)]    one thread per position, atomics
//   write_ordered   the same, one thread per combination of the free axes walking the ordered
//                   axes in order: no atomics, the same sums every run (deterministic mode)
//   gather3 / scatter3   the dense [outer, D, inner] form (GGIndex3) of Gather, IndexSelect,
//                   Scatter and IndexAdd: two 32-bit divisions a position when sizes allow
//   gather3_rows16  gather3 of whole rows (IndexSelect), 16 bytes a thread
//
// An index value outside [0, size) ([-size, size) for Index/IndexPut) is not read or written:
// the thread records tag | (operand << 56) | (the value's position in its index tensor) in *bad
// (atomicMin keeps the first) and the launcher raises an IndexError naming it.
// Atomics: float atomicAdd; double atomicAdd on sm_60 and up, a compare-and-swap loop before;
// int64 through unsigned 64-bit atomicAdd (two's complement); uint8 and every product through a
// compare-and-swap on the aligned word holding the element.
// Layouts: dense x, index, src/values (values broadcast through zero strides); out dense.
#include "common.cuh"

namespace gg_idx {

__device__ __forceinline__ void record_bad(int64_t* bad, int64_t tag, int j, int64_t position) {
  atomicMin(reinterpret_cast<unsigned long long*>(bad),
            (unsigned long long)tag | ((unsigned long long)j << 56) | (unsigned long long)position);
}

// Index operand j's value at its element `io`, wrapped and checked.
__device__ __forceinline__ bool index_value(const GGIndexWalk& w, int j, int64_t io, int64_t* bad, int64_t& v) {
  v = w.index[j][io];
  if (w.wrap && v < 0) v += w.dim_size[j];
  if (v < 0 || v >= w.dim_size[j]) {
    record_bad(bad, w.tag, j, io);
    return false;
  }
  return true;
}

// Target and source offsets of the position with coordinates c; false for a bad index.
__device__ __forceinline__ bool offsets(const GGIndexWalk& w, const int64_t* c, int64_t* bad, int64_t& t, int64_t& s) {
  t = 0;
  s = 0;
  for (int r = 0; r < w.rank; ++r) {
    t += c[r] * w.target_stride[r];
    s += c[r] * w.source_stride[r];
  }
  for (int j = 0; j < w.k; ++j) {
    int64_t io = 0;
    for (int r = 0; r < w.rank; ++r) io += c[r] * w.index_stride[j][r];
    int64_t v;
    if (!index_value(w, j, io, bad, v)) return false;
    t += v * w.dim_stride[j];
  }
  return true;
}

// Coordinates of position i over every axis (row-major).
__device__ __forceinline__ void coords_all(const GGIndexWalk& w, int64_t i, int64_t* c) {
  if (w.small) {
    uint32_t r = (uint32_t)i;
    for (int d = w.rank - 1; d >= 0; --d) {
      const uint32_t n = (uint32_t)w.size[d], q = r / n;
      c[d] = (int64_t)(r - q * n);
      r = q;
    }
  } else {
    for (int d = w.rank - 1; d >= 0; --d) {
      const int64_t q = i / w.size[d];
      c[d] = i - q * w.size[d];
      i = q;
    }
  }
}

// Coordinates of combination i over the listed axes (row-major among them).
__device__ __forceinline__ void coords_of(const GGIndexWalk& w, int64_t i, int n, const int32_t* axes, int64_t* c) {
  for (int k = n - 1; k >= 0; --k) {
    const int a = axes[k];
    const int64_t q = i / w.size[a];
    c[a] = i - q * w.size[a];
    i = q;
  }
}

template <typename T>
__device__ __forceinline__ T combine(T old, T v, int reduce) {
  return reduce == 1 ? (T)(old + v) : reduce == 2 ? (T)(old * v) : v;
}

// *p (=, +=, *=) v, atomically when several threads may hit p (reduce 0: a plain store).
template <typename T> __device__ void atomic_apply(T* p, T v, int reduce);

template <>
__device__ void atomic_apply<float>(float* p, float v, int reduce) {
  if (reduce == 0) { *p = v; return; }
  if (reduce == 1) { atomicAdd(p, v); return; }
  int* w = reinterpret_cast<int*>(p);
  int old = *w, assumed;
  do {
    assumed = old;
    old = atomicCAS(w, assumed, __float_as_int(__int_as_float(assumed) * v));
  } while (assumed != old);
}

template <>
__device__ void atomic_apply<double>(double* p, double v, int reduce) {
  if (reduce == 0) { *p = v; return; }
#if __CUDA_ARCH__ >= 600
  if (reduce == 1) { atomicAdd(p, v); return; }
#endif
  unsigned long long* w = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *w, assumed;
  do {
    assumed = old;
    const double a = __longlong_as_double((long long)assumed);
    old = atomicCAS(w, assumed, (unsigned long long)__double_as_longlong(combine(a, v, reduce)));
  } while (assumed != old);
}

template <>
__device__ void atomic_apply<int64_t>(int64_t* p, int64_t v, int reduce) {
  if (reduce == 0) { *p = v; return; }
  unsigned long long* w = reinterpret_cast<unsigned long long*>(p);
  if (reduce == 1) { atomicAdd(w, (unsigned long long)v); return; }
  unsigned long long old = *w, assumed;
  do {
    assumed = old;
    old = atomicCAS(w, assumed, (unsigned long long)((int64_t)assumed * v));
  } while (assumed != old);
}

template <>
__device__ void atomic_apply<unsigned char>(unsigned char* p, unsigned char v, int reduce) {
  if (reduce == 0) { *p = v; return; }
  const size_t addr = reinterpret_cast<size_t>(p);
  unsigned int* w = reinterpret_cast<unsigned int*>(addr & ~size_t(3));
  const unsigned shift = (unsigned)(addr & 3) * 8;
  unsigned int old = *w, assumed;
  do {
    assumed = old;
    const unsigned char b = (unsigned char)((assumed >> shift) & 0xffu);
    const unsigned int nb = (unsigned int)combine<unsigned char>(b, v, reduce);
    old = atomicCAS(w, assumed, (assumed & ~(0xffu << shift)) | (nb << shift));
  } while (assumed != old);
}

template <typename T>
__device__ void read(int64_t n, const GGIndexWalk& w, T* out, const T* x, int64_t* bad) {
  GG_FOR(i, n) {
    int64_t c[GG_MAX_DIMS], t, s;
    coords_all(w, i, c);
    if (offsets(w, c, bad, t, s)) out[i] = x[t];
  }
}

template <typename T>
__device__ void write(int64_t n, const GGIndexWalk& w, int reduce, T* out, const T* src, int64_t* bad) {
  GG_FOR(i, n) {
    int64_t c[GG_MAX_DIMS], t, s;
    coords_all(w, i, c);
    if (offsets(w, c, bad, t, s)) atomic_apply<T>(out + t, src[s], reduce);
  }
}

template <typename T>
__device__ void write_ordered(const GGIndexWalk& w, int reduce, T* out, const T* src, int64_t* bad) {
  GG_FOR(f, w.free_count) {
    int64_t c[GG_MAX_DIMS];
    coords_of(w, f, w.free_rank, w.free_axes, c);
    for (int64_t o = 0; o < w.ordered_count; ++o) {
      coords_of(w, o, w.ordered_rank, w.ordered_axes, c);
      int64_t t, s;
      if (offsets(w, c, bad, t, s)) out[t] = combine<T>(out[t], src[s], reduce);
    }
  }
}

// (o, j, i) of position p of the three-axis form, 32-bit when g.small.
__device__ __forceinline__ void split3(const GGIndex3& g, int64_t p, int64_t& o, int64_t& j, int64_t& i) {
  if (g.small) {
    const uint32_t q = (uint32_t)p / (uint32_t)g.inner;
    i = (int64_t)((uint32_t)p - q * (uint32_t)g.inner);
    const uint32_t oo = q / (uint32_t)g.J;
    j = (int64_t)(q - oo * (uint32_t)g.J);
    o = oo;
  } else {
    const int64_t q = p / g.inner;
    i = p - q * g.inner;
    o = q / g.J;
    j = q - o * g.J;
  }
}

// The target element of position p of the three-axis form; false (recorded) for a bad index.
__device__ __forceinline__ bool target3(const GGIndex3& g, const int64_t* idx, int64_t p, int64_t* bad, int64_t& t) {
  int64_t o, j, i;
  split3(g, p, o, j, i);
  const int64_t at = g.per_position ? p : j;
  const int64_t v = idx[at];
  if (v < 0 || v >= g.D) {
    record_bad(bad, g.tag, 0, at);
    return false;
  }
  t = (o * g.D + v) * g.inner + i;
  return true;
}

template <typename T>
__device__ void gather3(const GGIndex3 g, const int64_t* idx, T* out, const T* x, int64_t* bad) {
  GG_FOR(p, g.outer * g.J * g.inner) {
    int64_t t;
    if (target3(g, idx, p, bad, t)) out[p] = x[t];
  }
}

// gather3 for an index that names whole rows (IndexSelect; !g.per_position), 16 bytes a thread:
// the launcher takes it when `inner` is a multiple of V = 16 / sizeof(T) and x and out are 16-byte
// aligned, so each vector lies inside one row of `inner` elements and (x + t) is aligned too.
template <typename T>
__device__ void gather3_rows16(const GGIndex3 g, const int64_t* idx, T* out, const T* x, int64_t* bad) {
  constexpr int64_t V = 16 / sizeof(T);
  GG_FOR(q, g.outer * g.J * g.inner / V) {
    int64_t t;
    if (target3(g, idx, q * V, bad, t)) reinterpret_cast<uint4*>(out)[q] = *reinterpret_cast<const uint4*>(x + t);
  }
}

template <typename T>
__device__ void scatter3(const GGIndex3 g, int reduce, const int64_t* idx, T* out, const T* src, int64_t* bad) {
  GG_FOR(p, g.outer * g.J * g.inner) {
    int64_t t;
    if (target3(g, idx, p, bad, t)) atomic_apply<T>(out + t, src[p], reduce);
  }
}

}  // namespace gg_idx

#define GG_INDEXING(suffix, T)                                                                                 \
  GG_KERNEL void gg_index_read_##suffix(int64_t n, GGIndexWalk w, T* out, const T* x, int64_t* bad) {         \
    gg_idx::read<T>(n, w, out, x, bad);                                                                        \
  }                                                                                                            \
  GG_KERNEL void gg_index_write_##suffix(int64_t n, GGIndexWalk w, int reduce, T* out, const T* src,          \
                                         int64_t* bad) {                                                       \
    gg_idx::write<T>(n, w, reduce, out, src, bad);                                                             \
  }                                                                                                            \
  GG_KERNEL void gg_index_write_ordered_##suffix(GGIndexWalk w, int reduce, T* out, const T* src,             \
                                                 int64_t* bad) {                                               \
    gg_idx::write_ordered<T>(w, reduce, out, src, bad);                                                        \
  }                                                                                                            \
  GG_KERNEL void gg_gather3_##suffix(GGIndex3 g, const int64_t* idx, T* out, const T* x, int64_t* bad) {       \
    gg_idx::gather3<T>(g, idx, out, x, bad);                                                                   \
  }                                                                                                            \
  GG_KERNEL void gg_gather3_rows16_##suffix(GGIndex3 g, const int64_t* idx, T* out, const T* x, int64_t* bad) {  \
    gg_idx::gather3_rows16<T>(g, idx, out, x, bad);                                                            \
  }                                                                                                            \
  GG_KERNEL void gg_scatter3_##suffix(GGIndex3 g, int reduce, const int64_t* idx, T* out, const T* src,       \
                                      int64_t* bad) {                                                          \
    gg_idx::scatter3<T>(g, reduce, idx, out, src, bad);                                                        \
  }
GG_INDEXING(f32, float)
GG_INDEXING(f64, double)
GG_INDEXING(i64, int64_t)
GG_INDEXING(u8, unsigned char)
