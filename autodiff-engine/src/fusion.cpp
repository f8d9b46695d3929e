#include "glassgrad/autodiff/fusion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

namespace {
// The table row of a node that FusedElementwise can run, or nullptr.
const ElementwiseInfo* fusible_row(const std::string& op) {
  const ElementwiseInfo* e = find_elementwise(op);
  return e && e->fusible() ? e : nullptr;
}
}  // namespace

FusedProgram FusedProgram::from_attrs(const Attrs& attrs, int n_inputs) {
  FusedProgram p;
  p.n_inputs = n_inputs;
  const auto& code = attrs.ints("program");
  const auto& scalars = attrs.floats("scalars");
  if (code.size() % 3 != 0 || code.size() / 3 != scalars.size()) {
    throw ValueError("FusedElementwise: 'program' must hold (op, a, b) triples, one scalar each");
  }
  for (size_t i = 0; i < scalars.size(); ++i) {
    FusedInstruction ins;
    const int64_t op = code[3 * i];
    if (op < 0 || op >= kElementwiseOpCount) throw InternalError("unknown fused op code " + std::to_string(op));
    ins.op = static_cast<ElementwiseOp>(op);
    const ElementwiseInfo& oi = elementwise_info(ins.op);
    if (!oi.fusible()) {
      throw ValueError("FusedElementwise: instruction " + std::to_string(i) + " is " + oi.name +
                       ", which FusedElementwise does not run (its output is not a float)");
    }
    ins.a = static_cast<int>(code[3 * i + 1]);
    ins.b = static_cast<int>(code[3 * i + 2]);
    ins.scalar = scalars[i];
    const int reg_limit = n_inputs + static_cast<int>(i);
    if (ins.a < 0 || ins.a >= reg_limit || (oi.arity() == 2 && (ins.b < 0 || ins.b >= reg_limit))) {
      throw ValueError("FusedElementwise: instruction " + std::to_string(i) + " reads a register not yet written");
    }
    p.code.push_back(ins);
  }
  if (p.code.empty()) throw ValueError("FusedElementwise: empty program");
  return p;
}

void FusedProgram::to_attrs(Attrs& attrs) const {
  std::vector<int64_t> code;
  std::vector<double> scalars;
  for (const auto& i : this->code) {
    code.push_back(static_cast<int64_t>(i.op));
    code.push_back(i.a);
    code.push_back(i.b);
    scalars.push_back(i.scalar);
  }
  attrs.set("program", code);
  attrs.set("scalars", scalars);
}

std::string FusedProgram::str() const {
  std::ostringstream os;
  for (size_t i = 0; i < code.size(); ++i) {
    const FusedInstruction& ins = code[i];
    const ElementwiseInfo& oi = elementwise_info(ins.op);
    os << (i ? "; " : "") << "r" << (n_inputs + static_cast<int>(i)) << " = " << oi.name << "(r" << ins.a;
    if (oi.arity() == 2) os << ", r" << ins.b;
    if (oi.has_scalar()) os << ", " << ins.scalar;
    os << ")";
  }
  return os.str();
}

bool fused_relu(const Attrs& attrs) { return attrs.has("activation") && attrs.s("activation") == "relu"; }
bool has_fused_activation(const Attrs& attrs) { return attrs.has("activation") && attrs.s("activation") != "none"; }

namespace {

// What a pattern pass reads while it rewrites: the nodes that existed when it started (the
// nodes it appends are never matched again), each value's readers, and the values that must
// stay visible (the plan's outputs), whose replacements go into `remap`.
struct PassScope {
  PassScope(Graph& graph, const std::vector<ValueId>& keep, std::vector<std::pair<ValueId, ValueId>>* r)
      : g(graph), original(graph.num_nodes()), consumers(graph.consumers()),
        kept(static_cast<size_t>(graph.num_values()), 0), remap(r) {
    for (ValueId v : keep) kept[static_cast<size_t>(v)] = 1;
  }
  // The node among the original ones that produced v; kNoNode for a leaf or an appended node.
  NodeId producer(ValueId v) const {
    const NodeId p = g.value(v).producer;
    return p == kNoNode || p >= original ? kNoNode : p;
  }
  bool is_kept(ValueId v) const { return kept[static_cast<size_t>(v)] != 0; }
  const std::vector<NodeId>& readers(ValueId v) const { return consumers[static_cast<size_t>(v)]; }
  // Every original reader of `from` reads `to` instead; a kept `from` is remapped to `to`.
  void replace(ValueId from, ValueId to) {
    for (NodeId c : readers(from)) {
      const std::vector<ValueId> ins = g.node(c).inputs;
      for (size_t k = 0; k < ins.size(); ++k) {
        if (ins[k] == from) g.replace_input(c, static_cast<int>(k), to);
      }
    }
    if (remap && is_kept(from)) remap->emplace_back(from, to);
  }
  // Outputs 1.. of `old` (a multi-output node fused into a copy of itself) become the copy's.
  void replace_other_outputs(const Node& old, const std::vector<ValueId>& outs) {
    for (size_t k = 1; k < outs.size(); ++k) replace(old.outputs[k], outs[k]);
  }

