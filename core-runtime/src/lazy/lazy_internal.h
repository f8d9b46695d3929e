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
