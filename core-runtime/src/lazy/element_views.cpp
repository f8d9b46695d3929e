// x[i, j, ...] with integer positions, recorded in one call (lazy.h, select_positions).
#include <algorithm>

#include "glassgrad/autodiff/errors.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

namespace {

// The key's views in order (the nodes Python's general indexing records for it,
// glassgrad/_indexing.py, _basic_view): a Slice per position, then the Reshape dropping their
// axes. They make the handle's chain of views, which writes through it follow.
std::vector<ViewStep> position_steps(const Shape& shape, const std::vector<int64_t>& positions, bool requires_grad,
                                     const NodeMeta& meta) {
  static const OpSchema& slice = OpRegistry::instance().at("Slice");
  static const OpSchema& reshape = OpRegistry::instance().at("Reshape");
  std::vector<ViewStep> steps(positions.size() + 1);
  Shape now = shape;
  for (size_t axis = 0; axis < positions.size(); ++axis) {
    const int64_t i = positions[axis];
    now[axis] = 1;
    ViewStep& st = steps[axis];
    st.schema = &slice;
    st.attrs = Attrs{{"dim", static_cast<int64_t>(axis)}, {"start", i}, {"stop", i + 1}, {"step", int64_t{1}}};
    st.out_shape = now;
  }
  ViewStep& last = steps.back();
  last.schema = &reshape;
  last.out_shape = Shape(shape.begin() + static_cast<std::ptrdiff_t>(positions.size()), shape.end());
  last.attrs = Attrs{{"shape", last.out_shape}};
  // The axes left keep their strides, as PyTorch's select (views.h, set_view_strides).
  std::vector<int64_t> kept;
  for (size_t k = 0; k < last.out_shape.size(); ++k) {
    kept.insert(kept.end(), {static_cast<int64_t>(positions.size() + k), 1, 1});
  }
  if (!kept.empty()) last.attrs.set("view_strides", kept);
  // PyTorch's node for the key (Tensor.grad_fn's name), shown only by a tensor with a grad_fn.
  if (requires_grad) last.attrs.set("torch_node", std::string("SelectBackward0"));
  for (ViewStep& st : steps) {
    st.meta = meta;
    st.grad = grad_enabled();
  }
  return steps;
}

// `steps` applied to layout l (each a view: false when one is not, and l is then unspecified).
bool view_through(const std::vector<ViewStep>& steps, Layout& l) {
  for (const ViewStep& st : steps) {
    Layout next;
    if (!st.schema->view(st.attrs, l, st.out_shape, next)) return false;
    l = std::move(next);
  }
  return true;
}

}  // namespace

std::unique_ptr<Handle> select_positions(Handle& base, const std::vector<int64_t>& positions, const NodeMeta& meta) {
  const ValuePtr v = base.value();
  const Shape& shape = v->info.shape;
  if (positions.empty() || positions.size() > shape.size()) {
    throw InternalError("select_positions: " + std::to_string(positions.size()) + " positions for a tensor " +
                        shape_str(shape));
  }
  for (size_t axis = 0; axis < positions.size(); ++axis) {
    if (positions[axis] < 0 || positions[axis] >= shape[axis]) {
      throw InternalError("select_positions: position " + std::to_string(positions[axis]) + " outside " +
                          shape_str(shape));
    }
  }
  std::vector<ViewStep> steps = position_steps(shape, positions, v->requires_grad, meta);
  // A view of a realized value that tracks no gradient is taken at once (record_node): here the
  // key's views at once, one value over the same memory, with the chain recording them gives.
  // Not of one that requires grad under no_grad either: that view requires grad (alias.cpp,
  // graded_no_grad_view).
  if (eager_views() && v->realized() && !(v->requires_grad && (grad_enabled() || !base.detached()))) {
    Layout in_memory = v->data.layout();
    Layout in_storage = layout_of(base);
    if (view_through(steps, in_memory) && view_through(steps, in_storage)) {
      const bool persistent = !v->producer && (v->kind == ValueKind::Parameter || v->kind == ValueKind::State);
      const ValueKind kind = persistent ? ValueKind::State
                             : v->kind == ValueKind::Constant ? ValueKind::Constant : ValueKind::Input;
      ValuePtr view = make_leaf(v->data.as_strided(in_memory.shape, in_memory.strides, in_memory.offset), kind, false);
      Alias& a = alias_of(base);
      auto h = std::make_unique<Handle>(view);
      AliasAccess::alias(*h) = AliasAccess::alias(base);
      std::vector<ViewStep>& chain = AliasAccess::chain(*h);
      chain = base.chain();
      chain.reserve(chain.size() + steps.size());
      for (ViewStep& st : steps) chain.push_back(std::move(st));
      AliasAccess::detached(*h) = base.detached();
      AliasAccess::untracked(*h) = base.untracked();
      AliasAccess::seen(*h) = a.generation;
      tag(view, a.counter);
      note_view(AliasAccess::alias(*h), chain);
      return h;
    }
  }
  std::unique_ptr<Handle> view;
  for (const ViewStep& st : steps) {
    Handle* in = view ? view.get() : &base;
    view = std::move(record_handles(st.schema->name, {in}, st.attrs, meta).at(0));
  }
  return view;
}

bool names_positions(const Handle& base, const std::vector<int64_t>& positions, const Handle& v) {
  const ValuePtr& b = base.value();
  const ValuePtr& x = v.value();
  if (!v.alias() || v.alias() != base.alias() || b->requires_grad || x->requires_grad ||
      b->info.dtype != x->info.dtype || positions.size() > b->info.shape.size()) {
    return false;
  }
  const Layout lb = layout_of(base), lv = layout_of(v);
  const size_t k = positions.size();
  int64_t offset = lb.offset;
  for (size_t axis = 0; axis < k; ++axis) offset += positions[axis] * lb.strides[axis];
  return lv.offset == offset && std::equal(lv.shape.begin(), lv.shape.end(), lb.shape.begin() + k, lb.shape.end()) &&
         std::equal(lv.strides.begin(), lv.strides.end(), lb.strides.begin() + k, lb.strides.end());
}

}  // namespace lazy
}  // namespace glassgrad
