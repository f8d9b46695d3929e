// backward(): differentiate through the engine and import the gradient nodes as trace nodes.
// The gradient nodes a trace gets are kept as a template keyed by the trace's signature and its
// nodes' metadata, so a loop's repeated step skips the engine graph and the gradient rules
// (docs/architecture.md, "One graph from the tracer to the planner").
#include <list>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/gradient_buckets.h"
#include "glassgrad/autodiff/gradients.h"
#include "glassgrad/runtime/host_times.h"
#include "glassgrad/runtime/lazy_saved_mutation.h"
#include "lazy_internal.h"
#include "trace_pool.h"

#include <algorithm>

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
  auto it = ids(ex).find(v.get());
  if (it != ids(ex).end()) return it->second;
  const ValueId id = ex.graph.add_leaf(v->name, v->info, kind, requires_grad);
  ids(ex)[v.get()] = id;
  ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
  ex.by_id[static_cast<size_t>(id)] = v;
  return id;
}

// The backward nodes of one trace, in the numbering of its engine graph (export.cpp): values
// below `first` are the trace's own (and the seed), the nodes' outputs follow in order.
struct TemplateNode {
  const OpSchema* schema = nullptr;
  std::shared_ptr<const Attrs> attrs;    // shared by every import of the node (TraceNode::attrs)
  std::shared_ptr<const NodeMeta> meta;
  std::vector<ValueId> inputs;
  std::vector<TensorInfo> outputs;
  NodeId gradient_of = kNoNode;  // the forward node (index into Export::nodes) whose rule emitted it
  uint64_t hash = 0;             // node_hash
  uint64_t meta_hash = 0;        // meta_hash: with hash, what every import of the node reuses
};
struct BackwardTemplate {
  ValueId first = 0;             // the first value the template's nodes make
  std::vector<TemplateNode> nodes;
  std::vector<ValueId> wrt;      // the leaves differentiated for
  std::vector<ValueId> grads;    // their gradients (kNoValue: the loss does not depend on it)
  // The leaves reached by undefined gradients only (their hooks get None; docs/architecture.md,
  // "Undefined gradients").
  std::vector<ValueId> undefined;
  std::vector<size_t> order;     // wrt's indices in the order their gradients are stored (accumulation_order)
};

// The templates of the traces backward() has seen, most recent first.
struct TemplateCache {
  static constexpr size_t kCapacity = 64;
  std::list<std::pair<uint64_t, std::shared_ptr<const BackwardTemplate>>> lru;
  std::unordered_map<uint64_t, decltype(lru)::iterator> index;
  std::shared_ptr<const BackwardTemplate> find(uint64_t key) {
    auto it = index.find(key);
    if (it == index.end()) return nullptr;
    lru.splice(lru.begin(), lru, it->second);
    return it->second->second;
  }
  void put(uint64_t key, std::shared_ptr<const BackwardTemplate> t) {
    lru.emplace_front(key, std::move(t));
    index[key] = lru.begin();
    if (lru.size() > kCapacity) {
      index.erase(lru.back().first);
      lru.pop_back();
    }
  }
};
TemplateCache& templates() {
  static auto* c = new TemplateCache();
  return *c;
}
}  // namespace

BackwardCounts& backward_counts() {
  static BackwardCounts c;
  return c;
}

void clear_backward_templates() {
  templates().lru.clear();
  templates().index.clear();
}

