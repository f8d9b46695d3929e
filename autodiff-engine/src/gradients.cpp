#include "glassgrad/autodiff/gradients.h"

#include <algorithm>
#include <optional>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/gradient_buckets.h"

namespace glassgrad {

GradContext::GradContext(Graph& g, NodeId node, std::vector<ValueId> grad_outputs,
                         std::vector<bool> needs_grad)
    : g_(g),
      node_(g.node(node)),
      grad_outputs_(std::move(grad_outputs)),
      needs_grad_(std::move(needs_grad)),
      input_grads_(node_.inputs.size(), kNoValue) {}

std::vector<ValueId> GradContext::emit_multi(const std::string& op, const std::vector<ValueId>& inputs,
                                             const Attrs& attrs) {
  NodeMeta meta = node_.meta;
  meta.role = NodeRole::Backward;
  std::vector<ValueId> outs = g_.add_node(op, inputs, attrs, meta);
  if (!outs.empty()) g_.set_gradient_of(g_.value(outs[0]).producer, node_.id);
  return outs;
}

ValueId GradContext::emit(const std::string& op, const std::vector<ValueId>& inputs, const Attrs& attrs) {
  auto outs = emit_multi(op, inputs, attrs);
  if (outs.size() != 1) throw InternalError("GradContext::emit: " + op + " has several outputs");
  return outs[0];
}

ValueId GradContext::scalar(double value, ValueId like) {
  const TensorInfo t = info(like);
  return emit("Full", {}, Attrs{{"shape", std::vector<int64_t>{}},
                                {"value", value},
                                {"dtype", std::string(dtype_name(t.dtype))},
                                {"device", t.device.str()}});
}

ValueId GradContext::reduce_to(ValueId g, const Shape& shape) {
  const Shape gs = this->shape(g);
  if (gs == shape) return g;
  const size_t lead = gs.size() - shape.size();
  std::vector<int64_t> dims;
  for (size_t i = 0; i < gs.size(); ++i) {
    if (i < lead || (shape[i - lead] == 1 && gs[i] != 1)) dims.push_back(static_cast<int64_t>(i));
  }
  ValueId r = g;
  if (!dims.empty()) r = emit("Sum", {g}, Attrs{{"dims", dims}, {"keepdim", true}});
  if (this->shape(r) != shape) r = emit("Reshape", {r}, Attrs{{"shape", shape}});
  return r;
}

void GradContext::set_grad(int i, ValueId gv) {
  const TensorInfo want = info(input(i));
  const TensorInfo got = info(gv);
  if (want.shape != got.shape || want.dtype != got.dtype) {
    throw InternalError("gradient rule of " + node_.op() + " produced " + got.str() +
                        " for input " + std::to_string(i) + " of " + want.str() +
                        " (a glassgrad bug: please report it)");
  }
  input_grads_.at(static_cast<size_t>(i)) = gv;
}

namespace {

// A contribution that is SliceBackward(piece) -- piece placed into zeros at [start, stop) along dim,
// step 1 -- as (start, stop, piece); nullopt for any other.
struct Placed {
  int64_t start, stop;
  ValueId piece;
};
std::optional<Placed> placed(const Graph& g, ValueId v) {
  const NodeId n = g.value(v).producer;
  if (n == kNoNode) return std::nullopt;
  const Node& node = g.node(n);
  if (node.op() != "SliceBackward" || node.attrs.i("step", 1) != 1) return std::nullopt;
  return Placed{node.attrs.i("start"), node.attrs.i("stop"), node.inputs[0]};
}

// Contributions that place pieces into disjoint ranges of one axis (the gradient of a value split
// with split/chunk/unbind, e.g. q, k and v cut from one projection, or an LSTM's four gates)
// become one Concat of the pieces, with zeros for the gaps: each element is written once, where
// placing and adding cost a pass over the whole value per piece (docs/architecture.md, "From
// Python to kernels", step 2). The others are added.
void join_placed(Graph& g, std::vector<ValueId>& parts, const NodeMeta& meta) {
  if (parts.size() < 2) return;
  std::vector<Placed> pieces;
  std::vector<ValueId> rest;
  const Node* first = nullptr;
  for (ValueId v : parts) {
    const std::optional<Placed> p = placed(g, v);
    const Node* n = p ? &g.node(g.value(v).producer) : nullptr;
    if (p && (!first || (n->attrs.i("dim") == first->attrs.i("dim") &&
                         n->attrs.ints("shape") == first->attrs.ints("shape")))) {
      if (!first) first = n;
      pieces.push_back(*p);
    } else {
      rest.push_back(v);
    }
  }
  if (pieces.size() < 2) return;
  std::sort(pieces.begin(), pieces.end(), [](const Placed& a, const Placed& b) { return a.start < b.start; });
  for (size_t i = 1; i < pieces.size(); ++i) {
    if (pieces[i].start < pieces[i - 1].stop) return;  // overlapping ranges: they add
  }
  const int64_t dim = first->attrs.i("dim");
  const Shape full = first->attrs.ints("shape");
  const TensorInfo like = g.value(pieces[0].piece).info;
  std::vector<ValueId> joined;
  int64_t at = 0;
  auto zeros_until = [&](int64_t stop) {
    if (stop <= at) return;
    Shape gap = full;
    gap[static_cast<size_t>(dim)] = stop - at;
    joined.push_back(g.add("Full", {}, Attrs{{"shape", gap}, {"value", 0.0}, {"dtype", std::string(dtype_name(like.dtype))},
                                            {"device", like.device.str()}}, meta));
  };
  for (const Placed& p : pieces) {
    zeros_until(p.start);
    joined.push_back(p.piece);
    at = p.stop;
  }
  zeros_until(full[static_cast<size_t>(dim)]);
  ValueId out = joined[0];
  for (size_t k = 0; k < joined.size(); k += 256) {  // the Concat row takes 256 inputs
    std::vector<ValueId> group(joined.begin() + static_cast<std::ptrdiff_t>(k),
                               joined.begin() + static_cast<std::ptrdiff_t>(std::min(joined.size(), k + 256)));
    if (k > 0) group.insert(group.begin(), out);
    out = g.add("Concat", group, Attrs{{"dim", dim}}, meta);
  }
  rest.insert(rest.begin(), out);
  parts = rest;
}

// Sums the gradient contributions of one value: pieces placed side by side are joined
// (join_placed), the rest added with Add nodes.
ValueId accumulate(Graph& g, std::vector<ValueId>& parts, const NodeMeta& meta) {
  if (parts.empty()) return kNoValue;
  join_placed(g, parts, meta);
  ValueId acc = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) acc = g.add("Add", {acc, parts[i]}, {}, meta);
  parts.assign(1, acc);
  return acc;
}

void backward_node(Graph& g, NodeId n, const std::vector<char>& dep, std::vector<std::vector<ValueId>>& grads);
void pass_undefined(const Graph& g, NodeId n, const std::vector<char>& dep,
                    const std::vector<std::vector<ValueId>>& grads, std::vector<char>& undefined);

}  // namespace

