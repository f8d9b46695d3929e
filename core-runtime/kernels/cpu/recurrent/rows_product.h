// The recurrent layers' per-step product for float32: C [r, n] (+)= A [r, K] B [K, n] with few
// rows (r: the batch, typically 8 to 64) and B packed once for every step of a sequence. The
// general GEMM's 8 x 48 tiles (AVX-512) spend a sixth of the work on padding rows when r = 20
// and more on padding columns when n = 100; here a tile is RB rows (the r rows cut into blocks
// of at most 12, so none is padding) by two vectors of columns, and the last vector of columns
// alone when one remains: a batch-20 LSTM step's products (20 x 800 x 200 forward, 20 x 200 x
// 800 backward) ran at 32 and 26 GFLOP/s of multiply-adds on the general GEMM, on one core that
// reaches 47 on large products.
//
// Packed B: slivers of L columns (L = lanes() floats, one vector): sliver s at bp + s * K * L,
// B[k, s * L + j] at [k * L + j], zeros past column n. Every C element is one accumulator
// summed over k = 0 .. K - 1 in order (then added to C when accumulating): the same bits
// whatever the row blocks, tiles or thread split.
#pragma once
#include <cstdint>

namespace glassgrad {
namespace cpu {

struct RowsProductF32 {
  int lanes;  // L
  // C[i * ldc + j] = (accumulate ? C : 0) + sum_k A[i * lda + k] * B[k, j], i < r, j < n.
  void (*run)(int64_t r, int64_t n, int64_t K, const float* a, int64_t lda, const float* bp, float* c, int64_t ldc,
              bool accumulate);
};

namespace rows_product_generic {
const RowsProductF32& rows_product();
}
namespace rows_product_avx2 {
const RowsProductF32& rows_product();
}
namespace rows_product_avx512 {
const RowsProductF32& rows_product();
}

// This CPU's table (cpu_isa()).
const RowsProductF32& rows_product_f32();

// Elements of a packed B [K, n] for `lanes`-wide slivers.
inline int64_t rows_product_packed_elems(int64_t K, int64_t n, int lanes) {
  return (n + lanes - 1) / lanes * lanes * K;
}

// Packs B [K, n], B[k, j] = col(j)[k * k_stride] (col(j): a column's first element), into
// bp (rows_product_packed_elems).
template <typename ColFn>
void rows_product_pack(int64_t K, int64_t n, int lanes, int64_t k_stride, const ColFn& col, float* bp) {
  const int64_t slivers = (n + lanes - 1) / lanes;
  for (int64_t s = 0; s < slivers; ++s) {
    float* dst = bp + s * K * lanes;
    for (int l = 0; l < lanes; ++l) {
      const int64_t j = s * lanes + l;
      if (j >= n) {
        for (int64_t k = 0; k < K; ++k) dst[k * lanes + l] = 0.f;
        continue;
      }
      const float* src = col(j);
      for (int64_t k = 0; k < K; ++k) dst[k * lanes + l] = src[k * k_stride];
    }
  }
}

}  // namespace cpu
}  // namespace glassgrad
