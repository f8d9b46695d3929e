// Per-phase host timing (host_times.h): exclusive phases, counted calls, nothing while off.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "glassgrad/runtime/host_times.h"

namespace glassgrad {
namespace {

using Clock = std::chrono::steady_clock;

// Spins until the clock has advanced by at least `d` (no sleep: the thread stays on the CPU).
void spin(std::chrono::microseconds d) {
  const auto until = Clock::now() + d;
  while (Clock::now() < until) {
  }
}

double secs(HostPhase p) { return host_times().seconds[static_cast<size_t>(p)]; }
uint64_t calls(HostPhase p) { return host_times().calls[static_cast<size_t>(p)]; }

struct TimingOn {
  TimingOn() {
    reset_host_times();
    set_host_timing(true);
  }
  ~TimingOn() { set_host_timing(false); }
};

TEST(HostTimes, OffByDefaultAndCountsNothingWhileOff) {
  EXPECT_FALSE(host_timing());
  reset_host_times();
  { const HostTimer t(HostPhase::Record); spin(std::chrono::microseconds(200)); }
  count_host_realize();
  EXPECT_EQ(calls(HostPhase::Record), 0u);
  EXPECT_EQ(secs(HostPhase::Record), 0.0);
  EXPECT_EQ(host_times().realizes, 0u);
}

TEST(HostTimes, ANestedPhasePausesTheOuterOne) {
  const TimingOn on;
  const auto t0 = Clock::now();
  {
    const HostTimer outer(HostPhase::BackwardExport);
    spin(std::chrono::microseconds(300));
    {
      const HostTimer inner(HostPhase::Launch);
      spin(std::chrono::microseconds(2000));
    }
    spin(std::chrono::microseconds(300));
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(calls(HostPhase::BackwardExport), 1u);
  EXPECT_EQ(calls(HostPhase::Launch), 1u);
  EXPECT_GE(secs(HostPhase::Launch), 2000e-6);
  EXPECT_GE(secs(HostPhase::BackwardExport), 600e-6);
  // Exclusive: the inner phase is not also counted in the outer one, so together they fit the wall
  // (counted twice, the inner phase's 2000 us would put the sum past it). Both lower bounds hold
  // by construction (each spin waits until the clock has moved on that far), however the threads
  // are scheduled; nothing compares one measured duration with another.
  EXPECT_LE(secs(HostPhase::BackwardExport) + secs(HostPhase::Launch), wall);
}

TEST(HostTimes, RealizesAreCountedAndResetClearsEverything) {
  const TimingOn on;
  count_host_realize();
  count_host_realize();
  { const HostTimer t(HostPhase::Signature); }
  EXPECT_EQ(host_times().realizes, 2u);
  EXPECT_EQ(calls(HostPhase::Signature), 1u);
  reset_host_times();
  EXPECT_EQ(host_times().realizes, 0u);
  EXPECT_EQ(calls(HostPhase::Signature), 0u);
}

TEST(HostTimes, EachThreadHasItsOwnSwitchAndTotals) {
  const TimingOn on;
  std::thread other([] {
    EXPECT_FALSE(host_timing());
    const HostTimer t(HostPhase::Record);
    spin(std::chrono::microseconds(100));
  });
  other.join();
  EXPECT_EQ(calls(HostPhase::Record), 0u);
}

TEST(HostTimes, SwitchingOffInsideAScopeAddsNothingMore) {
  const TimingOn on;
  {
    const HostTimer t(HostPhase::Bind);
    set_host_timing(false);
    spin(std::chrono::microseconds(100));
  }
  EXPECT_EQ(calls(HostPhase::Bind), 1u);
  EXPECT_EQ(secs(HostPhase::Bind), 0.0);
}

TEST(HostTimes, EveryPhaseHasAName) {
  for (int i = 0; i < kHostPhases; ++i) EXPECT_STRNE(host_phase_name(static_cast<HostPhase>(i)), "?");
}

}  // namespace
}  // namespace glassgrad