namespace {

// What the gradient nodes depend on beyond the trace's signature: every forward node's metadata
// (copied into the nodes its rule emits: layer, source line, for hooks and messages) and the seed.
uint64_t template_key(const Export& ex, const ValuePtr& seed) {
  uint64_t h = hash_combine(ex.signature, 0xBAC4);
  for (const auto& n : ex.nodes) h = hash_combine(h, n->meta_hash);
  if (seed) {
    h = hash_combine(h, static_cast<uint64_t>(seed->info.dtype));
    for (int64_t d : seed->info.shape) h = hash_combine(h, static_cast<uint64_t>(d));
    h = hash_combine(h, static_cast<uint64_t>(seed->info.device.type) * 64 + static_cast<uint64_t>(seed->info.device.index));
  }
  return hash_combine(h, seed ? 1 : 0);
}

// The nodes build_backward appended to ex.graph from node first_new on.
std::shared_ptr<BackwardTemplate> template_of(const Export& ex, NodeId first_new, ValueId first,
                                              std::vector<ValueId> wrt, std::vector<ValueId> grads) {
  auto t = std::make_shared<BackwardTemplate>();
  t->first = first;
  t->wrt = std::move(wrt);
  t->grads = std::move(grads);
  ValueId next = first;  // the import appends the nodes' outputs in this order
  for (NodeId n = first_new; n < ex.graph.num_nodes(); ++n) {
    const Node& gn = ex.graph.node(n);
    for (ValueId o : gn.outputs) {
      if (o != next++) throw InternalError("backward: the gradient graph's values are not its nodes' outputs in order");
    }
    TemplateNode tn;
    tn.schema = gn.schema;
    tn.attrs = std::make_shared<const Attrs>(gn.attrs);
    tn.meta = std::make_shared<const NodeMeta>(gn.meta);
    tn.inputs = gn.inputs;
    for (ValueId o : gn.outputs) tn.outputs.push_back(ex.graph.value(o).info);
    tn.gradient_of = gn.gradient_of;
    tn.hash = node_hash(*gn.schema, gn.attrs, tn.outputs);
    tn.meta_hash = meta_hash(gn.meta);
    t->nodes.push_back(std::move(tn));
  }
  if (next != ex.graph.num_values()) throw InternalError("backward: the gradient graph added a leaf");
  return t;
}

// What a composite's op says PyTorch's node saves (attribute torch_saves, recorded by the Python
// function composing it): 0 where the op's gradient reads only constants of the composition, which
// PyTorch's node does not save (tril's mask: TrilBackward0 saves nothing, so a second backward runs),
// 1 where PyTorch's node saves a tensor (reflection padding's slices: ReflectionPad2DBackward0 saves
// its input); -1 without the attribute.
int saves_per_attribute(const TraceNode& fwd) {
  static const std::string key = "torch_saves";
  if (!fwd.attrs->has(key)) return -1;
  return fwd.attrs->f(key) != 0 ? 1 : 0;
}

// The ops the rules below name, found once: a backward asks for every forward node's rules, and
// comparing schemas costs a fraction of comparing the op's name with each of them.
struct RuleOps {
  const OpSchema* conv2d;
  const OpSchema* conv2d_backward_input;
  const OpSchema* div;
  const OpSchema* mul_scalar;
  const OpSchema* avg_pool2d;
};
const RuleOps& rule_ops() {
  static const RuleOps ops = [] {
    const OpRegistry& r = OpRegistry::instance();
    return RuleOps{&r.at("Conv2D"), &r.at("Conv2DBackwardInput"), &r.at("Div"), &r.at("MulScalar"),
                   &r.at("AvgPool2D")};
  }();
  return ops;
}

// Whether PyTorch's node for forward op `fwd` saves a tensor its gradient here does not read, so a
// second backward through it raises as through any node that saved values. PyTorch records x * 2
// (and x / 2, a MulScalar here) as mul/div of a wrapped 0-d tensor and saves that tensor; a
// MulScalar with attribute scalar_arg stands for a Scalar argument (add's alpha, lerp's weight),
// which PyTorch does not save. avg_pool1d/2d (AvgPool2D) save their input for the input's shape.
// per_attribute: saves_per_attribute(fwd).
bool saves_unread_value(const TraceNode& fwd, int per_attribute) {
  if (per_attribute == 1) return true;
  const RuleOps& ops = rule_ops();
  if (fwd.schema == ops.mul_scalar) return !fwd.attrs->has("scalar_arg");
  return fwd.schema == ops.avg_pool2d;
}

// The inputs 0 .. n-1 of forward op `fwd` PyTorch's node saves whatever its gradient here reads:
// the input and the weight of a convolution (ConvolutionBackward0 saves both, also when one of
// them needs no gradient), and a / b's dividend when b requires grad (DivBackward0 saves it for
// b's gradient, which reads the quotient here), so an in-place change of one raises at backward as
// in PyTorch. Ops not listed save what their gradient rules read (docs/inplace-and-views.md,
// "Version counters and freed graphs").
size_t inputs_saved_unread(const TraceNode& fwd) {
  const RuleOps& ops = rule_ops();
  if (fwd.schema == ops.conv2d || fwd.schema == ops.conv2d_backward_input) return std::min<size_t>(2, fwd.inputs.size());
  if (fwd.schema == ops.div && fwd.inputs.size() == 2 && fwd.inputs[1]->requires_grad) return 2;
  return 0;
}

// The leaf overwritten by an update outside its storage's count (an optimizer step) that value v
// still needs: v itself, a leaf v is a view of (its memory), or, v still pending, one it is
// computed from. A leaf whose value before the update was copied (copied_before_update) is needed
// only as the first two: the pending values computed from it compute from the copy, as PyTorch
// computed them before the step, while a rule reading the leaf itself (or a view of it) reads what
// PyTorch's saved tensor shares, the overwritten memory. nullptr when none.
const TraceValue* overwritten_source(const TraceValue* v) {
  // (value, reached from v through views only)
  std::vector<std::pair<const TraceValue*, bool>> stack{{v, true}};
  std::unordered_set<const TraceValue*> seen, seen_direct;
  while (!stack.empty()) {
    const auto [u, direct] = stack.back();
    stack.pop_back();
    if (!(direct ? seen_direct : seen).insert(u).second) continue;
    if (!u->invalid.empty() && (direct || !u->copied_before_update)) return u;
    if (!u->producer) continue;
    const TraceNode& p = *u->producer;
    const int view_of = p.schema->view_of;
    if (!u->realized()) {
      for (size_t i = 0; i < p.inputs.size(); ++i) {
        stack.emplace_back(p.inputs[i].get(), direct && view_of == static_cast<int>(i));
      }
    } else if (view_of >= 0) {  // computed already: it may share the leaf's (overwritten) memory
      stack.emplace_back(p.inputs[static_cast<size_t>(view_of)].get(), true);
    }
  }
  return nullptr;
}

// fwd's sequence number (its first living output's), 0 where none lives.
uint64_t seq_of(const TraceNode& fwd) {
  for (const auto& out : fwd.outputs) {
    if (const ValuePtr o = out.lock()) return o->seq;
  }
  return 0;
}

// Whether fwd was recorded inside the open allow_mutation_on_saved_tensors context: every write
// since was made inside it too, as PyTorch's context requires of both (lazy_saved_mutation.h).
bool mutation_allowed(const TraceNode& fwd) {
  const uint64_t since = mutation_on_saved_allowed_since();
  return since != 0 && seq_of(fwd) >= since;
}

// PyTorch's AssertionError where a backward reads what fwd saved inside an
// allow_mutation_on_saved_tensors context that has closed since (lazy_saved_mutation.h).
void check_saved_inside_context(const TraceNode& fwd) {
  const uint64_t seq = seq_of(fwd);
  if (seq == 0 || !recorded_in_closed_context(seq)) return;
  throw SavedOutsideContextError(
      ErrorMessage("Trying to backward outside of the 'allow_mutation_on_saved_tensors' contextin which the graph "
                   "was originally recorded.")
          .detail("the gradient of " + node_where(fwd.schema->name, fwd.meta->scope) +
                  (fwd.meta->source.empty() ? "" : " (" + fwd.meta->source + ")") +
                  " reads values it saved inside an allow_mutation_on_saved_tensors() context that has closed")
          .fix("call backward() inside the same with allow_mutation_on_saved_tensors(): block as the forward")
          .str());
}

// A forward value a gradient rule reads (or PyTorch's node saves), checked: modified in place since
// it was saved (a new version of its storage, or an optimizer's update of its buffer), it raises
// PyTorch's error, but in the gradient of the in-place op that made the new version, or inside
// the allow_mutation_on_saved_tensors context that recorded its node.
void check_saved_value(const Export& ex, const ValuePtr& v, const TraceNode* fwd) {
  if (!v) return;
  if (ex.overwritten_leaves) {
    if (const TraceValue* leaf = overwritten_source(v.get())) throw_modified(*leaf);
  }
  if (v->stale() && (v->counter.get() != fwd->in_place_of || v->version >= fwd->in_place_version) &&
      !mutation_allowed(*fwd)) {
    const bool saved_output = v->producer.get() == fwd;
    throw StateError(ErrorMessage(saved_tensor_headline(*v, saved_output))
                         .detail("modified by " + v->counter->writer + "; saved by " +
                                 node_where(fwd->schema->name, fwd->meta->scope) +
                                 (fwd->meta->source.empty() ? "" : " (" + fwd->meta->source + ")") +
                                 ", whose gradient needs the value it had")
                         .cause("an in-place op (add_, mul_, x[...] = ..., +=, an optimizer step) changed a "
                                "tensor after it was used, before backward()")
                         .fix("make the in-place op out of place (x = x * 2 instead of x.mul_(2)), or clone the "
                              "tensor before changing it (x = x.clone())")
                         .str());
  }
}

// PyTorch's two rules for the saved values (forward values: inputs or outputs of forward node
// gradient_of) a gradient node reads: a value modified in place since it was saved cannot be read
// (but by the in-place op's own rule), and a node a backward without retain_graph already ran
// cannot run again. Adds the forward node to `saving` when the gradient node reads saved values,
// once per run of gradient nodes of one forward node (a rule emits its nodes together) where the
// whole list was searched for each; a node listed twice is only marked freed twice (release_graph).
// `rules`: what the forward node's op and attributes say (SavedRules), kept from the node before.
struct SavedRules {
  const TraceNode* fwd = nullptr;
  size_t unread = 0;             // inputs_saved_unread
  bool saves_unread = false;     // saves_unread_value
  bool per_attribute = true;     // saves_per_attribute != 0
};
void check_saved(const Export& ex, NodeId gradient_of, const std::vector<ValueId>& inputs,
                 ValueId first_backward_value, std::vector<TraceNode*>& saving, SavedRules& rules) {
  if (gradient_of == kNoNode || static_cast<size_t>(gradient_of) >= ex.nodes.size()) return;
  TraceNode* fwd = ex.nodes[static_cast<size_t>(gradient_of)].get();
  // The op-name and attribute lookups once per forward node: its gradient nodes come together.
  if (rules.fwd != fwd) {
    const int per_attribute = saves_per_attribute(*fwd);
    rules = SavedRules{fwd, inputs_saved_unread(*fwd), saves_unread_value(*fwd, per_attribute), per_attribute != 0};
  }
  const size_t unread = rules.unread;
  bool reads_forward = false;  // the gradient node reads a forward tensor
  if (rules.per_attribute) {
    for (ValueId in : inputs) reads_forward = reads_forward || in < first_backward_value;
  }
  const bool reads_saved = rules.saves_unread || unread > 0 || reads_forward;
  if (reads_saved && fwd->freed) {
    throw StateError(
        ErrorMessage("Trying to backward through the graph a second time (or directly access saved tensors "
                     "after they have already been freed). Saved intermediate values of the graph are freed "
                     "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                     "backward through the graph a second time or if you need to access saved tensors after "
                     "calling backward.")
            .detail("the gradient of " + node_where(fwd->schema->name, fwd->meta->scope) +
                    (fwd->meta->source.empty() ? "" : " (" + fwd->meta->source + ")") +
                    " reads values a previous backward() used and freed")
            .fix("loss.backward(retain_graph=True) for every backward but the last, or compute the loss "
                 "again before the next backward")
            .str());
  }
  // (x * 2's saved number is no tensor of the context's: PyTorch's hooks skip wrapped numbers)
  if (unread > 0 || reads_forward || (rules.saves_unread && fwd->schema != rule_ops().mul_scalar)) {
    check_saved_inside_context(*fwd);
  }
  for (ValueId in : inputs) {
    if (in < first_backward_value) check_saved_value(ex, ex.by_id[static_cast<size_t>(in)], fwd);
  }
  for (size_t i = 0; i < unread; ++i) check_saved_value(ex, fwd->inputs[i], fwd);
  if (reads_saved && (saving.empty() || saving.back() != fwd)) saving.push_back(fwd);
}

// The forward nodes whose gradient rules read saved values, each checked (check_saved): the
// graph's nodes from first_new on, or a template's.
std::vector<TraceNode*> check_saved_values(const Export& ex, NodeId first_new, ValueId first_backward_value) {
  std::vector<TraceNode*> saving;
  SavedRules rules;
  for (NodeId n = first_new; n < ex.graph.num_nodes(); ++n) {
    const Node& gn = ex.graph.node(n);
    check_saved(ex, gn.gradient_of, gn.inputs, first_backward_value, saving, rules);
  }
  return saving;
}
std::vector<TraceNode*> check_saved_values(const Export& ex, const BackwardTemplate& t, ValueId first_backward_value) {
  std::vector<TraceNode*> saving;
  SavedRules rules;
  for (const TemplateNode& tn : t.nodes) check_saved(ex, tn.gradient_of, tn.inputs, first_backward_value, saving, rules);
  return saving;
}

// After a backward() without retain_graph: the nodes whose rules read saved values are freed (a
// second backward through them raises), and no forward node of the trace counts as a reader that
// may still be differentiated (TraceNode::counts_reads), so an optimizer step after it copies
// nothing (docs/inplace-and-views.md, "Backward after an optimizer step"). A write outside the
// differentiated graph that still reads its forward values is computed by the step's realize
// itself, before the update (unread_writes; "Writes read after an optimizer step").
void release_graph(const Export& ex, const std::vector<TraceNode*>& saving) {
  for (TraceNode* n : saving) n->freed = true;
  note_freed(saving);
  for (const auto& n : ex.nodes) n->stop_counting_reads();
}

// One backward node as a trace node: inputs by graph value (forward values, earlier imports,
// leaves standing for lazy values), outputs given the graph values first_output, first_output + 1...
// `hashes`: the node's (node_hash, meta_hash) when known (a template's), else computed here.
// `gradient_of`: the forward node whose rule emitted it. The gradient of an in-place op's node
// keeps that op's storage (in_place_of): a second backward through it may read the version the op
// overwrote, as PyTorch's node for leaky_relu_ (which saves its result) lets it.
void import_node(Export& ex, const OpSchema& schema, std::shared_ptr<const Attrs> attrs,
                 std::shared_ptr<const NodeMeta> meta,
                 const std::vector<ValueId>& inputs, const std::vector<TensorInfo>& outputs, ValueId first_output,
                 NodeId gradient_of, const std::pair<uint64_t, uint64_t>* hashes = nullptr) {
  auto node = new_node();
  node->schema = &schema;
  node->attrs = std::move(attrs);
  node->meta = std::move(meta);
  if (gradient_of != kNoNode && static_cast<size_t>(gradient_of) < ex.nodes.size()) {
    node->in_place_of = ex.nodes[static_cast<size_t>(gradient_of)]->in_place_of;
    node->in_place_version = ex.nodes[static_cast<size_t>(gradient_of)]->in_place_version;
  }
  node->hash = hashes ? hashes->first : node_hash(schema, *node->attrs, outputs);
  node->meta_hash = hashes ? hashes->second : meta_hash(*node->meta);
  // The lists and shapes in buffers of nodes and values that died (trace_pool::spare).
  node->inputs = trace_pool::spare<std::vector<ValuePtr>>(inputs.size());
  for (ValueId in : inputs) node->inputs.push_back(value_of(ex, in));
  const size_t end = static_cast<size_t>(first_output) + outputs.size();
  if (ex.by_id.size() < end) ex.by_id.resize(end);
  node->outputs = trace_pool::spare<std::vector<std::weak_ptr<TraceValue>>>(outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    auto v = new_value();
    v->seq = next_seq();
    v->info.shape = trace_pool::spare<Shape>(outputs[k].shape.size());
    v->info = outputs[k];
    v->producer = node;
    v->output_index = static_cast<int>(k);
    // Without a gradient rule the value still requires one: differentiating it again then
    // raises UnsupportedError naming the op, never a silently missing term.
    v->requires_grad = ex.differentiable_imports && is_floating(v->info.dtype) && !schema.stops_gradient &&
                       schema.inplace.empty() &&
                       std::any_of(node->inputs.begin(), node->inputs.end(),
                                   [](const ValuePtr& in) { return in->requires_grad; });
    const bool tracked = v->requires_grad;
    node->outputs.push_back(v);
    ex.by_id[static_cast<size_t>(first_output) + k] = std::move(v);
    if (tracked) node->count_reads();  // a gradient that can be differentiated again reads its inputs later
  }
}

// Imports the backward nodes from `next` up to the graph's end as trace nodes and values, and
// moves `next` past them.
void import_nodes(Export& ex, NodeId& next) {
  ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
  std::vector<TensorInfo> outs;
  for (; next < ex.graph.num_nodes(); ++next) {
    const Node& gn = ex.graph.node(next);
    outs.clear();
    for (ValueId o : gn.outputs) outs.push_back(ex.graph.value(o).info);
    import_node(ex, *gn.schema, std::make_shared<const Attrs>(gn.attrs), std::make_shared<const NodeMeta>(gn.meta),
                gn.inputs, outs, gn.outputs.empty() ? ex.graph.num_values() : gn.outputs[0], gn.gradient_of);
  }
}

// Imports a template's nodes: their outputs are the values from t.first on, in order.
void import_template(Export& ex, const BackwardTemplate& t) {
  ValueId next = t.first;
  size_t made = 0;
  for (const TemplateNode& tn : t.nodes) made += tn.outputs.size();
  ex.by_id.reserve(static_cast<size_t>(next) + made);  // import_node grows it node by node
  for (const TemplateNode& tn : t.nodes) {
    const std::pair<uint64_t, uint64_t> hashes{tn.hash, tn.meta_hash};
    import_node(ex, *tn.schema, tn.attrs, tn.meta, tn.inputs, tn.outputs, next, tn.gradient_of, &hashes);
    next += static_cast<ValueId>(tn.outputs.size());
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

// v's gradient g after v's hooks, each seeing the previous one's result. They run with grad mode
// on only when `differentiable` (autograd.grad(create_graph=True)), as PyTorch's engine runs
// hooks under create_graph's grad mode: what they compute is then differentiated again.
ValuePtr run_hooks(const TraceValue& v, ValuePtr g, bool differentiable = false) {
  const std::vector<std::pair<uint64_t, GradientHook>> hooks = v.grad_hooks;  // a hook may remove itself
  for (const auto& hook : hooks) {
    const bool was = grad_enabled();
    set_grad_enabled(differentiable);
    ValuePtr out;
    try {
      out = hook.second(g);
    } catch (...) {
      set_grad_enabled(was);
      throw;
    }
    set_grad_enabled(was);
    if (!out) continue;
    // A hook's undefined result ends the run; an undefined gradient given (None) goes on to the next hook.
    if (out == undefined_gradient()) return out;
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

// Adds g to v's accumulated gradient (leaves).
void accumulate_grad(const ValuePtr& v, ValuePtr g) {
  if (v->grad) g = record_untracked("Add", {v->grad, g}, v->name);
  if (g->name.empty() && !v->name.empty()) g->name = v->name.grad();  // names its buffer
  set_grad(v, g);
}

// Stores g as computed v's retained gradient (retain_grad), as PyTorch's retains-grad hook: the
// sum with the gradient held is a new tensor (the .grad read before keeps its values, set_grad's
// cleared link), recorded differentiably under create_graph, where g has its history too
// (docs/gradient-hooks.md).
void retain_gradient(const ValuePtr& v, ValuePtr g, bool differentiable) {
  if (ValuePtr held = v->grad) {
    set_grad(v, nullptr);
    if (differentiable) {
      const bool was = grad_enabled();
      set_grad_enabled(true);
      try {
        g = record("Add", {held, g}, {}, NodeMeta{}).at(0);
      } catch (...) {
        set_grad_enabled(was);
        throw;
      }
      set_grad_enabled(was);
    } else {
      g = record_untracked("Add", {held, g}, v->name);
    }
  }
  if (g->name.empty() && !v->name.empty()) g->name = v->name.grad();  // names its buffer
  set_grad(v, g);
}

}  // namespace

const ValuePtr& undefined_gradient() {
  static const ValuePtr* marker = new ValuePtr(std::make_shared<TraceValue>());  // lives to exit
  return *marker;
}

uint64_t add_grad_hook(const ValuePtr& v, GradientHook hook) {
  static uint64_t next_key = 0;
  v->grad_hooks.emplace_back(++next_key, std::move(hook));
  return next_key;
}

void set_post_accumulate_hook(const ValuePtr& v, std::function<void()> hook) {
  v->post_accumulate_hook = std::move(hook);
}

void remove_grad_hook(const ValuePtr& v, uint64_t key) {
  auto& hooks = v->grad_hooks;
  hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [key](const auto& h) { return h.first == key; }),
              hooks.end());
}

namespace {

void check_differentiable(const ValuePtr& loss, const char* call) {
  if (!loss->invalid.empty()) throw_invalid(*loss);
  if (!loss->requires_grad) {
    // PyTorch's message first (notebooks and tests match its start), then which call and tensor.
    throw ValueError(ErrorMessage("element 0 of tensors does not require grad and does not have a grad_fn")
                         .detail(std::string(call) + ": this tensor " + shape_str(loss->info.shape) +
                                 " does not require gradients")
                         .cause("nothing it was computed from is a parameter (requires_grad=True), or it was "
                                "computed under glassgrad.no_grad() or in eval mode without parameters")
                         .fix("compute the loss from the model's output in training code, outside no_grad()")
                         .str());
  }
}

// The computed values of the export with gradient hooks or retain_grad: build_backward calls back
// for them as it completes their gradients.
std::vector<ValueId> hooked_values(const Export& ex) {
  std::vector<ValueId> hooked;
  for (size_t id = static_cast<size_t>(ex.num_leaves); id < ex.by_id.size(); ++id) {
    const ValuePtr& v = ex.by_id[id];
    if (v && (!v->grad_hooks.empty() || v->retains_grad)) hooked.push_back(static_cast<ValueId>(id));
  }
  return hooked;
}

// The callback build_backward makes for a hooked value: the backward nodes so far are imported
// for the hooks, which record on those trace values; their result enters the graph as a leaf
// that imports back as the hooks' value (the hooks' own value, with its history where they ran
// differentiably). retain_grad's gradient is stored on the way, in backward() and grad() alike,
// as PyTorch's engine runs a tensor's retains-grad hook wherever its walk computes its gradient.
GradientHooks hooks_for(Export& ex, std::vector<ValueId> values, NodeId& imported) {
  GradientHooks hooks;
  hooks.values = std::move(values);
  hooks.apply = [&ex, &imported](ValueId value, ValueId grad) -> ValueId {
    import_nodes(ex, imported);
    const ValuePtr v = ex.by_id.at(static_cast<size_t>(value));
    // kNoValue: reached by undefined gradients only (build_backward); the hooks get None
    const ValuePtr g = grad == kNoValue ? undefined_gradient() : value_of(ex, grad);
    const ValuePtr out = run_hooks(*v, g, ex.differentiable_imports);
    if (out == undefined_gradient()) return kNoValue;
    if (v->retains_grad) retain_gradient(v, out, ex.differentiable_imports);
    return out == g ? grad : leaf_for(ex, out, ValueKind::Input, false);
  };
  return hooks;
}

// Whether two entries of `grads` (gradient ids, kNoValue for none) are one value.
bool shares_a_gradient(const std::vector<ValueId>& grads) {
  std::vector<ValueId> ids;
  ids.reserve(grads.size());
  for (ValueId g : grads) {
    if (g != kNoValue) ids.push_back(g);
  }
  std::sort(ids.begin(), ids.end());
  return std::adjacent_find(ids.begin(), ids.end()) != ids.end();
}

// Whether g is the gradient a leaf stored before the k-th of `order` holds (backward's store loop,
// which gave those leaves their gradients, in that order): a linear search, for the calls where two
// leaves may get one value (shares_a_gradient, or a hook ran).
bool stored_before(const Export& ex, const std::vector<ValueId>& wrt, const std::vector<ValueId>& grads,
                   const std::vector<size_t>& order, size_t k, const TraceValue* g) {
  for (size_t before = 0; before < k; ++before) {
    const size_t j = order[before];
    if (grads[j] == kNoValue) continue;
    if (newest_version(ex.by_id.at(static_cast<size_t>(wrt[j])))->grad.get() == g) return true;
  }
  return false;
}

// Adds the leaves among `wrt` to `hooks`: build_backward then calls apply(leaf, kNoValue) for
// those reached by undefined gradients only, which calls `undefined_leaf` with the leaf instead
// of the hooks of computed values.
void watch_undefined_leaves(const Export& ex, GradientHooks& hooks, const std::vector<ValueId>& wrt,
                            std::function<void(ValueId)> undefined_leaf) {
  for (ValueId w : wrt) {
    if (ex.graph.value(w).producer == kNoNode) hooks.values.push_back(w);
  }
  hooks.apply = [&ex, computed = std::move(hooks.apply), undefined_leaf = std::move(undefined_leaf)](
                    ValueId value, ValueId grad) {
    if (ex.graph.value(value).producer != kNoNode) return computed(value, grad);
    undefined_leaf(value);
    return kNoValue;
  };
}

// The order in which PyTorch's engine stores the leaves' gradients (its AccumulateGrad nodes run as
// soon as the walk has completed a leaf's gradient), as indices into wrt: the walk runs the nodes
// from the last one back, so a leaf is complete once it has run the first node that reads it; the
// leaf whose first reader comes later is stored first, and leaves first read by one node are stored
// in its input order (Conv2D's weight, then its bias; a Linear layer reads its bias in a later Add
// node, so its bias comes first, as PyTorch's addmm gives it). Leaves no node reads come last.
// Hooks see this order (register_hook on a leaf, register_post_accumulate_grad_hook;
// docs/gradient-hooks.md).
std::vector<size_t> accumulation_order(const Graph& g, const std::vector<ValueId>& wrt, NodeId first_backward) {
  std::vector<size_t> slot(static_cast<size_t>(g.num_values()), wrt.size());
  for (size_t i = 0; i < wrt.size(); ++i) slot[static_cast<size_t>(wrt[i])] = i;
  // per wrt entry: (first node reading it, the input index there); nodes: forward ones only
  std::vector<std::pair<NodeId, size_t>> first(wrt.size(), {kNoNode, 0});
  for (NodeId n = 0; n < first_backward; ++n) {
    const std::vector<ValueId>& inputs = g.node(n).inputs;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const size_t i = slot[static_cast<size_t>(inputs[k])];
      if (i < wrt.size() && first[i].first == kNoNode) first[i] = {n, k};
    }
  }
  std::vector<size_t> order(wrt.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&first](size_t a, size_t b) {
    const auto& [na, ka] = first[a];
    const auto& [nb, kb] = first[b];
    if ((na == kNoNode) != (nb == kNoNode)) return nb == kNoNode;
    return na != nb ? na > nb : ka < kb;
  });
  return order;
}

// Runs a leaf's post-accumulate hook (register_post_accumulate_grad_hook) once its .grad holds
// this backward's gradient. A copy runs: the hook may replace or clear the leaf's own.
void run_post_accumulate_hook(const ValuePtr& leaf) {
  if (!leaf->post_accumulate_hook) return;
  const std::function<void()> hook = leaf->post_accumulate_hook;
  hook();
}

// The gradients backward() is about to store, pinned (pending, as a .grad is) while post-accumulate
// hooks run between the stores: a hook's optimizer step updates its parameter in place, and the
// gradients of the leaves stored after it may read that parameter's value before the update (the
// last layer's weight, in the gradients of the layers before it); pinned, the step's realize
// computes them before its update, as a .grad already stored would be. Unpinned as backward ends.
struct PinnedGradients {
  std::vector<ValuePtr> values;
  PinnedGradients() = default;
  PinnedGradients(const PinnedGradients&) = delete;
  PinnedGradients& operator=(const PinnedGradients&) = delete;
  ~PinnedGradients() {
    for (const ValuePtr& v : values) unpin(v);
  }
  void pin_all(const Export& ex, const std::vector<ValueId>& wrt, const std::vector<ValueId>& grads) {
    bool hooked = false;
    for (ValueId w : wrt) {
      hooked = hooked || newest_version(ex.by_id.at(static_cast<size_t>(w)))->post_accumulate_hook;
    }
    if (!hooked) return;
    for (ValueId g : grads) {
      if (g == kNoValue) continue;
      values.push_back(ex.by_id.at(static_cast<size_t>(g)));
      pin(values.back());
    }
  }
};

ValueId add_seed(Export& ex, const ValuePtr& seed) {
  if (!seed) return kNoValue;
  const ValueId id = ex.graph.add_leaf("grad", seed->info, ValueKind::Input);
  ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
  ex.by_id[static_cast<size_t>(id)] = seed;
  return id;
}

}  // namespace

