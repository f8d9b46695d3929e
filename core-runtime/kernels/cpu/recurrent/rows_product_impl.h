// The float32 small-row product of rows_product.h for one ISA, included by
// rows_product_{generic,avx2,avx512}.cpp after defining GG_ROWS_NS and GG_ROWS_VEC_BYTES.
// GCC vector extensions: the compiler emits the ISA's FMA (a * b + c contracted) per tile.
#if !defined(GG_ROWS_NS) || !defined(GG_ROWS_VEC_BYTES)
#error "define GG_ROWS_NS and GG_ROWS_VEC_BYTES before including rows_product_impl.h"
#endif
#include <algorithm>
#include <cstring>

#include "rows_product.h"

namespace glassgrad {
namespace cpu {
namespace GG_ROWS_NS {

namespace {

typedef float V __attribute__((vector_size(GG_ROWS_VEC_BYTES)));
constexpr int L = GG_ROWS_VEC_BYTES / 4;
constexpr int kMaxRows = 12;

// One tile: rows [0, RB) of a (rows lda apart) by NV slivers of B starting at b (slivers K * L
// apart), into C's columns [0, cols) (cols <= NV * L).
template <int RB, int NV>
void tile(int64_t K, const float* a, int64_t lda, const float* b, float* c, int64_t ldc, int64_t cols,
          bool accumulate) {
  V acc[RB][NV];
  for (int i = 0; i < RB; ++i)
    for (int v = 0; v < NV; ++v) acc[i][v] = V{};
  for (int64_t k = 0; k < K; ++k) {
    V bv[NV];
    for (int v = 0; v < NV; ++v) std::memcpy(&bv[v], b + v * K * L + k * L, sizeof(V));
    for (int i = 0; i < RB; ++i) {
      const float ai = a[i * lda + k];
      for (int v = 0; v < NV; ++v) acc[i][v] += ai * bv[v];
    }
  }
  for (int i = 0; i < RB; ++i) {
    float* ci = c + i * ldc;
    for (int v = 0; v < NV; ++v) {
      const int64_t j0 = v * L;
      if (j0 >= cols) break;
      if (j0 + L <= cols) {
        V out = acc[i][v];
        if (accumulate) {
          V old;
          std::memcpy(&old, ci + j0, sizeof(V));
          out = old + out;
        }
        std::memcpy(ci + j0, &out, sizeof(V));
      } else {
        for (int64_t j = j0; j < cols; ++j) ci[j] = accumulate ? ci[j] + acc[i][v][j - j0] : acc[i][v][j - j0];
      }
    }
  }
}

// Rows [0, rb) (rb <= kMaxRows) against every sliver: two at a time, the last alone.
template <int RB>
void row_block(int64_t n, int64_t K, const float* a, int64_t lda, const float* bp, float* c, int64_t ldc,
               bool accumulate) {
  const int64_t slivers = (n + L - 1) / L;
  int64_t s = 0;
  for (; s + 2 <= slivers; s += 2) {
    tile<RB, 2>(K, a, lda, bp + s * K * L, c + s * L, ldc, std::min<int64_t>(2 * L, n - s * L), accumulate);
  }
  if (s < slivers) tile<RB, 1>(K, a, lda, bp + s * K * L, c + s * L, ldc, n - s * L, accumulate);
}

typedef void (*RowBlockFn)(int64_t, int64_t, const float*, int64_t, const float*, float*, int64_t, bool);
constexpr RowBlockFn kRowBlocks[kMaxRows + 1] = {nullptr,        row_block<1>,  row_block<2>, row_block<3>, row_block<4>,
                                                 row_block<5>,   row_block<6>,  row_block<7>, row_block<8>, row_block<9>,
                                                 row_block<10>,  row_block<11>, row_block<12>};

void run(int64_t r, int64_t n, int64_t K, const float* a, int64_t lda, const float* bp, float* c, int64_t ldc,
         bool accumulate) {
  if (r <= 0 || n <= 0) return;
  // The r rows in ceil(r / kMaxRows) blocks of near-equal size (20 rows: 10 + 10).
  const int64_t blocks = (r + kMaxRows - 1) / kMaxRows;
  for (int64_t blk = 0, i0 = 0; blk < blocks; ++blk) {
    const int64_t i1 = r * (blk + 1) / blocks;
    kRowBlocks[i1 - i0](n, K, a + i0 * lda, lda, bp, c + i0 * ldc, ldc, accumulate);
    i0 = i1;
  }
}

}  // namespace

const RowsProductF32& rows_product() {
  static const RowsProductF32 table{L, run};
  return table;
}

}  // namespace GG_ROWS_NS
}  // namespace cpu
}  // namespace glassgrad
