// Realize: export the pending graph, find (or compile) its plan in the cache, bind, execute.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <list>
#include <optional>
#include <unordered_map>

#include "glassgrad/autodiff/compile.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/debug.h"
#include "glassgrad/runtime/executor.h"
#include "glassgrad/runtime/host_times.h"
#include "glassgrad/runtime/pinned_memory.h"
#include "glassgrad/runtime/settings.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

namespace {

// A value a later realize read from this plan's trace: (node index in the trace, output index).
using KeptSlot = std::pair<uint32_t, int32_t>;

struct CachedPlan {
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<Executor> executor;
  // Kept values (docs/architecture.md, "Values realized before backward"): the slots later
  // realizes computed again, and their graph values, which the plan outputs after the roots.
  std::vector<KeptSlot> keep;
  std::vector<ValueId> kept_ids;
  bool keep_changed = false;  // keep grew since the plan was compiled
  uint64_t trace = 0;         // the cache key less the budget's part: the same for every budget
};

// The graph values of `keep` in ex's numbering (the same for every trace of one signature),
// leaving out the roots, which the plan outputs anyway.
std::vector<ValueId> kept_ids_of(const Export& ex, const std::vector<KeptSlot>& keep) {
  std::vector<ValueId> ids;
  for (const KeptSlot& slot : keep) {
    for (size_t i = 0; i < ex.made_by.size(); ++i) {
      if (ex.made_by[i].first != static_cast<int32_t>(slot.first) || ex.made_by[i].second != slot.second) continue;
      const ValueId id = static_cast<ValueId>(static_cast<size_t>(ex.num_leaves) + i);
      if (std::find(ex.outputs.begin(), ex.outputs.end(), id) == ex.outputs.end()) ids.push_back(id);
      break;
    }
  }
  return ids;
}

// A CUDA graph's captured outputs stay allocated beside the copies a replay hands out, so a
// budget derived from the memory limit counts outputs twice on a device that replays graphs
// (docs/architecture.md "Memory limits and CUDA graphs"): the limit check before a run
// (debug::check_memory_limit) counts them so, and a plan chosen to fit must too.
int output_copies_for(const Device& d) { return d.is_cuda() && cuda_graphs_enabled() ? 2 : 1; }

// Whether a cached plan serves a realize under `budget` (0: none). A key covers a range of budgets
// (planning_key: all of them under a memory limit), so the plan serves while it fits; one
// checkpointed for a smaller budget (Plan::unlimited_need) is replaced once the budget has room for
// the plan without checkpointing, which a loop whose held memory fell back would otherwise never
// run again.
bool suits(const Plan& plan, size_t budget, int output_copies) {
  if (budget == 0) return true;
  if (plan.unlimited_need != 0 && plan.unlimited_need <= budget) return false;
  return plan_budget_bytes(plan, output_copies) <= budget;
}

struct PlanCache {
  static constexpr size_t kCapacity = 256;
  std::unordered_map<uint64_t, std::list<std::pair<uint64_t, CachedPlan>>::iterator> index;
  std::list<std::pair<uint64_t, CachedPlan>> lru;  // most recent first
  CacheStats stats;
  std::shared_ptr<const Plan> last;
  std::shared_ptr<Executor> last_executor;  // the executor of the last plan that ran

