#include "glassgrad/runtime/executor.h"

#include <algorithm>
#include <chrono>
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
#include "glassgrad/runtime/host_times.h"
#include "glassgrad/runtime/settings.h"
#include "executor_graph.h"
#include "executor_reads.h"

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

// Runs of consecutive steps that one KernelEntry::batch call may execute: the same kernel
// entry (op, device type, dtype), on one device, and no step reading or writing a buffer that an
// earlier step of the run writes (compared by the slot owning the memory), so running them in
// any order, or all at once, gives what running them one by one gives. Returns batch_end_.
std::vector<size_t> batch_runs(const Plan& p, const std::vector<const KernelEntry*>& kernels) {
  const size_t n = p.steps.size();
  std::vector<size_t> end(n);
  auto device_of = [&](const PlanStep& st) {
    return p.slots[static_cast<size_t>(st.outputs.empty() ? st.inputs.at(0) : st.outputs[0])].info.device;
  };
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    if (kernels[i]->batch && p.steps[i].workspace < 0) {
      std::vector<int> written, read;  // root slots the run so far writes and reads
      auto in = [](const std::vector<int>& roots, int slot) {
        return std::find(roots.begin(), roots.end(), slot) != roots.end();
      };
      auto conflicts = [&](const PlanStep& st) {
        for (int s : st.inputs) {
          if (in(written, p.root_slot(s))) return true;
        }
        for (int s : st.outputs) {
          if (in(written, p.root_slot(s)) || in(read, p.root_slot(s))) return true;
        }
        return false;
      };
      auto add = [&](const PlanStep& st) {
        for (int s : st.inputs) read.push_back(p.root_slot(s));
        for (int s : st.outputs) written.push_back(p.root_slot(s));
      };
      add(p.steps[i]);
      const Device dev = device_of(p.steps[i]);
      while (j < n && kernels[j] == kernels[i] && device_of(p.steps[j]) == dev && p.steps[j].workspace < 0 &&
             !conflicts(p.steps[j])) {
        add(p.steps[j]);
        ++j;
      }
    }
    for (size_t k = i; k < j; ++k) end[k] = j;
    i = j;
  }
  return end;
}

