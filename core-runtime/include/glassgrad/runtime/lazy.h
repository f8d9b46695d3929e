// Lazy tracing: define-by-run recording of a static graph, realized on demand through a plan
// cache. This is what glassgrad.Tensor runs on.
//
//   record()   appends a node: the op's shape rule runs now (errors point at the user's line),
//              nothing is computed. Views of realized tensors that need no gradient are taken
//              eagerly (no graph).
//   backward() collects the trace reachable from the loss and hands gradient nodes back as
//              trace nodes: the template it kept for that trace, or on the first sight of it
//              build_backward on the trace's engine graph; gradients accumulate (+=) into each leaf's `grad` until cleared.
//   realize()  computes every pinned value that is not computed yet (what Python still holds,
//              plus leaves' gradients): the pending trace is collected, numbered as its engine
//              graph would be, its signature (folded from the nodes' record-time hashes) looked
//              up in the plan cache (only a miss builds the engine graph and compiles it), leaves
//              bound, the plan executed.
//
// TraceNode / TraceValue are the tracer's side of the one graph; the engine's Node / Value
// (graph.h) are the other (docs/architecture.md, "One graph from the tracer to the planner").
//
// In-place updates (optimizer steps, running statistics) are nodes whose output reuses an
// input's buffer. After they run, the output becomes the new leaf (inheriting kind, name and
// gradient) and the old version is invalidated: reading it raises an error saying why.
//
// In-place ops on tensors (x.add_(y), x[0] = 5) are functionalized (alias.cpp,
// docs/inplace-and-views.md): a handle belongs to the storage it shares with its views and
// aliases (an Alias), an in-place op records the functional op and makes its result the
// storage's new version, and every handle of the storage re-derives its value from that version
// through its chain of views when next read. The next realize writes the new version into the
// storage's buffer when it has one (an Assign the planner turns into an in-place write).
//
// Not thread-safe: used from the Python thread, under the GIL.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glassgrad/autodiff/graph.h"
#include "glassgrad/autodiff/plan.h"
#include "glassgrad/runtime/settings.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
class Executor;
namespace lazy {

// One word folded into a hash that only the tracer and its bindings compare (collect's
// signature, which keys the plan cache and backward's templates; record_node's shape memo; the
// bindings' tables of metadata and attribute dicts), inlined: hash_combine is a call into the
// engine, about 25 instructions a word, and a ResNet-18 step's two collects fold about 2,500
// words. Boost's combine followed by a multiply-xorshift finalizer.
inline uint64_t fold(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ULL;
  return h ^ (h >> 32);
}

struct TraceNode;
struct Alias;
struct TraceValue;

// A gradient hook (Tensor.register_hook): given the gradient, returns its replacement, or null to
// keep it. Called with gradients disabled; what it records joins the backward graph.
using GradientHook = std::function<std::shared_ptr<TraceValue>(const std::shared_ptr<TraceValue>& grad)>;

// PyTorch's version counter of a storage: bumped by every in-place write (but those through
// .data). A value made as a version of an aliased storage records the count it was made at.
struct VersionCounter {
  uint64_t version = 0;
  std::string writer;  // the last in-place op and the line that called it, for messages
  std::string latest;  // the op that made the latest version, when autograd tracks it ("" for a leaf)
};

// What the versions of one leaf share (TraceValue::versions): the newest of them. Two leaves' sets
// joined by a move of the gradient (move_grad) become one: the set of the older forwards to the other's.
struct LeafVersions {
  std::weak_ptr<TraceValue> newest;
  std::shared_ptr<LeafVersions> joined;  // set when this set became part of another
};

// Why a value may no longer be read (TraceValue::invalid), empty while it may. The text is
// shared: an optimizer step's updates give every value they overwrote one reason, composed once
// per run of updates, where a string per value cost an allocation per parameter and state entry
// each step.
class InvalidReason {
 public:
  bool empty() const { return !text_; }
  const std::string& str() const;  // "" when empty()
  InvalidReason& operator=(std::string text) {
    text_ = std::make_shared<const std::string>(std::move(text));
    return *this;
  }
  InvalidReason& operator=(std::shared_ptr<const std::string> text) {
    text_ = std::move(text);
    return *this;
  }