  // On a miss, builds the trace's engine graph and compiles it; a hit needs only the key.
  // `trace`: the key less the budget's part (planning_key).
  const CachedPlan& get(Export& ex, uint64_t trace, uint64_t key, size_t budget, int output_copies) {
    auto it = index.find(key);
    if (it != index.end() && !it->second->second.keep_changed &&
        suits(*it->second->second.plan, budget, output_copies)) {
      ++stats.hits;
      lru.splice(lru.begin(), lru, it->second);
      return it->second->second;
    }
    std::vector<KeptSlot> keep;
    if (it != index.end()) {
      keep = std::move(it->second->second.keep);
      lru.erase(it->second);
      index.erase(it);
    }
    // What the trace's plans under other keys (no limit, a limit, an explicit budget) learned to
    // keep holds for this one too (the slots are the trace's): a plan compiled after the limit
    // changed would otherwise compute the forward again once more, and glassgrad.compile, had it
    // captured that call, replay it so for good (docs/architecture.md, "Values realized before backward").
    for (const auto& other : lru) {
      if (other.second.trace != trace) continue;
      for (const KeptSlot& slot : other.second.keep) {
        if (std::find(keep.begin(), keep.end(), slot) == keep.end()) keep.push_back(slot);
      }
    }
    const HostTimer timer(HostPhase::Compile);
    const auto t0 = std::chrono::steady_clock::now();
    build_graph(ex);
    ++stats.graphs_built;
    CompileOptions opts;
    std::vector<ValueId> kept_ids = kept_ids_of(ex, keep);
    opts.outputs = ex.outputs;
    opts.outputs.insert(opts.outputs.end(), kept_ids.begin(), kept_ids.end());
    opts.workspace = Executor::workspace_fn();
    opts.fuse = fusion_enabled();
    opts.memory_budget = budget;
    opts.output_copies = output_copies;
    auto plan = std::make_shared<const Plan>(compile(ex.graph, opts));
    CachedPlan entry{plan, std::make_shared<Executor>(plan), std::move(keep), std::move(kept_ids), false, trace};
    ++stats.compiles;
    stats.compile_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    lru.emplace_front(key, std::move(entry));
    index[key] = lru.begin();
    if (lru.size() > kCapacity) {
      index.erase(lru.back().first);
      lru.pop_back();
    }
    return lru.front().second;
  }
};

bool g_capturing = false;
size_t g_budget = 0;
bool g_plan_only = false;
std::vector<std::shared_ptr<const Plan>>& plan_only_plans() {
  static auto* v = new std::vector<std::shared_ptr<const Plan>>();
  return *v;
}
std::vector<CapturedRun>& captured() {
  static auto* c = new std::vector<CapturedRun>();
  return *c;
}

PlanCache& cache() {
  static auto* c = new PlanCache();
  return *c;
}

// A realize computing nodes an earlier plan computed already (their outputs were not kept: a
// loss read with .item() before backward(), whose gradient nodes read the forward's values)
// asks that plan to output the values its new nodes read, so the next time the trace repeats
// they are kept and bound instead of computed twice (docs/architecture.md, "Values realized
// before backward"). `again`: how many of ex's nodes ran before.
void ask_to_keep(const Export& ex, size_t again) {
  if (again == 0) return;
  PlanCache& pc = cache();
  for (const auto& n : ex.nodes) {
    if (n->ran_key) continue;  // a node computed again is not one whose reads are asked for
    for (const ValuePtr& in : n->inputs) {
      const TraceNode* p = in->producer.get();
      // A version of a storage written in place since (stale) is read where the write's plan
      // put it: kept apart, it would be one more output and a copy (Assign) every step.
      if (!p || !p->ran_key || in->realized() || in->stale()) continue;
      auto it = pc.index.find(p->ran_key);
      if (it == pc.index.end()) continue;
      CachedPlan& cp = it->second->second;
      const KeptSlot slot{p->ran_index, in->output_index};
      if (std::find(cp.keep.begin(), cp.keep.end(), slot) != cp.keep.end()) continue;
      cp.keep.push_back(slot);
      cp.keep_changed = true;
    }
  }
}

// After a plan ran: the values it kept for a later plan (CachedPlan::kept_ids, from `first` on in
// outs) hold their data. Their nodes hold it too (TraceNode::kept): a value alive now may die
// before it is read (a BatchNorm's statistics, held by the running-statistics update that settles
// after this plan) and be made again by value_of(), which takes the data from there.
void hold_kept(const Export& ex, const std::vector<ValueId>& ids, std::vector<Tensor>& outs, size_t first) {
  for (size_t j = 0; j < ids.size() && first + j < outs.size(); ++j) {
    const size_t made = static_cast<size_t>(ids[j]) - static_cast<size_t>(ex.num_leaves);
    TraceNode* node = ex.nodes.at(static_cast<size_t>(ex.made_by.at(made).first)).get();
    const size_t k = static_cast<size_t>(ex.made_by[made].second);
    if (ValuePtr v = node->outputs[k].lock()) {
      if (v->realized()) continue;
      v->data = outs[first + j];
      v->kept = true;
    }
    if (node->kept.size() <= k) node->kept.resize(node->outputs.size());
    node->kept[k] = std::move(outs[first + j]);
  }
}

// A kept value a plan has bound is dropped (with its node's copy) unless a handle holds it.
void drop_kept(const std::vector<TraceValue*>& bound) {
  for (TraceValue* v : bound) {
    if (v->pins > 0) continue;  // an ordinary computed value now
    v->data = Tensor();
    v->kept = false;
    TraceNode* node = v->producer.get();
    if (node && static_cast<size_t>(v->output_index) < node->kept.size()) {
      node->kept[static_cast<size_t>(v->output_index)] = Tensor();
    }
  }
}

// The value before the update of each buffer an in-place node of ex writes while a graph that
// may still be differentiated reads it (TraceValue::open_readers: `loss = model(x); opt.step();
// loss.backward()`), copied before the plan runs: that graph's values not computed yet are
// computed from it later, as PyTorch computed them before the step (docs/inplace-and-views.md,
// "Backward after an optimizer step"). The ordinary `backward(); step()` order copies nothing: the
// backward released the forward's reads. Memory reports (no kernel runs) and glassgrad.compile's
// captures (a copy outside the plans would not be replayed) copy nothing: such a graph raises there.
using UpdateCopies = std::vector<std::pair<const TraceValue*, Tensor>>;
UpdateCopies copy_read_update_inputs(const Export& ex) {
  UpdateCopies copies;
  if (g_plan_only || g_capturing) return copies;
  for (const auto& n : ex.nodes) {
    for (const auto& io : n->schema->inplace) {
      const TraceValue* old = n->inputs[static_cast<size_t>(io.second)].get();
      if (old->open_readers <= 0 || !old->realized()) continue;
      if (std::any_of(copies.begin(), copies.end(), [&](const auto& c) { return c.first == old; })) continue;
      copies.emplace_back(old, old->data.clone());
    }
  }
  return copies;
}

// "it was overwritten in place by SGDUpdate ('optimizer')": why the values an in-place node
// overwrote can no longer be read (TraceValue::invalid). Composed once per op and metadata and
// kept, since a loop's steps settle the same updates every step (an optimizer's, each BatchNorm
// layer's running statistics). Keyed by the node's interned metadata (TraceNode::meta), which the
// entry holds, so a cached address is never reused meanwhile. Bounded: a full table starts again.
std::shared_ptr<const std::string> overwrite_reason(const TraceNode& node) {
  using Key = std::pair<const OpSchema*, const NodeMeta*>;
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.first) ^ (std::hash<const void*>()(k.second) * 31);
    }
  };
  struct Entry {
    std::shared_ptr<const NodeMeta> meta;  // keeps the key's address taken
    std::shared_ptr<const std::string> reason;
  };
  static auto* reasons = new std::unordered_map<Key, Entry, KeyHash>();  // never freed: values may outlive static destruction
  constexpr size_t kCapacity = 4096;
  const Key key{node.schema, node.meta.get()};
  auto it = reasons->find(key);
  if (it != reasons->end()) return it->second.reason;
  const std::string& scope = node.meta->scope;
  auto reason = std::make_shared<const std::string>("it was overwritten in place by " + node.schema->name +
                                                    (scope.empty() ? "" : " ('" + scope + "')"));
  if (reasons->size() >= kCapacity) reasons->clear();
  reasons->emplace(key, Entry{node.meta, reason});
  return reason;
}

