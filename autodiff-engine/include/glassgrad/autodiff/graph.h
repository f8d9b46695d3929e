// The graph IR: values with static shapes, dtypes, devices and names, and nodes that apply an
// op (by schema) to values. Values are SSA: each is produced once (by a node) or is a leaf.
// Recording a node runs its schema's shape rule, so every value's shape is known statically.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

using ValueId = int32_t;
using NodeId = int32_t;
constexpr ValueId kNoValue = -1;
constexpr NodeId kNoNode = -1;

// Leaves are bound to memory by whoever runs a plan. Input: per-call data (a batch).
// Parameter: trainable and persistent. State: persistent, not trained (running statistics,
// optimizer moments, the learning rate). Constant: captured data.
enum class ValueKind : uint8_t { Input, Parameter, State, Constant, Intermediate };
const char* value_kind_name(ValueKind k);

struct Value {
  ValueId id = kNoValue;
  TensorInfo info;
  ValueKind kind = ValueKind::Intermediate;
  std::string name;
  NodeId producer = kNoNode;
  int output_index = 0;
  bool requires_grad = false;
};

struct Node {
  NodeId id = kNoNode;
  const OpSchema* schema = nullptr;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  Attrs attrs;
  NodeMeta meta;
  // Where the scheduler places this node among those ready: lower first. Defaults to the node
  // id (recording order); passes that add nodes late (recomputation) give them a key just
  // below their first consumer so they run just in time.
  double schedule_key = -1;
  // Set by a pass that replaced this in-place (side-effecting) node by another doing its writes:
  // dead-code elimination then drops it like any unread node.
  bool superseded = false;
  // For a node a gradient rule emitted (GradContext::emit): the forward node whose rule it was.
  NodeId gradient_of = kNoNode;
  const std::string& op() const { return schema->name; }
  double key() const { return schedule_key >= 0 ? schedule_key : static_cast<double>(id); }
};

// Validates a node (input count, devices, the op's shape rule) and returns its outputs' infos.
// Used by Graph::add_node and by the runtime's lazy tracer, so both report identical errors.
std::vector<TensorInfo> infer_node(const OpSchema& s, const std::vector<TensorInfo>& inputs,
                                   const Attrs& attrs, const NodeMeta& meta);

class Graph {
 public:
  ValueId add_leaf(const std::string& name, const TensorInfo& info, ValueKind kind,
                   bool requires_grad = false);
  // Records a node, running the op's checks and shape rule; returns its outputs.
  std::vector<ValueId> add_node(const std::string& op, const std::vector<ValueId>& inputs,
                                const Attrs& attrs = {}, const NodeMeta& meta = {});
  // Single-output shorthand.
  ValueId add(const std::string& op, const std::vector<ValueId>& inputs, const Attrs& attrs = {},
              const NodeMeta& meta = {});

  void mark_output(ValueId v);
  // For passes: make input `index` of node n read value v instead (shapes must agree).
  void replace_input(NodeId n, int index, ValueId v);
  void set_schedule_key(NodeId n, double key) { nodes_.at(static_cast<size_t>(n)).schedule_key = key; }
  void supersede(NodeId n) { nodes_.at(static_cast<size_t>(n)).superseded = true; }
  void set_gradient_of(NodeId n, NodeId forward) { nodes_.at(static_cast<size_t>(n)).gradient_of = forward; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  void set_name(ValueId v, const std::string& name) { values_.at(static_cast<size_t>(v)).name = name; }

  const Value& value(ValueId v) const { return values_.at(static_cast<size_t>(v)); }
  const Node& node(NodeId n) const { return nodes_.at(static_cast<size_t>(n)); }
  const std::vector<Value>& values() const { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  int num_values() const { return static_cast<int>(values_.size()); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  std::vector<ValueId> leaves() const;
  // consumers()[v] = nodes reading value v, in recording order.
  std::vector<std::vector<NodeId>> consumers() const;

  // A stable hash of structure, ops, attributes, shapes, dtypes, devices, leaf kinds and
  // outputs (not names or data): two graphs with equal signatures compile to the same plan.
  uint64_t signature() const;

  // One line per node: "%7 = Conv2D(%0, %1, %2) stride=[1, 1] ... -> [32, 16, 26, 26] float32  # conv1".
  std::string str() const;
  std::string value_str(ValueId v) const;  // "%7" or "%7:conv1.weight"

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> outputs_;
};

}  // namespace glassgrad