std::vector<ValuePtr> gradients(const ValuePtr& loss, const ValuePtr& seed, const std::vector<ValuePtr>& inputs,
                                bool retain_graph, bool create_graph) {
  check_differentiable(loss, "autograd.grad()");
  std::optional<HostTimer> phase(HostPhase::BackwardExport);
  Export ex = collect({loss}, false);
  const ValueId first_backward_value = static_cast<ValueId>(ex.by_id.size());
  if (seed && !seed->realized()) realize({seed});
  // With create_graph, hooks (register_hook, an autograd.Function's backward) run with grad mode
  // on and what they return keeps its history: the gradients are differentiable through them.
  const std::vector<ValueId> hooked = hooked_values(ex);
  ex.differentiable_imports = create_graph;
  build_graph(ex);
  // An input the loss does not read is not in the export: its gradient is nullptr.
  std::vector<ValueId> wrt;
  std::vector<int> slot(inputs.size(), -1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]->invalid.empty()) throw_invalid(*inputs[i]);
    auto it = ids(ex).find(inputs[i].get());
    if (it == ids(ex).end()) continue;
    slot[i] = static_cast<int>(wrt.size());
    wrt.push_back(it->second);
  }
  const ValueId seed_id = add_seed(ex, seed);
  const NodeId first_new = ex.graph.num_nodes();
  NodeId imported = first_new;
  GradientHooks hooks = hooks_for(ex, hooked, imported);
  // An input leaf reached by undefined gradients only: its hooks get None, as in backward()
  watch_undefined_leaves(ex, hooks, wrt, [&ex](ValueId leaf) {
    const ValuePtr v = newest_version(ex.by_id.at(static_cast<size_t>(leaf)));
    if (!v->grad_hooks.empty()) run_hooks(*v, undefined_gradient());
  });
  phase.emplace(HostPhase::Differentiate);
  ++backward_counts().built;
  const std::vector<ValueId> grads = build_backward(ex.graph, ids(ex).at(loss.get()), wrt, seed_id, nullptr, &hooks);
  phase.emplace(HostPhase::BackwardImport);
  ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
  const std::vector<TraceNode*> saving = check_saved_values(ex, first_new, first_backward_value);
  import_nodes(ex, imported);
  std::vector<ValuePtr> out(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (slot[i] < 0 || grads[static_cast<size_t>(slot[i])] == kNoValue) continue;
    ValuePtr g = ex.by_id.at(static_cast<size_t>(grads[static_cast<size_t>(slot[i])]));
    // A computed input's hooks ran in the walk; a leaf's run on its gradient here, as backward's.
    if (inputs[i]->is_leaf() && !inputs[i]->grad_hooks.empty()) g = run_hooks(*inputs[i], g, create_graph);
    if (g != undefined_gradient()) out[i] = std::move(g);
  }
  if (!retain_graph) release_graph(ex, saving);
  return out;
}