// The buffer of `old` that an earlier update of ex (before node `before`) moved on to its new
// value (settle_inplace): two updates reading one old value both get its buffer.
Tensor moved_buffer(const Export& ex, size_t before, const TraceValue* old) {
  for (size_t i = before; i-- > 0;) {
    const TraceNode& node = *ex.nodes[i];
    for (const auto& io : node.schema->inplace) {
      if (node.inputs[static_cast<size_t>(io.second)].get() != old) continue;
      if (ValuePtr fresh = node.outputs[static_cast<size_t>(io.first)].lock()) return fresh->data;
    }
  }
  return Tensor();
}

// After a plan ran: each in-place output becomes the new leaf holding the (updated) buffer,
// and the value it overwrote is invalidated (keeping the copy made of it, if any). After a plan
// failed (ran = false), the outputs become leaves over the same buffers and the old values stay
// valid: the update is abandoned (or half done, if the failure came after it ran), but parameters
// and state stay usable leaves instead of pending results of a failed step.
// After a run the buffer moves from the old value to the new one (the old one is invalidated
// below, its data dropped either way): a copy allocated a shape and strides per update, and the
// old value's release freed them again (about 40,000 instructions a ResNet-18 step).
void settle_inplace(const Export& ex, bool ran, UpdateCopies copies = {}) {
  for (size_t i = 0; i < ex.nodes.size(); ++i) {
    const TraceNode* node = ex.nodes[i].get();
    for (const auto& io : node->schema->inplace) {
      const ValuePtr& old = node->inputs[static_cast<size_t>(io.second)];
      ValuePtr fresh = node->outputs[static_cast<size_t>(io.first)].lock();
      if (fresh) {
        if (!ran) {
          fresh->data = old->data;
        } else if (old->data.defined()) {
          fresh->data = std::move(old->data);
        } else {
          fresh->data = moved_buffer(ex, i, old.get());
        }
        fresh->producer.reset();
        fresh->kind = old->kind == ValueKind::Intermediate ? ValueKind::State : old->kind;
        fresh->requires_grad = old->requires_grad;
        fresh->name = old->name;
        move_grad(old, fresh);
        forget_pending(fresh.get());
      }
    }
  }
  if (!ran) return;
  // Invalidate afterwards: a chain of updates passes the buffer along first. The reason is the
  // same for runs of nodes of one op and metadata (an optimizer's updates): it is looked up once a run.
  const TraceNode* reason_of = nullptr;
  std::shared_ptr<const std::string> reason;
  for (const auto& n : ex.nodes) {
    const TraceNode* node = n.get();
    if (node->schema->inplace.empty()) continue;
    if (!reason_of || node->schema != reason_of->schema || node->meta != reason_of->meta) {
      reason_of = node;
      reason = overwrite_reason(*node);
    }
    for (const auto& io : node->schema->inplace) {
      const ValuePtr& old = node->inputs[static_cast<size_t>(io.second)];
      old->data = Tensor();
      for (auto& c : copies) {
        if (c.first == old.get() && c.second.defined()) {
          old->data = std::move(c.second);
          old->copied_before_update = true;
        }
      }
      old->producer.reset();
      old->invalid = reason;
    }
  }
}

