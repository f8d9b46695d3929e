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
void forget_pending(const Value* v);
uint64_t next_seq();

// The storage a tensor shares with its views and aliases (alias.cpp). `base` is the storage's
// current value, not pinned: handles pin what they read, and an unread version is not computed.
// `physical` is the realized value whose buffer holds the storage; while `dirty`, `base` is a
// newer version the next realize writes into that buffer (flush_writes).
struct Alias {
  ValuePtr base;
  ValuePtr physical;
  uint64_t generation = 1;  // bumped by every write and re-point: handles re-derive when it moved
  std::shared_ptr<VersionCounter> counter = std::make_shared<VersionCounter>();
  bool dirty = false;
  std::weak_ptr<Value> grad_owner;  // the leaf whose gradient this storage is (p.grad), if any
};

// Records the version of `counter` on v unless v already belongs to a storage.
void tag(const ValuePtr& v, const std::shared_ptr<VersionCounter>& counter);

// A pending in-place write made part of a realize: Assign(physical, base) -> out.
struct Flush {
  std::shared_ptr<Alias> alias;
  ValuePtr base, out;
};
// Records the Assign of every dirty storage (alias.cpp); after the plan ran, settle_flushes
// makes each base the realized value of its buffer.
std::vector<Flush> flush_writes();
void settle_flushes(const std::vector<Flush>& flushes, bool ran);
// PyTorch's headline for a saved value modified in place since (backward.cpp).
// saved_output: v is an output of the node whose gradient reads it (else one of its inputs).
std::string saved_tensor_headline(const Value& v, bool saved_output);
// backward() needs v, which an in-place update overwrote (Value::invalid): PyTorch's error.
[[noreturn]] void throw_modified(const Value& v);

// A lazy graph exported to the engine's IR.
struct Export {
  Graph graph;
  std::unordered_map<const Value*, ValueId> id;   // lazy value -> graph value
  std::vector<ValuePtr> by_id;                    // graph value -> lazy value (null if dead)
  std::vector<std::shared_ptr<Node>> nodes;       // graph node -> lazy node (kept alive while exported)
  std::vector<ValueId> outputs;                   // the roots, in order
};

// Exports everything needed to compute `roots`. With stop_at_computed, computed values become
// leaves (what realize runs); without, the walk goes through them to the true leaves (what
// backward differentiates).
Export export_graph(const std::vector<ValuePtr>& roots, bool stop_at_computed);

[[noreturn]] void throw_invalid(const Value& v);
// v's producer is in flight (Node::in_flight): the plan computing it is running right now.
[[noreturn]] void throw_in_flight(const Value& v);

// The lazy value of graph value `id`, re-created from its producer if it had died (an unused
// output of a multi-output node that a gradient rule now needs).
const ValuePtr& value_of(Export& ex, ValueId id);

}  // namespace lazy
}  // namespace glassgrad
