// backward(): differentiate through the engine and import the gradient nodes as lazy values.
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/gradient_buckets.h"
#include "glassgrad/autodiff/gradients.h"
#include "glassgrad/runtime/host_times.h"
#include "lazy_internal.h"

#include <algorithm>
#include <optional>

namespace glassgrad {
namespace lazy {

void backward(const ValuePtr& loss, const ValuePtr& seed) { backward(loss, seed, nullptr, false); }
void backward(const ValuePtr& loss, const ValuePtr& seed, const GradientSync* sync) {
  backward(loss, seed, sync, false);
}

namespace {

// A graph leaf standing for lazy value v (a parameter the loss does not read, or a gradient
// accumulated by an earlier backward): graph edges from it import back as edges to v itself.
ValueId leaf_for(Export& ex, const ValuePtr& v, ValueKind kind, bool requires_grad) {
  auto it = ex.id.find(v.get());
  if (it != ex.id.end()) return it->second;
  const ValueId id = ex.graph.add_leaf(v->name, v->info, kind, requires_grad);
  ex.id[v.get()] = id;
  ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
  ex.by_id[static_cast<size_t>(id)] = v;
  return id;
}

// The forward nodes whose gradient rules read saved values (forward values: their inputs or
// outputs), after checking PyTorch's two rules for them: a value modified in place since it was
// saved cannot be read (but by the in-place op's own rule), and a node a backward without
// retain_graph already ran cannot run again.
std::vector<Node*> check_saved_values(const Export& ex, NodeId first_new, ValueId first_backward_value) {
  std::vector<Node*> saving;
  for (NodeId n = first_new; n < ex.graph.num_nodes(); ++n) {
    const glassgrad::Node& gn = ex.graph.node(n);
    if (gn.gradient_of == kNoNode || static_cast<size_t>(gn.gradient_of) >= ex.nodes.size()) continue;
    Node* fwd = ex.nodes[static_cast<size_t>(gn.gradient_of)].get();
    bool reads_saved = false;
    for (ValueId in : gn.inputs) {
      if (in >= first_backward_value) continue;
      reads_saved = true;
      const ValuePtr& v = ex.by_id[static_cast<size_t>(in)];
      if (fwd->freed) {
        throw StateError(
            ErrorMessage("Trying to backward through the graph a second time (or directly access saved tensors "
                         "after they have already been freed). Saved intermediate values of the graph are freed "
                         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                         "backward through the graph a second time or if you need to access saved tensors after "
                         "calling backward.")
                .detail("the gradient of " + node_where(fwd->schema->name, fwd->meta.scope) +
                        (fwd->meta.source.empty() ? "" : " (" + fwd->meta.source + ")") +
                        " reads values a previous backward() used and freed")
                .fix("loss.backward(retain_graph=True) for every backward but the last, or compute the loss "
                     "again before the next backward")
                .str());
      }
      if (v && v->stale() && v->counter.get() != fwd->in_place_of) {
        const bool saved_output = v->producer.get() == fwd;
        throw StateError(ErrorMessage(saved_tensor_headline(*v, saved_output))
                             .detail("modified by " + v->counter->writer + "; saved by " +
                                     node_where(fwd->schema->name, fwd->meta.scope) +
                                     (fwd->meta.source.empty() ? "" : " (" + fwd->meta.source + ")") +
                                     ", whose gradient needs the value it had")
                             .cause("an in-place op (add_, mul_, x[...] = ..., +=, an optimizer step) changed a "
                                    "tensor after it was used, before backward()")
                             .fix("make the in-place op out of place (x = x * 2 instead of x.mul_(2)), or clone the "
                                  "tensor before changing it (x = x.clone())")
                             .str());
      }
    }
    if (reads_saved && std::find(saving.begin(), saving.end(), fwd) == saving.end()) saving.push_back(fwd);
  }
  return saving;
}

// Imports the backward nodes from `next` up to the graph's end as lazy nodes and values (their
// inputs: forward values, earlier imports, or leaves standing for lazy values), and moves `next`
// past them.
void import_nodes(Export& ex, NodeId& next) {
  ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
  for (; next < ex.graph.num_nodes(); ++next) {
    const glassgrad::Node& gn = ex.graph.node(next);
    auto node = std::make_shared<Node>();
    node->schema = gn.schema;
    node->attrs = gn.attrs;
    node->meta = gn.meta;
    for (ValueId in : gn.inputs) {
      node->inputs.push_back(value_of(ex, in));
    }
    for (size_t k = 0; k < gn.outputs.size(); ++k) {
      auto v = std::make_shared<Value>();
      v->seq = next_seq();
      v->info = ex.graph.value(gn.outputs[k]).info;
      v->producer = node;
      v->output_index = static_cast<int>(k);
      node->outputs.push_back(v);
      ex.by_id[static_cast<size_t>(gn.outputs[k])] = v;
    }
  }
}

// Records op under no_grad (gradients do not themselves record gradients).
ValuePtr record_untracked(const std::string& op, const std::vector<ValuePtr>& inputs, const std::string& scope) {
  NodeMeta meta;
  meta.role = NodeRole::Backward;
  meta.scope = scope;
  const bool was = grad_enabled();
  set_grad_enabled(false);
  try {
    ValuePtr out = record(op, inputs, {}, meta).at(0);
    set_grad_enabled(was);
    return out;
  } catch (...) {
    set_grad_enabled(was);
    throw;
  }
}

// v's gradient g after v's hooks (each under no_grad, seeing the previous one's result).
ValuePtr run_hooks(const Value& v, ValuePtr g) {
  const std::vector<std::pair<uint64_t, GradientHook>> hooks = v.grad_hooks;  // a hook may remove itself
  for (const auto& hook : hooks) {
    const bool was = grad_enabled();
    set_grad_enabled(false);
    ValuePtr out;
    try {
      out = hook.second(g);
    } catch (...) {
      set_grad_enabled(was);
      throw;
    }
    set_grad_enabled(was);
    if (!out) continue;
    if (out->info.shape != v.info.shape || out->info.dtype != v.info.dtype || out->info.device != v.info.device) {
      throw ShapeError(ErrorMessage("hook has changed the size or type of value: the gradient of a tensor " +
                                    v.info.str() + " was replaced by " + out->info.str())
                           .cause("a function given to register_hook returned a tensor of another shape, dtype "
                                  "or device than the gradient it received")
                           .fix("return a tensor like the gradient (e.g. grad * 2, grad.clamp(-1, 1)), or None to "
                                "keep it")
                           .str());
    }
    g = std::move(out);
  }
  return g;
}

// Adds g to v's accumulated gradient (retain_grad, leaves).
void accumulate_grad(const ValuePtr& v, ValuePtr g) {
  if (v->grad) g = record_untracked("Add", {v->grad, g}, v->name);
  if (g->name.empty() && !v->name.empty()) g->name = v->name + ".grad";  // names its buffer
  set_grad(v, g);
}

}  // namespace

uint64_t add_grad_hook(const ValuePtr& v, GradientHook hook) {
  static uint64_t next_key = 0;
  v->grad_hooks.emplace_back(++next_key, std::move(hook));
  return next_key;
}

void remove_grad_hook(const ValuePtr& v, uint64_t key) {
  auto& hooks = v->grad_hooks;
  hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [key](const auto& h) { return h.first == key; }),
              hooks.end());
}