  Graph& g;
  const int original;
  const std::vector<std::vector<NodeId>> consumers;
  std::vector<char> kept;
  std::vector<std::pair<ValueId, ValueId>>* remap;
};

// The attrs of node n with "fused" naming what it now computes ("Conv2D+ReLU").
Attrs fused_attrs(const Node& n, const std::string& what) {
  Attrs attrs = n.attrs;
  attrs.set("fused", (n.attrs.has("fused") ? n.attrs.s("fused") : n.op()) + "+" + what);
  return attrs;
}

// The attrs of node n once it also applies the ReLU that `absorbed` computed: the one writer of
// the activation="relu" attribute that fused_relu() reads.
Attrs relu_fused_attrs(const Node& n, const std::string& absorbed) {
  Attrs attrs = fused_attrs(n, absorbed);
  attrs.set("activation", std::string("relu"));
  return attrs;
}

// Each original Add with an input y that a node of op `op` (with n_inputs inputs) made as its
// output 0, not kept and read by the Add alone, the other input being another value: fuse(add, y,
// other, producer) rewrites and returns true, or returns false (then the Add's other side is
// tried). Returns the number fused.
template <typename F>
int fuse_add_operands(PassScope& scope, const char* op, size_t n_inputs, F fuse) {
  int formed = 0;
  for (NodeId n = 0; n < scope.original; ++n) {
    const Node add = scope.g.node(n);
    if (add.op() != "Add") continue;
    for (int side = 0; side < 2; ++side) {
      const ValueId y = add.inputs[static_cast<size_t>(side)], other = add.inputs[static_cast<size_t>(1 - side)];
      const NodeId p = scope.producer(y);
      if (p == kNoNode || y == other || scope.g.value(y).output_index != 0) continue;
      const Node prod = scope.g.node(p);
      if (prod.op() != op || prod.inputs.size() != n_inputs) continue;
      if (scope.is_kept(y) || scope.readers(y).size() != 1) continue;  // the Add alone reads y
      if (fuse(add, y, other, prod)) {
        ++formed;
        break;
      }
    }
  }
  return formed;
}

}  // namespace