// Per output of the plan, whether realize reads what the run returns for it (Executor::run's
// `wanted`). A root that an in-place node of the plan makes (an optimizer's updated parameter or
// state, a BatchNorm's running statistics) takes, when the run has settled (settle_inplace), the
// buffer of the value that node overwrote, whatever the run returned for it; so the run hands it
// back undefined instead of a copy of its slot's tensor (a shape and strides allocated and freed
// per update: about 110,000 instructions a ResNet-18 step). Null when every output is read.
const std::vector<char>* outputs_read(const std::vector<ValuePtr>& roots, size_t outputs, std::vector<char>& wanted) {
  for (size_t i = 0; i < roots.size() && i < outputs; ++i) {
    const TraceNode* node = roots[i]->producer.get();
    if (!node) continue;
    for (const auto& io : node->schema->inplace) {
      if (io.first != roots[i]->output_index) continue;
      if (wanted.empty()) wanted.assign(outputs, 1);
      wanted[i] = 0;
    }
  }
  return wanted.empty() ? nullptr : &wanted;
}

// An in-place update of a CPU tensor writes its buffer: a copy to a GPU queued from that buffer
// (pinned memory, to(device) returned at once) reads it first (docs/data-loading.md, "Copies to
// the GPU").
void wait_for_copies_of_updated_buffers(const Export& ex) {
  for (const auto& n : ex.nodes)
    for (const auto& io : n->schema->inplace) {
      const Tensor& d = n->inputs[static_cast<size_t>(io.second)]->data;
      if (d.defined() && d.device().is_cpu() && d.storage()) wait_pinned_reads(d.storage()->data());
    }
}

