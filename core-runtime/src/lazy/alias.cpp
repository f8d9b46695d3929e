// Functionalized in-place ops, views and aliases (lazy.h; docs/inplace-and-views.md has the
// design and its reasons).
//
// A handle either owns its value alone or belongs to an Alias: the storage it shares with the
// tensors it was viewed from or that were viewed from it (views, detach(), .data). The handle
// then holds its chain of views from the storage's value, and whenever the storage's generation
// moved (another handle wrote it) it re-derives its value by recording that chain again on the
// storage's latest version. A write makes the storage's new version:
//
//   write through the storage itself:   base' = value
//   write through a chain v_1 .. v_k:   base' = scatter_1(x_0, scatter_2(x_1, ... scatter_k(x_k-1, value)))
//     where x_0 = base, x_i = v_i(x_i-1), and scatter_i puts its second argument where v_i reads
//     from its first: Slice -> SliceScatter, Reshape and Permute -> their inverse, Detach -> itself,
//     Expand -> each element of x_i-1 takes what the write put in one of its copies in x_i, or keeps
//     its value where no copy was written (scatter_expand)
//
// As PyTorch's, a write whose target holds one memory element several times (a stride-0 axis of
// an Expand) is refused but by fill_ and zero_ (every copy then gets the one value): "more than one
// element of the written-to tensor refers to a single memory location". (masked_fill_, index_fill_,
// index_put_, which PyTorch still runs there with a warning, are written by the Python layer
// through the part of the target that holds each element once: glassgrad/_expanded_writes.py.)
// A write into a part of an expanded tensor that holds each element once (y[0, 1] = 2, y[0].add_(1))
// runs, and every copy of the element sees it.
//
// so the graph only ever holds functional ops. When the storage has a buffer (`physical`, a
// realized value), the next realize also writes base' into it: Assign(physical, base'), which the
// planner turns into the producer of base' writing that buffer directly when nothing else reads
// it any more (planner.cpp, write_values_into_targets); the storage keeps its buffer, and
// parameters and state keep the fixed addresses compiled steps and CUDA graphs bind.
//
// Version counters follow PyTorch's: every write but those through .data bumps the storage's
// count; each value made as a version (or view) of the storage records the count it was made
// at, and backward() refuses to read a value whose storage moved on (backward.cpp), except in the
// gradient of the in-place op that moved it (TraceNode::in_place_of), as PyTorch saves the old version
// for that op's own backward.
#include <algorithm>
#include <limits>

#include "glassgrad/autodiff/errors.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

