// measure_cpu_peak (cpu_peak.h): the FMA loop of cpu_isa()'s width on every thread, and a copy
// larger than the last-level cache. Beside the CPU kernels, whose *_avx2.cpp / *_avx512.cpp files
// the build compiles for those ISAs (core-runtime/CMakeLists.txt).
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
  switch (isa) {  // cpu_isa() reports AVX2 or AVX-512 only where the CPU has them
    case CpuIsa::Avx512: return cpu::cpu_peak_avx512::fma_loop(iterations);
    case CpuIsa::Avx2: return cpu::cpu_peak_avx2::fma_loop(iterations);
    default: return cpu::cpu_peak_generic::fma_loop(iterations);
  }
}

// Runs fn(t) for t in [0, threads) at once, one thread each, and returns each one's own
// [start, end) seconds: the time a parked thread takes to wake up is not the work's.
template <typename F>
std::vector<std::pair<double, double>> on_threads(int threads, F&& fn) {
  std::vector<std::pair<double, double>> spans(static_cast<size_t>(threads));
  auto one = [&](int64_t t) {
    const double t0 = now();
    fn(t);
    spans[static_cast<size_t>(t)] = {t0, now()};
  };
  if (threads == 1) {
    one(0);
  } else {
    parallel_for(threads, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) one(t);
    });
  }
  return spans;
}

}  // namespace

CpuPeak measure_cpu_peak(int threads, double seconds, int repeats, int64_t copy_bytes) {
  CpuPeak r;
  r.threads = threads > 0 ? threads : get_num_threads();
  const CpuIsa isa = cpu_isa();
  r.isa = cpu_isa_name(isa);
  repeats = std::max(repeats, 1);
  std::atomic<double> sink{0};  // every checksum lands here, so no loop is dead code
  // Calibrated on this thread alone.
  int64_t iterations = 1 << 12;
  while (iterations < (int64_t(1) << 40)) {
    const double t0 = now();
    sink.store(sink.load() + fma_loop(isa, iterations).checksum);
    if (now() - t0 >= seconds) break;
    iterations *= 2;
  }
  // Each thread's fastest run, timed by the thread itself; the threads' rates add up (each has
  // its own core's FMA units).
  std::vector<double> fastest(static_cast<size_t>(r.threads), 0.0);  // runs per second
  for (int i = 0; i < repeats; ++i) {
    const auto spans = on_threads(r.threads, [&](int64_t) {
      const cpu::FmaLoopResult one = fma_loop(isa, iterations);
      double old = sink.load();
      while (!sink.compare_exchange_weak(old, old + one.checksum)) {
      }
    });
    for (size_t t = 0; t < spans.size(); ++t)
      fastest[t] = std::max(fastest[t], 1.0 / std::max(spans[t].second - spans[t].first, 1e-9));
  }
  r.fma_iterations = iterations;
  for (double f : fastest) r.fma_flops += fma_loop(isa, 1).flops * static_cast<double>(iterations) * f;

  // The memory is shared: a run's bandwidth is all its bytes over the time from the first
  // thread's start to the last one's end (threads that do not overlap make it smaller, never larger).
  r.copy_bytes = std::max<int64_t>(copy_bytes, 1 << 20);
  std::vector<char> from(static_cast<size_t>(r.copy_bytes), 1), to(static_cast<size_t>(r.copy_bytes), 0);
  auto copy_run = [&] {
    const auto spans = on_threads(r.threads, [&](int64_t t) {
      const int64_t b = r.copy_bytes * t / r.threads, e = r.copy_bytes * (t + 1) / r.threads;
      std::memcpy(to.data() + b, from.data() + b, static_cast<size_t>(e - b));
    });
    double first = spans[0].first, last = spans[0].second;
    for (const auto& sp : spans) first = std::min(first, sp.first), last = std::max(last, sp.second);
    return std::max(last - first, 1e-9);
  };
  copy_run();
  double best = 0;
  for (int i = 0; i < repeats; ++i) best = std::max(best, 1.0 / copy_run());
  r.copy_bytes_per_s = 2.0 * static_cast<double>(r.copy_bytes) * best;
  sink.store(sink.load() + to[static_cast<size_t>(r.copy_bytes) - 1]);
  return r;
}

}  // namespace glassgrad
