// Op schemas: everything the engine knows about an op. One schema per op, registered once,
// holding its input/output names, its shape/dtype rule (run as each node is recorded, so a
// mistake is reported at the user's line) and its gradient rule (which emits graph nodes,
// never numbers). Kernels live in core-runtime and are looked up by the schema's name.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/types.h"
#include "glassgrad/autodiff/views.h"

namespace glassgrad {

class GradContext;

// A node's part in a training step: the model's forward pass, the backward graph the gradient
// rules emit, optimizer updates, nodes recomputed by checkpointing (remat.h), and updates of
// state such as running statistics.
enum class NodeRole : uint8_t { Forward, Backward, Optimizer, Recompute, Update };
const char* role_name(NodeRole role);            // "forward", "backward", ...
NodeRole role_from_name(const std::string& name);  // throws ValueError naming the valid ones

// Where a node came from: the module path of the layer that recorded it ("layer2.0.conv1"),
// the user's source line ("train.py:42"), its role in the step, and the layer as its messages
// name it ("Linear 'fc'", "Linear" for a layer called alone; empty outside layers), which the
// Python layer adds so that the engine's checks speak of the layer rather than of its ops.
struct NodeMeta {
  std::string scope;
  std::string source;
  NodeRole role = NodeRole::Forward;
  std::string layer;
};

// How messages name a node: "Conv2D 'layer2.0.conv1'" (the op and the layer that recorded it),
// or "Conv2D" outside any layer.
std::string node_where(const std::string& op, const std::string& scope);

// Passed to a shape rule. fail() throws a ShapeError whose headline names the op and layer.
class ShapeContext {
 public:
  ShapeContext(const std::string& op, const std::vector<TensorInfo>& inputs, const Attrs& attrs,
               const NodeMeta& meta)
      : op_(op), inputs_(inputs), attrs_(attrs), meta_(meta) {}
  const std::string& op() const { return op_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const TensorInfo& in(int i) const { return inputs_.at(static_cast<size_t>(i)); }
  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const Attrs& attrs() const { return attrs_; }
  const NodeMeta& meta() const { return meta_; }
  // "Conv2D 'conv1'" when the node has a layer, else "Conv2D".
  std::string where() const;
  // The layer that recorded the node as its messages name it ("Linear 'fc'"), or where() when
  // no layer did.
  std::string layer_where() const { return meta_.layer.empty() ? where() : meta_.layer; }
  // Throws ShapeError (or DTypeError when dtype=true). The headline is prefixed with where().
  [[noreturn]] void fail(const ErrorMessage& msg, bool dtype = false) const;
  // Attribute `attr` = `axis` as an axis of a rank-`rank` input (negative counts from the end),
  // or an IndexError naming the op, the input's shape and the valid range (never wrapped modulo
  // the rank). `fix`, when given, replaces the default fix line.
  int axis(const char* attr, int64_t axis, int rank, int input = 0, const std::string& fix = "") const;
  // Common checks with ready-made messages.
  void expect_rank(int input, int rank, const char* layout = nullptr) const;
  void expect_float(int input) const;                 // float32 or float64
  void expect_dtype(int input, DType dt) const;
  void expect_same_dtype(int a, int b) const;

 private:
  const std::string& op_;
  const std::vector<TensorInfo>& inputs_;
  const Attrs& attrs_;
  const NodeMeta& meta_;
};

using ShapeFn = std::function<std::vector<TensorInfo>(const ShapeContext&)>;
using GradFn = std::function<void(GradContext&)>;
// For view ops: the output's layout over the input's buffer; false if it cannot be a view
// (then the op's kernel runs and copies).
using ViewFn = std::function<bool(const Attrs&, const Layout& in, const Shape& out_shape, Layout& out)>;

struct OpSchema {
  std::string name;                        // "Conv2D": kernels are registered under this name
  std::vector<std::string> inputs;         // names, for messages and printing
  int min_inputs = -1;                     // -1: all inputs required; else trailing ones optional
  std::vector<std::string> outputs;        // names; the count is fixed
  ShapeFn infer;                           // outputs' shapes/dtypes/devices from inputs + attrs
  GradFn gradient;                         // empty: not differentiable
  // {output, input}: the output is written into the input's buffer (optimizer updates,
  // running statistics). Every other reader of that input is scheduled before this node.
  std::vector<std::pair<int, int>> inplace;
  int view_of = -1;            // output 0 is a no-copy view of this input (Reshape, Permute...)
  ViewFn view;                 // with view_of: how the view's layout follows from the input's
  bool elementwise = false;    // output[i] depends on input[i] only: a fusion candidate
  // The kernel accepts output 0 in this input's buffer (it copies the input into the output only
  // when they differ, then writes some elements): the memory planner gives the output that
  // buffer when the input dies at this step (writes through indices, SliceScatter).
  int overwrites_input = -1;
  bool strided_inputs = false; // the kernel reads any strides; else inputs arrive contiguous
  bool same_device = true;     // all inputs must be on one device (the output's)
  // Set on ops whose input 0 is a layer's input and input 1 its parameter, named so in messages
  // (Conv2D "weight", BatchNorm2D* "weight", MatMul "weight.T" as Linear records it): when a
  // layer recorded the node, a device or dtype mismatch between them is worded for the layer
  // ("Conv2D 'conv1': the input is float64 but the layer's parameters are float32", the fix
  // converting the input or the model) before any other check.
  const char* layer_parameter = nullptr;
  bool has_side_effects = false;  // kept by dead-code elimination even when unused
  // Outputs carry no gradient by design (Detach, optimizer updates); without this flag, a
  // missing gradient rule on a path to a parameter is an error.
  bool stops_gradient = false;
  int dispatch_input = 0;      // kernels are looked up by this input's dtype (-1: output 0's)
  std::string formula;         // one line saying what it computes, printed by explain()

  int max_inputs() const { return static_cast<int>(inputs.size()); }
  int required_inputs() const { return min_inputs < 0 ? max_inputs() : min_inputs; }
  int num_outputs() const { return static_cast<int>(outputs.size()); }
};

class OpRegistry {
 public:
  static OpRegistry& instance();  // populated with every built-in op on first use
  void add(OpSchema schema);      // throws ValueError on a duplicate name
  const OpSchema* find(const std::string& name) const;
  const OpSchema& at(const std::string& name) const;  // throws ValueError with suggestions
  std::vector<std::string> names() const;

 private:
  std::map<std::string, std::unique_ptr<OpSchema>> ops_;
};

// Registration functions, one per op family (src/ops/<family>.cpp), declared from the one list
// of families (families/families.def) and called once by OpRegistry::instance().
#define GG_FAMILY(family) void register_##family##_ops(OpRegistry& r);
#include "glassgrad/autodiff/families/families.def"

}  // namespace glassgrad