namespace {

std::vector<std::weak_ptr<Alias>>& dirty_aliases() {
  static auto* d = new std::vector<std::weak_ptr<Alias>>();
  return *d;
}
// The storages whose latest version may not be computed yet (Alias::written, unread_writes).
std::vector<std::weak_ptr<Alias>>& written_aliases() {
  static auto* w = new std::vector<std::weak_ptr<Alias>>();
  return *w;
}

// The storages viewed while their base was not computed (Alias::viewed, viewed_bases).
std::vector<std::weak_ptr<Alias>>& viewed_aliases() {
  static auto* w = new std::vector<std::weak_ptr<Alias>>();
  return *w;
}

// Records schema s on one input with gradients on or off (the mode is restored after, an error included).
ValuePtr record_one(const OpSchema& s, const ValuePtr& in, const Attrs& attrs, const NodeMeta& meta, bool grad) {
  const bool was = grad_enabled();
  set_grad_enabled(grad);
  try {
    ValuePtr out = record_schema(s, {in}, attrs, meta).at(0);
    set_grad_enabled(was);
    return out;
  } catch (...) {
    set_grad_enabled(was);
    throw;
  }
}

ValuePtr record_one(const std::string& op, const ValuePtr& in, const Attrs& attrs, const NodeMeta& meta, bool grad) {
  return record_one(OpRegistry::instance().at(op), in, attrs, meta, grad);
}

// Names node n (a single output `out`, recorded by the write naming it) as PyTorch's backward node
// `torch_node` (Tensor.grad_fn): an attribute no kernel reads, folded into the node's hash as any.
void name_node(TraceNode& n, const std::string& torch_node, const TensorInfo& out) {
  auto attrs = std::make_shared<Attrs>(*n.attrs);
  attrs->set("torch_node", torch_node);
  n.attrs = std::move(attrs);
  n.hash = node_hash(*n.schema, *n.attrs, {out});
}

// The value h's chain of views makes from storage value x (each view recorded as it was made).
// A view step made under no_grad of a value that requires grad (PyTorch's CreationMeta
// NO_GRAD_MODE): the view still requires grad, as PyTorch's does, so what is computed from it
// with grad mode on requires grad and has a grad_fn; its node carries `undefined_gradient`, so
// backward through it reaches neither the view nor its base (PyTorch's view has no grad_fn and
// no gradient accumulator). docs/inplace-and-views.md, "Views made under no_grad".
bool graded_no_grad_view(const OpSchema& s, bool grad, const ValuePtr& in) {
  return !grad && in->requires_grad && !s.stops_gradient;
}

ValuePtr record_graded_no_grad_view(const OpSchema& s, const ValuePtr& in, const Attrs& attrs, const NodeMeta& meta) {
  Attrs marked = attrs;
  marked.set("undefined_gradient", true);
  return record_one(s, in, marked, meta, true);
}

ValuePtr derive(const std::vector<ViewStep>& chain, ValuePtr x, size_t from = 0) {
  for (size_t i = from; i < chain.size(); ++i) {
    const ViewStep& st = chain[i];
    x = graded_no_grad_view(*st.schema, st.grad, x) ? record_graded_no_grad_view(*st.schema, x, st.attrs, st.meta)
                                                     : record_one(*st.schema, x, st.attrs, st.meta, st.grad);
  }
  return x;
}

// The chain starts with detach() or .data: a detached alias of the whole storage.
bool first_step_detaches(const std::vector<ViewStep>& chain) {
  return !chain.empty() && chain.front().schema->name == "Detach";
}

// The storage's gradient-carrying version a write through a detached alias made, while no
// other write came after it; else null.
ValuePtr graded_version(const Alias& a) {
  return a.graded && a.graded_generation == a.generation ? a.graded : nullptr;
}

// scatter_i of the file comment: `value` put where view `st` of x reads from x.
ValuePtr scatter_back(const ViewStep& st, const ValuePtr& x, const ValuePtr& value, const NodeMeta& meta) {
  const std::string& op = st.schema->name;
  if (op == "Detach") return value;
  if (op == "Reshape") return record("Reshape", {value}, Attrs{{"shape", x->info.shape}}, meta).at(0);
  if (op == "Permute") {
    const std::vector<int64_t>& dims = st.attrs.ints("dims");
    std::vector<int64_t> inv(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) inv[static_cast<size_t>(dims[i])] = static_cast<int64_t>(i);
    return record("Permute", {value}, Attrs{{"dims", inv}}, meta).at(0);
  }
  if (op == "Slice") {
    const Attrs& a = st.attrs;
    return record("SliceScatter", {x, value},
                  Attrs{{"dim", a.i("dim")}, {"start", a.i("start")}, {"stop", a.i("stop")}, {"step", a.i("step", 1)}},
                  meta)
        .at(0);
  }
  throw InternalError("in-place write through a " + op + " view");
}

// The axes Expand step `st` stretched or added (from x's shape to the step's), ascending.
std::vector<int64_t> expanded_axes(const Shape& from, const Shape& to) {
  std::vector<int64_t> dims;
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < to.size(); ++d) {
    if (d < lead || (from[d - lead] == 1 && to[d] != 1)) dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

ValuePtr constant(const Shape& shape, double value, DType dtype, const Device& device, const NodeMeta& meta) {
  return record("Full", {},
                Attrs{{"shape", shape}, {"value", value}, {"dtype", std::string(dtype_name(dtype))},
                      {"device", device.str()}},
                meta)
      .at(0);
}

// v reduced by Max over the axes an Expand from shape `to` added or stretched, in that shape.
ValuePtr max_over_copies(const ValuePtr& v, const Shape& to, const std::vector<int64_t>& dims, const NodeMeta& meta) {
  ValuePtr r = record("Max", {v}, Attrs{{"dims", dims}, {"keepdim", true}}, meta).at(0);
  return r->info.shape == to ? r : record("Reshape", {r}, Attrs{{"shape", to}}, meta).at(0);
}

// The elements of the output of chain step k that a write of the chain's last view reaches: a
// float32 mask (> 0: written), the ones of the written view scattered back through the later steps.
ValuePtr written_mask(const std::vector<ViewStep>& chain, const std::vector<ValuePtr>& xs, size_t k,
                      const TensorInfo& written, const NodeMeta& meta) {
  ValuePtr m = constant(written.shape, 1.0, DType::Float32, written.device, meta);
  for (size_t j = chain.size(); j-- > k + 1;) {
    const ViewStep& st = chain[j];
    if (st.schema->name == "Expand") {
      m = max_over_copies(m, xs[j]->info.shape, expanded_axes(xs[j]->info.shape, st.out_shape), meta);
    } else {
      m = scatter_back(st, constant(xs[j]->info.shape, 0.0, DType::Float32, xs[j]->info.device, meta), m, meta);
    }
  }
  return m;
}

// scatter_k of an Expand (the file comment): x' takes, for each element, the value written into
// its copies in `value` where `mask` says one was written (all copies written hold one value:
// write() refuses the rest), else keeps x's.
ValuePtr scatter_expand(const ValuePtr& x, const ValuePtr& value, const ValuePtr& mask, const NodeMeta& meta) {
  const Shape& to = x->info.shape;
  const std::vector<int64_t> dims = expanded_axes(to, value->info.shape);
  if (dims.empty()) return value->info.shape == to ? value : record("Reshape", {value}, Attrs{{"shape", to}}, meta).at(0);
  const DType dt = value->info.dtype;
  // Max reduces floats and int64: other dtypes are carried exactly in float64.
  const DType work = dt == DType::Float32 || dt == DType::Float64 || dt == DType::Int64 ? dt : DType::Float64;
  const Device& dev = value->info.device;
  ValuePtr v = work == dt ? value : record("Cast", {value}, Attrs{{"dtype", std::string(dtype_name(work))}}, meta).at(0);
  const Shape& shape = value->info.shape;
  const ValuePtr zeros = constant(shape, 0.0, DType::Float32, dev, meta);
  const ValuePtr written = record("Greater", {mask, zeros}, {}, meta).at(0);
  const double lowest = work == DType::Int64 ? -9223372036854775808.0 : -std::numeric_limits<double>::infinity();
  v = record("Where", {written, v, constant(shape, lowest, work, dev, meta)}, {}, meta).at(0);
  ValuePtr picked = max_over_copies(v, to, dims, meta);
  if (work != dt) picked = record("Cast", {picked}, Attrs{{"dtype", std::string(dtype_name(dt))}}, meta).at(0);
  const ValuePtr any = max_over_copies(mask, to, dims, meta);
  const ValuePtr reached = record("Greater", {any, constant(to, 0.0, DType::Float32, dev, meta)}, {}, meta).at(0);
  return record("Where", {reached, picked, x}, {}, meta).at(0);
}

// The new version `value` of a computed storage written under no_grad, whose old version `old`
// requires gradients: value's elements, and the gradient reaching it passed to `old` unchanged,
// element for element, as PyTorch's autograd, which did not record the write, passes it (y = x * 2;
// with no_grad: y[0] = 5 or y[1:].mul_(3); d(y)/d(x) is still 2 everywhere). value - z, where
// z = where(isfinite(old), detach(old) - old, 0) is exactly 0 (a -0.0, NaN or inf of value kept)
// and sends `old` the identity where it is finite. Its last Sub carries the attribute
// unrecorded_write, by which Tensor.grad_fn names the node of `old` (its third input down).
ValuePtr passed_through(const ValuePtr& old, const ValuePtr& value, const NodeMeta& meta) {
  const bool was = grad_enabled();
  set_grad_enabled(true);
  try {
    const ValuePtr d = record("Detach", {old}, {}, meta).at(0);
    const ValuePtr d0 = record("Sub", {d, d}, {}, meta).at(0);  // 0 where finite, else NaN
    const ValuePtr zero = constant({}, 0.0, old->info.dtype, old->info.device, meta);
    const ValuePtr finite = record("Equal", {d0, zero}, {}, meta).at(0);
    const ValuePtr z = record("Where", {finite, record("Sub", {d, old}, {}, meta).at(0), zero}, {}, meta).at(0);
    const ValuePtr out =
        record("Sub", {record("Detach", {value}, {}, meta).at(0), z}, Attrs{{"unrecorded_write", int64_t{1}}}, meta)
            .at(0);
    set_grad_enabled(was);
    return out;
  } catch (...) {
    set_grad_enabled(was);
    throw;
  }
}

// Marks the nodes recorded since first_seq that computed `value` as in-place op `counter`'s own,
// the op making the storage's version `version`.
void mark_in_place(const ValuePtr& value, uint64_t first_seq, const VersionCounter* counter, uint64_t version) {
  std::vector<TraceValue*> stack{value.get()};
  while (!stack.empty()) {
    TraceValue* v = stack.back();
    stack.pop_back();
    if (v->seq <= first_seq || !v->producer || v->producer->in_place_of == counter) continue;
    v->producer->in_place_of = counter;
    v->producer->in_place_version = version;
    for (const auto& in : v->producer->inputs) stack.push_back(in.get());
  }
}

std::string tensor_type(const TensorInfo& t) {
  switch (t.dtype) {
    case DType::Float32: return "FloatTensor";
    case DType::Float64: return "DoubleTensor";
    case DType::Int64: return "LongTensor";
    case DType::UInt8: return "ByteTensor";
    case DType::Bool: return "BoolTensor";
    case DType::Int8: return "CharTensor";
    case DType::Int16: return "ShortTensor";
    case DType::Int32: return "IntTensor";
    case DType::Float16: return "HalfTensor";
    case DType::BFloat16: return "BFloat16Tensor";
  }
  return "Tensor";
}

}  // namespace

void tag(const ValuePtr& v, const std::shared_ptr<VersionCounter>& counter) {
  if (v->counter) return;
  v->counter = counter;
  v->version = counter->version;
}

Alias& alias_of(Handle& h) {
  std::shared_ptr<Alias>& a = AliasAccess::alias(h);
  if (!a) {
    auto made = std::make_shared<Alias>();
    made->base = h.value();
    tag(made->base, made->counter);
    AliasAccess::seen(h) = made->generation;
    a = std::move(made);
  }
  return *a;
}

uint64_t Handle::alias_generation() const { return alias_->generation; }

void Handle::sync() const {
  Handle& self = const_cast<Handle&>(*this);
  const ValuePtr graded = first_step_detaches(chain_) ? graded_version(*alias_) : nullptr;
  ValuePtr x = graded ? derive(chain_, graded, 1) : chain_.empty() ? alias_->base : derive(chain_, alias_->base);
  if (!chain_.empty() && v_ && v_->is_leaf() && v_->requires_grad) {
    // A view made a leaf (requires_grad set on a view of a tensor that needs no gradient:
    // randn(54).view(9, 6)) stays that leaf, with its gradient, across writes of its storage
    // (docs/inplace-and-views.md, "Leaves that are views").
    if (x->requires_grad) x = record_one("Detach", x, {}, v_->producer ? *v_->producer->meta : NodeMeta{}, false);
    x->leaf = true;
    x->requires_grad = true;
    x->name = v_->name;
    x->kind = v_->kind;
    move_grad(v_, x);
  }
  // Not a view of the storage's buffer when it carries the write's gradient: computed as itself.
  if (!graded) tag(x, alias_->counter);
  AliasAccess::point(self, x);
}

std::vector<std::unique_ptr<Handle>> record_handles(const std::string& op, const std::vector<Handle*>& inputs,
                                                    const Attrs& attrs, const NodeMeta& meta) {
  return record_handles(op, inputs, attrs, share_meta(meta));
}

namespace {
// record_handles with the attributes as given, or shared and hashed (shared_attrs, which then
// holds `attrs`).
std::vector<std::unique_ptr<Handle>> record_handles_with(const OpSchema& s, const std::vector<Handle*>& inputs,
                                                         const Attrs& attrs, const SharedAttrs* shared_attrs,
                                                         const SharedMeta& shared) {
  const NodeMeta& meta = *shared.meta;
  std::vector<ValuePtr> values;
  values.reserve(inputs.size());
  for (Handle* h : inputs) values.push_back(h->value());
  auto record_plain = [&] {
    return shared_attrs ? record_schema(s, values, *shared_attrs, shared) : record_schema(s, values, attrs, shared);
  };
  // A view made under no_grad of a tensor that requires grad is recorded once, as its marked
  // node (graded_no_grad_view), not first plainly and then again marked.
  const bool graded = s.view_of >= 0 && !inputs[static_cast<size_t>(s.view_of)]->detached() &&
                      graded_no_grad_view(s, grad_enabled(), values[static_cast<size_t>(s.view_of)]);
  std::vector<ValuePtr> made =
      graded ? std::vector<ValuePtr>{record_graded_no_grad_view(s, values[static_cast<size_t>(s.view_of)], attrs, meta)}
             : record_plain();
  std::vector<std::unique_ptr<Handle>> out;
  out.reserve(made.size());
  for (auto& v : made) out.push_back(std::make_unique<Handle>(std::move(v)));
  if (s.view_of < 0) return out;
  Handle& base = *inputs[static_cast<size_t>(s.view_of)];
  Layout l;
  const ValuePtr& view = out[0]->value();
  if (!s.view(attrs, layout_of(base), view->info.shape, l)) {  // a copy (Reshape of a strided view)
    if (graded) {  // recorded as a view: a copy made under no_grad is a plain value that needs no gradient
      out.clear();
      for (auto& v : record_plain()) out.push_back(std::make_unique<Handle>(std::move(v)));
    }
    return out;
  }
  Alias& a = alias_of(base);
  Handle& h = *out[0];
  AliasAccess::alias(h) = AliasAccess::alias(base);
  std::vector<ViewStep>& chain = AliasAccess::chain(h);
  chain = base.chain();
  ViewStep st;
  st.schema = &s;
  st.attrs = attrs;
  st.meta = meta;
  st.out_shape = view->info.shape;
  st.grad = grad_enabled();
  chain.push_back(std::move(st));
  AliasAccess::detached(h) = base.detached() || s.stops_gradient;
  AliasAccess::untracked(h) = base.untracked();
  AliasAccess::seen(h) = a.generation;
  tag(view, a.counter);
  note_view(AliasAccess::alias(h), chain);
  return out;
}
}  // namespace

std::vector<std::unique_ptr<Handle>> record_handles(const std::string& op, const std::vector<Handle*>& inputs,
                                                    const Attrs& attrs, const SharedMeta& meta) {
  return record_handles_with(OpRegistry::instance().at(op), inputs, attrs, nullptr, meta);
}

std::vector<std::unique_ptr<Handle>> record_handles(const std::string& op, const std::vector<Handle*>& inputs,
                                                    const SharedAttrs& attrs, const SharedMeta& meta) {
  return record_handles(OpRegistry::instance().at(op), inputs, attrs, meta);
}

std::vector<std::unique_ptr<Handle>> record_handles(const OpSchema& op, const std::vector<Handle*>& inputs,
                                                    const SharedAttrs& attrs, const SharedMeta& meta) {
  return record_handles_with(op, inputs, *attrs.attrs, &attrs, meta);
}

Layout layout_of(const Handle& h) {
  if (!h.alias()) return Layout::contiguous(h.value()->info.shape);
  Layout l = Layout::contiguous(h.alias()->base->info.shape);
  for (const ViewStep& st : h.chain()) {
    Layout next;
    if (!st.schema->view(st.attrs, l, st.out_shape, next)) return Layout::contiguous(h.value()->info.shape);
    l = next;
  }
  return l;
}

uint64_t version_of(const Handle& h) { return h.alias() ? h.alias()->counter->version : 0; }

bool storage_requires_grad(const Handle& h) {
  return h.alias() ? h.alias()->base->requires_grad : h.value()->requires_grad;
}

void write(Handle& h, const ValuePtr& value, const std::string& op, uint64_t first_seq, const NodeMeta& meta,
           const std::string& torch_node) {
  const std::string where = op + (meta.source.empty() ? "" : " (" + meta.source + ")");
  // Before this function copies any value: write_on_host counts who else holds the storage's.
  if (write_on_host(h, alias_of(h), value, where)) return;
  const ValuePtr cur = h.value();
  if (value->info.shape != cur->info.shape || value->info.dtype != cur->info.dtype ||
      value->info.device != cur->info.device) {
    throw InternalError(op + ": the in-place result " + value->info.str() + " does not fit the tensor " +
                        cur->info.str());
  }
  Alias& a = alias_of(h);
  const ValuePtr old_base = a.base;
  // A view made a leaf (see Handle::sync) refuses in-place writes as a leaf does.
  const bool leaf_view = !h.chain().empty() && cur->is_leaf() && cur->requires_grad;
  if (grad_enabled() && !h.detached() && ((old_base->is_leaf() && old_base->requires_grad) || leaf_view)) {
    const bool view = !h.chain().empty();
    throw StateError(ErrorMessage(std::string(view ? "a view of a leaf Variable" : "a leaf Variable") +
                                  " that requires grad is being used in an in-place operation.")
                         .detail(where + " writes " + (view ? "a view of " : "") +
                                 (old_base->name.empty() ? std::string("a tensor") : "'" + old_base->name.str() + "'") +
                                 " " + old_base->info.str() + ", which requires gradients")
                         .cause("an in-place change of a parameter would change the value its gradient is taken at")
                         .fix("update parameters under glassgrad.no_grad() (as optimizers do), or compute a new "
                              "tensor: y = x + 1 instead of x.add_(1)")
                         .str());
  }
  const Layout l = layout_of(h);
  for (size_t d = 0; d < l.shape.size(); ++d) {
    // fill_ (and zero_) may: every copy of an element gets the one value (PyTorch's fill_ skips
    // the check; its copy_, x[...] = 2 included, does not).
    if (l.shape[d] > 1 && l.strides[d] == 0 && op != "fill_") {
      throw StateError(ErrorMessage("unsupported operation: more than one element of the written-to tensor refers to "
                                    "a single memory location. Please clone() the tensor before performing the "
                                    "operation.")
                           .detail(where + " writes an expanded view " + shape_str(l.shape) + " (strides " +
                                   shape_str(l.strides) + " over " + shape_str(old_base->info.shape) + ")")
                           .fix("x = x.clone() first, then write x")
                           .str());
    }
  }
  // The new version: a value of this write's own (never a tensor somebody else holds).
  ValuePtr nb = value;
  const bool named = !torch_node.empty() && h.chain().empty() && value->requires_grad && grad_enabled();
  if (value->seq <= first_seq || value->realized() || !value->producer) {
    Attrs copy;
    if (named) copy.set("torch_node", torch_node);
    nb = record("Contiguous", {value}, copy, meta).at(0);
  } else if (named && nb->producer->outputs.size() == 1) {
    name_node(*nb->producer, torch_node, nb->info);  // the op's own node (fill_'s Expand)
  }
  const bool via_detach = first_step_detaches(h.chain());
  const ValuePtr graded_base = via_detach ? graded_version(a) : nullptr;
  if (!h.chain().empty()) {
    std::vector<ValuePtr> xs{graded_base ? graded_base : old_base};
    for (size_t i = 0; i + 1 < h.chain().size(); ++i) {
      const ViewStep& st = h.chain()[i];
      // Through a detached alias that carries a gradient, its Detach step is the identity.
      xs.push_back(i == 0 && graded_base ? graded_base
                                         : record_one(*st.schema, xs.back(), st.attrs, st.meta, st.grad));
    }
    for (size_t k = h.chain().size(); k-- > 0;) {
      const ViewStep& st = h.chain()[k];
      nb = st.schema->name == "Expand" ? scatter_expand(xs[k], nb, written_mask(h.chain(), xs, k, cur->info, meta), meta)
                                       : scatter_back(st, xs[k], nb, meta);
    }
  }
  // Written under no_grad, or through detach() or .data with a value that needs no gradient, a
  // computed tensor that requires gradients still requires them, as in PyTorch (y = x * 2; with
  // no_grad: y.add_(1), or y.detach().zero_(): y.requires_grad is True), and backward reaches x
  // through every element of the new version, written ones included, through whatever view the
  // write went (a view made under no_grad too: with no_grad: y[0] = 5): passed_through.
  const bool unrecorded = old_base->requires_grad && !old_base->is_leaf() && is_floating(nb->info.dtype) &&
                          (!grad_enabled() || (h.detached() && !nb->requires_grad));
  if (unrecorded) nb = passed_through(old_base, nb, meta);
  mark_in_place(nb, first_seq, a.counter.get(), a.counter->version + (h.untracked() ? 0 : 1));
  // A detached alias (x.detach(), x.data, Variable(x), and views of them) written with a value
  // that needs gradients joins the graph itself, as PyTorch's: it and its views see the storage's
  // gradient-carrying version (Alias::graded), the storage's other tensors the new elements
  // without the gradient (docs/inplace-and-views.md, "Writing into a detached alias").
  ValuePtr graded;
  if (via_detach && nb->requires_grad && !old_base->requires_grad) {
    graded = nb;
    nb = record_one("Detach", nb, {}, meta, false);
  }
  // A leaf stays a leaf: a new version of a parameter written under no_grad (or through
  // detach()) keeps its name, kind, requires_grad and gradient.
  if (old_base->is_leaf() && (old_base->requires_grad || !nb->requires_grad)) {
    if (nb->requires_grad) nb = record_one("Detach", nb, {}, meta, false);
    nb->leaf = true;
    nb->requires_grad = old_base->requires_grad;
    nb->name = old_base->name;
    nb->kind = old_base->kind;
    move_grad(old_base, nb);
  }
  // The buffer: a write that autograd tracks makes a new one (the old version stays for backward);
  // any other writes the storage's buffer at the next realize.
  if (nb->requires_grad && !nb->leaf) {
    a.physical.reset();
    a.dirty = false;
  } else {
    // A storage seen only through detach()/.data views (x.clone().detach()) was computed as that
    // view: the view's buffer is the storage's, element for element.
    const bool detach_only = std::all_of(h.chain().begin(), h.chain().end(),
                                         [](const ViewStep& st) { return st.schema->name == "Detach"; });
    const ValuePtr& stored =
        !old_base->realized() && detach_only && cur->realized() && !cur->requires_grad ? cur : old_base;
    if (stored->realized() && stored->invalid.empty() && stored->data.is_contiguous()) {
      a.physical = stored;
      // A computed tensor that becomes a stored one: nothing differentiates through it (it needs no
      // gradient), and its buffer now holds the storage's versions.
      if (stored->producer && !stored->requires_grad) {
        stored->producer.reset();
        stored->kind = ValueKind::State;
      }
    }
    if (a.physical && !a.dirty) {
      a.dirty = true;
      dirty_aliases().push_back(AliasAccess::alias(h));
    }
  }
  a.base = nb;
  ++a.generation;
  a.graded = std::move(graded);
  a.graded_generation = a.generation;
  if (!h.untracked()) ++a.counter->version;
  a.counter->writer = where;
  // The op errors name as the one that made the latest version: PyTorch's last recorded one.
  if (!unrecorded) {
    a.counter->latest = nb->requires_grad && !nb->leaf && nb->producer ? nb->producer->schema->name : "";
  } else if (a.counter->latest.empty() && old_base->producer) {
    a.counter->latest = old_base->producer->schema->name;
  }
  tag(nb, a.counter);
  if (h.chain().empty()) AliasAccess::point(h, nb);
  if (!a.written && !nb->realized()) {
    a.written = true;
    written_aliases().push_back(AliasAccess::alias(h));
  }
  if (ValuePtr owner = a.grad_owner.lock()) {  // a write through p.grad: the leaf's gradient
    pin(nb);
    if (owner->grad) unpin(owner->grad);
    owner->grad = nb;
  }
}

void count_identity_write(Handle& h, const std::string& op) {
  Alias& a = alias_of(h);
  if (!h.untracked()) ++a.counter->version;
  a.counter->writer = op;
}

std::unique_ptr<Handle> data_alias(const Handle& h) {
  Handle& src = const_cast<Handle&>(h);
  Alias& a = alias_of(src);
  NodeMeta meta;
  const ValuePtr v = record_one("Detach", src.value(), {}, meta, false);
  auto out = std::make_unique<Handle>(v);
  AliasAccess::alias(*out) = AliasAccess::alias(src);
  std::vector<ViewStep>& chain = AliasAccess::chain(*out);
  chain = src.chain();
  ViewStep st;
  st.schema = &OpRegistry::instance().at("Detach");
  st.out_shape = v->info.shape;
  st.grad = false;
  chain.push_back(std::move(st));
  AliasAccess::detached(*out) = true;
  AliasAccess::untracked(*out) = true;
  AliasAccess::seen(*out) = a.generation;
  tag(v, a.counter);
  return out;
}

void detach_inplace(Handle& h) {
  // A chain that ends with detach() (x.detach(), x.data, x[1:].detach()) is no view to PyTorch
  // (_is_view() is False) and its detach_() runs; one that ends with a view step refuses.
  const std::vector<ViewStep>& chain = h.chain();
  const bool detached_alias = !chain.empty() && chain.back().schema->name == "Detach";
  if (!chain.empty() && !detached_alias) {
    throw StateError(ErrorMessage("Can't detach views in-place. Use detach() instead.")
                         .detail("this tensor " + h.value()->info.str() + " is a view of another tensor's storage")
                         .fix("y = x.detach()")
                         .str());
  }
  const ValuePtr v = h.value();
  if (v->is_leaf() && !v->requires_grad) return;
  if (detached_alias) {
    // Its value is its own (recorded for this handle): a leaf made by requires_grad_() stops
    // requiring gradients. One that a write with gradients made (Alias::graded,
    // docs/inplace-and-views.md, "Writing into a detached alias") becomes its chain's derivation
    // from the storage's version, which needs none (its last step detaches), as sync() derives
    // it; the storage keeps no gradient-carrying version for later writes through it to build
    // on. The storage's other tensors are not touched.
    if (v->is_leaf()) {
      v->requires_grad = false;
      return;
    }
    Alias& a = *h.alias();
    if (first_step_detaches(chain)) a.graded.reset();
    const ValuePtr d = derive(chain, a.base);
    tag(d, a.counter);
    AliasAccess::point(h, d);
    return;
  }
  ValuePtr d = record_one("Detach", v, {}, NodeMeta{}, false);
  d->leaf = static_cast<bool>(d->producer);
  d->requires_grad = false;
  if (h.alias()) {
    Alias& a = *h.alias();
    a.base = d;
    ++a.generation;
    tag(d, a.counter);
    if (a.physical == v) a.physical = d->realized() ? d : nullptr;
  }
  AliasAccess::point(h, d);
}

std::unique_ptr<Handle> grad_handle(const ValuePtr& leaf) {
  if (!leaf->grad) return nullptr;
  if (!leaf->grad_alias || leaf->grad_alias->base != leaf->grad) {
    auto a = std::make_shared<Alias>();
    a->base = leaf->grad;
    a->grad_owner = leaf;
    tag(a->base, a->counter);
    leaf->grad_alias = a;
  }
  auto h = std::make_unique<Handle>(leaf->grad);
  AliasAccess::alias(*h) = leaf->grad_alias;
  AliasAccess::seen(*h) = leaf->grad_alias->generation;
  return h;
}

void set_grad_from(const ValuePtr& leaf, Handle* g) {
  if (!g || !g->chain().empty()) {
    set_grad(leaf, g ? g->value() : nullptr);
    return;
  }
  set_grad(leaf, nullptr);  // drops the old gradient's storage link
  Alias& a = alias_of(*g);
  set_grad(leaf, g->value());
  a.grad_owner = leaf;
  leaf->grad_alias = AliasAccess::alias(*g);
}

std::vector<Flush> flush_writes() {
  std::vector<Flush> out;
  std::vector<std::weak_ptr<Alias>> dirty;
  dirty.swap(dirty_aliases());
  for (const auto& w : dirty) {
    std::shared_ptr<Alias> a = w.lock();
    if (!a || !a->dirty) continue;
    a->dirty = false;
    if (!a->physical || a->base == a->physical || a->base->realized() || !a->physical->invalid.empty()) continue;
    NodeMeta meta;
    meta.scope = a->counter->writer;
    const bool was = grad_enabled();
    set_grad_enabled(false);
    ValuePtr assigned;
    try {
      assigned = record("Assign", {a->physical, a->base}, {}, meta).at(0);
    } catch (...) {
      set_grad_enabled(was);
      throw;
    }
    set_grad_enabled(was);
    out.push_back(Flush{a, a->base, assigned});
  }
  return out;
}

namespace {
// Whether v is a version not computed yet that can still be (not overwritten since).
bool uncomputed(const ValuePtr& v) { return v && !v->realized() && v->invalid.empty(); }
// Whether a realize takes uncomputed v as a root of its own: a pinned version is pending already;
// one whose plan is running is not pending for anyone else.
bool unclaimed(const ValuePtr& v) { return v->pins == 0 && !(v->producer && v->producer->in_flight); }

// Keeps, in order, the storages of `list` that are alive and for which keep(storage) holds.
template <typename Keep>
void retain_storages(std::vector<std::weak_ptr<Alias>>& list, Keep keep) {
  size_t kept = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    std::shared_ptr<Alias> a = list[i].lock();
    if (!a || !keep(*a)) continue;
    if (kept != i) list[kept] = std::move(list[i]);
    ++kept;
  }
  list.resize(kept);
}
}  // namespace

