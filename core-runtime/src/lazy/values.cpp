// Lazy values: pins, the pending registry, leaves and recording.
#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>
#include <variant>

#include "glassgrad/autodiff/compute_dtypes.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/host_times.h"
#include "lazy_internal.h"
#include "trace_pool.h"

namespace glassgrad {
namespace lazy {

namespace {
// The pinned values not computed yet, in no order (pending_values sorts): each entry's value
// knows its index (TraceValue::pending_at), so leaving is a swap with the last entry. A value in
// it is alive (it leaves when it dies, ~TraceValue), so `raw` is safe to follow.
struct PendingEntry {
  TraceValue* raw;
  std::weak_ptr<TraceValue> value;
};
std::vector<PendingEntry>& pending() {
  static auto* p = new std::vector<PendingEntry>();
  return *p;
}
void add_pending(const ValuePtr& v) {
  if (v->pending_at >= 0) return;
  v->pending_at = static_cast<int64_t>(pending().size());
  pending().push_back(PendingEntry{v.get(), v});
}
uint64_t g_seq = 0;
// Per thread, as in PyTorch: no_grad() in one thread (evaluation) never stops another thread's
// training step from recording its gradients.
thread_local bool t_grad_enabled = true;
thread_local bool t_eager_views = true;
}  // namespace

uint64_t next_seq() { return ++g_seq; }

void TraceNode::count_reads() {
  if (counts_reads) return;
  counts_reads = true;
  for (const ValuePtr& in : inputs) ++in->open_readers;
}

namespace {
// Whether a backward may still reach node n: an output of it is alive, requires a gradient, and
// is held by a handle or read by a node that may still be differentiated. Otherwise no backward
// can enter n (an output a gradient needs is reached through another output: value_of).
bool may_be_differentiated(const TraceNode& n) {
  for (const auto& w : n.outputs) {
    const ValuePtr o = w.lock();
    if (o && o->requires_grad && (o->pins > 0 || o->open_readers > 0)) return true;
  }
  return false;
}

// Stops counting the reads of n's producer when no backward can reach it any more, and so on up
// the graph: a graph held only through a result that needs no gradient (an action index taken
// with gradients on and kept in a replay memory) reads the parameters of no later backward.
void release_if_unreachable(TraceNode* n) {
  if (n && n->counts_reads && !may_be_differentiated(*n)) n->stop_counting_reads();
}
}  // namespace

void TraceNode::stop_counting_reads() {
  if (!counts_reads) return;
  counts_reads = false;
  // Iterative (graphs of thousands of nodes), as ~TraceNode: every node reached is held by the
  // inputs of one handled before it, none is released meanwhile.
  std::vector<TraceNode*> work;
  auto drop = [&work](const TraceNode& node) {
    for (const ValuePtr& in : node.inputs) {
      if (in && --in->open_readers == 0 && in->pins == 0 && in->producer && in->producer->counts_reads) {
        work.push_back(in->producer.get());
      }
    }
  };
  drop(*this);
  while (!work.empty()) {
    TraceNode* n = work.back();
    work.pop_back();
    if (!n->counts_reads || may_be_differentiated(*n)) continue;
    n->counts_reads = false;
    drop(*n);
  }
}

TraceNode::~TraceNode() {
  // Invariant: a node reached here is released by its last owner, so an input value held by
  // nothing else, and that value's producer held by nothing else, die with it. They are moved
  // to a local stack and emptied one at a time: each node destroyed from the stack has no
  // inputs left, so its own destructor finds nothing to release and the depth stays constant.
  std::vector<std::shared_ptr<TraceNode>> stack;
  auto release_inputs = [&stack](std::vector<ValuePtr>& ins) {
    for (ValuePtr& v : ins) {
      if (v && v.use_count() == 1 && v->producer && v->producer.use_count() == 1) {
        stack.push_back(std::move(v->producer));
      }
    }
    ins.clear();
  };
  stop_counting_reads();
  release_inputs(inputs);
  while (!stack.empty()) {
    std::shared_ptr<TraceNode> n = std::move(stack.back());
    stack.pop_back();
    n->stop_counting_reads();
    release_inputs(n->inputs);
  }
  trace_pool::keep(inputs);  // the lists' buffers serve the next nodes made (trace_pool.h)
  trace_pool::keep(outputs);
}

TraceValue::~TraceValue() {
  if (pending_at >= 0) forget_pending(this);
  release_if_unreachable(producer.get());
  trace_pool::keep(info.shape);  // for the next value made (trace_pool.h)
}

void pin(const ValuePtr& v) {
  if (v->pins++ == 0 && !v->realized()) add_pending(v);
}

void unpin(const ValuePtr& v) {
  if (--v->pins == 0) {
    forget_pending(v.get());
    if (v->open_readers == 0) release_if_unreachable(v->producer.get());
  }
}

void forget_pending(TraceValue* v) {
  if (v->pending_at < 0) return;
  std::vector<PendingEntry>& p = pending();
  const size_t at = static_cast<size_t>(v->pending_at);
  v->pending_at = -1;
  if (at + 1 != p.size()) {
    p[at] = std::move(p.back());
    p[at].raw->pending_at = static_cast<int64_t>(at);
  }
  p.pop_back();
}

size_t pending_bound() { return pending().size(); }

std::vector<ValuePtr> pending_values() {
  std::vector<ValuePtr> out;
  std::vector<PendingEntry>& p = pending();
  out.reserve(p.size());
  for (size_t i = 0; i < p.size();) {
    ValuePtr v = p[i].value.lock();
    // A stale value (its storage was written since) is read by no handle any more: handles of
    // the storage re-derive their values from its new version.
    if (!v || v->realized() || !v->invalid.empty() || v->stale() || (v->producer && v->producer->in_flight)) {
      forget_pending(p[i].raw);  // entry i is now the one that was last: look at it next
      continue;
    }
    out.push_back(std::move(v));
    ++i;
  }
  std::sort(out.begin(), out.end(), [](const ValuePtr& a, const ValuePtr& b) { return a->seq < b->seq; });
  return out;
}

Handle::Handle(ValuePtr v) : v_(std::move(v)) {
  if (!v_) throw InternalError("lazy::Handle of a null value");
  pin(v_);
}

Handle::~Handle() {
  if (v_) unpin(v_);
}

namespace {
uint64_t g_rebind_generation = 0;
}

void Handle::reset(ValuePtr v) {
  if (!v) throw InternalError("lazy::Handle::reset to a null value");
  if (v->realized() && (!v_->realized() || v->data.storage() != v_->data.storage())) ++g_rebind_generation;
  if (alias_ && chain_.empty()) {
    // The storage itself moves to v (an optimizer's update, a loaded state): its views follow.
    alias_->base = v;
    alias_->physical = v->realized() ? v : nullptr;
    alias_->dirty = false;
    ++alias_->generation;
    tag(v, alias_->counter);
    if (ValuePtr owner = alias_->grad_owner.lock()) {
      pin(v);
      if (owner->grad) unpin(owner->grad);
      owner->grad = v;
    }
  } else if (alias_) {  // a view re-pointed elsewhere leaves its storage
    alias_.reset();
    chain_.clear();
    detached_ = untracked_ = false;
  }
  if (v_ && v_->retains_grad && v != v_) carry_retains_grad(v_, v);
  pin(v);
  unpin(v_);
  v_ = std::move(v);
  if (alias_) seen_ = alias_->generation;
}

void carry_retains_grad(const ValuePtr& from, const ValuePtr& to) {
  if (!to->requires_grad || to->is_leaf()) return;  // a leaf keeps its .grad anyway
  to->retains_grad = true;
  from->retains_grad = false;
}

uint64_t rebind_generation() { return g_rebind_generation; }

void reset_all(const std::vector<Handle*>& handles, const std::vector<ValuePtr>& values) {
  if (handles.size() != values.size()) throw InternalError("reset_all: lists of different lengths");
  for (size_t i = 0; i < values.size(); ++i) {
    if (!handles[i] || !values[i]) throw InternalError("reset_all: a null handle or value");
    if (!values[i]->invalid.empty()) throw_invalid(*values[i]);
  }
  for (size_t i = 0; i < values.size(); ++i) handles[i]->reset(values[i]);
}

size_t revert_all(const std::vector<Handle*>& handles, const std::vector<ValuePtr>& old) {
  if (handles.size() != old.size()) throw InternalError("revert_all: lists of different lengths");
  size_t moved = 0;
  for (size_t i = handles.size(); i-- > 0;) {  // last change first: a handle swapped twice ends at its oldest
    if (old[i] && old[i]->invalid.empty() && handles[i]->value() != old[i]) {
      const ValuePtr current = handles[i]->value();
      if (current->grad && !old[i]->grad) move_grad(current, old[i]);  // a failed plan moved it onto its output
      handles[i]->reset(old[i]);
      ++moved;
    }
  }
  return moved;
}

bool grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool on) { t_grad_enabled = on; }
bool eager_views() { return t_eager_views; }
void set_eager_views(bool on) { t_eager_views = on; }

const std::string& InvalidReason::str() const {
  static const std::string* const none = new std::string();  // never freed: values may outlive static destruction
  return text_ ? *text_ : *none;
}

ValueName& ValueName::operator=(const std::string& text) {
  if (text.empty()) {
    text_.reset();
  } else {
    text_ = std::make_shared<const Text>(Text{text, nullptr});
  }
  return *this;
}

const std::string& ValueName::str() const {
  static const std::string* const none = new std::string();  // never freed: values may outlive static destruction
  return text_ ? text_->text : *none;
}

ValueName ValueName::grad() const {
  ValueName g;
  if (!text_) return g;
  if (!text_->grad) text_->grad = std::make_shared<const Text>(Text{text_->text + ".grad", nullptr});
  g.text_ = text_->grad;
  return g;
}

void throw_invalid(const TraceValue& v) {
  const std::string what = v.name.empty() ? std::string("a tensor") : "'" + v.name.str() + "'";
  throw ValueError(ErrorMessage("cannot use " + what + " " + shape_str(v.info.shape) + ": " + v.invalid.str())
                       .cause("this value was computed before an in-place update (e.g. optimizer.step()) "
                              "overwrote its memory")
                       .fix("recompute it after the update (e.g. run the forward pass again), or "
                            "read it before calling step()")
                       .str());
}

void throw_in_flight(const TraceValue& v) {
  const std::string what = v.name.empty() ? std::string("a tensor") : "'" + v.name.str() + "'";
  const TraceNode& n = *v.producer;
  throw ValueError(ErrorMessage("cannot compute " + what + " " + shape_str(v.info.shape) + " (from " +
                                node_where(n.schema->name, n.meta->scope) +
                                ") now: the plan that computes it is running")
                       .cause("a hook (glassgrad.debug.register_hook) or another thread asked for it while "
                              "that step ran; computing it again would repeat the step's work and its in-place "
                              "updates")
                       .fix("in a hook, use the NumPy arrays the hook receives (tensors made from them are "
                            "fine); otherwise read it after the step returns")
                       .str());
}

ValuePtr make_leaf(const Tensor& data, ValueKind kind, bool requires_grad, const std::string& name) {
  if (!data.defined()) throw InternalError("make_leaf: undefined tensor");
  auto v = new_value();
  v->seq = next_seq();
  v->info = data.info();
  v->data = data;
  v->kind = kind == ValueKind::Intermediate ? ValueKind::Input : kind;
  v->requires_grad = requires_grad;
  v->name = name;
  if (requires_grad && !is_floating(data.dtype())) {
    throw DTypeError(ErrorMessage("Only Tensors of floating point and complex dtype can require gradients")
                         .detail(std::string("a ") + dtype_name(data.dtype()) + " tensor" +
                                 (name.empty() ? "" : " ('" + name + "')") + " was made with requires_grad=True")
                         .fix("convert first: x.float()")
                         .str());
  }
  return v;
}

namespace {

// known_mhash: meta_hash(meta), when the caller has it (a SharedMeta's); shared_attrs: attrs
// shared and hashed (a SharedAttrs holding `attrs`).
std::vector<ValuePtr> record_node(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                                  const NodeMeta& meta, const uint64_t* known_mhash = nullptr,
                                  const SharedAttrs* shared_attrs = nullptr);

// An in-place op's targets are stored tensors, or the pending result of another in-place update
// (an optimizer's updates chain within a step).
void check_inplace_targets(const OpSchema& s, const std::vector<ValuePtr>& inputs) {
  for (const auto& io : s.inplace) {
    const ValuePtr& target = inputs[static_cast<size_t>(io.second)];
    const bool chained = target->producer && !target->producer->schema->inplace.empty();
    if (!target->realized() && !chained) {
      throw ValueError(ErrorMessage(s.name + " updates input '" + s.inputs[static_cast<size_t>(io.second)] +
                                    "' in place, but that tensor is an intermediate result, not a stored one")
                           .fix("update parameters, buffers or optimizer state only")
                           .str());
    }
  }
}

// Equal to the bit: -0.0 and 0.0 are different attributes (x * -0.0 is not x * 0.0), and NaN
// the same as itself.
bool identical(const Attrs& a, const Attrs& b) {
  const auto& x = a.items();
  const auto& y = b.items();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].first != y[i].first || x[i].second.index() != y[i].second.index()) return false;
    if (const auto* d = std::get_if<double>(&x[i].second)) {
      if (std::memcmp(d, std::get_if<double>(&y[i].second), sizeof(double)) != 0) return false;
    } else if (const auto* ds = std::get_if<std::vector<double>>(&x[i].second)) {
      const auto& es = std::get<std::vector<double>>(y[i].second);
      if (ds->size() != es.size() || (!ds->empty() && std::memcmp(ds->data(), es.data(), ds->size() * sizeof(double)) != 0)) {
        return false;
      }
    } else if (x[i].second != y[i].second) {
      return false;
    }
  }
  return true;
}
bool identical(const NodeMeta& a, const NodeMeta& b) {
  return a.role == b.role && a.scope == b.scope && a.source == b.source && a.layer == b.layer;
}

