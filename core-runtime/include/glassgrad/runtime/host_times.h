// Where a training step's host time goes (glassgrad.debug.host_time_breakdown, docs/debugging.md
// "Where a step's host time goes"). Each phase is timed exclusively: a phase that starts inside
// another (a realize inside backward(), a copy inside a realize) pauses the outer one, so the
// phases never count the same nanosecond twice and their sum is at most the wall time.
//
// Off by default; while off a timer costs one load and branch. Per thread, like gradient mode:
// the phases of a data-loading thread never land in the training thread's figures.
#pragma once
#include <array>
#include <cstdint>

namespace glassgrad {

enum class HostPhase : uint8_t {
  Record,          // lazy::record: a node's checks and shape rule, its lazy values
  BackwardExport,  // backward(): the graph the loss needs, handed to the differentiator
  Differentiate,   // backward(): the gradient rules emitting the backward nodes
  BackwardImport,  // backward(): the backward nodes handed back to the tracer
  Export,          // realize: the pending graph collected for the plan cache
  Signature,       // realize: the cache key of the pending graph
  PlanLookup,      // realize: the plan cache's lookup
  Compile,         // realize: compiling a plan on a cache miss
  Bind,            // realize: leaves' buffers bound to the plan's inputs, arena and outputs
  Launch,          // running the plan's kernels (on a CPU the kernels' work; on a GPU their launches)
  Settle,          // after a run: results handed to their values, in-place updates settled
  Transfer,        // data copied between NumPy and glassgrad, or between devices
};
constexpr int kHostPhases = 12;
const char* host_phase_name(HostPhase p);

struct HostTimes {
  std::array<double, kHostPhases> seconds{};
  std::array<uint64_t, kHostPhases> calls{};
  uint64_t realizes = 0;  // outermost realizes that ran a plan (a plain loop's step runs one)
};

// This thread's switch and totals.
bool host_timing();
void set_host_timing(bool on);
HostTimes host_times();
void reset_host_times();
void count_host_realize();  // a realize that ran a plan, counted while timing is on

// Times the scope as `phase`, pausing the phase that was running (exclusive times).
class HostTimer {
 public:
  explicit HostTimer(HostPhase phase) {
    if (host_timing()) start(phase);
  }
  ~HostTimer() {
    if (active_) stop();
  }
  HostTimer(const HostTimer&) = delete;
  HostTimer& operator=(const HostTimer&) = delete;

 private:
  void start(HostPhase phase);
  void stop();
  bool active_ = false;
  HostPhase phase_ = HostPhase::Record;
  int outer_ = -1;  // the phase this timer paused, or -1
};

}  // namespace glassgrad
