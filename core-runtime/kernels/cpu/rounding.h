// Integer rounding the CPU kernels share for tiling and for carving their workspaces (gemm, conv,
// Winograd, recurrent): a workspace's slices start on kAlign-byte boundaries (a cache line, the
// widest vector load), and a kernel asks for kAlign bytes more than its slices so that the base
// address itself can be rounded up.
#pragma once
#include <cstddef>
#include <cstdint>

namespace glassgrad {
namespace cpu {

constexpr size_t kAlign = 64;

// a / b rounded up (a >= 0, b > 0).
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
// a rounded up to a multiple of b (a >= 0, b > 0).
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
// A byte count or an address rounded up to a multiple of kAlign.
inline size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

}  // namespace cpu
}  // namespace glassgrad