// The attributes and metadata nodes share (TraceNode::attrs, TraceNode::meta): one copy of each
// distinct value, found by the node's hash or its metadata's hash and compared in full, so a hash
// collision only costs a copy. Bounded: a table that fills up starts again (nodes keep theirs).
template <class T>
struct Interned {
  static constexpr size_t kCapacity = 4096;
  std::unordered_map<uint64_t, std::shared_ptr<const T>> table;
  std::shared_ptr<const T> get(uint64_t key, const T& value) {
    auto it = table.find(key);
    // value may be the interned copy itself (a SharedMeta's), which needs no comparing
    if (it != table.end() && (it->second.get() == &value || identical(*it->second, value))) return it->second;
    if (table.size() >= kCapacity) table.clear();
    auto made = std::make_shared<const T>(value);
    table[key] = made;
    return made;
  }
};
Interned<Attrs>& interned_attrs() {
  static auto* t = new Interned<Attrs>();  // never freed: nodes may outlive static destruction
  return *t;
}
Interned<NodeMeta>& interned_meta() {
  static auto* t = new Interned<NodeMeta>();
  return *t;
}

// A shape rule's results for one (op, input infos, attributes, metadata): a node recorded again
// with all four equal gets the same outputs and node hash, a rule being a function of them (its
// errors name the node from the metadata, hence the metadata in the key). A loop records the same
// nodes every step, and the rule, its checks and the node's hash cost about 3000 instructions a
// node. Only results are kept: a rule that throws runs (and throws) every time. Bounded as Interned.
struct ShapeMemo {
  static constexpr size_t kCapacity = 4096;
  struct Entry {
    const OpSchema* schema = nullptr;
    std::vector<TensorInfo> inputs;
    std::shared_ptr<const Attrs> attrs;
    std::shared_ptr<const NodeMeta> meta;
    std::vector<TensorInfo> outputs;
    uint64_t hash = 0;
  };
  std::unordered_map<uint64_t, Entry> table;
  static uint64_t key(const OpSchema& s, const std::vector<TensorInfo>& infos, uint64_t ahash, uint64_t mhash) {
    uint64_t h = fold(fold(reinterpret_cast<uintptr_t>(&s), ahash), mhash);
    for (const TensorInfo& t : infos) {
      h = fold(h, static_cast<uint64_t>(t.dtype) * 64 + static_cast<uint64_t>(t.device.type) * 8 +
                      static_cast<uint64_t>(t.device.index));
      h = fold(h, t.shape.size());
      for (int64_t d : t.shape) h = fold(h, static_cast<uint64_t>(d));
    }
    return h;
  }
  void put(uint64_t k, Entry e) {
    if (table.size() >= kCapacity) table.clear();
    table[k] = std::move(e);
  }
  const Entry* find(uint64_t k, const OpSchema& s, const std::vector<TensorInfo>& infos, const Attrs& attrs,
                    const NodeMeta& meta) const {
    auto it = table.find(k);
    if (it == table.end()) return nullptr;
    const Entry& e = it->second;
    const bool same = e.schema == &s && e.inputs == infos && (e.attrs.get() == &attrs || identical(*e.attrs, attrs)) &&
                      (e.meta.get() == &meta || identical(*e.meta, meta));
    return same ? &e : nullptr;
  }
};
ShapeMemo& shape_memo() {
  static auto* m = new ShapeMemo();
  return *m;
}