std::vector<ValuePtr> unread_writes() {
  std::vector<ValuePtr> out;
  retain_storages(written_aliases(), [&out](Alias& a) {
    bool open = false;
    for (const ValuePtr& v : {a.base, graded_version(a)}) {
      if (!uncomputed(v)) continue;
      open = true;
      if (unclaimed(v)) out.push_back(v);
    }
    a.written = open;
    return open;
  });
  return out;
}

void note_view(const std::shared_ptr<Alias>& a, const std::vector<ViewStep>& chain) {
  if (a->viewed || a->base->realized()) return;
  // A chain of detach()es reads every element of the base as it is: a write through it computes
  // the storage from the view's own value (write(): detach_only), so the base is never needed.
  if (std::all_of(chain.begin(), chain.end(), [](const ViewStep& st) { return st.schema->name == "Detach"; })) return;
  a->viewed = true;
  viewed_aliases().push_back(a);
}

std::vector<ValuePtr> viewed_bases() {
  std::vector<ValuePtr> out;
  retain_storages(viewed_aliases(), [&out](Alias& a) {
    a.viewed = uncomputed(a.base);
    if (a.viewed && unclaimed(a.base) && !a.base->stale()) out.push_back(a.base);
    return a.viewed;
  });
  return out;
}

void settle_flushes(const std::vector<Flush>& flushes, bool ran) {
  for (const Flush& f : flushes) {
    const ValuePtr old = f.alias->physical;
    if (!ran) {  // the plan failed: write again at the next realize
      f.alias->dirty = true;
      dirty_aliases().push_back(f.alias);
      continue;
    }
    f.base->data = f.out->data;
    f.base->producer.reset();
    f.base->leaf = false;
    // settle_inplace made the Assign's output the newer version of the buffer's old value; the
    // storage's newest version is the written base, which carries the leaf's gradient and hooks
    // (write()), so gradients of graphs recorded before the write reach it as the newest version
    // (TraceValue::versions; docs/inplace-and-views.md, "Writing into a detached alias").
    if (f.out != f.base) move_grad(f.out, f.base);
    // A stored tensor written in place persists from step to step (compiled steps bind it, CUDA
    // graphs keep its address): a parameter stays one, anything else is state.
    f.base->kind = old->kind == ValueKind::Parameter ? ValueKind::Parameter : ValueKind::State;
    forget_pending(f.base.get());
    if (old != f.base && old->invalid.str().rfind("it was overwritten in place by Assign", 0) == 0) {
      old->invalid = "it was overwritten in place by " + f.alias->counter->writer;
    }
    f.alias->physical = f.base;
  }
}

