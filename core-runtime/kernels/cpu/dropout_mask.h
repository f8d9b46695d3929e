// The dropout mask (kernels/dropout_rules.h) for a run of element groups, compiled per
// instruction set (dropout_mask_{generic,avx2,avx512}.cpp from dropout_mask_impl.h): blocks of
// 16 groups whose Philox evaluations the compiler runs side by side in vector lanes, where the
// baseline loop evaluated one group at a time (about 3x slower on a 2-core AVX-512 CPU).
#pragma once
#include <cstdint>

namespace glassgrad {
namespace cpu {

// keep[4 * i + q] = whether element 4 * (g0 + i) + q is kept, i < count (dropout_rule::keep4).
typedef void (*DropoutKeepFn)(uint64_t seed, uint64_t threshold, uint64_t g0, int64_t count, uint8_t* keep);

namespace dropout_mask_generic {
void keep_groups(uint64_t seed, uint64_t threshold, uint64_t g0, int64_t count, uint8_t* keep);
}
namespace dropout_mask_avx2 {
void keep_groups(uint64_t seed, uint64_t threshold, uint64_t g0, int64_t count, uint8_t* keep);
}
namespace dropout_mask_avx512 {
void keep_groups(uint64_t seed, uint64_t threshold, uint64_t g0, int64_t count, uint8_t* keep);
}

// This CPU's (cpu_isa()).
DropoutKeepFn dropout_keep_groups();

}  // namespace cpu
}  // namespace glassgrad