void poison(const Tensor& t) {
  if (t.dtype() == DType::Float32 || t.dtype() == DType::Float64) {
    fill_tensor(t, std::numeric_limits<double>::quiet_NaN());
  } else if (t.device().is_cpu() && t.nbytes() > 0) {  // empty: no storage, and memset(nullptr) is undefined
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

namespace {

// The slot at the root of a chain of view slots (the slot itself when it is no view).
int root_slot(const Plan& p, int slot) {
  while (slot >= 0 && p.slots[static_cast<size_t>(slot)].kind == SlotKind::View) slot = p.slots[static_cast<size_t>(slot)].base;
  return slot;
}

// Executor::strided_input_ok_ (docs/architecture.md, "From Python to kernels": binding). CPU
// only: a CUDA plan's inputs may be staged in dense buffers for a captured graph.
std::vector<char> strided_inputs_ok(const Plan& p) {
  std::vector<char> ok(p.input_slots.size(), 0);
  std::map<int, size_t> input_of;
  for (size_t k = 0; k < p.input_slots.size(); ++k) {
    if (p.slots[static_cast<size_t>(p.input_slots[k])].info.device.is_cpu()) {
      ok[k] = 1;
      input_of[p.input_slots[k]] = k;
    }
  }
  const auto refuse = [&](int slot) {
    auto it = input_of.find(slot);
    if (it != input_of.end()) ok[it->second] = 0;
  };
  for (int slot : p.output_slots) refuse(slot);
  for (const BufferSlot& s : p.slots)  // a view slot's strides were planned over a dense base
    if (s.kind == SlotKind::View) refuse(root_slot(p, s.base));
  for (const PlanStep& st : p.steps) {
    const OpSchema& sc = *st.schema;
    // A view op's layout and an output given the input's buffer were planned for dense inputs.
    const bool dense = !sc.strided_inputs || sc.view_of >= 0 || sc.overwrites_input >= 0;
    for (size_t i = 0; i < st.inputs.size(); ++i) {
      bool updated = false;
      for (const auto& io : sc.inplace) updated = updated || io.second == static_cast<int>(i);
      if (dense || updated) refuse(st.inputs[i]);
    }
  }
  return ok;
}

// The plan inputs some step writes: a step output placed over an input's buffer (a view slot
// rooted there: an in-place update, or the planner reusing the buffer of an input that dies).
std::vector<size_t> written_inputs(const Plan& p) {
  std::map<int, size_t> input_of;
  for (size_t k = 0; k < p.input_slots.size(); ++k) input_of[p.input_slots[k]] = k;
  std::vector<char> written(p.input_slots.size(), 0);
  for (const PlanStep& st : p.steps)
    for (int out : st.outputs) {
      if (p.slots[static_cast<size_t>(out)].kind != SlotKind::View) continue;
      auto it = input_of.find(root_slot(p, out));
      if (it != input_of.end()) written[it->second] = 1;
    }
  std::vector<size_t> ks;
  for (size_t k = 0; k < written.size(); ++k)
    if (written[k]) ks.push_back(k);
  return ks;
}

}  // namespace

// Whether an input that a step writes in place shares x's storage: a view of it must be copied
// first, or a step ordered after the write would read the new values.
bool Executor::updated_elsewhere(const std::vector<Tensor>& raw_inputs, const Tensor& x) const {
  for (size_t j : updated_inputs_)
    if (raw_inputs[j].storage() == x.storage()) return true;
  return false;
}

Executor::Executor(std::shared_ptr<const Plan> plan, ExecutorOptions opts)
    : plan_(std::move(plan)), opts_(opts) {
  graph_ = GraphState::make_if_capturable(*plan_);
  for (const PlanStep& st : plan_->steps) {
    const auto in = slot_infos(*plan_, st.inputs);
    const auto out = slot_infos(*plan_, st.outputs);
    const Device dev = out.empty() ? in.at(0).device : out[0].device;
    kernels_.push_back(&KernelRegistry::instance().at(st.op(), dev.type, dispatch_dtype(*st.schema, in, out), st.meta));
  }
  batch_end_ = batch_runs(*plan_, kernels_);
  slot_names_ = debug::buffer_labels(*plan_);
  strided_input_ok_ = strided_inputs_ok(*plan_);
  updated_inputs_ = written_inputs(*plan_);
  init_reads();
  arena_strides_.resize(plan_->slots.size());
  arena_offsets_.assign(plan_->slots.size(), 0);
  for (const BufferSlot& s : plan_->slots) {
    if (s.kind != SlotKind::Arena && s.kind != SlotKind::Workspace) continue;
    arena_strides_[static_cast<size_t>(s.id)] = contiguous_strides(s.info.shape);
    arena_offsets_[static_cast<size_t>(s.id)] = static_cast<int64_t>(s.offset) / static_cast<int64_t>(dtype_size(s.info.dtype));
  }
}

std::vector<Tensor> Executor::bind(const std::vector<Tensor>& inputs, const std::map<int, Tensor>& outputs,
                                   bool with_arena) {
  std::vector<Tensor> t(plan_->slots.size());
  bind_into(t, false, inputs, outputs, with_arena);
  return t;
}

void Executor::bind_into(std::vector<Tensor>& t, bool laid_out, const std::vector<Tensor>& inputs,
                         const std::map<int, Tensor>& outputs, bool with_arena) {
  const HostTimer timer(HostPhase::Bind);
  const Plan& p = *plan_;
  std::map<Device, Tensor> arena;
  for (const auto& kv : p.arena_bytes) {
    if (kv.second > 0 && with_arena) {
      arena[kv.first] = arena_for(kv.first, kv.second, debug::allocated_besides_arena(p, kv.first));
    }
  }
  // Copy-assigned: a laid-out slot's shape and strides vectors are reused.
  for (size_t k = 0; k < inputs.size(); ++k) t[static_cast<size_t>(p.input_slots[k])] = inputs[k];
  auto returned = [&](int slot) {
    return std::find(p.output_slots.begin(), p.output_slots.end(), slot) != p.output_slots.end();
  };
  for (const BufferSlot& s : p.slots) {
    const size_t id = static_cast<size_t>(s.id);
    switch (s.kind) {
      case SlotKind::Input:
        break;
      case SlotKind::Output: {
        auto it = outputs.find(s.id);
        if (it != outputs.end()) {
          t[id] = it->second;
        } else if (laid_out) {  // the dense layout Tensor::empty gave the last run's result, kept
          t[id].rebind(Storage::allocate(t[id].nbytes(), s.info.device, slot_names_[id]), 0);
        } else {
          t[id] = Tensor::empty(s.info.shape, s.info.dtype, s.info.device, slot_names_[id]);
        }
        break;
      }
      case SlotKind::Arena:
      case SlotKind::Workspace: {
        if (!with_arena) break;
        const Tensor& a = arena.at(s.info.device);
        if (laid_out) {
          t[id].rebind(a.storage(), arena_offsets_[id]);
        } else {
          t[id] = Tensor::from_storage(a.storage(), s.info.shape, arena_strides_[id], arena_offsets_[id], s.info.dtype);
        }
        break;
      }
      case SlotKind::View: {
        const Tensor& b = t[static_cast<size_t>(s.base)];
        if (b.defined()) {
          if (laid_out) {
            t[id].rebind(b.storage(), b.offset() + s.view_offset);
          } else {
            t[id] = Tensor::from_storage(b.storage(), s.info.shape, s.strides, b.offset() + s.view_offset, s.info.dtype);
          }
        } else if (returned(s.id)) {
          // A dry run's view of an arena slot: only a result the caller receives needs a tensor
          // (uninitialized); the others stay unbound, so a memory report allocates nothing for them.
          t[id] = Tensor::empty(s.info.shape, s.info.dtype, s.info.device, slot_names_[id]);
        }
        break;
      }
    }
  }
}

void Executor::execute(std::vector<Tensor>& t, bool poison_now, void* error_word, Reads* reads, size_t begin,
                       size_t end) {
  const Plan& p = *plan_;
  end = std::min(end, p.steps.size());
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
  // With an observer, a run can stop part way (a hook raises, anomaly mode finds a NaN) after
  // some in-place updates of parameters or state ran and before others: each input buffer is
  // copied before its first in-place write and copied back if the run stops, so the step is all
  // or nothing. (Without one, the updates come last and cannot fail half way.)
  std::map<int, Tensor> undo;  // input slot -> its contents before the run wrote it
  std::map<int, Tensor>* undo_now = observer ? &undo : nullptr;
  try {
    if (reads && reads->split >= 0 && static_cast<size_t>(reads->split) >= begin &&
        static_cast<size_t>(reads->split) < end) {
      // Early host reads: queued on the stream right after the last step their outputs need.
      const size_t cut = static_cast<size_t>(reads->split) + 1;
      execute_steps(t, poison_now, error_word, observer, dies_after, undo_now, begin, cut);
      queue_reads(*reads, t, error_word);
      execute_steps(t, poison_now, error_word, observer, dies_after, undo_now, cut, end);
    } else {
      execute_steps(t, poison_now, error_word, observer, dies_after, undo_now, begin, end);
    }
  } catch (...) {
    for (auto& kv : undo) copy_tensor(t[static_cast<size_t>(kv.first)], kv.second);
    throw;
  }
}

void Executor::execute_steps(std::vector<Tensor>& t, bool poison_now, void* error_word,
                             const std::shared_ptr<const StepObserver>& observer,
                             const std::vector<std::vector<int>>& dies_after, std::map<int, Tensor>* undo,
                             size_t begin, size_t stop) {
  const Plan& p = *plan_;
  std::vector<Tensor> in, out, observed_in;
  for (size_t i = begin; i < stop; ++i) {
    const PlanStep& st = p.steps[i];
    // A run of batchable steps goes to one batch call, unless an observer must see each step; a
    // part of a run is a run too (a graph captured in two parts, early host reads between).
    const size_t end = std::min(batch_end_[i], stop);
    if (end > i + 1 && !observer && !undo) {
      std::vector<std::vector<Tensor>> ins(end - i), outs(end - i);
      std::vector<KernelContext> ctxs;
      ctxs.reserve(end - i);
      for (size_t k = i; k < end; ++k) {
        const PlanStep& sk = p.steps[k];
        for (int s : sk.inputs) ins[k - i].push_back(t[static_cast<size_t>(s)]);
        for (int s : sk.outputs) outs[k - i].push_back(t[static_cast<size_t>(s)]);
        ctxs.push_back(KernelContext{ins[k - i], outs[k - i], sk.attrs, sk.meta, nullptr, 0, nullptr, error_word});
      }
      std::vector<const KernelContext*> run;
      for (const KernelContext& c : ctxs) run.push_back(&c);
      kernels_[i]->batch(run);
      if (poison_now) {
        for (size_t k = i; k < end; ++k) {
          for (int s : dies_after[k]) poison(t[static_cast<size_t>(s)]);
        }
      }
      i = end - 1;
      continue;
    }
    // Assigned in place: a Tensor's copy assignment reuses the shape and strides vectors of the
    // tensor it replaces, where clear() and push_back() allocated both for every tensor of every step.
    in.resize(st.inputs.size());
    out.resize(st.outputs.size());
    for (size_t j = 0; j < st.inputs.size(); ++j) in[j] = t[static_cast<size_t>(st.inputs[j])];
    for (size_t j = 0; j < st.outputs.size(); ++j) out[j] = t[static_cast<size_t>(st.outputs[j])];
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
    if (undo) {
      for (int o : st.outputs) {
        const int root = p.root_slot(o);
        if (p.slots[static_cast<size_t>(root)].kind == SlotKind::Input && !undo->count(root)) {
          (*undo)[root] = t[static_cast<size_t>(root)].clone();
        }
      }
    }
    KernelContext ctx{in, out, st.attrs, st.meta, ws, ws_bytes, nullptr, error_word};
    if (observer) {
      const auto start = std::chrono::steady_clock::now();
      kernels_[i]->fn(ctx);
      debug::set_last_step_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      (*observer)(i, p, st, observed_in, out);
    } else {
      kernels_[i]->fn(ctx);
    }
    if (poison_now) {
      for (int s : dies_after[i]) poison(t[static_cast<size_t>(s)]);
    }
  }
}

std::vector<Tensor> Executor::dry_run(const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> t = bind(inputs, {}, false);
  std::vector<Tensor> results;
  for (int s : plan_->output_slots) results.push_back(t[static_cast<size_t>(s)]);
  return results;
}

std::vector<Tensor> Executor::run_steps(const std::vector<Tensor>& inputs, Reads* reads) {
  std::vector<Tensor> t;
  {
    const std::lock_guard<std::mutex> lock(spare_mutex_);
    t.swap(spare_slots_);
  }
  const bool laid_out = !t.empty();
  if (!laid_out) t.resize(plan_->slots.size());
  bind_into(t, laid_out, inputs, {}, true);
  execute(t, opts_.poison_freed || poison_freed(), nullptr, reads);
  std::vector<Tensor> results;
  results.reserve(plan_->output_slots.size());
  const std::vector<char>* wanted = reads ? reads->wanted : nullptr;
  for (size_t i = 0; i < plan_->output_slots.size(); ++i) {
    if (wanted && !(*wanted)[i]) {
      results.emplace_back();  // a copy would allocate its shape and strides for nothing
    } else {
      results.push_back(t[static_cast<size_t>(plan_->output_slots[i])]);
    }
  }
  // Kept for the next run only when every slot was bound (so each has its planned layout).
  bool all_bound = true;
  for (Tensor& x : t) {
    all_bound = all_bound && x.defined();
    x.release();
  }
  if (all_bound) {
    const std::lock_guard<std::mutex> lock(spare_mutex_);
    if (spare_slots_.empty()) spare_slots_.swap(t);
  }
  return results;
}

std::vector<Tensor> Executor::run(const std::vector<Tensor>& raw_inputs, const std::vector<char>* wanted) {
  const Plan& p = *plan_;
  if (raw_inputs.size() != p.input_slots.size()) {
    throw InternalError("Executor::run: got " + std::to_string(raw_inputs.size()) + " inputs, the plan has " +
                        std::to_string(p.input_slots.size()));
  }
  // The inputs as given, unless one must be copied into a dense buffer first: only then is the
  // list copied (each Tensor copy allocates its shape and strides, and a training step binds
  // hundreds of inputs on every run).
  std::vector<Tensor> converted;
  for (size_t k = 0; k < raw_inputs.size(); ++k) {
    const BufferSlot& s = p.slots[static_cast<size_t>(p.input_slots[k])];
    const Tensor& x = raw_inputs[k];
    if (x.shape() != s.info.shape || x.dtype() != s.info.dtype || x.device() != s.info.device) {
      throw ValueError(ErrorMessage("plan input " + std::to_string(k) + (s.name.empty() ? "" : " '" + s.name + "'") +
                                    " was planned as " + s.info.str() + " but got " + x.info().str())
                           .str());
    }
    if (x.is_contiguous() || (strided_input_ok_[k] && !updated_elsewhere(raw_inputs, x))) continue;
    if (converted.empty()) converted = raw_inputs;
    converted[k] = x.contiguous();
  }
  const std::vector<Tensor>& inputs = converted.empty() ? raw_inputs : converted;
  // A plan started while another runs (from a hook, or another thread meanwhile) gets an arena of
  // its own level, never the running plan's (arena.h).
  const ArenaLease lease;
  debug::check_memory_limit(p, graph_captured());  // an over-limit plan fails here, before anything runs
  for (size_t k : host_copy_drops_) drop_host_copy(raw_inputs[k]);  // this run writes their buffers
  Reads reads = plan_reads(wanted);
  // An observer (anomaly mode, hooks) must see every step: no graph replay while one is set.
  const bool observed = static_cast<bool>(observer_slot());
  std::vector<Tensor> results = graph_ && !(opts_.poison_freed || poison_freed()) && cuda_graphs_enabled() && !observed
                                    ? run_graph(inputs, wanted, &reads)
                                    : run_steps(inputs, &reads);
  // The marks that learn which outputs the host reads, only while early reads are on (off, a run
  // hands out no copies and learns nothing: docs/cuda.md, "Early host reads").
  if (!wishes_.empty() && early_reads_enabled()) attach_reads(reads, results);
  return results;
}

}  // namespace glassgrad
