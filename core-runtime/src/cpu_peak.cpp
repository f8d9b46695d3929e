// measure_cpu_peak (cpu_peak.h): the FMA loop of cpu_isa()'s width on every thread, and a copy
// larger than the last-level cache.
#include "glassgrad/runtime/cpu_peak.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <vector>

#include "glassgrad/runtime/cpu_features.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

cpu::FmaLoopResult fma_loop(CpuIsa isa, int64_t iterations) {
  switch (isa) {
#if defined(GLASSGRAD_X86_DISPATCH)
    case CpuIsa::Avx512: return cpu::cpu_peak_avx512::fma_loop(iterations);
    case CpuIsa::Avx2: return cpu::cpu_peak_avx2::fma_loop(iterations);
#endif
    default: return cpu::cpu_peak_generic::fma_loop(iterations);
  }
}

// Runs fn(t) for t in [0, threads) at once (one chunk a thread) and returns the wall seconds.
template <typename F>
double timed_on_threads(int threads, F&& fn) {
  const double t0 = now();
  if (threads == 1) {
    fn(0);
  } else {
    parallel_for(threads, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) fn(t);
    });
  }
  return now() - t0;
}

}  // namespace

CpuPeak measure_cpu_peak(int threads, double seconds, int repeats, int64_t copy_bytes) {
  CpuPeak r;
  r.threads = threads > 0 ? threads : get_num_threads();
  const CpuIsa isa = cpu_isa();
  r.isa = cpu_isa_name(isa);
  repeats = std::max(repeats, 1);
  std::atomic<double> sink{0};  // every checksum lands here, so no loop is dead code
  auto fma_run = [&](int64_t iterations) {
    return timed_on_threads(r.threads, [&](int64_t) {
      const cpu::FmaLoopResult one = fma_loop(isa, iterations);
      double old = sink.load();
      while (!sink.compare_exchange_weak(old, old + one.checksum)) {
      }
    });
  };
  // Calibrated on this thread alone: a parallel region's start-up (a parked thread's wake-up on a
  // busy machine) must not pass for arithmetic time.
  int64_t iterations = 1 << 12;
  while (iterations < (int64_t(1) << 40)) {
    const double t0 = now();
    sink.store(sink.load() + fma_loop(isa, iterations).checksum);
    if (now() - t0 >= seconds) break;
    iterations *= 2;
  }
  double fastest = 0;  // runs per second
  for (int i = 0; i < repeats; ++i) fastest = std::max(fastest, 1.0 / fma_run(iterations));
  r.fma_iterations = iterations;
  r.fma_flops = fma_loop(isa, 1).flops * static_cast<double>(iterations) * r.threads * fastest;

  r.copy_bytes = std::max<int64_t>(copy_bytes, 1 << 20);
  std::vector<char> from(static_cast<size_t>(r.copy_bytes), 1), to(static_cast<size_t>(r.copy_bytes), 0);
  auto copy_run = [&] {
    return timed_on_threads(r.threads, [&](int64_t t) {
      const int64_t b = r.copy_bytes * t / r.threads, e = r.copy_bytes * (t + 1) / r.threads;
      std::memcpy(to.data() + b, from.data() + b, static_cast<size_t>(e - b));
    });
  };
  copy_run();
  fastest = 0;
  for (int i = 0; i < repeats; ++i) fastest = std::max(fastest, 1.0 / copy_run());
  r.copy_bytes_per_s = 2.0 * static_cast<double>(r.copy_bytes) * fastest;
  sink.store(sink.load() + to[static_cast<size_t>(r.copy_bytes) - 1]);
  return r;
}

}  // namespace glassgrad