int fuse_elementwise(Graph& g, const std::vector<ValueId>& keep, std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  const int original = scope.original;
  auto fusible = [&](const Node& n) {
    if (!fusible_row(n.op()) || n.outputs.size() != 1) return false;
    return is_floating(g.value(n.outputs[0]).info.dtype);
  };
  std::vector<int> group_of(static_cast<size_t>(original), -1);
  std::vector<std::vector<NodeId>> groups;
  for (NodeId n = 0; n < original; ++n) {
    const Node& node = g.node(n);
    if (!fusible(node)) continue;
    const TensorInfo& out = g.value(node.outputs[0]).info;
    int target = -1;
    for (ValueId v : node.inputs) {
      const NodeId p = scope.producer(v);
      if (p == kNoNode || group_of[static_cast<size_t>(p)] < 0) continue;
      if (scope.is_kept(v) || scope.readers(v).size() != 1) continue;
      if (!(g.value(v).info == out)) continue;  // same shape, dtype, device as this node's output
      const int gp = group_of[static_cast<size_t>(p)];
      if (target < 0) {
        target = gp;
      } else if (gp != target) {  // a second chain feeding this node: merge it in
        for (NodeId m : groups[static_cast<size_t>(gp)]) group_of[static_cast<size_t>(m)] = target;
        auto& dst = groups[static_cast<size_t>(target)];
        dst.insert(dst.end(), groups[static_cast<size_t>(gp)].begin(), groups[static_cast<size_t>(gp)].end());
        groups[static_cast<size_t>(gp)].clear();
      }
    }
    if (target < 0) {
      target = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[static_cast<size_t>(target)].push_back(n);
    group_of[static_cast<size_t>(n)] = target;
  }
  int formed = 0;
  constexpr size_t kMaxInputs = 8;
  // The CUDA kernel keeps a program's registers in each thread: at most 64 instructions
  // (core-runtime/kernels/cuda/params.h, GG_FUSED_MAX_CODE). Longer chains stay unfused.
  constexpr size_t kMaxInstructions = 64;
  for (auto& members : groups) {
    if (members.size() < 2 || members.size() > kMaxInstructions) continue;
    std::sort(members.begin(), members.end());
    const NodeId sink = members.back();
    std::vector<ValueId> inputs;
    std::map<ValueId, int> reg;
    for (NodeId m : members) {
      for (ValueId v : g.node(m).inputs) {
        const NodeId p = g.value(v).producer;
        const bool inside = p != kNoNode && std::binary_search(members.begin(), members.end(), p);
        if (!inside && !reg.count(v)) {
          reg[v] = static_cast<int>(inputs.size());
          inputs.push_back(v);
        }
      }
    }
    if (inputs.size() > kMaxInputs) continue;
    FusedProgram prog;
    prog.n_inputs = static_cast<int>(inputs.size());
    int next = prog.n_inputs;
    for (NodeId m : members) {
      const Node& node = g.node(m);
      FusedInstruction ins;
      const ElementwiseInfo& oi = *fusible_row(node.op());
      ins.op = oi.op;
      ins.a = reg.at(node.inputs[0]);
      if (oi.arity() == 2) ins.b = reg.at(node.inputs[1]);
      if (oi.has_scalar()) ins.scalar = node.attrs.f(oi.scalar);
      prog.code.push_back(ins);
      reg[node.outputs[0]] = next++;
    }
    Attrs attrs;
    prog.to_attrs(attrs);
    std::string ops;
    for (NodeId m : members) ops += (ops.empty() ? "" : "+") + g.node(m).op();
    attrs.set("fused", ops);
    const NodeMeta meta = g.node(sink).meta;
    const ValueId old_out = g.node(sink).outputs[0];
    const ValueId fused = g.add("FusedElementwise", inputs, attrs, meta);
    double key = g.node(members.front()).key();  // run where the group's first node would have
    for (NodeId m : members) key = std::min(key, g.node(m).key());
    g.set_schedule_key(g.value(fused).producer, key);
    scope.replace(old_out, fused);
    ++formed;
  }
  return formed;
}


int fuse_activations(Graph& g, const std::vector<ValueId>& keep, std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  int formed = 0;
  for (NodeId n = 0; n < scope.original; ++n) {
    const Node relu = g.node(n);
    if (relu.op() != "ReLU") continue;
    const ValueId x = relu.inputs[0];
    const NodeId p = scope.producer(x);
    if (p == kNoNode) continue;
    const Node prod = g.node(p);
    const bool fusible = prod.op() == "BatchNorm2DTrain" || prod.op() == "BatchNorm2DInference" || prod.op() == "Conv2D";
    if (!fusible || g.value(x).output_index != 0) continue;
    if (has_fused_activation(prod.attrs)) continue;
    if (scope.is_kept(x)) continue;
    // Every other reader of x must be a ReLUBackward reading it as the saved input.
    bool ok = true;
    for (NodeId c : scope.readers(x)) {
      if (c == n) continue;
      const Node& cn = g.node(c);
      if (cn.op() != "ReLUBackward" || cn.inputs[0] == x) ok = false;
    }
    if (!ok) continue;
    const Attrs attrs = relu_fused_attrs(prod, "ReLU");
    const std::vector<ValueId> outs = g.add_node(prod.op(), prod.inputs, attrs, prod.meta);
    g.set_schedule_key(g.value(outs[0]).producer, prod.key());
    scope.replace(relu.outputs[0], outs[0]);
    scope.replace(x, outs[0]);  // the ReLUBackward readers (x is not kept)
    scope.replace_other_outputs(prod, outs);
    ++formed;
  }
  return formed;
}

int fuse_pool_relu_backward(Graph& g, const std::vector<ValueId>& keep,
                            std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  int formed = 0;
  for (NodeId n = 0; n < scope.original; ++n) {
    const Node rb = g.node(n);
    if (rb.op() != "ReLUBackward") continue;
    const ValueId dx = rb.inputs[0], y = rb.inputs[1];
    const NodeId p = scope.producer(dx);
    if (p == kNoNode) continue;
    const Node mp = g.node(p);
    // The pooling read x = the ReLU's output, and ReLUBackward masks with y > 0 where y is x
    // itself (a ReLU fused into Conv2D/BatchNorm) or the ReLU's input: y > 0 exactly when
    // relu(y) > 0 (NaN and -0 included: relu gives 0 for both), so the mask is x > 0.
    if (mp.op() != "MaxPool2DBackward" || has_fused_activation(mp.attrs)) continue;
    const ValueId x = mp.inputs[1];
    const NodeId xp = g.value(x).producer;
    const bool relu_of_y = xp != kNoNode && g.node(xp).op() == "ReLU" && g.node(xp).inputs[0] == y;
    if (x != y && !relu_of_y) continue;
    if (scope.is_kept(dx) || scope.readers(dx).size() != 1) continue;
    if (!(g.value(rb.outputs[0]).info == g.value(dx).info)) continue;
    const Attrs attrs = relu_fused_attrs(mp, "ReLUBackward");
    NodeMeta meta = mp.meta;
    meta.role = rb.meta.role;
    const std::vector<ValueId> outs = g.add_node(mp.op(), mp.inputs, attrs, meta);
    g.set_schedule_key(g.value(outs[0]).producer, mp.key());
    scope.replace(rb.outputs[0], outs[0]);
    ++formed;
  }
  return formed;
}

int fuse_batchnorm_residual(Graph& g, const std::vector<ValueId>& keep,
                            std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  return fuse_add_operands(scope, "BatchNorm2DTrain", 3, [&](const Node& add, ValueId y, ValueId r, const Node& bn) {
    if (has_fused_activation(bn.attrs)) return false;
    // Same shape, dtype and device (no broadcasting); the CUDA kernel takes no residual yet.
    const TensorInfo& yi = g.value(y).info;
    if (!(g.value(r).info == yi) || !(g.value(add.outputs[0]).info == yi) || yi.device.type != DeviceType::CPU) {
      return false;
    }
    const std::vector<ValueId> outs =
        g.add_node(bn.op(), {bn.inputs[0], bn.inputs[1], bn.inputs[2], r}, fused_attrs(bn, "Add"), bn.meta);
    g.set_schedule_key(g.value(outs[0]).producer, add.key());  // r is ready where the Add ran
    scope.replace(add.outputs[0], outs[0]);
    scope.replace_other_outputs(bn, outs);
    return true;
  });
}

int fuse_batchnorm_update(Graph& g, const std::vector<ValueId>& keep,
                          std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  int formed = 0;
  // The AddScalarInPlace nodes of each layer: a layer's counter is fused only when the layer
  // recorded one (a layer called twice a step keeps its separate nodes).
  std::map<std::string, std::vector<NodeId>> increments;
  for (NodeId n = 0; n < scope.original; ++n) {
    const Node& a = g.node(n);
    if (a.op() == "AddScalarInPlace" && !a.meta.layer.empty()) increments[a.meta.layer].push_back(n);
  }
  for (NodeId n = 0; n < scope.original; ++n) {
    const Node up = g.node(n);
    if (up.op() != "BatchNormUpdateStats") continue;
    const ValueId rm = up.inputs[0], rv = up.inputs[1], mean = up.inputs[2], var = up.inputs[3];
    const NodeId p = scope.producer(mean);
    if (p == kNoNode || scope.producer(var) != p) continue;
    const Node bn = g.node(p);
    if (bn.op() != "BatchNorm2DTrain" || bn.inputs.size() != 3) continue;  // not the residual form
    if (g.value(mean).output_index != 1 || g.value(var).output_index != 2) continue;
    // The update moves to the BatchNorm's place: nothing else may read the running statistics
    // it overwrites (their other readers would have to run before it).
    if (rm == rv || scope.readers(rm).size() != 1 || scope.readers(rv).size() != 1) continue;
    const Shape& xs = g.value(bn.inputs[0]).info.shape;
    if (xs.size() < 2 || xs[1] == 0) continue;  // no channels: nothing to update
    int64_t m = xs[0];
    for (size_t i = 2; i < xs.size(); ++i) m *= xs[i];
    if (!up.attrs.has("count") || up.attrs.i("count") != m) continue;
    const auto inc_it = increments.find(bn.meta.layer);
    if (inc_it == increments.end() || inc_it->second.size() != 1) continue;
    const Node inc = g.node(inc_it->second[0]);
    const ValueId counter = inc.inputs[0];
    const TensorInfo& ci = g.value(counter).info;
    const double add = inc.attrs.f("value", 0.0);
    if (ci.dtype != DType::Int64 || ci.numel() != 1 || ci.device != g.value(bn.inputs[0]).info.device) continue;
    if (add != std::floor(add) || std::fabs(add) > 9.0e15 || scope.readers(counter).size() != 1) continue;
    Attrs attrs = fused_attrs(bn, "BatchNormUpdateStats+AddScalarInPlace");
    attrs.set("momentum", up.attrs.f("momentum", 0.1));
    attrs.set("count", m);
    attrs.set("counter_add", static_cast<int64_t>(add));
    const std::vector<ValueId> outs = g.add_node(
        "BatchNorm2DTrainUpdate", {bn.inputs[0], bn.inputs[1], bn.inputs[2], rm, rv, counter}, attrs, bn.meta);
    g.set_schedule_key(g.value(outs[0]).producer, bn.key());
    for (size_t k = 0; k < 3; ++k) scope.replace(bn.outputs[k], outs[k]);
    scope.replace(up.outputs[0], outs[3]);
    scope.replace(up.outputs[1], outs[4]);
    scope.replace(inc.outputs[0], outs[5]);
    g.supersede(up.id);  // in place, so otherwise kept alive by dead-code elimination
    g.supersede(inc.id);
    inc_it->second.clear();
    ++formed;
  }
  return formed;
}

int fuse_matmul_bias(Graph& g, const std::vector<ValueId>& keep, std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  return fuse_add_operands(scope, "MatMul", 2, [&](const Node& add, ValueId y, ValueId bias, const Node& mm) {
    const TensorInfo& yi = g.value(y).info;
    const TensorInfo& bi = g.value(bias).info;
    // bias[j] for every row: a vector of the product's column count (no broadcasting of y).
    if (bi.shape != Shape{yi.shape.back()} || bi.dtype != yi.dtype || bi.device != yi.device) return false;
    if (!(g.value(add.outputs[0]).info == yi)) return false;
    const std::vector<ValueId> outs =
        g.add_node("MatMul", {mm.inputs[0], mm.inputs[1], bias}, fused_attrs(mm, "Add"), mm.meta);
    g.set_schedule_key(g.value(outs[0]).producer, add.key());  // the bias is ready where the Add ran
    scope.replace(add.outputs[0], outs[0]);
    return true;
  });
}

int fuse_dropout_residual(Graph& g, const std::vector<ValueId>& keep,
                          std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  return fuse_add_operands(scope, "Dropout", 2, [&](const Node& add, ValueId y, ValueId r, const Node& drop) {
    const TensorInfo& yi = g.value(y).info;
    if (!(g.value(r).info == yi) || !(g.value(add.outputs[0]).info == yi)) return false;  // no broadcasting
    const std::vector<ValueId> outs =
        g.add_node("Dropout", {drop.inputs[0], drop.inputs[1], r}, fused_attrs(drop, "Add"), drop.meta);
    g.set_schedule_key(g.value(outs[0]).producer, add.key());  // r is ready where the Add ran
    scope.replace(add.outputs[0], outs[0]);
    return true;
  });
}

int concat_unmerged_pieces(Graph& g, const std::vector<ValueId>& keep,
                           std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  int formed = 0;
  for (NodeId n = 0; n < scope.original; ++n) {
    const Node cat = g.node(n);
    if (cat.op() != "Concat" || cat.inputs.size() < 2) continue;
    const Shape out = g.value(cat.outputs[0]).info.shape;
    const int64_t dim = cat.attrs.i("dim");
    if (dim != static_cast<int64_t>(out.size()) - 1) continue;
    const size_t d = static_cast<size_t>(dim);
    std::vector<ValueId> sources;
    Shape piece;
    for (ValueId v : cat.inputs) {
      const NodeId p = scope.producer(v);
      if (p == kNoNode || g.node(p).op() != "Reshape" || scope.is_kept(v) || scope.readers(v).size() != 1) break;
      const ValueId src = g.node(p).inputs[0];
      const Shape& s = g.value(src).info.shape;
      const Shape& r = g.value(v).info.shape;
      // r = s[:d] + [prod(s[d:])], two axes or more merged into the last; every piece one shape.
      if (s.size() < d + 2 || !std::equal(r.begin(), r.begin() + dim, s.begin())) break;
      if (!piece.empty() && s != piece) break;
      piece = s;
      sources.push_back(src);
    }
    if (sources.size() != cat.inputs.size()) continue;
    auto add = [&](const std::string& op, const std::vector<ValueId>& ins, const Attrs& a) {
      const ValueId v = g.add(op, ins, a, cat.meta);
      g.set_schedule_key(g.value(v).producer, cat.key());
      return v;
    };
    Shape unit = piece;  // piece with a size-1 axis at d: a view of any layout
    unit.insert(unit.begin() + dim, 1);
    std::vector<ValueId> pieces;
    for (ValueId src : sources) pieces.push_back(add("Reshape", {src}, Attrs{{"shape", unit}}));
    Attrs attrs = cat.attrs;
    attrs.set("fused", std::string("Reshape+Concat"));
    const ValueId joined = add("Concat", pieces, attrs);  // dense piece-major [..., pieces, piece[d:]...]
    scope.replace(cat.outputs[0], add("Reshape", {joined}, Attrs{{"shape", out}}));
    ++formed;
  }
  return formed;
}

int fold_conv_batchnorm(Graph& g, const std::vector<ValueId>& keep, std::vector<std::pair<ValueId, ValueId>>* remap) {
  PassScope scope(g, keep, remap);
  int formed = 0;
  for (NodeId n = 0; n < scope.original; ++n) {
    const Node bn = g.node(n);
    if (bn.op() != "BatchNorm2DInference") continue;
    const ValueId y = bn.inputs[0];
    const NodeId p = scope.producer(y);
    if (p == kNoNode || g.node(p).op() != "Conv2D") continue;
    if (scope.is_kept(y) || scope.readers(y).size() != 1) continue;
    const Node conv = g.node(p);
    if (has_fused_activation(conv.attrs)) continue;
    const TensorInfo wi = g.value(conv.inputs[1]).info;
    const int64_t k = wi.shape[0];
    NodeMeta meta = bn.meta;
    auto add = [&](const std::string& op, const std::vector<ValueId>& ins, const Attrs& a = {}) {
      const ValueId v = g.add(op, ins, a, meta);
      g.set_schedule_key(g.value(v).producer, conv.key());
      return v;
    };
    // s = gamma / sqrt(running_var + eps)
    const ValueId gamma = bn.inputs[1], beta = bn.inputs[2], rm = bn.inputs[3], rv = bn.inputs[4];
    const ValueId s = add("Div", {gamma, add("Sqrt", {add("AddScalar", {rv}, Attrs{{"value", bn.attrs.f("eps", 1e-5)}})})});
    const ValueId w = add("Mul", {conv.inputs[1], add("Reshape", {s}, Attrs{{"shape", Shape{k, 1, 1, 1}}})});
    const ValueId centered = conv.inputs.size() > 2 ? add("Sub", {conv.inputs[2], rm}) : add("Neg", {rm});
    const ValueId b = add("Add", {add("Mul", {centered, s}), beta});
    Attrs attrs = conv.attrs;
    if (bn.attrs.has("activation")) attrs.set("activation", bn.attrs.s("activation"));
    attrs.set("fused", std::string("Conv2D+BatchNorm2DInference"));
    const ValueId z = add("Conv2D", {conv.inputs[0], w, b}, attrs);
    scope.replace(bn.outputs[0], z);
    ++formed;
  }
  return formed;
}

int fuse_all(Graph& g, std::vector<ValueId>& keep) {
  int formed = 0;
  auto pass = [&](int (*fn)(Graph&, const std::vector<ValueId>&, std::vector<std::pair<ValueId, ValueId>>*)) {
    std::vector<std::pair<ValueId, ValueId>> remap;
    formed += fn(g, keep, &remap);
    for (auto& v : keep) {
      for (const auto& r : remap) if (v == r.first) v = r.second;
    }
  };
  pass(fold_conv_batchnorm);
  pass(fuse_batchnorm_residual);
  pass(fuse_activations);
  pass(fuse_pool_relu_backward);
  pass(fuse_batchnorm_update);
  pass(fuse_matmul_bias);
  pass(fuse_dropout_residual);
  pass(concat_unmerged_pieces);
  pass(fuse_elementwise);
  return formed;
}

}  // namespace glassgrad
