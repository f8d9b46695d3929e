// The FMA loop of cpu_peak.h, written once and compiled per ISA (cpu_peak_generic.cpp,
// cpu_peak_avx2.cpp, cpu_peak_avx512.cpp define GG_PEAK_NS and GG_PEAK_VEC_BYTES first; the
// translation unit's flags decide whether a * b + c becomes one FMA instruction).
#include <cstdint>

#include "glassgrad/runtime/cpu_peak.h"

#if !defined(GG_PEAK_NS) || !defined(GG_PEAK_VEC_BYTES)
#error "define GG_PEAK_NS and GG_PEAK_VEC_BYTES before including cpu_peak_impl.h"
#endif

namespace glassgrad {
namespace cpu {
namespace GG_PEAK_NS {

// 12 independent chains: an FMA's latency (4-5 cycles) times the FMA ports (2) is at most 10
// instructions in flight, and 12 chains + 2 constants fit the 16 registers of SSE2 and AVX2.
FmaLoopResult fma_loop(int64_t iterations) {
  typedef float V __attribute__((vector_size(GG_PEAK_VEC_BYTES)));
  constexpr int kChains = 12;
  constexpr int kLanes = GG_PEAK_VEC_BYTES / static_cast<int>(sizeof(float));
  V acc[kChains];
  // m < 1 and a > 0: every chain converges to a / (1 - m) and never overflows or denormalizes.
  V m, a;
  for (int l = 0; l < kLanes; ++l) m[l] = 0.999f, a[l] = 1e-3f;
  for (int i = 0; i < kChains; ++i)
    for (int l = 0; l < kLanes; ++l) acc[i][l] = static_cast<float>(i + l);
  for (int64_t it = 0; it < iterations; ++it) {
    // Without -ffast-math the compiler may neither reassociate a chain nor drop a step.
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * m + a;
  }
  float sum = 0;
  for (int i = 0; i < kChains; ++i)
    for (int l = 0; l < kLanes; ++l) sum += acc[i][l];
  FmaLoopResult r;
  r.checksum = sum;
  r.flops = 2.0 * kLanes * kChains * static_cast<double>(iterations);
  return r;
}

}  // namespace GG_PEAK_NS
}  // namespace cpu
}  // namespace glassgrad
