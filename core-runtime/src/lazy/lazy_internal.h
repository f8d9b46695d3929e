// Shared by the lazy tracer's files: the registry of pending values and graph export.
#pragma once
#include <unordered_map>
#include <vector>

#include "glassgrad/runtime/lazy.h"

namespace glassgrad {
namespace lazy {

void pin(const ValuePtr& v);
void unpin(const ValuePtr& v);
// Pinned values that are not computed (and not invalidated), in creation order.
std::vector<ValuePtr> pending_values();
// At least as many as pending_values() returns (entries of values that died or were computed
// since leave lazily): a constant-time bound.
size_t pending_bound();
// glassgrad.compile is capturing the plans a step runs (capture_begin .. capture_end).
bool capturing();
void forget_pending(TraceValue* v);
// What a computed value keeps of its graph (release.cpp): computed values that need no gradient,
// held by handles, forget their producers; the nodes a backward() without retain_graph freed are
// noted, and let go of the leaves only they read once a realize left nothing pending.
void release_producers(const std::vector<ValuePtr>& computed);
void note_freed(const std::vector<TraceNode*>& freed);
void release_freed_inputs();
uint64_t next_seq();

// The storage a tensor shares with its views and aliases (alias.cpp). `base` is the storage's
// current value, not pinned: handles pin what they read, and a version no handle read yet is
// computed by the next realize (unread_writes), not before.
// `physical` is the realized value whose buffer holds the storage; while `dirty`, `base` is a
// newer version the next realize writes into that buffer (flush_writes).
struct Alias {
  ValuePtr base;
  ValuePtr physical;
  uint64_t generation = 1;  // bumped by every write and re-point: handles re-derive when it moved
  std::shared_ptr<VersionCounter> counter = std::make_shared<VersionCounter>();
  bool dirty = false;
  std::weak_ptr<TraceValue> grad_owner;  // the leaf whose gradient this storage is (p.grad), if any
  // The version with the gradient of a value written through a detached alias (alias.cpp, write):
  // what that alias and its views read while graded_generation == generation.
  ValuePtr graded;
  uint64_t graded_generation = 0;
  // In the list of storages written since their latest version was last computed (unread_writes).
  bool written = false;
  // In the list of storages viewed while their base was not computed (viewed_bases).
  bool viewed = false;
};

// The write of `value` into h's elements done now, on the host, when that is what the next
// realize would do anyway and cheaply (host_writes.cpp; docs/inplace-and-views.md): returns
// false, having changed nothing, when the write must be recorded instead. `where` names the op
// and the user's line.
bool write_on_host(Handle& h, Alias& a, const ValuePtr& value, const std::string& where);

// Records the version of `counter` on v unless v already belongs to a storage.
void tag(const ValuePtr& v, const std::shared_ptr<VersionCounter>& counter);
// The storage of h, made (with h's value as its version 0) if h has none.
Alias& alias_of(Handle& h);

// A handle moving from value `from` to `to` (an in-place write, a view re-derived after its
// storage was written): retain_grad() stays with the tensor, as PyTorch moves its retains_grad
// hook to the tensor's new version, and the version written over no longer keeps a gradient.
void carry_retains_grad(const ValuePtr& from, const ValuePtr& to);

// A handle's aliasing fields, for the files that make views and writes (alias.cpp, element_views.cpp).
struct AliasAccess {
  static ValuePtr& v(Handle& h) { return h.v_; }
  static std::shared_ptr<Alias>& alias(Handle& h) { return h.alias_; }
  static std::vector<ViewStep>& chain(Handle& h) { return h.chain_; }
  static uint64_t& seen(Handle& h) { return h.seen_; }
  static bool& detached(Handle& h) { return h.detached_; }
  static bool& untracked(Handle& h) { return h.untracked_; }
  // Points h at v (pinned), seen at the storage's current generation.
  static void point(Handle& h, const ValuePtr& v) {
    if (v != h.v_) {
      if (h.v_ && h.v_->retains_grad) carry_retains_grad(h.v_, v);
      pin(v);
      unpin(h.v_);
      h.v_ = v;
    }
    if (h.alias_) h.seen_ = h.alias_->generation;
  }
};

// A pending in-place write made part of a realize: Assign(physical, base) -> out.
struct Flush {
  std::shared_ptr<Alias> alias;
  ValuePtr base, out;
};
// Records the Assign of every dirty storage (alias.cpp); after the plan ran, settle_flushes
// makes each base the realized value of its buffer.
std::vector<Flush> flush_writes();
void settle_flushes(const std::vector<Flush>& flushes, bool ran);
// The latest versions of written storages (a base, a detached alias's gradient-carrying version)
// that are not computed and that no handle pins (pinned ones are pending values already): every
// realize computes them, as PyTorch computed the write when it ran, so a plan's in-place updates
// (an optimizer step) never overwrite a buffer such a version still has to read
// (docs/inplace-and-views.md, "Writes read after an optimizer step"). A storage leaves the list
// once its latest versions are computed (or it dies); a pinned one stays listed until then, as its
// pin may go first.
std::vector<ValuePtr> unread_writes();
// The bases of storages seen through a view while the base itself was not computed, that are
// still not computed and that no handle pins (the base's own handle is gone: (x * 2).t()): every
// realize computes them, as PyTorch computed the base when the view was taken, so a later write
// through the view finds the base's elements even when a plan has since overwritten a buffer the
// base was computed from (docs/inplace-and-views.md, "Views of a dropped base"). Registered by
// note_view; a storage leaves the list once its base is computed or it dies.
std::vector<ValuePtr> viewed_bases();
// Lists a's storage for viewed_bases when its base is not computed yet and the view's chain
// does more than detach() it.
void note_view(const std::shared_ptr<Alias>& a, const std::vector<ViewStep>& chain);
// PyTorch's headline for a saved value modified in place since (backward.cpp).
// saved_output: v is an output of the node whose gradient reads it (else one of its inputs).
std::string saved_tensor_headline(const TraceValue& v, bool saved_output);
// backward() needs v, which an in-place update overwrote (TraceValue::invalid): PyTorch's error.
[[noreturn]] void throw_modified(const TraceValue& v);

// The trace computing some roots, numbered as the engine's graph of it is (docs/architecture.md,
// "One graph from the tracer to the planner"): leaves first, in order of first use, then each
// node's outputs, nodes in creation order. `graph` is that engine graph once built (build_graph):
// backward() and a plan-cache miss build it; a realize whose plan is cached binds from the
// numbering alone.
struct Export {
  Export() = default;
  Export(Export&&) = default;
  Export& operator=(Export&&) = default;
  // Hands by_id, nodes, made_by and outputs, emptied, to the next collect() on this thread: a
  // step collects twice (backward, realize), and lists of its trace's size allocated anew each
  // time cost glibc's large-block path (malloc_consolidate) about 0.2 million instructions a
  // ResNet-18 step (export.cpp, recycled_lists).
  ~Export();
  Graph graph;
  bool built = false;                                  // graph holds the trace
  // Lazy value -> graph value, for backward's lookups: use ids(ex), which builds it on first use
  // from by_id's first `collected` entries made by seq `collected_seq` (a value value_of makes
  // again later is not in it), as collect would have filled it. A repeated step's backward (a
  // template hit) looks nothing up, and a map filled per value cost it about 0.3 million
  // instructions a ResNet-18 step.
  std::unordered_map<const TraceValue*, ValueId> id;
  bool id_built = false;
  size_t collected = 0;
  uint64_t collected_seq = 0;
  std::vector<ValuePtr> by_id;                         // graph value -> lazy value (null if dead)
  std::vector<std::shared_ptr<TraceNode>> nodes;       // graph node -> lazy node (kept alive while exported)
  std::vector<ValueId> outputs;                        // the roots, in order
  int num_leaves = 0;                                  // graph values 0 .. num_leaves - 1
  // For each value a collected node makes (ids num_leaves ..): (index into nodes, output index).
  std::vector<std::pair<int32_t, int32_t>> made_by;
  // Graph::signature's information (leaf kinds, every value's shape, dtype and device, the ops,
  // their attributes and wiring, the outputs), folded from the nodes' record-time hashes.
  uint64_t signature = 0;
  // autograd.grad(create_graph=True): imported backward nodes track gradients as recorded ops
  // do, so the gradients can be differentiated again (docs/autograd.md).
  bool differentiable_imports = false;
  // backward: whether a leaf of the trace was overwritten in place by an update outside its
  // storage's count (an optimizer step); check_saved then looks behind the values rules read.
  bool overwritten_leaves = false;
};

// ex.id, built on first use (Export::id).
std::unordered_map<const TraceValue*, ValueId>& ids(Export& ex);

// record() for a schema already looked up (record_handles, which needs it too: the registry
// is searched by name once per recorded op).
std::vector<ValuePtr> record_schema(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                                    const NodeMeta& meta);
// record_schema with the metadata interned and hashed already (share_meta).
std::vector<ValuePtr> record_schema(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                                    const SharedMeta& meta);
// record_schema with the attributes shared and hashed already too (share_attrs).
std::vector<ValuePtr> record_schema(const OpSchema& s, const std::vector<ValuePtr>& inputs, const SharedAttrs& attrs,
                                    const SharedMeta& meta);
// record_schema for a run of in-place update nodes of one op, attrs and meta (an optimizer
// group's updates, record_group_updates). A node's shape rule results and hashes depend on its
// op, attrs and input infos only (meta names the node in errors), so they are computed once per
// distinct row of input infos the run meets; errors and checks are record_schema's. Other ops,
// and storage types computing wide, are recorded by record_schema.
struct RecordMemo {
  struct Entry {
    std::vector<TensorInfo> inputs, outputs;
    uint64_t hash = 0;
    // The interned attributes and metadata of the row's first node (null until it is made): the
    // row's later nodes share them without looking them up.
    std::shared_ptr<const Attrs> attrs;
    std::shared_ptr<const NodeMeta> meta;
  };
  std::vector<Entry> entries;
  uint64_t meta_hash = 0, attrs_hash = 0;
  bool hashed = false;
};
// Appends the node's outputs to `out` (one list for the whole run: no list per node) and returns
// how many it appended.
size_t record_schema_memo(const OpSchema& s, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                          const NodeMeta& meta, RecordMemo& memo, std::vector<ValuePtr>& out);
// A node's record-time hash (TraceNode::hash): op, attributes, output infos.
uint64_t node_hash(const OpSchema& s, const Attrs& attrs, const std::vector<TensorInfo>& outputs);
// The same, given the attributes' hash (Attrs::hash).
uint64_t node_hash(const OpSchema& s, uint64_t attrs_hash, const std::vector<TensorInfo>& outputs);
// The hash of a node's metadata (TraceNode::meta_hash): layer scope, source line, role, layer.
uint64_t meta_hash(const NodeMeta& meta);
// Forgets the gradient nodes backward() kept per trace (backward.cpp); clear_cache() calls it.
void clear_backward_templates();
// backward()'s counts for cache_stats(): gradient rules run, gradient nodes reused.
struct BackwardCounts {
  uint64_t built = 0, reused = 0;
};
BackwardCounts& backward_counts();

// Collects everything needed to compute `roots`, numbered, with the signature, without building
// the engine graph. With stop_at_computed, computed values become leaves (what realize runs);
// without, the walk goes through them to the true leaves (what backward differentiates).
Export collect(const std::vector<ValuePtr>& roots, bool stop_at_computed);
// Builds ex.graph from the collected trace: what a plan-cache miss compiles and what backward()
// differentiates when it has no template for the trace (backward.cpp).
void build_graph(Export& ex);
// collect + build_graph.
Export export_graph(const std::vector<ValuePtr>& roots, bool stop_at_computed);

[[noreturn]] void throw_invalid(const TraceValue& v);
// v's producer is in flight (TraceNode::in_flight): the plan computing it is running right now.
[[noreturn]] void throw_in_flight(const TraceValue& v);

// The lazy value of graph value `id` (a collected one, or one appended to by_id since), re-created
// from its producer if it had died (an unused output of a multi-output node that a gradient rule
// now needs).
const ValuePtr& value_of(Export& ex, ValueId id);

}  // namespace lazy
}  // namespace glassgrad