// The node and its output values, its shape rule's results and hashes given. The shared
// attributes and metadata when known (a ShapeMemo hit), else interned here. With `into`, the
// values are appended there and the list returned is empty (a group's updates collect every
// node's values in one list: record_schema_memo).
std::vector<ValuePtr> make_node(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                                const NodeMeta& meta, const std::vector<TensorInfo>& outs, bool track, uint64_t hash,
                                uint64_t mhash, std::shared_ptr<const Attrs> shared_attrs = nullptr,
                                std::shared_ptr<const NodeMeta> shared_meta = nullptr,
                                std::vector<ValuePtr>* into = nullptr) {
  auto node = new_node();
  node->schema = &s;
  node->attrs = shared_attrs ? std::move(shared_attrs) : interned_attrs().get(hash, attrs);
  node->meta = shared_meta ? std::move(shared_meta) : interned_meta().get(mhash, meta);
  // The lists and shapes in buffers of nodes and values that died (trace_pool::spare).
  node->inputs = trace_pool::spare<std::vector<ValuePtr>>(inputs.size());
  node->inputs.assign(inputs.begin(), inputs.end());
  node->hash = hash;
  node->meta_hash = mhash;
  node->outputs = trace_pool::spare<std::vector<std::weak_ptr<TraceValue>>>(outs.size());
  std::vector<ValuePtr> made;
  if (!into) made.reserve(outs.size());  // (a caller's list is reserved by the caller: no regrowth per node)
  std::vector<ValuePtr>& values = into ? *into : made;
  for (size_t k = 0; k < outs.size(); ++k) {
    auto v = new_value();
    v->seq = next_seq();
    v->info.shape = trace_pool::spare<Shape>(outs[k].shape.size());
    v->info = outs[k];  // (copied into the shape's buffer)
    v->producer = node;
    v->output_index = static_cast<int>(k);
    v->requires_grad = track && is_floating(outs[k].dtype);
    node->outputs.push_back(v);
    values.push_back(std::move(v));
  }
  if (track) node->count_reads();
  return made;
}

