// The CPU's measured limits, for roofline figures in the benchmarks (docs/performance.md,
// "How far from the limit"): the float32 FMA rate of a register-only loop and the bandwidth of
// a copy larger than the last-level cache, each on `threads` threads at once.
//
// FMA rate: independent chains acc = acc * m + a on vectors of cpu_isa()'s width, enough of them
// to cover the FMA latency on every port, nothing loaded or stored in the loop; 2 FLOPs per lane
// per FMA. The iteration count is calibrated (doubled) on the calling thread until one run lasts
// `seconds`; then all threads run it `repeats` times at once, each timing itself, and the
// threads' fastest rates are added up (each core has its own FMA units; a parked thread's wake-up
// is not counted): on a shared machine the best run is the one the scheduler left alone, the
// closest to what the hardware can do.
// Copy bandwidth: memcpy of two arrays of `copy_bytes` (each thread its own slice), counted as
// the bytes read plus the bytes written (STREAM's convention for its copy kernel) over the time
// from the first thread's start to the last one's end, fastest of `repeats` runs after one
// untimed run that faults the pages in.
#pragma once
#include <cstdint>

namespace glassgrad {

struct CpuPeak {
  int threads = 1;
  const char* isa = "";         // cpu_isa_name(cpu_isa())
  double fma_flops = 0;         // FLOP/s, float32, all threads
  double copy_bytes_per_s = 0;  // bytes read + written per second, all threads
  int64_t fma_iterations = 0;   // per thread, of the calibrated run
  int64_t copy_bytes = 0;       // per array
};

// threads <= 0: get_num_threads().
CpuPeak measure_cpu_peak(int threads = 0, double seconds = 0.02, int repeats = 5,
                         int64_t copy_bytes = int64_t(64) << 20);

namespace cpu {
// One thread's FMA loop on `isa`'s vectors: `iterations` steps of every chain; returns a value
// that depends on every chain (so none is dead code) and the FLOPs it performed.
struct FmaLoopResult {
  float checksum = 0;
  double flops = 0;
};
namespace cpu_peak_generic {
FmaLoopResult fma_loop(int64_t iterations);
}
namespace cpu_peak_avx2 {
FmaLoopResult fma_loop(int64_t iterations);
}
namespace cpu_peak_avx512 {
FmaLoopResult fma_loop(int64_t iterations);
}
}  // namespace cpu

}  // namespace glassgrad
