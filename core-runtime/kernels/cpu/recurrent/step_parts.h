// A recurrence cut into parts: fn(part, step) for every part < parts and step < steps, where
// step k of any part starts only after step k - 1 of every part has finished (the recurrent
// layers' time steps, each cut into slices of hidden units: lstm_units.cpp).
//
// One parallel region for the whole sequence, instead of a fork and join for each step's GEMM
// and another for its cell pass. Invariants:
//   - a part's step runs exactly once, on the thread that claimed it (a compare-and-swap of the
//     part's next step); a thread claims its own parts (chunk c of the region owns parts
//     [parts * c / chunks, parts * (c + 1) / chunks)) first, so their data stays in its cache,
//     then any part of the current step that nobody has claimed;
//   - nothing waits on a part that no thread has claimed, so the region finishes when the OS
//     runs its threads one after another (a busy machine) or when it gets fewer threads than
//     chunks: a waiting thread takes the unclaimed part itself;
//   - `done` counts finished part-steps; the release on each finish and the acquire on reading
//     it order a step's writes before the next step's reads, whichever threads ran them;
//   - the parts' arithmetic does not depend on which thread runs them, so results do not depend
//     on the thread count when the caller's parts do not.
// An exception in fn is kept and rethrown after the region; the remaining part-steps are then
// skipped (claimed and counted, not run).
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "glassgrad/runtime/parallel.h"

namespace glassgrad {
namespace cpu {

template <typename Fn>
void run_step_parts(int64_t parts, int64_t steps, const Fn& fn) {
  if (parts <= 0 || steps <= 0) return;
  std::unique_ptr<std::atomic<int64_t>[]> next(new std::atomic<int64_t>[static_cast<size_t>(parts)]);
  for (int64_t p = 0; p < parts; ++p) next[p].store(0, std::memory_order_relaxed);
  std::atomic<int64_t> done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mu;
  // Runs part p's step k when it is still unclaimed; false when another thread has it.
  auto claim = [&](int64_t p, int64_t k) {
    int64_t expected = k;
    if (!next[p].compare_exchange_strong(expected, k + 1, std::memory_order_acq_rel)) return false;
    if (!failed.load(std::memory_order_relaxed)) {
      try {
        fn(p, k);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
    done.fetch_add(1, std::memory_order_release);
    return true;
  };
  parallel_for(parts, 1, [&](int64_t own0, int64_t own1) {
    for (;;) {
      const int64_t seen = done.load(std::memory_order_acquire);
      const int64_t k = seen / parts;  // every step before k has finished
      if (k >= steps) return;
      bool ran = false;
      for (int64_t p = own0; p < own1; ++p) ran = claim(p, k) || ran;
      for (int64_t i = 0; i < parts && !ran; ++i) ran = claim((own1 + i) % parts, k);
      if (ran) continue;
      // Every part of step k is claimed: wait for them, briefly spinning, then yielding the core.
      for (int spins = 0; done.load(std::memory_order_acquire) == seen; ++spins) {
        if (spins < 2000) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
    }
  });
  if (error) std::rethrow_exception(error);
}

}  // namespace cpu
}  // namespace glassgrad
