// Exclusive per-phase host timing (glassgrad/runtime/host_times.h).
#include "glassgrad/runtime/host_times.h"

#include <chrono>

namespace glassgrad {

namespace {
using Clock = std::chrono::steady_clock;

struct ThreadTimes {
  bool on = false;
  HostTimes totals;
  int running = -1;              // the phase being timed now, or -1
  Clock::time_point since;       // when `running` last started or resumed
};
thread_local ThreadTimes t_times;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

const char* host_phase_name(HostPhase p) {
  switch (p) {
    case HostPhase::Record: return "record";
    case HostPhase::BackwardExport: return "backward_export";
    case HostPhase::Differentiate: return "differentiate";
    case HostPhase::BackwardImport: return "backward_import";
    case HostPhase::Export: return "export";
    case HostPhase::Signature: return "signature";
    case HostPhase::PlanLookup: return "plan_lookup";
    case HostPhase::Compile: return "compile";
    case HostPhase::Bind: return "bind";
    case HostPhase::Launch: return "launch";
    case HostPhase::Settle: return "settle";
    case HostPhase::Transfer: return "transfer";
  }
  return "?";
}

bool host_timing() { return t_times.on; }

void set_host_timing(bool on) {
  t_times.on = on;
  t_times.running = -1;
}

HostTimes host_times() { return t_times.totals; }

void reset_host_times() { t_times.totals = HostTimes{}; }

void count_host_realize() {
  if (t_times.on) ++t_times.totals.realizes;
}

void HostTimer::start(HostPhase phase) {
  ThreadTimes& t = t_times;
  const Clock::time_point now = Clock::now();
  outer_ = t.running;
  if (outer_ >= 0) t.totals.seconds[static_cast<size_t>(outer_)] += seconds_between(t.since, now);
  phase_ = phase;
  t.running = static_cast<int>(phase);
  t.since = now;
  ++t.totals.calls[static_cast<size_t>(phase)];
  active_ = true;
}

void HostTimer::stop() {
  ThreadTimes& t = t_times;
  if (!t.on) return;  // switched off inside the scope (set_host_timing reset what was running)
  const Clock::time_point now = Clock::now();
  if (t.running == static_cast<int>(phase_)) t.totals.seconds[static_cast<size_t>(phase_)] += seconds_between(t.since, now);
  t.running = outer_;
  t.since = now;
}

}  // namespace glassgrad