// A failed plan (a kernel error, an anomaly-mode stop, over the memory limit) stays failed: its
// values are no longer pending, so later realizes compute only what they need and do not fail
// again on them (reading one recomputes it and reports the error again), and its in-place
// updates are abandoned, so parameters stay trainable leaves.
void abandon(const Export& ex, const std::vector<ValuePtr>& roots, const std::shared_ptr<const Plan>& plan) {
  for (const auto& r : roots) forget_pending(r.get());
  settle_inplace(ex, false);
  if (plan) cache().last = plan;  // last_plan() shows the plan that failed
}

// realize()'s list of plan inputs, kept from call to call on each thread with its entries
// released after each run (Tensor::release: no storage held, shape and strides vectors kept), so
// a repeated step's bind copy-assigns each input into vectors it has: a list made per realize
// allocated a block for the list and a shape and strides per input (about 20,000 instructions a
// SimpleCNN step). A realize nested in a running one (a hook's) finds the list taken and makes
// its own; the larger one is kept.
[[gnu::noinline]] std::vector<Tensor>& recycled_inputs() {
  thread_local std::vector<Tensor> list;
  return list;
}
struct InputList {
  std::vector<Tensor> tensors;
  InputList() { tensors.swap(recycled_inputs()); }
  ~InputList() {
    for (Tensor& t : tensors) t.release();
    std::vector<Tensor>& bin = recycled_inputs();
    if (tensors.capacity() > bin.capacity()) bin.swap(tensors);
  }
  InputList(const InputList&) = delete;
  InputList& operator=(const InputList&) = delete;
};

// Marks the exported nodes in flight (TraceNode::in_flight) for as long as their realize runs, and
// counts how deeply realizes nest on this thread (a hook's realize inside a running plan).
thread_local int t_realize_depth = 0;
struct InFlight {
  const Export& ex;
  size_t again = 0;  // nodes an earlier plan computed (TraceNode::ran_key)
  explicit InFlight(const Export& e) : ex(e) {
    for (const auto& n : ex.nodes) {
      ++n->in_flight;
      again += n->ran_key != 0;
    }
    ++t_realize_depth;
  }
  ~InFlight() {
    for (const auto& n : ex.nodes) --n->in_flight;
    --t_realize_depth;
  }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
};

}  // namespace

uint64_t planning_key(size_t budget);  // below

