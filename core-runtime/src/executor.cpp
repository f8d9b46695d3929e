#include "glassgrad/runtime/executor.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <limits>
#include <map>
#include <mutex>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/debug.h"
#include "glassgrad/runtime/device_hooks.h"

namespace glassgrad {

namespace {
std::shared_ptr<const StepObserver>& observer_slot() {
  static auto* o = new std::shared_ptr<const StepObserver>();
  return *o;
}

std::vector<TensorInfo> slot_infos(const Plan& p, const std::vector<int>& slots) {
  std::vector<TensorInfo> v;
  v.reserve(slots.size());
  for (int s : slots) v.push_back(p.slots[static_cast<size_t>(s)].info);
  return v;
}

// Whether two tensors share any byte (same storage, overlapping element ranges).
bool overlaps(const Tensor& a, const Tensor& b) {
  if (a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0) return false;
  auto range = [](const Tensor& t) {
    int64_t last = t.offset();
    for (int d = 0; d < t.rank(); ++d) last += (t.shape()[static_cast<size_t>(d)] - 1) * t.strides()[static_cast<size_t>(d)];
    const int64_t item = static_cast<int64_t>(t.itemsize());
    return std::make_pair(t.offset() * item, (last + 1) * item);
  };
  const auto ra = range(a), rb = range(b);
  return ra.first < rb.second && rb.first < ra.second;
}

void poison(const Tensor& t) {
  if (t.dtype() == DType::Float32 || t.dtype() == DType::Float64) {
    fill_tensor(t, std::numeric_limits<double>::quiet_NaN());
  } else if (t.device().is_cpu()) {
    std::memset(t.data_ptr(), 0xFF, t.nbytes());
  }
}
}  // namespace

void set_step_observer(StepObserver observer) {
  observer_slot() = observer ? std::make_shared<const StepObserver>(std::move(observer)) : nullptr;
}

WorkspaceFn Executor::workspace_fn() {
  return [](const Graph& g, const Node& n) -> size_t {
    std::vector<TensorInfo> in, out;
    for (ValueId v : n.inputs) in.push_back(g.value(v).info);
    for (ValueId v : n.outputs) out.push_back(g.value(v).info);
    const Device dev = out.empty() ? in.at(0).device : out[0].device;
    const KernelEntry* k = KernelRegistry::instance().find(n.op(), dev.type, dispatch_dtype(*n.schema, in, out));
    return (k && k->workspace) ? k->workspace(in, out, n.attrs) : 0;
  };
}

struct Executor::GraphState {
  int device = 0;
  bool failed = false;
  int warm = 0;                    // step-by-step runs so far (two before capturing)
  std::vector<const void*> last;   // input addresses of the last warm run
  std::vector<char> stable;        // input keeps its address: bound directly
  std::vector<char> written;       // input updated in place by the plan: must be stable
  std::vector<Tensor> staging;     // graph-owned buffers of the moving inputs
  std::map<int, Tensor> outputs;   // graph-owned output buffers (slot id -> tensor)
  std::vector<Tensor> slots;       // the slot tensors the graph was captured with
  const void* arena = nullptr;
  void* exec = nullptr;
  int replays = 0;
  Tensor error_word;
  std::vector<std::shared_ptr<Storage>> retained;  // temporaries the captured kernels use
  ~GraphState() {
    cuda::destroy_graph(exec);
    if (error_word.defined()) cuda::unregister_error_word(error_word.data_ptr());
  }
};

Executor::Executor(std::shared_ptr<const Plan> plan, ExecutorOptions opts)
    : plan_(std::move(plan)), opts_(opts) {
  // Graph-capable: every buffer on one CUDA device whose driver supports graphs.
  bool one_cuda = !plan_->slots.empty();
  for (const auto& s : plan_->slots) one_cuda = one_cuda && s.info.device.is_cuda() && s.info.device == plan_->slots[0].info.device;
  if (one_cuda && !plan_->steps.empty() && cuda::graphs_supported(plan_->slots[0].info.device.index)) {
    graph_ = std::make_unique<GraphState>();
    graph_->device = plan_->slots[0].info.device.index;
    graph_->written.assign(plan_->input_slots.size(), 0);
    for (const auto& st : plan_->steps) {
      for (int o : st.outputs) {
        const int root = plan_->root_slot(o);
        for (size_t k = 0; k < plan_->input_slots.size(); ++k) {
          if (plan_->input_slots[k] == root) graph_->written[k] = 1;
        }
      }
    }
  }
  for (const PlanStep& st : plan_->steps) {
    const auto in = slot_infos(*plan_, st.inputs);
    const auto out = slot_infos(*plan_, st.outputs);
    const Device dev = out.empty() ? in.at(0).device : out[0].device;
    kernels_.push_back(&KernelRegistry::instance().at(st.op(), dev.type, dispatch_dtype(*st.schema, in, out), st.meta));
  }
  slot_names_ = debug::buffer_labels(*plan_);
}

std::vector<Tensor> Executor::bind(const std::vector<Tensor>& inputs, const std::map<int, Tensor>& outputs) {
  const Plan& p = *plan_;
  std::map<Device, Tensor> arena;
  for (const auto& kv : p.arena_bytes) {
    if (kv.second > 0) arena[kv.first] = arena_for(kv.first, kv.second);
  }
  std::vector<Tensor> t(p.slots.size());
  for (size_t k = 0; k < inputs.size(); ++k) t[static_cast<size_t>(p.input_slots[k])] = inputs[k];
  for (const BufferSlot& s : p.slots) {
    const size_t id = static_cast<size_t>(s.id);
    switch (s.kind) {
      case SlotKind::Input:
        break;
      case SlotKind::Output: {
        auto it = outputs.find(s.id);
        t[id] = it != outputs.end() ? it->second : Tensor::empty(s.info.shape, s.info.dtype, s.info.device, slot_names_[id]);
        break;
      }
      case SlotKind::Arena:
      case SlotKind::Workspace: {
        const Tensor& a = arena.at(s.info.device);
        const int64_t item = static_cast<int64_t>(dtype_size(s.info.dtype));
        t[id] = Tensor::from_storage(a.storage(), s.info.shape, contiguous_strides(s.info.shape),
                                     static_cast<int64_t>(s.offset) / item, s.info.dtype);
        break;
      }
      case SlotKind::View: {
        const Tensor& b = t[static_cast<size_t>(s.base)];
        t[id] = Tensor::from_storage(b.storage(), s.info.shape, s.strides, b.offset() + s.view_offset, s.info.dtype);
        break;
      }
    }
  }
  return t;
}

void Executor::execute(std::vector<Tensor>& t, bool poison_now, void* error_word) {
  const Plan& p = *plan_;
  std::vector<std::vector<int>> dies_after;
  if (poison_now) {
    dies_after.resize(p.steps.size());
    for (const BufferSlot& s : p.slots) {
      if ((s.kind == SlotKind::Arena || s.kind == SlotKind::Workspace) && s.last_step >= 0 &&
          static_cast<size_t>(s.last_step) < p.steps.size()) {
        dies_after[static_cast<size_t>(s.last_step)].push_back(s.id);
      }
    }
  }
  // Held for the whole run: an observer may replace itself (e.g. a hook removed in its callback).
  const std::shared_ptr<const StepObserver> observer = observer_slot();
  std::vector<Tensor> in, out, observed_in;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const PlanStep& st = p.steps[i];
    in.clear();
    out.clear();
    for (int s : st.inputs) in.push_back(t[static_cast<size_t>(s)]);
    for (int s : st.outputs) out.push_back(t[static_cast<size_t>(s)]);
    void* ws = nullptr;
    size_t ws_bytes = 0;
    if (st.workspace >= 0) {
      ws = t[static_cast<size_t>(st.workspace)].data_ptr();
      ws_bytes = p.slots[static_cast<size_t>(st.workspace)].bytes;
    }
    if (observer) {
      observed_in = in;
      for (Tensor& x : observed_in) {
        for (const Tensor& y : out) {
          if (overlaps(x, y)) {
            x = x.clone();
            break;
          }
        }
      }
    }
    KernelContext ctx{in, out, st.attrs, st.meta, ws, ws_bytes, nullptr, error_word};
    kernels_[i]->fn(ctx);
    if (observer) (*observer)(i, p, st, observed_in, out);
    if (poison_now) {
      for (int s : dies_after[i]) poison(t[static_cast<size_t>(s)]);
    }
  }
}