std::vector<ValuePtr> record_named(const std::string& op, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                                 const NodeMeta& meta) {
  return record_node(OpRegistry::instance().at(op), inputs, attrs, meta);
}

// A node on storage-type inputs (compute_dtypes.h): its inputs cast to their compute dtype, the
// op, its results cast back.
std::vector<ValuePtr> record_computed(const OpSchema& s, const std::vector<ValuePtr>& inputs,
                                      const std::vector<TensorInfo>& infos, const ComputeDTypes& c,
                                      const NodeMeta& meta) {
  return computed_node(
      s, inputs, infos, c, meta,
      [&](const std::string& op, const std::vector<ValuePtr>& in, const Attrs& a) { return record_named(op, in, a, meta); },
      [](const ValuePtr& v) { return v->info; });
}

// record_node's copies of its inputs' infos, kept per thread by input count: an info
// copy-assigned into one kept from an earlier node reuses its shape's memory, where a list made
// per node allocated the list and a shape per input. A call nested in another of the same count
// (a storage type's cast nodes) finds the list taken and makes its own.
class InputInfos {
 public:
  explicit InputInfos(const std::vector<ValuePtr>& inputs) : n_(inputs.size()) {
    if (n_ < kKept) list_.swap(kept()[n_]);
    list_.resize(n_);
    for (size_t i = 0; i < n_; ++i) list_[i] = inputs[i]->info;
  }
  ~InputInfos() {
    if (n_ < kKept) kept()[n_].swap(list_);
  }
  InputInfos(const InputInfos&) = delete;
  InputInfos& operator=(const InputInfos&) = delete;
  const std::vector<TensorInfo>& list() const { return list_; }