void backward(const ValuePtr& loss, const ValuePtr& seed, const GradientSync* sync, bool retain_graph) {
  if (!loss->invalid.empty()) throw_invalid(*loss);
  if (!loss->requires_grad) {
    throw ValueError(ErrorMessage("backward(): this tensor " + shape_str(loss->info.shape) +
                                  " does not require gradients")
                         .cause("nothing it was computed from is a parameter (requires_grad=True), or it was "
                                "computed under glassgrad.no_grad() or in eval mode without parameters")
                         .fix("compute the loss from the model's output in training code, outside no_grad()")
                         .str());
  }
  std::optional<HostTimer> phase(HostPhase::BackwardExport);
  Export ex = export_graph({loss}, false);
  const ValueId first_backward_value = ex.graph.num_values();  // the seed, earlier gradients and backward's own come after
  std::vector<ValueId> wrt;
  for (ValueId v : ex.graph.leaves()) {
    if (ex.graph.value(v).requires_grad) wrt.push_back(v);
  }
  ValueId seed_id = kNoValue;
  if (seed) {
    if (!seed->realized()) realize({seed});
    seed_id = ex.graph.add_leaf("grad", seed->info, ValueKind::Input);
    ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
    ex.by_id[static_cast<size_t>(seed_id)] = seed;
  }
  GradientReduction reduction;
  std::vector<char> synced;  // per wrt entry: its gradient comes out of a bucket
  if (sync) {
    reduction.group = sync->group;
    reduction.world_size = sync->world_size;
    reduction.bucket_cap_bytes = sync->bucket_cap_bytes;
    reduction.scope = sync->scope;
    for (const ValuePtr& p : sync->params) {
      if (!p->invalid.empty()) throw_invalid(*p);
      const ValueId id = leaf_for(ex, p, p->kind, true);
      if (std::find(wrt.begin(), wrt.end(), id) == wrt.end()) wrt.push_back(id);
      reduction.params.push_back(id);
      reduction.prior.push_back(p->grad ? leaf_for(ex, p->grad, ValueKind::Input, false) : kNoValue);
    }
    synced.assign(wrt.size(), 0);
    for (size_t i = 0; i < wrt.size(); ++i) {
      synced[i] = std::find(reduction.params.begin(), reduction.params.end(), wrt[i]) != reduction.params.end();
    }
  }
  const NodeId first_new = ex.graph.num_nodes();
  NodeId imported = first_new;  // backward nodes before this one are lazy nodes already
  // Hooks of computed values (register_hook, retain_grad) run as build_backward completes their
  // gradients: the backward nodes so far are imported, the hooks record on those lazy values,
  // and the result enters the graph as a leaf that imports back as the hooks' lazy value.
  GradientHooks hooks;
  for (size_t id = 0; id < ex.by_id.size(); ++id) {
    const ValuePtr& v = ex.by_id[id];
    if (v && (!v->grad_hooks.empty() || v->retains_grad) && ex.graph.value(static_cast<ValueId>(id)).producer != kNoNode) {
      hooks.values.push_back(static_cast<ValueId>(id));
    }
  }
  hooks.apply = [&](ValueId value, ValueId grad) -> ValueId {
    import_nodes(ex, imported);
    const ValuePtr v = ex.by_id.at(static_cast<size_t>(value));
    const ValuePtr g = value_of(ex, grad);
    const ValuePtr out = run_hooks(*v, g);
    if (v->retains_grad) accumulate_grad(v, out);
    return out == g ? grad : leaf_for(ex, out, ValueKind::Input, false);
  };
  phase.emplace(HostPhase::Differentiate);
  const std::vector<ValueId> grads = build_backward(ex.graph, ex.id.at(loss.get()), wrt, seed_id,
                                                    sync ? &reduction : nullptr, hooks.values.empty() ? nullptr : &hooks);
  ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
  phase.emplace(HostPhase::BackwardImport);
  const std::vector<Node*> saving = check_saved_values(ex, first_new, first_backward_value);

  // Import the rest of the backward nodes. Gradients do not themselves require gradients (no
  // double backward through the tracer).
  import_nodes(ex, imported);
  for (size_t i = 0; i < wrt.size(); ++i) {
    if (grads[i] == kNoValue) continue;
    const ValuePtr& leaf = ex.by_id.at(static_cast<size_t>(wrt[i]));
    ValuePtr g = ex.by_id.at(static_cast<size_t>(grads[i]));
    if (!leaf->grad_hooks.empty()) g = run_hooks(*leaf, g);  // before accumulating, as PyTorch's leaf hooks
    if (sync && synced[i]) {  // a synced gradient already holds the old one
      if (g->name.empty() && !leaf->name.empty()) g->name = leaf->name + ".grad";
      set_grad(leaf, g);
    } else {
      accumulate_grad(leaf, g);
    }
  }
  if (!retain_graph) {
    for (Node* n : saving) n->freed = true;
  }
}

}  // namespace lazy
}  // namespace glassgrad