 private:
  std::shared_ptr<const std::string> text_;
};

// A value's name ("fc.weight"; its gradient's "fc.weight.grad"), shared, never changed in
// place: the versions a step's in-place updates make of a parameter or a state tensor take the
// name of the one they overwrite, and its gradient is named after it, every step, so a copy
// is a reference count where a string was an allocation (docs/performance.md, "The plain
// loop's host work (issue 34)").
class ValueName {
 public:
  ValueName() = default;
  ValueName(const std::string& text) { *this = text; }  // NOLINT(google-explicit-constructor): names are strings
  ValueName& operator=(const std::string& text);         // "" makes it empty
  bool empty() const { return !text_; }
  const std::string& str() const;  // "" when empty()
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  // The name of this value's gradient, "<name>.grad": made once per name and shared after.
  ValueName grad() const;

 private:
  struct Text {
    std::string text;
    mutable std::shared_ptr<const Text> grad;  // grad()'s name, made on its first call
  };
  std::shared_ptr<const Text> text_;
};

struct TraceValue {
  uint64_t seq = 0;            // creation order: makes exports deterministic
  TensorInfo info;
  std::shared_ptr<TraceNode> producer;  // null for leaves
  int output_index = 0;
  Tensor data;                 // defined once computed (always, for leaves)
  ValueKind kind = ValueKind::Intermediate;
  bool requires_grad = false;
  ValueName name;
  int pins = 0;                // Python handles and gradient slots holding this value
  std::shared_ptr<TraceValue> grad; // accumulated gradient of a leaf (pinned)
  std::shared_ptr<Alias> grad_alias;  // the storage the handles of `grad` share (made when first asked for)
  InvalidReason invalid;       // non-empty: overwritten in place; says by what
  // Set with `invalid` by an in-place update whose buffer a graph not differentiated yet still
  // read (open_readers > 0): `data` is a copy of the value taken before the update, from which
  // that graph's pending values are computed, as PyTorch computed them before the step
  // (docs/inplace-and-views.md, "Backward after an optimizer step"). Reads of the value itself
  // are refused as for any invalid value.
  bool copied_before_update = false;
  // Nodes alive that read this value and may still be differentiated: recorded tracking a
  // gradient, and not yet through a backward() without retain_graph (TraceNode::counts_reads).
  int32_t open_readers = 0;
  // A new version of a leaf written in place (under no_grad, or through detach()): a leaf for
  // backward and is_leaf, computed by its producer until the next realize makes it a plain leaf.
  bool leaf = false;
  std::shared_ptr<VersionCounter> counter;  // set when this is a version (or a view) of an aliased storage
  uint64_t version = 0;                     // counter->version when it was made
  // Tensor.register_hook: run by backward() on this value's complete gradient, in registration
  // order, each seeing the previous one's result; one returning a value replaces the gradient
  // (for a leaf, before it is accumulated into `grad`). retains_grad (Tensor.retain_grad): a
  // computed value's gradient, after its hooks, accumulates into `grad` as a leaf's does.
  std::vector<std::pair<uint64_t, GradientHook>> grad_hooks;
  bool retains_grad = false;
  // Tensor.register_post_accumulate_grad_hook: run by backward() right after this leaf's gradient
  // is accumulated into `grad`, before the next leaf's (in the order PyTorch's engine completes
  // them; docs/gradient-hooks.md). It moves with grad_hooks through a parameter's updates.
  std::function<void()> post_accumulate_hook;
  // The versions of the leaf this is one of (shared by them all; set by move_grad, which passes
  // the gradient on): a graph recorded before an in-place write (under no_grad, an optimizer step)
  // reaches an old version, and backward() accumulates into the newest one, which the tensor's
  // handle shows, as PyTorch accumulates into the tensor. Shared rather than linked version to
  // version, so the versions in between (held by nothing once overwritten) may die.
  std::shared_ptr<LeafVersions> versions;
  // Scratch of collect() (export.cpp): the number of the last walk that reached this value, so a
  // walk marks what it saw without a hash set. Meaningful only inside one collect() call.
  uint64_t visited_by = 0;
  int32_t export_id = -1;  // collect()'s number for it, meaningful as visited_by is
  // `data` was computed by an earlier plan for a later one that reads it (a value kept for a
  // gradient, realize.cpp): it is dropped once a plan has bound it, unless a handle holds it.
  bool kept = false;
  // Its place in the registry of pinned values not computed yet (values.cpp), -1 when not there:
  // entering and leaving it is a vector append and a swap, where a hash map allocated per entry.
  int64_t pending_at = -1;
  TraceValue() = default;
  TraceValue(const TraceValue&) = delete;
  TraceValue& operator=(const TraceValue&) = delete;
  ~TraceValue();  // leaves the registry
  bool realized() const { return data.defined(); }
  bool is_leaf() const { return !producer || leaf; }
  // Modified in place since it was made (its storage's version moved on).
  bool stale() const { return counter && counter->version != version; }
};
using ValuePtr = std::shared_ptr<TraceValue>;

struct TraceNode : std::enable_shared_from_this<TraceNode> {
  const OpSchema* schema = nullptr;
  // Never null once the node is made, and never changed in place (a change replaces the
  // pointer): a loop's steps record the same attributes and metadata over and over, so nodes
  // share them (recording interns them, backward's imports share their template's) instead
  // of copying their strings and lists node by node.
  std::shared_ptr<const Attrs> attrs;
  std::shared_ptr<const NodeMeta> meta;
  std::vector<ValuePtr> inputs;
  std::vector<std::weak_ptr<TraceValue>> outputs;
  // > 0 while a realize is running the plan that computes this node. Its outputs are then not
  // pending for anyone else: a hook (or another thread) that needs them gets an error instead
  // of running the node again (an optimizer update applied twice, the step's hooks re-entered).
  int in_flight = 0;
  // Recorded by an in-place op on the storage counted by in_place_of, which made its version
  // in_place_version: its gradient rule may read the versions before that one (PyTorch saves the
  // version it overwrote for the op's own backward), not a later one.
  const VersionCounter* in_place_of = nullptr;
  uint64_t in_place_version = 0;
  // A backward() ran this node's gradient rule, which read saved tensors, without retain_graph:
  // another backward through it is refused as PyTorch refuses it.
  bool freed = false;
  // Counted in its inputs' open_readers: recorded tracking a gradient, until a backward() without
  // retain_graph differentiates through it, no backward can reach it any more (no output that
  // needs a gradient is held by a handle or a counted node), or it dies (stop_counting_reads).
  bool counts_reads = false;
  void count_reads();
  void stop_counting_reads();
  // The node's share of the plan cache's key (op, attributes, output shapes, dtypes and devices),
  // computed once when the node is made (node_hash): a realize folds these in, never re-hashing
  // attributes (docs/architecture.md, "One graph from the tracer to the planner").
  uint64_t hash = 0;
  // Its metadata's hash (layer, source line, role): what backward() keys its gradient nodes with
  // beside the signature, since they copy it.
  uint64_t meta_hash = 0;
  // Scratch of collect() (export.cpp), as TraceValue::visited_by: the last walk that reached this
  // node and the node's index in that walk's list.
  uint64_t visited_by = 0;
  size_t visit_index = 0;
  // The plan that last computed this node: its plan-cache key (0: none yet) and the node's index
  // in that plan's trace. A later realize that must compute the node again asks that plan to
  // keep the values it reads (docs/architecture.md, "Values realized before backward").
  uint64_t ran_key = 0;
  uint32_t ran_index = 0;
  // Outputs that plan kept while no value held them (a BatchNorm's saved statistics, read only
  // by its gradient): value_of() hands them to the value it makes again.
  std::vector<Tensor> kept;
  // Releases the producers this node alone keeps alive without recursing once per link: a
  // chain of thousands of unrealized ops (a Python loop of `N[i, j] += 1`) would otherwise
  // overflow the stack when its last handle goes (values.cpp).
  ~TraceNode();
};

// One view a handle's value is derived by from its storage's value (a view op and its attributes).
struct ViewStep {
  const OpSchema* schema = nullptr;
  Attrs attrs;
  NodeMeta meta;
  Shape out_shape;   // the view's shape
  bool grad = true;  // recorded with gradients enabled (the view tracks its base's gradient)
};

// What a glassgrad.Tensor holds: a pin on a value. A pinned value that is not computed yet is
// computed at the next realize.
class Handle {
 public:
  explicit Handle(ValuePtr v);
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  // The tensor's value: re-derived from its storage's latest version when another handle wrote it.
  const ValuePtr& value() const {
    if (alias_ && seen_ != alias_generation()) sync();
    return v_;
  }
  // Re-point, e.g. a parameter after an optimizer's update: every view of its storage follows.
  void reset(ValuePtr v);