 private:
  static constexpr size_t kKept = 8;
  static std::array<std::vector<TensorInfo>, kKept>& kept() {
    thread_local std::array<std::vector<TensorInfo>, kKept> lists;
    return lists;
  }
  size_t n_;
  std::vector<TensorInfo> list_;
};

std::vector<ValuePtr> record_node(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                                  const NodeMeta& meta, const uint64_t* known_mhash, const SharedAttrs* shared_attrs) {
  const std::string& op = s.name;
  for (const auto& in : inputs) {
    if (!in) throw InternalError(op + ": null input");
    if (!in->invalid.empty()) throw_invalid(*in);
  }
  const InputInfos input_infos(inputs);
  const std::vector<TensorInfo>& infos = input_infos.list();
  // Storage types: a view of stored memory is taken as it is (below); anything else computes wide.
  const std::optional<ComputeDTypes> c = compute_dtypes(s, infos, attrs, meta);
  if (c && (s.view_of < 0 || !t_eager_views)) return record_computed(s, inputs, infos, *c, meta);
  const uint64_t mhash = known_mhash ? *known_mhash : meta_hash(meta);
  ShapeMemo& memo = shape_memo();
  const uint64_t ahash = shared_attrs ? shared_attrs->hash : attrs.hash();
  const uint64_t memo_key = ShapeMemo::key(s, infos, ahash, mhash);
  const ShapeMemo::Entry* hit = c ? nullptr : memo.find(memo_key, s, infos, attrs, meta);
  std::vector<TensorInfo> inferred;
  if (!hit) inferred = infer_node(s, infos, attrs, meta);
  const std::vector<TensorInfo>& outs = hit ? hit->outputs : inferred;
  const bool track = t_grad_enabled && static_cast<bool>(s.gradient) && !s.stops_gradient && s.inplace.empty() &&
                     std::any_of(inputs.begin(), inputs.end(), [](const ValuePtr& v) { return v->requires_grad; });

  // A view of a computed tensor that needs no gradient is taken now: no node, no copy.
  if (s.view_of >= 0 && !track && t_eager_views) {
    const ValuePtr& base = inputs[static_cast<size_t>(s.view_of)];
    Layout l;
    if (base->realized() && s.view(attrs, base->data.layout(), outs[0].shape, l)) {
      // A view of persistent memory (parameters, state) is persistent memory too.
      const bool persistent = !base->producer && (base->kind == ValueKind::Parameter || base->kind == ValueKind::State);
      const ValueKind kind = persistent ? ValueKind::State : base->kind == ValueKind::Constant ? ValueKind::Constant
                                                                                                : ValueKind::Input;
      auto v = make_leaf(base->data.as_strided(l.shape, l.strides, l.offset), kind, false);
      return {v};
    }
  }
  if (c) return record_computed(s, inputs, infos, *c, meta);
  check_inplace_targets(s, inputs);
  if (hit) return make_node(s, inputs, attrs, meta, outs, track, hit->hash, mhash, hit->attrs, hit->meta);
  const uint64_t hash = node_hash(s, ahash, outs);
  std::vector<ValuePtr> made =
      make_node(s, inputs, attrs, meta, outs, track, hash, mhash, shared_attrs ? shared_attrs->attrs : nullptr);
  if (!made.empty()) {
    const TraceNode& node = *made[0]->producer;
    memo.put(memo_key, ShapeMemo::Entry{&s, infos, node.attrs, node.meta, std::move(inferred), hash});
  }
  return made;
}

}  // namespace

