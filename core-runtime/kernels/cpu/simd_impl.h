// Vector types and an in-register transpose for the per-ISA loop nests (gemm_impl.h,
// conv_winograd_impl.h). Include it inside the includer's own anonymous namespace, after
// defining GG_SIMD_VEC_BYTES (bytes per vector register: 16, 32, 64), so every ISA's translation
// unit gets a private copy (no template it instantiates can leak into baseline code through the
// linker) and the flags of that unit decide what the vector arithmetic compiles to. Includes
// nothing; the includer has <cstdint> and <cstring> already.
#if !defined(GG_SIMD_VEC_BYTES)
#error "define GG_SIMD_VEC_BYTES before including simd_impl.h"
#endif

// A GCC vector of T filling one register; `lanes` elements.
template <typename T>
struct Vec {
  typedef T type __attribute__((vector_size(GG_SIMD_VEC_BYTES)));
  static constexpr int lanes = GG_SIMD_VEC_BYTES / static_cast<int>(sizeof(T));
};

// The integer type of T's width (shuffle masks).
template <typename T>
struct IntOf;
template <>
struct IntOf<float> {
  typedef int32_t type;
};
template <>
struct IntOf<double> {
  typedef int64_t type;
};

// Unaligned vector load / store (memcpy of one register: a single move).
template <typename T>
inline typename Vec<T>::type load_vec(const T* p) {
  typename Vec<T>::type v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename T>
inline void store_vec(T* p, const typename Vec<T>::type& v) {
  std::memcpy(p, &v, sizeof(v));
}

// Transposes an L x L block held as L vectors: afterwards v[i][j] is the old v[j][i]. Stage b
// swaps bit b of the row index with bit b of the lane index (two-source shuffles with constant
// masks); the log2(L) stages together swap the whole indices.
template <typename T>
struct Mask {
  typedef typename IntOf<T>::type I;
  typedef I type __attribute__((vector_size(GG_SIMD_VEC_BYTES)));
};

template <typename T, int B>
inline void transpose_stage(typename Vec<T>::type* v) {
  constexpr int L = Vec<T>::lanes;
  typedef typename Mask<T>::type M;
  M lo, hi;
  for (int l = 0; l < L; ++l) {
    lo[l] = (l & B) == 0 ? l : L + l - B;
    hi[l] = (l & B) == 0 ? l + B : L + l;
  }
  for (int i = 0; i < L; ++i) {
    if (i & B) continue;
    const typename Vec<T>::type a = v[i], b = v[i + B];
    v[i] = __builtin_shuffle(a, b, lo);
    v[i + B] = __builtin_shuffle(a, b, hi);
  }
}

template <typename T, int B>
struct TransposeStages {
  static inline void run(typename Vec<T>::type* v) {
    transpose_stage<T, B>(v);
    TransposeStages<T, B / 2>::run(v);
  }
};
template <typename T>
struct TransposeStages<T, 0> {
  static inline void run(typename Vec<T>::type*) {}
};

// v[0..L) as an L x L block (row i = v[i]) <- its transpose.
template <typename T>
inline void transpose_block(typename Vec<T>::type* v) {
  TransposeStages<T, Vec<T>::lanes / 2>::run(v);
}
