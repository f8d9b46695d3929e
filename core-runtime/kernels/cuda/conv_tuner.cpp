// The convolutions' plan-time autotuner (conv.h): the first time a shape is planned on a device,
// every candidate runs on scratch buffers of normal float values (a warm-up run, then timed runs back to
// back with CUDA events between them: every candidate once, those within 1.5x of the fastest
// twice, the closest few again in batches of runs) and the fastest is cached under the shape, dtype,
// device, multiprocessor count and forced algorithm. Later plans, steps and graph replays read
// the cache: a replayed step pays nothing. Timing is skipped (the heuristic is used) for
// problems that take under 0.02 us at the device's peak, while a graph is being captured,
// without driver events, or when scratch memory cannot be had. The scratch buffers are one
// allocation straight from the driver, outside the accounted allocator, freed before the plan
// continues. The note of each choice (conv_choices()) ends with the host time the tuning took.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>

#include "conv_algorithms.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/settings.h"

namespace glassgrad {
namespace cuda {
namespace conv {

namespace {

struct Entry {
  Choice choice;
  std::string what;  // the problem, for cached_choices()
  std::string note;  // how it was chosen
};

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, Entry>& cache() {
  static std::map<std::string, Entry> c;
  return c;
}

const char* op_name(Op op) {
  return op == Op::Forward ? "Conv2D" : op == Op::BackwardInput ? "Conv2DBackwardInput" : "Conv2DBackwardWeight";
}

std::string describe_problem(const Problem& p, int64_t sms) {
  const GGConv& g = p.g;
  std::ostringstream o;
  o << op_name(p.op) << " x [" << g.N << ", " << g.C << ", " << g.H << ", " << g.W << "] w [" << g.K << ", " << g.C
    << ", " << g.R << ", " << g.S << "] y [" << g.N << ", " << g.K << ", " << g.OH << ", " << g.OW << "] stride "
    << g.sh << "x" << g.sw << " pad " << g.pt << "," << g.pl;
  if (grouped_or_dilated(p)) o << " groups " << g.G << " dilation " << g.dh << "x" << g.dw;
  o << " " << dtype_name(p.dt) << " cuda:" << p.device
    << " (" << sms << " SMs)";
  return o.str();
}

// The choice depends on the forced algorithm and on the settings that narrow the candidates
// (conv_fast_winograd, deterministic), so each is part of the key.
std::string key(const Problem& p, int64_t sms) {
  return describe_problem(p, sms) + " algo " + conv_algo() + (conv_fast_winograd() ? " fast-winograd" : "") +
         (deterministic() || deterministic_algorithms() ? " deterministic" : "");
}

// Problems that would take under 0.02 us at the device's FP32 peak (128 lanes a multiprocessor
// at about 1.5 GHz; about 1 MFLOP on 132 SMs) are not timed: launch latency is all of their
// time, and timing them would cost more than it could save. The others are timed even when
// small: SimpleCNN's first layer (6 MFLOP, 0.12 us at a large GPU's peak) took 14 us for its
// weight gradient on the heuristic's split-k tile, and its second layer gains from a choice
// without split-k (one launch instead of two); no rule predicts either.
constexpr double kMinTunedSeconds = 0.02e-6;

// time_candidates' rounds: the candidates within kSecondRunMargin of the fastest single run
// run a second time; up to kMaxFinalists within kFinalistMargin of the fastest are then timed
// in batches of back-to-back runs spanning about kTimedSpanMs (at most kMaxReps runs: a 10 us
// kernel is timed over 5 runs).
constexpr float kSecondRunMargin = 1.5f;
constexpr size_t kMaxFinalists = 4;
constexpr float kFinalistMargin = 1.3f;
constexpr float kTimedSpanMs = 0.05f;
constexpr int kMaxReps = 8;

bool worth_timing(const Problem& p, int64_t sms) {
  const GGConv& g = p.g;
  const double flops = 2.0 * g.N * g.K * g.C * g.OH * g.OW * g.R * g.S;
  return flops / (double(std::max<int64_t>(1, sms)) * 128 * 2 * 1.5e9) >= kMinTunedSeconds;
}

// A driver allocation freed on scope exit.
struct Scratch {
  CUdeviceptr ptr = 0;
  ~Scratch() {
    if (ptr) api().cuMemFree(ptr);
  }
  bool alloc(size_t bytes) { return api().cuMemAlloc(&ptr, std::max<size_t>(bytes, 16)) == CUDA_SUCCESS; }
  void* get() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr)); }
};

// Driver events destroyed on scope exit.
struct Events {
  std::vector<CUevent> e;
  ~Events() {
    for (CUevent x : e) api().cuEventDestroy(x);
  }
};

// The scratch buffers' contents: every byte 0x3F, so each float32 is 0.747 and each float64
// 4.8e-4 (normal numbers: no NaN or denormal slows a candidate down; FP32/FP64 arithmetic takes
// the same time whatever the values). One memset a buffer on the device: filling them with host
// random values cost about a millisecond a problem (the values, then the upload).
constexpr unsigned char kScratchByte = 0x3F;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Times every candidate; returns the index of the fastest, or 0 when timing fails. `note`
// lists the times.
size_t time_candidates(DeviceState& s, const Problem& p, const std::vector<Choice>& cands, std::string& note) {
  const GGConv& g = p.g;
  const int64_t nx = g.N * g.C * g.H * g.W, nw = g.K * g.C * g.R * g.S, ny = g.N * g.K * g.OH * g.OW;
  int64_t n_out = ny, n_a0 = nx, n_a1 = nw;
  if (p.op == Op::BackwardInput) n_out = nx, n_a0 = ny, n_a1 = nw;
  if (p.op == Op::BackwardWeight) n_out = nw, n_a0 = nx, n_a1 = ny;
  size_t ws_bytes = 0;
  for (const Choice& c : cands) ws_bytes = std::max(ws_bytes, workspace_bytes(p, c));
  const size_t item = dtype_size(p.dt);
  const Clock::time_point t0 = Clock::now();
  make_current(s);
  // One driver allocation holds the five buffers (output, the two operands, bias, workspace),
  // each at a 256-byte boundary: a cuMemFree synchronizes the device, so one, not five.
  const auto round_up = [](size_t b) { return (std::max<size_t>(b, 16) + 255) / 256 * 256; };
  const size_t sizes[5] = {round_up(n_out * item), round_up(n_a0 * item), round_up(n_a1 * item), round_up(g.K * item),
                           round_up(ws_bytes)};
  Scratch all;
  if (!all.alloc(sizes[0] + sizes[1] + sizes[2] + sizes[3] + sizes[4])) {
    note = "not timed: no scratch memory";
    return 0;
  }
  void* part[5];
  for (size_t i = 0, off = 0; i < 5; off += sizes[i], ++i) part[i] = static_cast<char*>(all.get()) + off;
  const CUstream st = s.stream;
  Events ev;
  std::vector<float> best(cands.size(), std::numeric_limits<float>::infinity());
  std::vector<float> batched;  // the finalists' batched times (infinite for the others); empty: none
  int batch_reps = 0;
  double setup_ms = 0, first_ms = 0;
  try {
    check(api().cuMemsetD8Async(all.ptr, kScratchByte, sizes[0] + sizes[1] + sizes[2] + sizes[3], st), "autotuner fill");
    ev.e.assign(cands.size() + 1, nullptr);
    for (CUevent& x : ev.e) check(api().cuEventCreate(&x, 0), "cuEventCreate");
    const LaunchSite site{"convolution autotuner", nullptr, nullptr};
    const Buffers b{part[0], part[1], part[2], p.has_bias ? part[3] : nullptr, part[4], ws_bytes};
    // A round runs the listed candidates back to back, `reps` runs each, with an event between
    // each two, and synchronizes once: the device stays busy, so each interval is the
    // candidate's device time (as its launches follow each other in a step's graph), not the
    // host's launch latency, and the tuning costs one host round trip a round. `into` keeps
    // the best time a run.
    const auto round = [&](const std::vector<size_t>& which, int reps, std::vector<float>& into) {
      check(api().cuEventRecord(ev.e[0], st), "cuEventRecord");
      for (size_t k = 0; k < which.size(); ++k) {
        for (int r = 0; r < reps; ++r) execute(s, st, site, p, cands[which[k]], b);
        check(api().cuEventRecord(ev.e[k + 1], st), "cuEventRecord");
      }
      check(api().cuEventSynchronize(ev.e[which.size()]), "cuEventSynchronize");
      for (size_t k = 0; k < which.size(); ++k) {
        float ms = 0;
        check(api().cuEventElapsedTime(&ms, ev.e[k], ev.e[k + 1]), "cuEventElapsedTime");
        into[which[k]] = std::min(into[which[k]], ms / static_cast<float>(reps));
      }
    };
    // The candidates within `margin` of the fastest by `t`, fastest first, at most `at_most`.
    const auto within = [&](const std::vector<float>& t, float margin, size_t at_most) {
      std::vector<size_t> order(cands.size());
      std::iota(order.begin(), order.end(), size_t(0));
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return t[x] < t[y]; });
      std::vector<size_t> out;
      for (size_t i : order)
        if (out.size() < at_most && t[i] <= t[order[0]] * margin) out.push_back(i);
      return out;
    };
    // Every candidate once, then a second time those that could still win. (Timing the warm-up
    // itself to drop the slow candidates sooner is unsound: a candidate's first launch of a
    // kernel waits for the host to load it, while the device idles inside its interval.)
    setup_ms = ms_since(t0);
    const Clock::time_point t1 = Clock::now();
    for (const Choice& c : cands) execute(s, st, site, p, c, b);  // warm-up (loads the kernels)
    check(api().cuStreamSynchronize(st), "cuStreamSynchronize");
    first_ms = ms_since(t1);
    std::vector<size_t> all(cands.size());
    std::iota(all.begin(), all.end(), size_t(0));
    round(all, 1, best);
    round(within(best, kSecondRunMargin, cands.size()), 1, best);
    // Final: single runs of a few microseconds can still swap two close candidates (a 32x128
    // tile picked over a 32x64 one that ran 3 us faster in a SimpleCNN step). The finalists,
    // those within kFinalistMargin of the fastest, are timed again in batches of back-to-back
    // runs spanning about kTimedSpanMs (at most kMaxReps runs), the best of two batches, and
    // these times decide.
    const std::vector<size_t> finalists = within(best, kFinalistMargin, kMaxFinalists);
    if (finalists.size() > 1) {
      const int reps = static_cast<int>(std::clamp(std::ceil(kTimedSpanMs / std::max(best[finalists[0]], 1e-4f)), 1.0f,
                                                   static_cast<float>(kMaxReps)));
      batched.assign(cands.size(), std::numeric_limits<float>::infinity());
      for (int r = 0; r < 2; ++r) round(finalists, reps, batched);
      batch_reps = reps;
    }
  } catch (const std::exception& e) {
    api().cuStreamSynchronize(st);
    note = std::string("not timed: ") + e.what();
    return 0;
  }
  const std::vector<float>& decide = batched.empty() ? best : batched;
  size_t pick = 0;
  std::ostringstream o;
  o << "timed:";
  for (size_t i = 0; i < cands.size(); ++i) {
    if (decide[i] < decide[pick]) pick = i;
    o << (i ? ";" : "") << " " << cands[i].describe() << " " << best[i] << " ms";
    if (!batched.empty() && batched[i] != std::numeric_limits<float>::infinity())
      o << " (finalist: " << batched[i] << " ms a run in batches of " << batch_reps << ")";
  }
  // How long the tuning took on the host, by phase: scratch set-up, the warm-up runs (whose
  // first launch of each kernel loads it), the timed rounds.
  const double total_ms = ms_since(t0);
  o << "; tuned in " << total_ms << " ms (set-up " << setup_ms << ", first runs " << first_ms << ", timing "
    << (total_ms - setup_ms - first_ms) << ")";
  note = o.str();
  return pick;
}

}  // namespace