std::vector<ValuePtr> record(const std::string& op, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                             const NodeMeta& meta) {
  const HostTimer timer(HostPhase::Record);
  return record_node(OpRegistry::instance().at(op), inputs, attrs, meta);
}

std::vector<ValuePtr> record_schema(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                                    const NodeMeta& meta) {
  const HostTimer timer(HostPhase::Record);
  return record_node(s, inputs, attrs, meta);
}

std::vector<ValuePtr> record_schema(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                                    const SharedMeta& meta) {
  const HostTimer timer(HostPhase::Record);
  return record_node(s, inputs, attrs, *meta.meta, &meta.hash);
}

std::vector<ValuePtr> record_schema(const OpSchema& s, const std::vector<ValuePtr>& inputs, const SharedAttrs& attrs,
                                    const SharedMeta& meta) {
  const HostTimer timer(HostPhase::Record);
  return record_node(s, inputs, *attrs.attrs, *meta.meta, &meta.hash, &attrs);
}

SharedAttrs share_attrs(Attrs attrs) {
  const uint64_t h = attrs.hash();
  return SharedAttrs{std::make_shared<const Attrs>(std::move(attrs)), h};
}

SharedMeta share_meta(const NodeMeta& meta) {
  const uint64_t h = meta_hash(meta);
  return SharedMeta{interned_meta().get(h, meta), h};
}