std::vector<ValuePtr> leaves_requiring_grad(const ValuePtr& v) {
  const Export ex = collect({v}, false);
  std::vector<ValuePtr> out;
  for (size_t id = 0; id < static_cast<size_t>(ex.num_leaves); ++id) {
    const ValuePtr& leaf = ex.by_id[id];
    if (leaf && leaf->requires_grad) out.push_back(leaf);
  }
  return out;
}

void backward(const ValuePtr& loss, const ValuePtr& seed, const GradientSync* sync, bool retain_graph) {
  check_differentiable(loss, "backward()");
  std::optional<HostTimer> phase(HostPhase::BackwardExport);
  Export ex = collect({loss}, false);
  const ValueId first_backward_value = static_cast<ValueId>(ex.by_id.size());  // the seed, earlier gradients and backward's own come after
  if (seed && !seed->realized()) realize({seed});
  // Hooks of computed values (register_hook, retain_grad) run as build_backward completes their
  // gradients; they and data parallelism (whose leaves and buckets depend on which gradients
  // exist) differentiate afresh every time. Otherwise a trace seen before reuses its gradient
  // nodes (a template).
  const std::vector<ValueId> hooked = hooked_values(ex);
  const bool reusable = !sync && hooked.empty();
  phase.emplace(HostPhase::Differentiate);
  const uint64_t key = reusable ? template_key(ex, seed) : 0;
  std::shared_ptr<const BackwardTemplate> tmpl = reusable ? templates().find(key) : nullptr;
  std::vector<char> synced;  // per wrt entry: its gradient comes out of a bucket
  std::vector<ValueId> wrt, grads;
  std::vector<ValueId> undefined;  // the leaves reached by undefined gradients only
  std::vector<size_t> order;       // wrt's indices in the order the gradients are stored
  std::vector<TraceNode*> saving;
  if (tmpl) {
    if (seed) ex.by_id.push_back(seed);
    ++backward_counts().reused;
    if (static_cast<ValueId>(ex.by_id.size()) != tmpl->first) throw InternalError("backward: the template's numbering drifted");
    phase.emplace(HostPhase::BackwardImport);
    saving = check_saved_values(ex, *tmpl, first_backward_value);
    // Gradients do not themselves require gradients (no double backward through the tracer).
    import_template(ex, *tmpl);
    wrt = tmpl->wrt;
    grads = tmpl->grads;
    undefined = tmpl->undefined;
    order = tmpl->order;
  } else {
    phase.emplace(HostPhase::BackwardExport);
    build_graph(ex);
    for (ValueId v = 0; v < ex.num_leaves; ++v) {
      if (ex.graph.value(v).requires_grad) wrt.push_back(v);
    }
    const ValueId seed_id = add_seed(ex, seed);
    GradientReduction reduction;
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
    const ValueId first_made = ex.graph.num_values();
    NodeId imported = first_new;  // backward nodes before this one are trace nodes already
    GradientHooks hooks = hooks_for(ex, hooked, imported);
    // The leaves too, for build_backward to name those reached by undefined gradients only, whose
    // hooks the store loop below runs on None (hooks or none, as a template is kept for later calls).
    watch_undefined_leaves(ex, hooks, wrt, [&undefined](ValueId leaf) { undefined.push_back(leaf); });
    phase.emplace(HostPhase::Differentiate);
    ++backward_counts().built;
    grads = build_backward(ex.graph, ids(ex).at(loss.get()), wrt, seed_id, sync ? &reduction : nullptr, &hooks);
    order = accumulation_order(ex.graph, wrt, first_new);
    phase.emplace(HostPhase::BackwardImport);
    if (reusable) {
      auto made = template_of(ex, first_new, first_made, wrt, grads);
      made->undefined = undefined;
      made->order = order;
      templates().put(key, made);
      saving = check_saved_values(ex, *made, first_backward_value);
      import_template(ex, *made);
    } else {
      ex.by_id.resize(static_cast<size_t>(ex.graph.num_values()));
      saving = check_saved_values(ex, first_new, first_backward_value);
      import_nodes(ex, imported);  // the rest of the backward nodes
    }
  }
  // The gradients stored as leaves' .grad in this call: one value (the gradient of b_ih + b_hh
  // reaches both biases) is stored once and copied for the others, as PyTorch's AccumulateGrad
  // copies a gradient held elsewhere, so that an in-place update of one .grad (clamp_, mul_)
  // neither changes the others nor conflicts with their updates in the same step.
  // Without hooks, two leaves get one value only where their gradient ids are one (the common
  // case has none, and asks nothing per leaf); a hook may return any value, so from the first
  // hook on each leaf's value is looked for among what the leaves before it stored.
  // Each leaf's post-accumulate hook runs as soon as its .grad is stored, before the next leaf's
  // hooks, as PyTorch's (an optimizer step per parameter, run from the hook).
  bool search = shares_a_gradient(grads);
  PinnedGradients pinned;
  pinned.pin_all(ex, wrt, grads);
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    if (grads[i] == kNoValue) {
      if (undefined.empty() || std::find(undefined.begin(), undefined.end(), wrt[i]) == undefined.end()) continue;
      const ValuePtr leaf = newest_version(ex.by_id.at(static_cast<size_t>(wrt[i])));
      if (!leaf->grad_hooks.empty()) run_hooks(*leaf, undefined_gradient());  // the hooks get None
      run_post_accumulate_hook(leaf);  // on .grad as it was, as PyTorch's
      search = true;
      continue;
    }
    // Written in place since the graph was recorded: the gradient goes to the newest version.
    const ValuePtr leaf = newest_version(ex.by_id.at(static_cast<size_t>(wrt[i])));
    ValuePtr g = ex.by_id.at(static_cast<size_t>(grads[i]));
    if (!leaf->grad_hooks.empty()) {  // before accumulating, as PyTorch's leaf hooks
      g = run_hooks(*leaf, g);
      search = true;
    }
    if (g == undefined_gradient()) {
      run_post_accumulate_hook(leaf);
      continue;
    }
    if (!leaf->grad && search && stored_before(ex, wrt, grads, order, k, g.get())) {
      g = record_untracked("Contiguous", {g}, leaf->name);
    }
    if (sync && synced[i]) {  // a synced gradient already holds the old one
      if (g->name.empty() && !leaf->name.empty()) g->name = leaf->name.grad();
      set_grad(leaf, g);
    } else {
      accumulate_grad(leaf, g);
    }
    run_post_accumulate_hook(leaf);
  }
  if (!retain_graph) release_graph(ex, saving);
}

}  // namespace lazy
}  // namespace glassgrad