void realize(const std::vector<ValuePtr>& targets) {
  // In-place writes into stored tensors run with this plan (alias.cpp): their new versions are
  // computed by the Assigns that write them, not as outputs of their own.
  // Views of such a storage are not computed with it either: they are views of its buffer once
  // it is written, computed when read (a target among them, right after this plan).
  std::optional<HostTimer> phase(HostPhase::Export);
  const std::vector<Flush> flushes = flush_writes();
  auto flushed = [&](const ValuePtr& v) {
    for (const Flush& f : flushes) {
      if (f.base == v || (v->counter && v->counter == f.alias->counter)) return true;
    }
    return false;
  };
  std::vector<ValuePtr> roots, views_after;
  for (auto& v : pending_values()) {
    if (!flushed(v)) roots.push_back(std::move(v));
  }
  for (auto& v : unread_writes()) {
    // A flushed base is computed by its Assign; a detached alias's gradient-carrying version is not.
    if (std::none_of(flushes.begin(), flushes.end(), [&](const Flush& f) { return f.base == v; })) roots.push_back(std::move(v));
  }
  for (auto& v : viewed_bases()) {
    if (!flushed(v) && std::find(roots.begin(), roots.end(), v) == roots.end()) roots.push_back(std::move(v));
  }
  for (const Flush& f : flushes) roots.push_back(f.out);
  for (const auto& t : targets) {
    if (!t->invalid.empty()) throw_invalid(*t);
    if (t->realized()) continue;
    if (flushed(t)) {
      if (std::none_of(flushes.begin(), flushes.end(), [&](const Flush& f) { return f.base == t; })) views_after.push_back(t);
      continue;
    }
    bool known = false;
    for (const auto& r : roots) known = known || r == t;
    if (!known) roots.push_back(t);
  }
  if (roots.empty()) return;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  Export ex;
  try {
    ex = collect(roots, true);  // the engine graph is built only when the plan must be compiled
  } catch (...) {
    settle_flushes(flushes, false);
    throw;
  }
  std::optional<InFlight> in_flight;
  in_flight.emplace(ex);
  const bool outermost = t_realize_depth == 1;
  const size_t budget = memory_budget_for(roots[0]->info.device);
  phase.emplace(HostPhase::Signature);
  const uint64_t trace =
      hash_combine(ex.signature, (fusion_enabled() ? 1 : 0) | (deterministic_algorithms() || cuda::deterministic() ? 2 : 0));
  const uint64_t key = hash_combine(trace, planning_key(budget));
  ask_to_keep(ex, in_flight->again);
  PlanCache& pc = cache();
  pc.stats.export_seconds += std::chrono::duration<double>(clock::now() - t0).count();
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<Executor> executor;
  InputList input_list;
  std::vector<Tensor>& inputs = input_list.tensors;
  std::vector<Tensor> outs;
  std::vector<ValueId> kept_ids;
  std::vector<TraceValue*> kept_inputs;  // kept values this plan binds: dropped after it ran
  UpdateCopies copies;
  auto t1 = clock::now();
  try {
    phase.emplace(HostPhase::PlanLookup);
    const CachedPlan& cp = pc.get(ex, trace, key, budget, output_copies_for(roots[0]->info.device));
    plan = cp.plan;
    executor = cp.executor;
    kept_ids = cp.kept_ids;
    t1 = clock::now();
    phase.emplace(HostPhase::Bind);
    inputs.resize(plan->input_values.size());
    for (size_t k = 0; k < inputs.size(); ++k) {
      const ValuePtr& lv = ex.by_id.at(static_cast<size_t>(plan->input_values[k]));
      if (!lv->realized()) throw InternalError("realize: leaf without data");
      inputs[k] = lv->data;  // copy-assigned: a recycled entry's shape and strides are reused
      if (lv->kept) kept_inputs.push_back(lv.get());
    }
    wait_for_copies_of_updated_buffers(ex);
    copies = copy_read_update_inputs(ex);
    pc.stats.update_copies += copies.size();
    phase.emplace(HostPhase::Launch);
    if (g_plan_only) {
      plan_only_plans().push_back(plan);
      outs = executor->dry_run(inputs);
    } else {
      // A captured run (glassgrad.compile) keeps every output: its replays hand them out.
      std::vector<char> wanted;
      outs = executor->run(inputs, g_capturing ? nullptr : outputs_read(roots, plan->output_slots.size(), wanted));
    }
  } catch (const OutOfMemoryError& e) {
    phase.reset();
    abandon(ex, roots, plan);
    settle_flushes(flushes, false);
    if (plan || budget == 0) throw;
    // No plan fits the budget: say what the plain plan would hold, layer by layer.
    build_graph(ex);
    CompileOptions opts;
    opts.outputs = ex.outputs;
    opts.workspace = Executor::workspace_fn();
    opts.fuse = fusion_enabled();
    throw OutOfMemoryError(debug::explain_over_budget(e.what(), compile(ex.graph, opts), roots[0]->info.device));
  } catch (...) {
    phase.reset();
    abandon(ex, roots, plan);
    settle_flushes(flushes, false);
    throw;
  }
  phase.emplace(HostPhase::Settle);
  if (outermost) count_host_realize();
  ++pc.stats.realizes;
  pc.stats.run_seconds += std::chrono::duration<double>(clock::now() - t1).count();
  if (g_capturing && outermost) {  // a hook's own plans are not part of the captured step
    CapturedRun run{plan, executor, inputs, {}, {}, outs};
    for (ValueId v : plan->input_values) {
      const ValuePtr& lv = ex.by_id.at(static_cast<size_t>(v));
      run.input_kinds.push_back(lv->producer ? ValueKind::Input : lv->kind);
      run.input_seqs.push_back(lv->seq);
    }
    captured().push_back(std::move(run));
  }
  pc.last = plan;
  pc.last_executor = executor;
  for (size_t i = 0; i < roots.size(); ++i) {
    roots[i]->data = std::move(outs[i]);  // hold_kept reads only the outputs after the roots
    forget_pending(roots[i].get());
  }
  if (!kept_ids.empty()) hold_kept(ex, kept_ids, outs, roots.size());
  drop_kept(kept_inputs);
  for (size_t i = 0; i < ex.nodes.size(); ++i) {
    ex.nodes[i]->ran_key = key;
    ex.nodes[i]->ran_index = static_cast<uint32_t>(i);
  }
  settle_inplace(ex, true, std::move(copies));
  settle_flushes(flushes, true);
  phase.reset();
  // This plan has run: its nodes are no longer in flight for the views read after it (a view
  // whose own node this plan computed, v = x[0:1]; x.mul_(5); w = v * 2; then v read).
  in_flight.reset();
  release_producers(roots);
  if (!views_after.empty()) realize(views_after);
  if (outermost) release_freed_inputs();
}