std::vector<ValueId> build_backward(Graph& g, ValueId loss, const std::vector<ValueId>& wrt,
                                    ValueId seed, const GradientReduction* reduction, const GradientHooks* hooks) {
  if (loss < 0 || loss >= g.num_values()) throw InternalError("build_backward: bad loss value");
  const TensorInfo loss_info = g.value(loss).info;
  if (seed == kNoValue && loss_info.numel() != 1) {
    // The first words are PyTorch's, which scripts and tests match on.
    throw ValueError(ErrorMessage("grad can be implicitly created only for scalar outputs: backward() needs a "
                                  "scalar loss, got shape " +
                                  shape_str(loss_info.shape))
                         .cause("gradients are defined for one number; this tensor holds " +
                                std::to_string(loss_info.numel()))
                         .fix("reduce it first, e.g. loss.mean().backward(), or pass the "
                              "gradient: y.backward(gradient)")
                         .str());
  }
  if (!is_floating(loss_info.dtype)) {
    throw DTypeError(ErrorMessage(std::string("backward() needs a float loss, got ") +
                                  dtype_name(loss_info.dtype))
                         .fix("compute the loss in float32, e.g. cross_entropy(logits, labels)")
                         .str());
  }
  const int nv = g.num_values();
  // dep[v]: v is (or depends on) one of the values we differentiate for.
  std::vector<char> dep(static_cast<size_t>(nv), 0);
  for (ValueId w : wrt) dep.at(static_cast<size_t>(w)) = 1;
  const NodeId last = g.value(loss).producer;
  for (NodeId n = 0; n <= last && n != kNoNode; ++n) {
    const Node& node = g.node(n);
    if (node.schema->stops_gradient || !node.schema->inplace.empty()) continue;  // state updates
    bool any = false;
    for (ValueId in : node.inputs) any = any || dep[static_cast<size_t>(in)];
    if (!any) continue;
    for (ValueId o : node.outputs) {
      if (is_floating(g.value(o).info.dtype)) dep[static_cast<size_t>(o)] = 1;
    }
  }
  std::vector<std::vector<ValueId>> grads(static_cast<size_t>(nv));
  NodeMeta seed_meta;
  seed_meta.role = NodeRole::Backward;
  if (seed == kNoValue) {
    seed = g.add("Full", {},
                 Attrs{{"shape", loss_info.shape},
                       {"value", 1.0},
                       {"dtype", std::string(dtype_name(loss_info.dtype))},
                       {"device", loss_info.device.str()}},
                 seed_meta);
  } else if (!(g.value(seed).info == loss_info)) {
    throw ShapeError(ErrorMessage("backward(gradient): the gradient must match the tensor")
                         .detail("tensor:   " + loss_info.str())
                         .detail("gradient: " + g.value(seed).info.str())
                         .str());
  }
  grads[static_cast<size_t>(loss)].push_back(seed);

  // Gradient all-reduce (data parallelism): each bucket is emitted as soon as the walk has
  // completed its members' gradients (gradient_buckets.h), so it overlaps the rest of backward.
  std::vector<GradientBucket> buckets;
  if (reduction) buckets = plan_gradient_buckets(g, reduction->params, last, reduction->bucket_cap_bytes);
  std::vector<ValueId> in_flight(buckets.size(), kNoValue);  // each bucket's AllReduce output
  auto emit_ready_buckets = [&](NodeId after) {
    for (size_t k = 0; k < buckets.size(); ++k) {
      const GradientBucket& b = buckets[k];
      if (b.ready_after != after) continue;
      std::vector<ValueId> parts;
      for (int m : b.members) {
        const ValueId p = reduction->params[static_cast<size_t>(m)];
        NodeMeta meta;
        meta.role = NodeRole::Backward;
        parts.push_back(accumulate(g, grads[static_cast<size_t>(p)], meta));
      }
      in_flight[k] = emit_bucket_all_reduce(g, *reduction, b, static_cast<int>(k), parts).at(0);
    }
  };

  std::vector<char> hooked(static_cast<size_t>(nv), 0);
  // With hooks: the values reached by undefined gradients only (PyTorch's engine still runs the
  // nodes on their way and calls their hooks with None; docs/architecture.md, "Undefined
  // gradients"): hooks->apply(value, kNoValue) runs their hooks, whose result, when one returns a
  // gradient (an autograd.Function's backward given zeros), flows on.
  std::vector<char> undefined;
  if (hooks) {
    for (ValueId v : hooks->values) hooked.at(static_cast<size_t>(v)) = 1;
    undefined.assign(static_cast<size_t>(nv), 0);
  }
  for (NodeId n = last; n >= 0 && n != kNoNode; --n) {
    if (hooks) {  // the outputs' gradients are complete: nothing after node n adds to them
      const std::vector<ValueId> outs = g.node(n).outputs;
      for (ValueId o : outs) {
        std::vector<ValueId>& parts = grads[static_cast<size_t>(o)];
        if (!hooked[static_cast<size_t>(o)] || (parts.empty() && !undefined[static_cast<size_t>(o)])) continue;
        NodeMeta meta = g.node(n).meta;
        meta.role = NodeRole::Backward;
        const ValueId total = parts.empty() ? kNoValue : accumulate(g, parts, meta);
        const ValueId replaced = hooks->apply(o, total);
        if (replaced == kNoValue) {  // the hook made it undefined: it flows nowhere
          parts.clear();
          undefined[static_cast<size_t>(o)] = 1;
          continue;
        }
        const TensorInfo want = g.value(o).info;
        const TensorInfo got = g.value(replaced).info;
        if (want.shape != got.shape || want.dtype != got.dtype) {
          throw ShapeError(ErrorMessage("a gradient hook returned " + got.str() + " for a value of " + want.str())
                               .fix("return a gradient of the value's shape and dtype (or None to keep it)")
                               .str());
        }
        parts.assign(1, replaced);
      }
    }
    if (hooks) pass_undefined(g, n, dep, grads, undefined);
    backward_node(g, n, dep, grads);
    emit_ready_buckets(n);
  }
  if (hooks) {  // the leaves' hooks see an undefined gradient as None, as PyTorch's AccumulateGrad's
    for (ValueId w : wrt) {
      const size_t i = static_cast<size_t>(w);
      if (hooked[i] && grads[i].empty() && undefined[i] && g.value(w).producer == kNoNode) hooks->apply(w, kNoValue);
    }
  }
  emit_ready_buckets(kNoNode);
  for (size_t k = 0; k < buckets.size(); ++k) {
    const std::vector<ValueId> reduced = emit_bucket_wait(g, *reduction, buckets[k], static_cast<int>(k), in_flight[k]);
    for (size_t i = 0; i < buckets[k].members.size(); ++i) {
      grads[static_cast<size_t>(reduction->params[static_cast<size_t>(buckets[k].members[i])])].assign(1, reduced[i]);
    }
  }
  std::vector<ValueId> result;
  result.reserve(wrt.size());
  for (ValueId w : wrt) {
    NodeMeta meta;
    meta.role = NodeRole::Backward;
    result.push_back(accumulate(g, grads[static_cast<size_t>(w)], meta));
  }
  return result;
}

