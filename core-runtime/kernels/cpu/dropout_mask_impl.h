// dropout_mask.h's keep_groups for one instruction set, included by
// dropout_mask_{generic,avx2,avx512}.cpp after defining GG_DROPOUT_NS. The words are
// dropout_rule::keep4's own (philox4 of each group), 16 groups at a time so that the rounds
// vectorize across groups.
#if !defined(GG_DROPOUT_NS)
#error "define GG_DROPOUT_NS before including dropout_mask_impl.h"
#endif
#include "dropout_mask.h"
#include "dropout_rules.h"

namespace glassgrad {
namespace cpu {
namespace GG_DROPOUT_NS {

void keep_groups(uint64_t seed, uint64_t threshold, uint64_t g0, int64_t count, uint8_t* keep) {
  constexpr int64_t kLanes = 16;
  for (int64_t base = 0; base < count; base += kLanes) {
    uint32_t w[kLanes][4];
    for (int64_t l = 0; l < kLanes; ++l) philox::philox4(g0 + static_cast<uint64_t>(base + l), seed, w[l]);
    const int64_t m = count - base < kLanes ? count - base : kLanes;
    for (int64_t l = 0; l < m; ++l)
      for (int q = 0; q < 4; ++q) keep[4 * (base + l) + q] = static_cast<uint64_t>(w[l][q]) >= threshold;
  }
}

}  // namespace GG_DROPOUT_NS
}  // namespace cpu
}  // namespace glassgrad