size_t record_schema_memo(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                          const NodeMeta& meta, RecordMemo& memo, std::vector<ValuePtr>& out) {
  auto append = [&out](std::vector<ValuePtr> made) {
    for (ValuePtr& v : made) out.push_back(std::move(v));
    return made.size();
  };
  if (s.inplace.empty() || s.view_of >= 0) return append(record_schema(s, inputs, attrs, meta));
  const HostTimer timer(HostPhase::Record);
  for (const ValuePtr& in : inputs) {
    if (!in) throw InternalError(s.name + ": null input");
    if (!in->invalid.empty()) throw_invalid(*in);
  }
  RecordMemo::Entry* hit = nullptr;
  for (RecordMemo::Entry& e : memo.entries) {
    if (e.inputs.size() != inputs.size()) continue;
    size_t i = 0;
    while (i < inputs.size() && inputs[i]->info == e.inputs[i]) ++i;
    if (i == inputs.size()) {
      hit = &e;
      break;
    }
  }
  if (!memo.hashed) {  // the run's attrs and metadata are the same for every row: hashed once
    memo.meta_hash = meta_hash(meta);
    memo.attrs_hash = attrs.hash();
    memo.hashed = true;
    memo.entries.reserve(16);  // a model's distinct rows (ResNet-18: 17) without regrowing the list
  }
  // A row not met in this run yet: its shape rule's results from the steps before (record_node's
  // ShapeMemo, under the same key), else the rule runs and its results are kept there.
  uint64_t shapes_key = 0;
  if (!hit) {
    std::vector<TensorInfo> infos;
    infos.reserve(inputs.size());
    for (const ValuePtr& in : inputs) infos.push_back(in->info);
    // Storage types compute wide through cast nodes: recorded as record() does, not memoized.
    if (compute_dtypes(s, infos, attrs, meta)) return append(record_node(s, inputs, attrs, meta));
    shapes_key = ShapeMemo::key(s, infos, memo.attrs_hash, memo.meta_hash);
    if (const ShapeMemo::Entry* known = shape_memo().find(shapes_key, s, infos, attrs, meta)) {
      memo.entries.push_back(RecordMemo::Entry{std::move(infos), known->outputs, known->hash, known->attrs, known->meta});
      shapes_key = 0;  // nothing to keep
    } else {
      std::vector<TensorInfo> outs = infer_node(s, infos, attrs, meta);
      const uint64_t hash = node_hash(s, memo.attrs_hash, outs);
      memo.entries.push_back(RecordMemo::Entry{std::move(infos), std::move(outs), hash, nullptr, nullptr});
    }
    hit = &memo.entries.back();
  }
  check_inplace_targets(s, inputs);
  // An in-place update tracks no gradient (record_node's `track` is false for it).
  const size_t first = out.size();
  make_node(s, inputs, attrs, meta, hit->outputs, false, hit->hash, memo.meta_hash, hit->attrs, hit->meta, &out);
  if (!hit->attrs && out.size() > first) {
    const TraceNode& node = *out[first]->producer;
    hit->attrs = node.attrs;
    hit->meta = node.meta;
    if (shapes_key) shape_memo().put(shapes_key, ShapeMemo::Entry{&s, hit->inputs, node.attrs, node.meta, hit->outputs, hit->hash});
  }
  return out.size() - first;
}

