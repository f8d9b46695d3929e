// The state of one executor's whole-step CUDA graph (executor_graph.cpp describes its life).
#pragma once
#include <map>
#include <memory>
#include <vector>

#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/executor.h"

namespace glassgrad {

// Every buffer of the plan on one CUDA device whose driver has graphs.
inline bool graph_capturable(const Plan& p) {
  bool one_cuda = !p.slots.empty() && !p.steps.empty();
  for (const auto& s : p.slots) one_cuda = one_cuda && s.info.device.is_cuda() && s.info.device == p.slots[0].info.device;
  return one_cuda && cuda::graphs_supported(p.slots[0].info.device.index);
}

struct Executor::GraphState {
  int device = 0;
  bool failed = false;
  int warm = 0;                    // step-by-step runs so far (two before capturing)
  std::vector<const void*> last;   // input addresses of the last warm run
  std::vector<char> stable;        // input keeps its address: bound directly
  std::vector<char> written;       // input updated in place by the plan: must be stable
  std::vector<char> persistent;    // a Parameter or State input (plan.h): bound directly while it keeps its address
  std::vector<Tensor> staging;     // graph-owned buffers of the moving inputs
  std::map<int, Tensor> outputs;   // graph-owned output buffers (slot id -> tensor)
  std::vector<Tensor> slots;       // the slot tensors the graph was captured with
  const void* arena = nullptr;
  void* exec = nullptr;            // the graph of the plan's steps (after `split` when there is a prefix)
  void* prefix = nullptr;          // steps [0, split] when captured in two parts for early host reads
  int split = -1;                  // the last step of `prefix`; -1: one graph
  int replays = 0;
  int captures = 0;                // successful captures (1 + recaptures)
  Tensor error_word;
  std::vector<std::shared_ptr<Storage>> retained;  // temporaries the captured kernels use
  std::vector<std::weak_ptr<Storage>> lent;        // outputs of the last replay viewing `outputs`

  // Before anything can write the graph's output buffers again (the next run of the plan): every
  // output lent by the last replay that is still alive gets memory of its own; the dead cost nothing.
  void claim_lent() {
    for (auto& w : lent) {
      if (auto s = w.lock()) s->claim();
    }
    lent.clear();
  }

  ~GraphState() {
    drop_graphs();
    if (error_word.defined()) cuda::unregister_error_word(error_word.data_ptr());
  }

  // A graph state for a capturable plan, else null.
  static std::unique_ptr<GraphState> make_if_capturable(const Plan& p) {
    if (!graph_capturable(p)) return nullptr;
    auto g = std::make_unique<GraphState>();
    g->device = p.slots[0].info.device.index;
    g->written.assign(p.input_slots.size(), 0);
    g->persistent.assign(p.input_slots.size(), 0);
    for (size_t k = 0; k < p.input_kinds.size() && k < p.input_slots.size(); ++k) {
      g->persistent[k] = p.input_kinds[k] == ValueKind::Parameter || p.input_kinds[k] == ValueKind::State;
    }
    for (const auto& st : p.steps) {
      for (int o : st.outputs) {
        const int root = p.root_slot(o);
        for (size_t k = 0; k < p.input_slots.size(); ++k) {
          if (p.input_slots[k] == root) g->written[k] = 1;
        }
      }
    }
    return g;
  }

  void drop_graphs() {
    cuda::destroy_graph(exec);
    cuda::destroy_graph(prefix);
    exec = prefix = nullptr;
    split = -1;
  }

  // Read-only data inputs (ValueKind::Input) up to this size are always copied into staging:
  // such a tensor is usually new every step, but the allocator may hand two warm-up runs the
  // same address, which would bind it directly and cost a recapture when it moves. Parameters
  // and state (an optimizer's learning-rate tensor, filled in place when it changes) keep
  // their address, so they are bound directly whatever their size: SimpleCNN's step copied its
  // learning rate every replay (about 0.8 us of a 120 us step on a GPU machine).
  static constexpr size_t kAlwaysStagedBytes = size_t{1} << 20;

  // Recapture: the graph recorded addresses that no longer hold. The arena grew or an input
  // updated in place moved: warm up again. A read-only input bound directly moved: it is staged
  // from now on and the graph is captured again at once, so each input costs one recapture at most.
  void drop_if_moved(const Plan& p, const std::vector<Tensor>& inputs, const void* arena_ptr) {
    if (!exec) return;
    bool rewarm = arena_ptr != arena, restage = false;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (!stable[k] || inputs[k].data_ptr() == slots[static_cast<size_t>(p.input_slots[k])].data_ptr()) continue;
      if (written[k]) {
        rewarm = true;
      } else {
        stable[k] = 0;
        restage = true;
      }
    }
    if (!rewarm && !restage) return;
    drop_graphs();
    if (rewarm) warm = 0;
    retained.clear();
  }

  // Warm up: true while runs should still go step by step (recording input addresses). An input
  // is bound directly when it kept its address and is updated in place, a parameter or state, or
  // too large to copy cheaply; every other input goes through staging.
  bool warming(const std::vector<Tensor>& inputs) {
    if (warm >= 2) return false;
    std::vector<const void*> now;
    for (const auto& x : inputs) now.push_back(x.data_ptr());
    if (warm == 1) {
      stable.assign(inputs.size(), 0);
      for (size_t k = 0; k < inputs.size(); ++k) {
        stable[k] = now[k] == last[k] && (written[k] || persistent[k] || inputs[k].nbytes() > kAlwaysStagedBytes);
      }
    }
    last = now;
    ++warm;
    return true;
  }

  // An input updated in place must keep its address, or the graph would update a stale copy.
  bool moving_inplace_target() const {
    for (size_t k = 0; k < written.size(); ++k) {
      if (written[k] && !stable[k]) return true;
    }
    return false;
  }
};

}  // namespace glassgrad