std::vector<Tensor> Executor::run_steps(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> t = bind(inputs, {});
  execute(t, opts_.poison_freed || poison_freed(), nullptr);
  std::vector<Tensor> results;
  results.reserve(plan_->output_slots.size());
  for (int s : plan_->output_slots) results.push_back(t[static_cast<size_t>(s)]);
  return results;
}

std::vector<Tensor> Executor::run(const std::vector<Tensor>& raw_inputs, const std::vector<char>* wanted) {
  const Plan& p = *plan_;
  if (raw_inputs.size() != p.input_slots.size()) {
    throw InternalError("Executor::run: got " + std::to_string(raw_inputs.size()) + " inputs, the plan has " +
                        std::to_string(p.input_slots.size()));
  }
  std::vector<Tensor> inputs;
  inputs.reserve(raw_inputs.size());
  for (size_t k = 0; k < raw_inputs.size(); ++k) {
    const BufferSlot& s = p.slots[static_cast<size_t>(p.input_slots[k])];
    const Tensor& x = raw_inputs[k];
    if (x.shape() != s.info.shape || x.dtype() != s.info.dtype || x.device() != s.info.device) {
      throw ValueError(ErrorMessage("plan input " + std::to_string(k) + (s.name.empty() ? "" : " '" + s.name + "'") +
                                    " was planned as " + s.info.str() + " but got " + x.info().str())
                           .str());
    }
    inputs.push_back(x.is_contiguous() ? x : x.contiguous());
  }
  debug::check_memory_limit(p);  // an over-limit plan fails here, before anything runs
  // An observer (anomaly mode, hooks) must see every step: no graph replay while one is set.
  const bool observed = static_cast<bool>(observer_slot());
  if (graph_ && !(opts_.poison_freed || poison_freed()) && cuda_graphs_enabled() && !observed) {
    return run_graph(inputs, wanted);
  }
  return run_steps(inputs);
}