namespace {

// Marks the inputs of node n that need a gradient as reached by an undefined one (build_backward's
// `undefined`) where the node passes one on: its outputs are reached by undefined gradients only,
// or its derivative is undefined. Nodes autograd records no edge through (detach, state updates,
// ops without a derivative, a view made under no_grad: docs/inplace-and-views.md, "Views made
// under no_grad") pass none.
void pass_undefined(const Graph& g, NodeId n, const std::vector<char>& dep,
                    const std::vector<std::vector<ValueId>>& grads, std::vector<char>& undefined) {
  const Node& node = g.node(n);
  const bool no_grad_view = node.schema->view_of >= 0 && node.attrs.has("undefined_gradient");
  if (node.schema->stops_gradient || !node.schema->inplace.empty() || node.attrs.has("no_derivative") ||
      no_grad_view) {
    return;
  }
  bool defined = false, reached = false;
  for (ValueId o : node.outputs) {
    defined = defined || !grads[static_cast<size_t>(o)].empty();
    reached = reached || undefined[static_cast<size_t>(o)];
  }
  if (!(defined ? node.attrs.has("undefined_gradient") : reached)) return;
  for (ValueId in : node.inputs) {
    if (dep[static_cast<size_t>(in)]) undefined[static_cast<size_t>(in)] = 1;
  }
}

// Calls node n's gradient rule when gradient flows into it and out to an input that needs one.
void backward_node(Graph& g, NodeId n, const std::vector<char>& dep, std::vector<std::vector<ValueId>>& grads) {
  const Node& node = g.node(n);
  bool has_grad = false;
  for (ValueId o : node.outputs) has_grad = has_grad || !grads[static_cast<size_t>(o)].empty();
  if (!has_grad) return;
  std::vector<bool> needs(node.inputs.size());
  bool any_needed = false;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    needs[i] = dep[static_cast<size_t>(node.inputs[i])] != 0;
    any_needed = any_needed || needs[i];
  }
  if (!any_needed) return;
  // An undefined derivative (PyTorch's vector_norm at ord 0): the node passes no gradient on, so
  // an input reached only through it gets none (a leaf keeps .grad None), not zeros.
  if (node.attrs.has("undefined_gradient")) return;
  const OpSchema& s = *node.schema;
  // An op PyTorch defines no derivative for (floor division, heaviside) is recorded so that its
  // result requires grad as PyTorch's does; a gradient through it raises PyTorch's error.
  if (node.attrs.has("no_derivative")) {
    throw UnsupportedError(ErrorMessage("derivative for " + node.attrs.s("no_derivative") + " is not implemented")
                               .detail(node_where(s.name, node.meta.scope) + " recorded at " +
                                       (node.meta.source.empty() ? std::string("(unknown)") : node.meta.source))
                               .cause("the op is piecewise constant: PyTorch defines no gradient for it")
                               .fix("detach its operands where no gradient should flow (x.detach() // y); "
                                    "torch.div(x, y, rounding_mode='floor') is floor division with a zero gradient")
                               .str());
  }
  if (!s.gradient) {
    throw UnsupportedError(
        ErrorMessage(node_where(s.name, node.meta.scope) +
                     ": this op has no gradient rule, but a gradient must flow through it")
            .detail("recorded at " + (node.meta.source.empty() ? std::string("(unknown)") : node.meta.source))
            .fix("compute it outside the differentiated part (under glassgrad.no_grad()), or "
                 "detach its input with x.detach()")
            .str());
  }
  NodeMeta acc_meta = node.meta;
  acc_meta.role = NodeRole::Backward;
  std::vector<ValueId> gout;
  for (ValueId o : node.outputs) gout.push_back(accumulate(g, grads[static_cast<size_t>(o)], acc_meta));
  GradContext ctx(g, n, gout, needs);
  s.gradient(ctx);
  const Node& again = g.node(n);  // the graph may have grown
  for (size_t i = 0; i < again.inputs.size(); ++i) {
    const ValueId gi = ctx.input_grads()[i];
    if (gi != kNoValue && needs[i]) grads[static_cast<size_t>(again.inputs[i])].push_back(gi);
  }
}

}  // namespace

}  // namespace glassgrad
