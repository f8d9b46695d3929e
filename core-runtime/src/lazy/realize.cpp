// Realize: export the pending graph, find (or compile) its plan in the cache, bind, execute.
#include <list>
#include <unordered_map>

#include "glassgrad/autodiff/compile.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/executor.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

namespace {

struct CachedPlan {
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<Executor> executor;
};

struct PlanCache {
  static constexpr size_t kCapacity = 256;
  std::unordered_map<uint64_t, std::list<std::pair<uint64_t, CachedPlan>>::iterator> index;
  std::list<std::pair<uint64_t, CachedPlan>> lru;  // most recent first
  CacheStats stats;
  std::shared_ptr<const Plan> last;

  const CachedPlan& get(const Graph& g, const std::vector<ValueId>& outputs) {
    const uint64_t key = g.signature();
    auto it = index.find(key);
    if (it != index.end()) {
      ++stats.hits;
      lru.splice(lru.begin(), lru, it->second);
      return it->second->second;
    }
    CompileOptions opts;
    opts.outputs = outputs;
    opts.workspace = Executor::workspace_fn();
    auto plan = std::make_shared<const Plan>(compile(g, opts));
    CachedPlan entry{plan, std::make_shared<Executor>(plan)};
    ++stats.compiles;
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
std::vector<CapturedRun>& captured() {
  static auto* c = new std::vector<CapturedRun>();
  return *c;
}

PlanCache& cache() {
  static auto* c = new PlanCache();
  return *c;
}

// After a plan ran: each in-place output becomes the new leaf holding the (updated) buffer,
// and the value it overwrote is invalidated. After a plan failed (ran = false), the outputs
// become leaves over the same buffers and the old values stay valid: the update is abandoned
// (or half done, if the failure came after it ran), but parameters and state stay usable leaves
// instead of pending results of a failed step.
void settle_inplace(const Export& ex, bool ran) {
  for (NodeId n = 0; n < ex.graph.num_nodes(); ++n) {
    const Node* node = ex.nodes[static_cast<size_t>(n)].get();
    for (const auto& io : node->schema->inplace) {
      const ValuePtr& old = node->inputs[static_cast<size_t>(io.second)];
      ValuePtr fresh = node->outputs[static_cast<size_t>(io.first)].lock();
      if (fresh) {
        fresh->data = old->data;
        fresh->producer.reset();
        fresh->kind = old->kind == ValueKind::Intermediate ? ValueKind::State : old->kind;
        fresh->requires_grad = old->requires_grad;
        fresh->name = old->name;
        if (old->grad) {
          set_grad(fresh, old->grad);
          set_grad(old, nullptr);
        }
        forget_pending(fresh.get());
      }
    }
  }
  if (!ran) return;
  // Invalidate afterwards: a chain of updates passes the buffer along first.
  for (NodeId n = 0; n < ex.graph.num_nodes(); ++n) {
    const Node* node = ex.nodes[static_cast<size_t>(n)].get();
    for (const auto& io : node->schema->inplace) {
      const ValuePtr& old = node->inputs[static_cast<size_t>(io.second)];
      old->data = Tensor();
      old->producer.reset();
      old->invalid = "it was overwritten in place by " + node->schema->name +
                     (node->meta.scope.empty() ? "" : " ('" + node->meta.scope + "')");
    }
  }
}

}  // namespace

void realize(const std::vector<ValuePtr>& targets) {
  std::vector<ValuePtr> roots = pending_values();
  for (const auto& t : targets) {
    if (!t->invalid.empty()) throw_invalid(*t);
    if (t->realized()) continue;
    bool known = false;
    for (const auto& r : roots) known = known || r == t;
    if (!known) roots.push_back(t);
  }
  if (roots.empty()) return;
  Export ex = export_graph(roots, true);
  PlanCache& pc = cache();
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<Executor> executor;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outs;
  try {
    const CachedPlan& cp = pc.get(ex.graph, ex.outputs);
    plan = cp.plan;
    executor = cp.executor;
    inputs.reserve(plan->input_values.size());
    for (ValueId v : plan->input_values) {
      const ValuePtr& lv = ex.by_id.at(static_cast<size_t>(v));
      if (!lv->realized()) throw InternalError("realize: leaf without data");
      inputs.push_back(lv->data);
    }
    outs = executor->run(inputs);
  } catch (...) {
    // A failed plan (a kernel error, an anomaly-mode stop, over the memory limit) stays failed:
    // its values are no longer pending, so later realizes compute only what they need and do
    // not fail again on them (reading one recomputes it and reports the error again), and its
    // in-place updates are abandoned, so parameters stay trainable leaves.
    for (const auto& r : roots) forget_pending(r.get());
    settle_inplace(ex, false);
    if (plan) pc.last = plan;  // last_plan() shows the plan that failed
    throw;
  }
  ++pc.stats.realizes;
  if (g_capturing) {
    CapturedRun run{plan, executor, inputs, {}, {}, outs};
    for (ValueId v : plan->input_values) {
      const ValuePtr& lv = ex.by_id.at(static_cast<size_t>(v));
      run.input_kinds.push_back(lv->producer ? ValueKind::Input : lv->kind);
      run.input_seqs.push_back(lv->seq);
    }
    captured().push_back(std::move(run));
  }
  pc.last = plan;
  for (size_t i = 0; i < roots.size(); ++i) {
    roots[i]->data = outs[i];
    forget_pending(roots[i].get());
  }
  settle_inplace(ex, true);
}

const Tensor& data(const ValuePtr& v) {
  if (!v->invalid.empty()) throw_invalid(*v);
  if (!v->realized()) realize({v});
  return v->data;
}

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

CacheStats cache_stats() {
  CacheStats s = cache().stats;
  s.plans = cache().lru.size();
  return s;
}

void reset_cache_stats() { cache().stats = CacheStats{}; }

void clear_cache() {
  PlanCache& pc = cache();
  pc.index.clear();
  pc.lru.clear();
  pc.last.reset();
}

std::shared_ptr<const Plan> last_plan() { return cache().last; }

std::shared_ptr<const Plan> plan_for(const std::vector<ValuePtr>& roots) {
  Export ex = export_graph(roots, true);
  CompileOptions opts;
  opts.outputs = ex.outputs;
  opts.workspace = Executor::workspace_fn();
  return std::make_shared<const Plan>(compile(ex.graph, opts));
}

}  // namespace lazy
}  // namespace glassgrad