Choice choose(const Problem& p, bool tune) {
  DeviceState& s = state(p.device);
  const int64_t sms = s.info.multiprocessors;
  if (generic_only(p)) return heuristic(p, sms);  // the generic kernels: nothing to choose
  const std::string k = key(p, sms);
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = cache().find(k);
    if (it != cache().end()) return it->second.choice;
  }
  if (!tune) return heuristic(p, sms);
  const std::vector<Choice> cands = candidates(p, sms);
  Entry e{cands[0], describe_problem(p, sms), "heuristic (one candidate)"};
  if (cands.size() > 1) {
    if (!conv_autotune_enabled()) e.note = "heuristic (GLASSGRAD_CONV_AUTOTUNE=0)";
    else if (deterministic() || deterministic_algorithms())
      e.note = "heuristic (deterministic: a timed choice could differ between runs)";
    else if (!worth_timing(p, sms)) e.note = "heuristic (under 0.02 us at peak: not timed)";
    else if (capturing()) e.note = "heuristic (planned while a CUDA graph was being captured)";
    else if (!api().cuEventCreate) e.note = "heuristic (the driver has no events)";
    else e.choice = cands[time_candidates(s, p, cands, e.note)];
  }
  std::lock_guard<std::mutex> lock(cache_mutex());
  return cache().emplace(k, e).first->second.choice;
}

std::vector<std::string> cached_choices() {
  std::lock_guard<std::mutex> lock(cache_mutex());
  std::vector<std::string> out;
  for (const auto& kv : cache()) out.push_back(kv.second.what + ": " + kv.second.choice.describe() + " [" + kv.second.note + "]");
  return out;
}

void clear_cache() {
  std::lock_guard<std::mutex> lock(cache_mutex());
  cache().clear();
}

}  // namespace conv

std::vector<std::string> conv_choices() { return conv::cached_choices(); }
void clear_conv_choices() { conv::clear_cache(); }

}  // namespace cuda
}  // namespace glassgrad