  // Aliasing (alias.cpp).
  const std::shared_ptr<Alias>& alias() const { return alias_; }
  const std::vector<ViewStep>& chain() const { return chain_; }
  bool detached() const { return detached_; }    // the chain goes through detach() or .data
  bool untracked() const { return untracked_; }  // .data: writes leave the version counter

 private:
  friend struct AliasAccess;
  uint64_t alias_generation() const;
  void sync() const;
  mutable ValuePtr v_;
  std::shared_ptr<Alias> alias_;
  std::vector<ViewStep> chain_;
  mutable uint64_t seen_ = 0;
  bool detached_ = false;
  bool untracked_ = false;
};

// A node's metadata interned (the copy nodes share: TraceNode::meta) with its hash
// (TraceNode::meta_hash), made once by share_meta for a caller that records many nodes with the
// same metadata (the bindings keep one per layer, role and user's line): recording then neither
// hashes nor compares the metadata's strings.
struct SharedMeta {
  std::shared_ptr<const NodeMeta> meta;
  uint64_t hash = 0;
};
SharedMeta share_meta(const NodeMeta& meta);
// A node's attributes made once with their hash (Attrs::hash), for a caller that records many
// nodes with the same attributes (the bindings keep one per distinct attribute dict): recording
// then neither hashes nor compares them, and the nodes share the one copy.
struct SharedAttrs {
  std::shared_ptr<const Attrs> attrs;
  uint64_t hash = 0;
};
SharedAttrs share_attrs(Attrs attrs);

// ---- In-place ops, views and aliases (alias.cpp) ----
// Records op like record(); a view op's output (OpSchema::view_of) whose layout is a view of its
// input's (Reshape of a non-contiguous tensor copies) shares the input's storage.
std::vector<std::unique_ptr<Handle>> record_handles(const std::string& op, const std::vector<Handle*>& inputs,
                                                    const Attrs& attrs, const NodeMeta& meta);
std::vector<std::unique_ptr<Handle>> record_handles(const std::string& op, const std::vector<Handle*>& inputs,
                                                    const Attrs& attrs, const SharedMeta& meta);
std::vector<std::unique_ptr<Handle>> record_handles(const std::string& op, const std::vector<Handle*>& inputs,
                                                    const SharedAttrs& attrs, const SharedMeta& meta);
// The op's schema given (a caller that keeps it: the bindings, by the op name's str object).
std::vector<std::unique_ptr<Handle>> record_handles(const OpSchema& op, const std::vector<Handle*>& inputs,
                                                    const SharedAttrs& attrs, const SharedMeta& meta);
// a + b as Add(a, b) when that is all the Python operator would record: both of one dtype (not
// bool) and neither a view (plain_sum.cpp); null, and nothing recorded, otherwise. The residual
// adds of a training step take it (python-bindings/glassgrad/_methods.py).
std::unique_ptr<Handle> record_plain_sum(Handle& a, Handle& b, const SharedMeta& meta);
// x[i, j, ...] for in-range positions of the leading dims (one per dim, at least one): the view
// the general key's path records (a Slice per position, then the Reshape dropping their axes),
// in one call: the element loops of scripts index this way (`N[a, b] += 1`).
std::unique_ptr<Handle> select_positions(Handle& base, const std::vector<int64_t>& positions, const NodeMeta& meta);
// Whether v is the very elements base[positions] names (select_positions' view): the same
// storage, offset, shape, strides and dtype, with no gradient tracked through either. Writing v
// there changes nothing (`N[a, b] += 1` ends with N[a, b] = N[a, b]: count_identity_write).
bool names_positions(const Handle& base, const std::vector<int64_t>& positions, const Handle& v);
// Whether `value` is written into h's tensor as it is: the same shape, dtype and device, and no
// gradient history of the tensor to keep (Python's in-place checks have nothing to convert).
bool writes_as_is(const Handle& h, const Handle& value);
// The in-place write of `value` (the tensor's shape and dtype) into the tensor of handle h: the
// storage's new version, seen by every view and alias. `op` names the in-place op in messages
// ("add_"); nodes recorded since `first_seq` computing `value` are the op's own. Throws
// PyTorch's errors for a leaf that requires grad (outside no_grad) and for an expanded view.
// `torch_node`: PyTorch's backward node of a write of the whole tensor (copy_'s CopyBackwards,
// fill_'s FillBackward3), which the new version's producer is named by when it tracks a gradient
// (its attribute torch_node, which Tensor.grad_fn reads); "" keeps the producer's own name.
void write(Handle& h, const ValuePtr& value, const std::string& op, uint64_t first_seq, const NodeMeta& meta,
           const std::string& torch_node = "");
// A write of the tensor's own elements back into it (x[k] = x[k], which x[k] += 1 ends with),
// where no gradient is tracked: nothing to compute, but it counts as a write (the storage's
// version, the last writer named in errors), as PyTorch's copy onto the same memory does.
void count_identity_write(Handle& h, const std::string& op);
// A handle on the same storage: .data (untracked: no version bump, no gradient) or detach()'s
// alias semantics are views; this is .data.
std::unique_ptr<Handle> data_alias(const Handle& h);
// detach_(): the tensor stops requiring gradients and becomes a leaf. Views refuse it (a detached
// alias, whose chain ends with detach(), is none).
void detach_inplace(Handle& h);
// The tensor's (shape, strides, offset) within its storage, from its chain of views.
Layout layout_of(const Handle& h);
// PyTorch's _version of the tensor's storage (0 when never written in place).
uint64_t version_of(const Handle& h);
// Whether the newest version of the storage h belongs to requires gradients: a view of it made under
// no_grad requires none itself, and PyTorch refuses its in-place ops under grad mode.
bool storage_requires_grad(const Handle& h);
// A handle on `leaf`'s gradient: writes through it (p.grad.zero_()) update the leaf's gradient.
std::unique_ptr<Handle> grad_handle(const ValuePtr& leaf);
// p.grad = g: the gradient is g's storage (writes through g are the gradient's).
void set_grad_from(const ValuePtr& leaf, Handle* g);

// Re-points handles[i] to values[i] for every i in one call: nothing runs in between, so an
// error or a KeyboardInterrupt cannot leave half of them moved (loading a state_dict, moving a
// model). Throws before moving any if the lists differ in length or a value is invalid.
void reset_all(const std::vector<Handle*>& handles, const std::vector<ValuePtr>& values);
// Points handles[i] back to old[i] wherever old[i] is still valid (not overwritten by an update
// that ran): what a failed optimizer step undoes. Returns how many handles moved back.
size_t revert_all(const std::vector<Handle*>& handles, const std::vector<ValuePtr>& old);
// Counts resets that gave a handle different stored data (a leaf of another buffer: load_state_dict,
// model.to(...)), as opposed to the pending results of an update. glassgrad.compile's replays
// hold the buffers they were traced with, so a change means trace again.
uint64_t rebind_generation();

struct CacheStats {
  uint64_t compiles = 0;   // plans compiled (cache misses)
  uint64_t hits = 0;       // realizes served by a cached plan
  uint64_t realizes = 0;   // realizes that ran a plan
  uint64_t plans = 0;      // plans in the cache now
  uint64_t graphs_built = 0;  // engine graphs realize built from the trace (one per compile; a hit builds none)
  uint64_t gradients_built = 0;   // backward() calls that ran the gradient rules
  uint64_t gradients_reused = 0;  // backward() calls that reused the gradient nodes of a trace seen before
  // Buffers copied before an in-place update overwrote them, for a graph recorded before the update
  // that may still be differentiated (TraceValue::copied_before_update; none in a plain loop).
  uint64_t update_copies = 0;
  // Where realize's time went, in seconds: exporting the lazy graph (incl. its signature),
  // compiling plans on misses, and running them.
  double export_seconds = 0, compile_seconds = 0, run_seconds = 0;
};

ValuePtr make_leaf(const Tensor& data, ValueKind kind, bool requires_grad, const std::string& name = "");
std::vector<ValuePtr> record(const std::string& op, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                             const NodeMeta& meta);
// Computes `targets` and every other pinned pending value, in one plan.
void realize(const std::vector<ValuePtr>& targets);
// The value's data, realizing first if needed. Throws if the value was invalidated.
const Tensor& data(const ValuePtr& v);
// Accumulates d(loss)/d(leaf) into leaf->grad for every leaf with requires_grad that loss
// depends on. seed: d(output) (required unless loss has one element).
void backward(const ValuePtr& loss, const ValuePtr& seed = nullptr);
// Data parallelism (DistributedDataParallel): the gradients of `params` are averaged over the
// `world_size` ranks of communicator `group` by bucketed AllReduce nodes in the backward graph
// (autodiff gradient_buckets.h). A param's existing grad (accumulated under no_sync) joins the
// bucket before the all-reduce, and the reduced value replaces it. Params the loss does not
// read get a zero gradient, so every rank issues the same all-reduces.
struct GradientSync {
  std::vector<ValuePtr> params;
  int64_t group = 0;
  int64_t world_size = 1;
  int64_t bucket_cap_bytes = int64_t{25} << 20;
  std::string scope = "ddp";
};
void backward(const ValuePtr& loss, const ValuePtr& seed, const GradientSync* sync);
void set_grad(const ValuePtr& leaf, ValuePtr grad);  // nullptr clears
// Tensor.requires_grad = on: on a leaf, or on a computed value that requires no gradient (which
// becomes a leaf, as PyTorch counts it); turning it off on a computed value that requires one
// raises PyTorch's error.
void set_requires_grad(const ValuePtr& v, bool on);

// Tensor.register_hook: adds a hook to v (TraceValue::grad_hooks); returns its key for remove_grad_hook.
uint64_t add_grad_hook(const ValuePtr& v, GradientHook hook);
// What a gradient hook returns to make the gradient undefined (PyTorch's None: an
// autograd.Function's backward returning None for an input): nothing flows on from the value,
// and a leaf reached only through it keeps no .grad. A marker only: never read or computed.
const ValuePtr& undefined_gradient();
void remove_grad_hook(const ValuePtr& v, uint64_t key);
// Tensor.register_post_accumulate_grad_hook: sets v's TraceValue::post_accumulate_hook (nullptr clears).
void set_post_accumulate_hook(const ValuePtr& v, std::function<void()> hook);
// Moves leaf `from`'s gradient (and the storage its handles share) and its gradient hooks to leaf
// `to`, which becomes the newest version of from's leaf (TraceValue::versions).
void move_grad(const ValuePtr& from, const ValuePtr& to);
// The newest version of v's leaf (v itself when it has none newer, or when that one died).
ValuePtr newest_version(const ValuePtr& v);
// backward(..., retain_graph): without it, the nodes whose gradient rules read saved tensors are
// freed, and a second backward through them raises PyTorch's error.
void backward(const ValuePtr& loss, const ValuePtr& seed, const GradientSync* sync, bool retain_graph);

// autograd.grad: d(loss)/d(inputs[i]) for each input (leaves or computed values), or nullptr
// where loss does not depend on it. Nothing is accumulated: no leaf's or retained gradient
// changes. Gradient hooks run as in backward(). retain_graph as in backward(). With
// create_graph the gradients require gradients themselves (their nodes are recorded as
// differentiable ops), so they can be differentiated again.
std::vector<ValuePtr> gradients(const ValuePtr& loss, const ValuePtr& seed, const std::vector<ValuePtr>& inputs,
                                bool retain_graph, bool create_graph = false);

// The leaves with requires_grad that v is computed from (what backward() gives a gradient).
std::vector<ValuePtr> leaves_requiring_grad(const ValuePtr& v);

// Gradient mode (glassgrad.no_grad), per thread: a new thread starts with gradients enabled.
bool grad_enabled();
void set_grad_enabled(bool on);

// Views of computed tensors that need no gradient are taken at once, with no node (record()).
// While glassgrad.onnx traces a model this is off: every view is a node, so the exported graph
// reaches the parameters, buffers and inputs the model reads (per thread, like gradient mode).
bool eager_views();
void set_eager_views(bool on);

// Memory budget for the plans realize compiles (bytes for arena + outputs on the device):
// an explicit one (glassgrad.compile(..., memory_limit=)), else what the device allocator's limit
// leaves beside the memory already held; 0 = none. Over budget, plans checkpoint (remat.h).
void set_memory_budget(size_t bytes);  // 0: derive from the allocator's limit
size_t memory_budget_for(const Device& d);

CacheStats cache_stats();
void reset_cache_stats();
void clear_cache();
// The plan run by the most recent realize (for printing / memory reports), or null.
std::shared_ptr<const Plan> last_plan();
// The executor that ran the most recent realize's plan (it holds the plan's whole-step CUDA graph:
// Executor::graph_captured / graph_replays), or null.
std::shared_ptr<Executor> last_executor();
// The not-yet-computed graph that computes `v` (what realize would export), as text.
std::string pending_graph_str(const ValuePtr& v);
// The graph computing `roots`, exported as realize exports it (computed values are its leaves),
// with the lazy value behind each leaf: what glassgrad.onnx translates.
struct InspectedGraph {
  Graph graph;
  std::vector<ValuePtr> leaves;  // by graph value id; null for the values nodes compute
  std::vector<ValueId> outputs;  // the roots, in order
};
InspectedGraph inspect_graph(const std::vector<ValuePtr>& roots);
// Exports the graph computing `roots` (stopping at computed values) and compiles it, without
// running anything: what memory_report() shows.
std::shared_ptr<const Plan> plan_for(const std::vector<ValuePtr>& roots);

// Plan-only mode (memory reports): realize compiles and records plans but runs no kernel;
// results get uninitialized memory of the right shape, in-place updates leave their buffers
// unchanged. Everything else (caching, settling in-place outputs) behaves as usual.
void set_plan_only(bool on);
bool plan_only();
std::vector<std::shared_ptr<const Plan>> take_plan_only_plans();
// Bytes currently held by the shared arena of a device (0 if none yet).
size_t arena_held_bytes(const Device& d);

// Capture, for glassgrad.compile: while capturing, every plan a realize runs is recorded with
// the exact tensors bound to its inputs and produced as outputs, so the whole step can be
// replayed later without tracing (binding new data to the same slots).
struct CapturedRun {
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<Executor> executor;
  std::vector<Tensor> inputs;
  std::vector<ValueKind> input_kinds;
  std::vector<uint64_t> input_seqs;   // creation order of the bound leaves
  std::vector<Tensor> outputs;
};
void capture_begin();
std::vector<CapturedRun> capture_end();
uint64_t current_seq();  // values created after this point have a larger seq

}  // namespace lazy
}  // namespace glassgrad