const Tensor& data(const ValuePtr& v) {
  if (!v->invalid.empty()) throw_invalid(*v);
  if (!v->realized()) realize({v});
  return v->data;
}

void set_plan_only(bool on) { g_plan_only = on; }

void set_memory_budget(size_t bytes) { g_budget = bytes; }

size_t memory_budget_for(const Device& d) {
  if (g_budget) return g_budget;
  Allocator* a = nullptr;
  try {
    a = &allocator_for(d);
  } catch (const Error&) {
    return 0;
  }
  const size_t limit = a->limit();
  if (limit == 0) return 0;
  const size_t held = a->stats().current - std::min(a->stats().current, arena_bytes(d));
  return limit > held ? limit - held : 1;
}
// The plan-cache key of a budget. An explicit budget (set_memory_budget: compile(memory_limit=))
// keys to the byte. One derived from the allocator's limit moves with the memory held between
// steps (a loop's optimizer state, the losses it appends), so every such budget shares one key:
// a trace has one plan (and executor, and CUDA graphs) under a limit, used while it fits the
// current budget and replaced only when it does not, or when the plan without checkpointing fits
// again (PlanCache::get, suits; docs/architecture.md, "Plans under a memory limit"). Keyed by the
// budget, each MiB the held memory crossed compiled every plan of the step again.
uint64_t planning_key(size_t budget) {
  if (budget == 0) return 0;
  return g_budget ? budget + 1 : uint64_t(1) << 63;
}

bool plan_only() { return g_plan_only; }
std::vector<std::shared_ptr<const Plan>> take_plan_only_plans() {
  std::vector<std::shared_ptr<const Plan>> out;
  out.swap(plan_only_plans());
  return out;
}

bool capturing() { return g_capturing; }

void capture_begin() {
  captured().clear();
  g_capturing = true;
}

std::vector<CapturedRun> capture_end() {
  g_capturing = false;
  std::vector<CapturedRun> out;
  out.swap(captured());
  return out;
}

uint64_t current_seq() { return next_seq(); }

size_t arena_held_bytes(const Device& d) { return arena_bytes(d); }

CacheStats cache_stats() {
  CacheStats s = cache().stats;
  s.plans = cache().lru.size();
  s.gradients_built = backward_counts().built;
  s.gradients_reused = backward_counts().reused;
  return s;
}

void reset_cache_stats() {
  cache().stats = CacheStats{};
  backward_counts() = BackwardCounts{};
}

void clear_cache() {
  PlanCache& pc = cache();
  pc.index.clear();
  pc.lru.clear();
  pc.last.reset();
  pc.last_executor.reset();
  clear_backward_templates();
}

std::shared_ptr<const Plan> last_plan() { return cache().last; }
std::shared_ptr<Executor> last_executor() { return cache().last_executor; }

std::shared_ptr<const Plan> plan_for(const std::vector<ValuePtr>& roots) {
  Export ex = export_graph(roots, true);
  CompileOptions opts;
  opts.outputs = ex.outputs;
  opts.workspace = Executor::workspace_fn();
  opts.fuse = fusion_enabled();
  opts.memory_budget = memory_budget_for(roots.at(0)->info.device);
  opts.output_copies = output_copies_for(roots.at(0)->info.device);
  return std::make_shared<const Plan>(compile(ex.graph, opts));
}

}  // namespace lazy
}  // namespace glassgrad