void set_requires_grad(const ValuePtr& v, bool on) {
  if (!v->is_leaf()) {
    if (v->requires_grad && v->producer->schema->view_of >= 0 && v->producer->attrs->has("undefined_gradient")) {
      // A view made under no_grad of a tensor that requires grad (alias.cpp, graded_no_grad_view),
      // a leaf to PyTorch: requires_grad_() gives it a gradient of its own (gradients stop at its
      // node anyway), and turning the flag off leaves it on, as PyTorch's does.
      if (on) v->leaf = true;
      return;
    }
    if (v->requires_grad) {
      if (on) return;
      throw ValueError(ErrorMessage("you can only change requires_grad flags of leaf variables. If you want to use a "
                                    "computed variable in a subgraph that doesn't require differentiation use "
                                    "var_no_grad = var.detach().")
                           .detail("this tensor " + shape_str(v->info.shape) + " is computed from tensors that "
                                   "require gradients")
                           .fix("use a copy that no gradient flows through: y = y.detach()")
                           .str());
    }
    // Computed from tensors that need no gradient: a leaf as PyTorch counts it (W = randn(...) * 0.1
    // then W.requires_grad = True). Gradients stop here; its producer still computes its value.
    v->leaf = true;
  }
  if (on && !is_floating(v->info.dtype)) {
    throw DTypeError(ErrorMessage("only Tensors of floating point and complex dtype can require gradients")
                         .detail(std::string("requires_grad = True on a ") + dtype_name(v->info.dtype) + " tensor")
                         .fix("x.float().requires_grad_()")
                         .str());
  }
  v->requires_grad = on;
}

void set_grad(const ValuePtr& leaf, ValuePtr grad) {
  if (grad) pin(grad);
  if (leaf->grad) unpin(leaf->grad);
  leaf->grad = std::move(grad);
  if (!leaf->grad_alias) return;
  if (leaf->grad) {  // accumulated or replaced: handles of p.grad see the new gradient, as in PyTorch
    Alias& a = *leaf->grad_alias;
    a.base = leaf->grad;
    a.physical = leaf->grad->realized() ? leaf->grad : nullptr;
    a.dirty = false;
    ++a.generation;
    tag(a.base, a.counter);
  } else {  // cleared (zero_grad): the old gradient's handles keep it, the next one is new
    leaf->grad_alias->grad_owner.reset();
    leaf->grad_alias.reset();
  }
}

namespace {
std::shared_ptr<LeafVersions> root_of(std::shared_ptr<LeafVersions> set) {
  while (set && set->joined) set = set->joined;
  return set;
}
}  // namespace

ValuePtr newest_version(const ValuePtr& v) {
  const std::shared_ptr<LeafVersions> set = root_of(v->versions);
  ValuePtr newest = set ? set->newest.lock() : nullptr;
  return newest ? newest : v;
}

void move_grad(const ValuePtr& from, const ValuePtr& to) {
  if (from == to) return;
  std::shared_ptr<LeafVersions> set = root_of(from->versions);
  const std::shared_ptr<LeafVersions> theirs = root_of(to->versions);
  if (!set) set = theirs ? theirs : std::make_shared<LeafVersions>();
  if (theirs && theirs != set) theirs->joined = set;
  set->newest = to;
  from->versions = set;
  to->versions = set;
  if (!from->grad_hooks.empty()) {  // a parameter's hooks stay with it through its updates
    to->grad_hooks = std::move(from->grad_hooks);
    from->grad_hooks.clear();
  }
  if (from->post_accumulate_hook) {
    to->post_accumulate_hook = std::move(from->post_accumulate_hook);
    from->post_accumulate_hook = nullptr;
  }
  if (!from->grad && !from->grad_alias) return;
  if (to->grad) unpin(to->grad);
  to->grad = std::move(from->grad);
  from->grad = nullptr;
  to->grad_alias = std::move(from->grad_alias);
  from->grad_alias = nullptr;
  if (to->grad_alias) to->grad_alias->grad_owner = to;
}

}  // namespace lazy
}  // namespace glassgrad