// PyTorch's name of the op that made a value, as its error messages print it: the name of the
// autograd node without "Backward", and CopySlices for a write through a view.
std::string pytorch_op_name(const std::string& op) {
  if (op == "SliceScatter" || op == "IndexPut") return "CopySlices";
  const std::string suffix = "Scalar";
  if (op.size() > suffix.size() && op.compare(op.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return op.substr(0, op.size() - suffix.size());
  }
  return op;
}

std::string saved_tensor_headline(const TraceValue& v, bool saved_output) {
  std::string what = "[glassgrad." + tensor_type(v.info) + " " + shape_str(v.info.shape) + "]";
  // A saved output names the op that saved it; a saved input, as in PyTorch, the op that made its
  // tensor's latest version.
  const std::string op = saved_output ? (v.producer ? v.producer->schema->name : std::string())
                                      : (v.counter ? v.counter->latest : std::string());
  if (!op.empty()) what += ", which is output " + std::to_string(saved_output ? v.output_index : 0) + " of " +
                           pytorch_op_name(op) + ",";
  // A value overwritten by an update outside any storage's count (an optimizer step) is one
  // version behind.
  const uint64_t now = v.counter && (v.counter->version != v.version || v.invalid.empty()) ? v.counter->version
                                                                                           : v.version + 1;
  return "one of the variables needed for gradient computation has been modified by an inplace operation: " + what +
         " is at version " + std::to_string(now) + "; expected version " + std::to_string(v.version) + " instead.";
}

void throw_modified(const TraceValue& v) {
  const std::string name = v.name.empty() ? std::string("a tensor") : "'" + v.name.str() + "'";
  throw StateError(ErrorMessage(saved_tensor_headline(v, false))
                       .detail(name + " " + v.info.str() + ": " + v.invalid.str())
                       .cause("backward() needs the value it had when the forward pass used it, and an in-place "
                              "update (often optimizer.step()) overwrote it since")
                       .fix("call backward() before optimizer.step(), or run the forward pass again after the step")
                       .str());
}

}  // namespace lazy
}  // namespace glassgrad