// ---- whole-step CUDA graphs ----

Executor::~Executor() = default;

bool Executor::graph_captured() const { return graph_ && graph_->exec != nullptr; }
int Executor::graph_replays() const { return graph_ ? graph_->replays : 0; }

std::vector<Tensor> Executor::run_graph(const std::vector<Tensor>& inputs, const std::vector<char>* wanted) {
  GraphState& G = *graph_;
  const Plan& p = *plan_;
  if (G.failed) return run_steps(inputs);
  const Device dev = Device::cuda(G.device);
  const Tensor arena = p.arena_bytes.count(dev) && p.arena_bytes.at(dev) > 0 ? arena_for(dev, p.arena_bytes.at(dev)) : Tensor();
  const void* arena_ptr = arena.defined() ? arena.data_ptr() : nullptr;
  if (G.exec) {
    bool same = arena_ptr == G.arena;
    for (size_t k = 0; same && k < inputs.size(); ++k) {
      if (G.stable[k]) same = inputs[k].data_ptr() == G.slots[static_cast<size_t>(p.input_slots[k])].data_ptr();
    }
    if (!same) {  // parameters moved or the arena grew: capture again after two plain runs
      cuda::destroy_graph(G.exec);
      G.exec = nullptr;
      G.warm = 0;
      G.retained.clear();
    }
  }
  if (!G.exec) {
    if (G.warm < 2) {
      std::vector<const void*> now;
      for (const auto& x : inputs) now.push_back(x.data_ptr());
      if (G.warm == 1) {
        G.stable.assign(inputs.size(), 0);
        for (size_t k = 0; k < inputs.size(); ++k) G.stable[k] = now[k] == G.last[k];
      }
      G.last = now;
      ++G.warm;
      return run_steps(inputs);
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (G.written[k] && !G.stable[k]) {  // an in-place target that moves: cannot capture
        G.failed = true;
        return run_steps(inputs);
      }
    }
    // Capture. Everything the graph reads or writes is allocated first: capturing records
    // addresses, so they must stay valid (and unshared) for the graph's life.
    G.staging.assign(inputs.size(), Tensor());
    std::vector<Tensor> bound = inputs;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (!G.stable[k]) {
        G.staging[k] = Tensor::empty(inputs[k].shape(), inputs[k].dtype(), dev, "graph input");
        bound[k] = G.staging[k];
      }
    }
    G.outputs.clear();
    for (const BufferSlot& s : p.slots) {
      if (s.kind == SlotKind::Output) G.outputs[s.id] = Tensor::empty(s.info.shape, s.info.dtype, dev, slot_names_[static_cast<size_t>(s.id)]);
    }
    if (!G.error_word.defined()) {
      G.error_word = Tensor::full({1}, -1.0, DType::Int64, dev, "graph error word");
      cuda::register_error_word(G.device, G.error_word.data_ptr(), "a captured plan");
    }
    G.slots = bind(bound, G.outputs);
    G.arena = arena_ptr;
    try {
      RetainScope keep(&G.retained);
      cuda::begin_capture(G.device);
      try {
        execute(G.slots, false, G.error_word.data_ptr());
      } catch (...) {
        cuda::abort_capture(G.device);
        throw;
      }
      G.exec = cuda::end_capture(G.device);
    } catch (const std::exception&) {
      G.failed = true;  // e.g. a kernel that cannot be captured: run step by step from now on
      G.exec = nullptr;
      return run_steps(inputs);
    }
  }
  // Replay: new data into the moving inputs' buffers, one launch, results copied out.
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!G.stable[k]) copy_tensor(G.staging[k], inputs[k]);
  }
  cuda::launch_graph(G.device, G.exec);
  ++G.replays;
  std::vector<Tensor> results;
  results.reserve(p.output_slots.size());
  for (size_t i = 0; i < p.output_slots.size(); ++i) {
    const int slot = p.output_slots[i];
    const int root = p.root_slot(slot);
    const Tensor& in_graph = G.slots[static_cast<size_t>(slot)];
    if (p.slots[static_cast<size_t>(root)].kind == SlotKind::Input) {
      results.push_back(in_graph);  // a view of a (stable) input, e.g. an updated parameter
    } else if (wanted && !(*wanted)[i]) {
      results.push_back(Tensor());
    } else {
      Tensor fresh = Tensor::empty(in_graph.shape(), in_graph.dtype(), dev, slot_names_[static_cast<size_t>(slot)]);
      copy_tensor(fresh, in_graph);
      results.push_back(fresh);
    }
  }
  return results;
}

}  // namespace glassgrad
