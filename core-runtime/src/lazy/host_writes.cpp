// In-place writes done at once on the host (lazy_internal.h, write_on_host).
//
// A write recorded on the graph (alias.cpp) costs its functional ops (SliceScatter per view
// step, Contiguous, the Assign the next realize adds), and a Python loop of writes into one
// storage (`N[i, j] += 1` over a dataset, `x[i] = row`) makes a chain of them that grows with
// the loop, whose attributes differ from write to write, so each realize compiles a new plan
// (docs/inplace-and-views.md, "Writes done at once"). Where the storage is a CPU buffer that
// autograd does not track and little else is pending, the write is done as the realize after it
// would do it: the few pending values are computed (one small plan, cached by its signature),
// the value's elements are copied into the buffer through the handle's view, and the storage's
// new version is a realized value of that buffer, as settle_flushes would leave it. Nothing
// observable differs from recording the write and realizing right after, which any read does.
#include "glassgrad/runtime/device_hooks.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

namespace {

// More pending values than this and the write is recorded: realizing them now would split a
// larger graph (a forward pass in progress) into plans of its own.
constexpr size_t kMaxPending = 8;

// Whether realizing what is pending now is cheap and changes no gradient: few pinned values
// pending, none of them tracking a gradient (a forward pass being recorded is left whole).
bool few_pending_without_grad() {
  if (pending_bound() > kMaxPending) return false;
  for (const ValuePtr& v : pending_values()) {
    if (v->requires_grad) return false;
  }
  return true;
}

// The storage's value whose buffer the write lands in, when the write can be done on the host.
bool host_storage(const Alias& a, const ValuePtr& base) {
  return base->realized() && base->invalid.empty() && !a.dirty && base->data.is_contiguous() &&
         base->data.device().is_cpu() && (!a.physical || a.physical == base);
}

}  // namespace

bool write_on_host(Handle& h, Alias& a, const ValuePtr& value, const std::string& where) {
  // Modes in which every write must be a node: glassgrad.compile captures the step's plans,
  // exports (glassgrad.onnx) take every view as a node, memory reports run no kernel.
  if (capturing() || plan_only() || !eager_views()) return false;
  const ValuePtr view = h.value();  // h's value, counted below as one of its pins
  const TensorInfo& info = view->info;
  if (!info.device.is_cpu() || value->info.shape != info.shape || value->info.dtype != info.dtype ||
      value->info.device != info.device || !value->invalid.empty()) {
    return false;
  }
  if (view->requires_grad || value->requires_grad || a.base->requires_grad) return false;
  // A gradient's storage (p.grad) and a detached alias carrying a gradient stay recorded.
  if (a.graded || !a.grad_owner.expired()) return false;
  // Pending values may read the buffer's present elements: they are computed first, with the
  // value (and the storage's version, when a recorded write made it).
  if (!few_pending_without_grad()) return false;
  if (!host_storage(a, a.base) || !value->realized()) {
    realize({value, a.base});
    if (!host_storage(a, a.base) || !value->realized()) return false;
  }
  // Anything else still pending may read the present elements without holding the storage's
  // value (a clone of a view taken at once reads the buffer through that view): the write is
  // recorded then, and the graph orders the read before it.
  for (const ValuePtr& p : pending_values()) {
    if (p != view && p != value) return false;
  }
  // A node that reads the present version (kept for a gradient rule, or for a plan to come)
  // would see the new elements: such a write is recorded. Every other holder is counted: the
  // storage itself, its buffer, and one per pin (handles, gradient slots).
  const ValuePtr& base = a.base;
  if (base.use_count() != base->pins + 1 + (a.physical == base ? 1 : 0) + (view == base ? 1 : 0)) return false;
  const Tensor buffer = base->data;
  // The value read from the very buffer (x[1:] = x[:-1]) is recorded: the graph reads it whole
  // before writing, which an element-by-element copy would not.
  if (value->data.storage() == buffer.storage()) return false;
  const Layout l = layout_of(h);
  for (size_t d = 0; d < l.shape.size(); ++d) {
    if (l.shape[d] > 1 && l.strides[d] == 0) return false;  // an expanded view: write() raises PyTorch's error
  }
  copy_tensor(buffer.as_strided(l.shape, l.strides, buffer.offset() + l.offset), value->data);

  // The new version, as settle_flushes leaves a storage written by an Assign: a realized value
  // of the buffer with no producer, a parameter still one, anything else state.
  const ValuePtr old = base;
  ValuePtr fresh = make_leaf(buffer, old->kind == ValueKind::Parameter ? ValueKind::Parameter : ValueKind::State,
                             false, old->name);
  if (old->is_leaf()) move_grad(old, fresh);
  old->data = Tensor();
  old->producer.reset();
  old->invalid = "it was overwritten in place by " + where;
  a.base = fresh;
  a.physical = fresh;
  ++a.generation;
  a.graded_generation = a.generation;
  if (!h.untracked()) ++a.counter->version;
  a.counter->writer = where;
  a.counter->latest.clear();
  tag(fresh, a.counter);
  // The handle written through: the storage itself, or a view whose value views the buffer (a
  // view of a realized value is taken at once, record_node), which now holds the new elements:
  // a value of the new version over the same memory, instead of recording its views again.
  if (h.chain().empty()) {
    AliasAccess::point(h, fresh);
  } else if (view->realized() && view->data.storage() == buffer.storage()) {
    ValuePtr now = make_leaf(view->data, ValueKind::State, false, view->name);
    tag(now, a.counter);
    AliasAccess::point(h, now);
  }
  return true;
}

bool writes_as_is(const Handle& h, const Handle& value) {
  const ValuePtr& t = h.value();
  const ValuePtr& v = value.value();
  return t->info == v->info && !(t->requires_grad && !v->requires_grad && grad_enabled());
}

}  // namespace lazy
}  // namespace glassgrad
