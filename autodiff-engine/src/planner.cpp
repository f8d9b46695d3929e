// Memory planner: liveness analysis over a schedule and arena packing.
//
// Invariant: two arena slots whose lifetimes [first_step, last_step] overlap never overlap in
// memory. A value's lifetime runs from the step producing it to the last step reading it or
// any view of it; a workspace lives for its one step. Inputs and outputs are bound by the
// caller and take no arena space.
#include <algorithm>
#include <climits>
#include <cstdint>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/passes.h"

namespace glassgrad {

namespace {

size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

// Which buffers' lifetimes overlap a given lifetime, without a scan over every buffer (the scan
// made packing quadratic: a plan of 24,000 recorded writes spent seconds here). A lifetime
// [a, b] (a <= b) overlaps [f, l] (f <= l) exactly when it contains f or starts in (f, l]:
// the lifetimes containing f are read from a segment tree over the steps, which holds each
// lifetime in the O(log steps) nodes that cover it, along f's path to the root; those starting
// in (f, l] from the lifetimes sorted by start. A lifetime that ends before it starts
// (first_step > last_step) is always a candidate; callers filter candidates with the overlap
// test itself, so the index only has to return a superset.
class LifetimeIndex {
 public:
  LifetimeIndex(const std::vector<BufferSlot>& slots, const std::vector<int>& ids) {
    if (ids.empty()) return;
    lo_ = INT32_MAX;
    int hi = INT32_MIN;
    for (int id : ids) {
      const BufferSlot& s = slots[static_cast<size_t>(id)];
      lo_ = std::min(lo_, std::min(s.first_step, s.last_step));
      hi = std::max(hi, std::max(s.first_step, s.last_step));
    }
    while (leaves_ < static_cast<size_t>(hi - lo_ + 1)) leaves_ *= 2;
    tree_.resize(2 * leaves_);
    for (int id : ids) {
      const BufferSlot& s = slots[static_cast<size_t>(id)];
      if (s.first_step > s.last_step) {
        odd_.push_back(id);
        continue;
      }
      by_start_.emplace_back(s.first_step, id);
      size_t l = leaf(s.first_step), r = leaf(s.last_step) + 1;
      for (; l < r; l >>= 1, r >>= 1) {
        if (l & 1) tree_[l++].push_back(id);
        if (r & 1) tree_[--r].push_back(id);
      }
    }
    std::sort(by_start_.begin(), by_start_.end());
  }

  // Calls f(id) for a superset of the lifetimes overlapping [first, last] (each at most once),
  // which must lie within the indexed steps.
  template <class F>
  void for_each_candidate(int first, int last, F&& f) const {
    for (size_t i = leaf(first); i >= 1; i >>= 1) {
      for (int id : tree_[i]) f(id);
    }
    auto it = std::upper_bound(by_start_.begin(), by_start_.end(), std::make_pair(first, INT32_MAX));
    for (; it != by_start_.end() && it->first <= last; ++it) f(it->second);
    for (int id : odd_) f(id);
  }

 private:
  size_t leaf(int step) const { return leaves_ + static_cast<size_t>(step - lo_); }

  int lo_ = 0;
  size_t leaves_ = 1;
  std::vector<std::vector<int>> tree_;
  std::vector<std::pair<int, int>> by_start_;  // (first_step, slot id)
  std::vector<int> odd_;
};

// Greedy by size with best fit: largest buffers first (ties: earlier first use); each goes into
// the smallest gap between buffers whose lifetimes overlap its own that can hold it, or above
// them all when none can.
void pack_arena(std::vector<BufferSlot>& slots, const Device& dev, size_t& arena_bytes) {
  std::vector<int> order;
  for (const auto& s : slots) {
    if ((s.kind == SlotKind::Arena || s.kind == SlotKind::Workspace) && s.info.device == dev) {
      order.push_back(s.id);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& x = slots[static_cast<size_t>(a)];
    const auto& y = slots[static_cast<size_t>(b)];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return x.first_step < y.first_step;
  });
  const LifetimeIndex lifetimes(slots, order);
  std::vector<char> placed(slots.size(), 0);
  std::vector<std::pair<size_t, size_t>> busy;
  arena_bytes = 0;
  for (int id : order) {
    BufferSlot& s = slots[static_cast<size_t>(id)];
    busy.clear();
    lifetimes.for_each_candidate(s.first_step, s.last_step, [&](int other) {
      const BufferSlot& o = slots[static_cast<size_t>(other)];
      if (!placed[static_cast<size_t>(other)] || o.last_step < s.first_step || s.last_step < o.first_step) return;
      busy.emplace_back(o.offset, o.offset + o.bytes);
    });
    std::sort(busy.begin(), busy.end());
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (const auto& b : busy) {
      if (b.first > cursor && b.first - cursor >= s.bytes && b.first - cursor < best_gap) {
        best = cursor;
        best_gap = b.first - cursor;
      }
      cursor = std::max(cursor, round_up(b.second, s.alignment));
    }
    s.offset = best != SIZE_MAX ? best : cursor;
    arena_bytes = std::max(arena_bytes, s.offset + s.bytes);
    placed[static_cast<size_t>(id)] = 1;
  }
}

// In-place reuse: step i's output takes over input buffer r when the step is elementwise, r is
// an arena buffer of the same shape, dtype and device read for the last time by step i, and
// the output is a plain arena buffer. The output becomes a view of r (offset 0, same layout),
// and r lives as long as the output did. Elementwise kernels read element k before writing
// element k, so this is safe.
// A step whose schema sets overwrites_input (a write through indices) may likewise take that
// input's buffer for its output: its kernel copies the input only when the buffers differ.
void reuse_inputs_in_place(Plan& plan) {
  // The views of each slot, kept current as outputs become views below, so re-pointing a
  // reused output's views costs their number, not a pass over every slot.
  std::vector<std::vector<int>> views_of(plan.slots.size());
  for (const auto& v : plan.slots) {
    if (v.kind == SlotKind::View && v.base >= 0 && v.base != v.id) views_of[static_cast<size_t>(v.base)].push_back(v.id);
  }
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& st = plan.steps[i];
    const int overwritten = st.schema->overwrites_input;
    if (!st.schema->elementwise && overwritten < 0) continue;
    for (size_t k = 0; k < st.outputs.size(); ++k) {
      const int out_id = st.outputs[k];
      if (!st.schema->elementwise && k > 0) break;
      BufferSlot& o = plan.slots[static_cast<size_t>(out_id)];
      if (o.kind != SlotKind::Arena) continue;
      for (size_t j = 0; j < st.inputs.size(); ++j) {
        if (!st.schema->elementwise && static_cast<int>(j) != overwritten) continue;
        const int in_id = st.inputs[j];
        BufferSlot& r = plan.slots[static_cast<size_t>(in_id)];
        if (r.kind != SlotKind::Arena || r.id == o.id || r.last_step != static_cast<int>(i)) continue;
        if (r.info.shape != o.info.shape || r.info.dtype != o.info.dtype || r.info.device != o.info.device) continue;
        // Another input that views r with its own layout (e.g. y = x + x^T) would read
        // elements this step has already overwritten.
        bool viewed_too = false;
        for (int other : st.inputs) {
          viewed_too = viewed_too || (other != r.id && plan.root_slot(other) == r.id);
        }
        if (viewed_too) continue;
        r.last_step = std::max(r.last_step, o.last_step);
        o.kind = SlotKind::View;
        o.base = r.id;
        o.strides = contiguous_strides(o.info.shape);
        o.view_offset = 0;
        o.bytes = 0;
        std::vector<int>& moved = views_of[static_cast<size_t>(o.id)];
        std::vector<int>& into = views_of[static_cast<size_t>(r.id)];
        for (int v : moved) plan.slots[static_cast<size_t>(v)].base = r.id;
        into.insert(into.end(), moved.begin(), moved.end());
        into.push_back(o.id);
        moved.clear();
        break;
      }
    }
  }
}

// Whether slot s's layout over its root is the root's whole dense buffer (offset 0, same shape).
bool whole_buffer(const Plan& plan, int s) {
  const BufferSlot& x = plan.slots[static_cast<size_t>(s)];
  const BufferSlot& root = plan.slots[static_cast<size_t>(plan.root_slot(s))];
  if (x.id == root.id) return true;
  for (int v = s; v != root.id; v = plan.slots[static_cast<size_t>(v)].base) {
    const BufferSlot& hop = plan.slots[static_cast<size_t>(v)];
    if (hop.view_offset != 0 || hop.info.shape != root.info.shape ||
        !Layout{hop.info.shape, hop.strides, 0}.is_contiguous()) {
      return false;
    }
  }
  return true;
}

// Writes into stored tensors without a copy: Assign(target, value) copies value into target's
// buffer (an input the plan updates in place: a parameter, optimizer state, a tensor written by
// an in-place op). When value is an arena buffer that step p computes, p can write target's
// buffer directly, and the Assign is dropped, if nothing else reads target from p on (every
// other reader of target's buffer runs before p) and p reads target, if at all, element by
// element at the same layout (an elementwise step, or the input an overwrites_input step
// overwrites). value's slot becomes a view of target's. Steps are dropped last, renumbering
// lifetimes.
void write_values_into_targets(Plan& plan) {
  std::vector<char> dropped(plan.steps.size(), 0);
  for (size_t a = 0; a < plan.steps.size(); ++a) {
    const PlanStep& assign = plan.steps[a];
    if (assign.op() != "Assign" || assign.inputs.size() != 2) continue;
    const int target = plan.root_slot(assign.inputs[0]);
    BufferSlot& v = plan.slots[static_cast<size_t>(assign.inputs[1])];
    const BufferSlot& t = plan.slots[static_cast<size_t>(target)];
    if (t.kind != SlotKind::Input || !whole_buffer(plan, assign.inputs[0])) continue;
    if (v.kind != SlotKind::Arena || v.first_step < 0 || v.first_step >= static_cast<int>(a)) continue;
    if (v.info.shape != t.info.shape || v.info.dtype != t.info.dtype || v.info.device != t.info.device) continue;
    const size_t p = static_cast<size_t>(v.first_step);
    const PlanStep& producer = plan.steps[p];
    if (producer.outputs.size() != 1 && !producer.schema->elementwise) continue;
    bool ok = true;
    // p itself: reads target only as a whole, at an input it may overwrite.
    for (size_t j = 0; j < producer.inputs.size() && ok; ++j) {
      const int in = producer.inputs[j];
      if (plan.root_slot(in) != target) continue;
      const bool overwritable = producer.schema->elementwise || producer.schema->overwrites_input == static_cast<int>(j);
      ok = overwritable && whole_buffer(plan, in);
    }
    // Between p and the Assign nothing else reads target's old value or writes its buffer. After
    // the Assign, value's readers see target's buffer, which must not have been written again
    // before they run (a later update of the same tensor).
    bool rewritten = false;
    for (size_t i = p + 1; i < plan.steps.size() && ok; ++i) {
      if (i == a || dropped[i]) continue;
      const PlanStep& st = plan.steps[i];
      bool writes = false, reads_value = false;
      for (int out : st.outputs) writes = writes || plan.root_slot(out) == target;
      for (int in : st.inputs) {
        reads_value = reads_value || plan.root_slot(in) == v.id;
        if (i < a && plan.root_slot(in) == target) ok = false;
      }
      if (i < a && writes) ok = false;
      if (i > a && reads_value && rewritten) ok = false;
      rewritten = rewritten || (i > a && writes);
    }
    if (!ok) continue;
    v.kind = SlotKind::View;
    v.base = target;
    v.strides = contiguous_strides(v.info.shape);
    v.view_offset = 0;
    v.bytes = 0;
    for (auto& s : plan.slots) {
      if (s.kind == SlotKind::View && s.base == v.id && s.id != v.id) s.base = target;
    }
    dropped[a] = 1;
  }
  if (std::find(dropped.begin(), dropped.end(), 1) == dropped.end()) return;
  std::vector<int> index(plan.steps.size() + 1, 0);  // new index of old step i (of the next kept one)
  std::vector<PlanStep> kept;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    index[i] = static_cast<int>(kept.size());
    if (!dropped[i]) kept.push_back(std::move(plan.steps[i]));
  }
  index[plan.steps.size()] = static_cast<int>(kept.size());
  const int n = static_cast<int>(plan.steps.size());
  auto renumber = [&](int step, bool last) {
    if (step < 0) return step;
    if (step >= n) return static_cast<int>(kept.size());
    const size_t i = static_cast<size_t>(step);
    return dropped[i] && last ? std::max(index[i] - 1, 0) : index[i];
  };
  for (auto& s : plan.slots) {
    s.first_step = renumber(s.first_step, false);
    s.last_step = std::max(renumber(s.last_step, true), s.first_step);
  }
  plan.steps = std::move(kept);
}

}  // namespace

Plan build_plan(const Graph& g, const std::vector<NodeId>& order, const std::vector<ValueId>& outputs,
                const MemoryPlanOptions& opts) {
  const LayoutAnalysis la = analyze_layouts(g);
  Plan plan;
  std::vector<int> slot_of(static_cast<size_t>(g.num_values()), -1);
  auto new_slot = [&](SlotKind kind, ValueId v, const TensorInfo& info) {
    BufferSlot s;
    s.id = static_cast<int>(plan.slots.size());
    s.kind = kind;
    s.info = info;
    s.alignment = opts.alignment;
    s.bytes = round_up(std::max<size_t>(info.nbytes(), 1), opts.alignment);
    s.value = v;
    if (v != kNoValue) s.name = g.value(v).name;
    s.strides = contiguous_strides(info.shape);
    plan.slots.push_back(s);
    return s.id;
  };

  // Which values the live nodes touch; leaves among them become inputs, in value order.
  std::vector<char> used(static_cast<size_t>(g.num_values()), 0);
  for (NodeId n : order) {
    for (ValueId v : g.node(n).inputs) used[static_cast<size_t>(v)] = 1;
    for (ValueId v : g.node(n).outputs) used[static_cast<size_t>(v)] = 1;
  }
  for (ValueId v : outputs) used[static_cast<size_t>(v)] = 1;
  for (const Value& v : g.values()) {
    if (v.producer != kNoNode || !used[static_cast<size_t>(v.id)]) continue;
    slot_of[static_cast<size_t>(v.id)] = new_slot(SlotKind::Input, v.id, v.info);
    plan.input_slots.push_back(slot_of[static_cast<size_t>(v.id)]);
    plan.input_values.push_back(v.id);
    plan.input_kinds.push_back(v.kind);
  }

  // Steps and their output slots. View outputs get no step and no memory.
  int next_group = 0;
  std::vector<int> slot_producer_step;
  for (NodeId n : order) {
    const Node& node = g.node(n);
    const bool pure_view = node.schema->view_of >= 0 && la.is_view[static_cast<size_t>(node.outputs[0])];
    const int step_index = static_cast<int>(plan.steps.size());
    for (ValueId o : node.outputs) {
      const ValueId base = la.base[static_cast<size_t>(o)];
      if (base != o) {
        const int base_slot = slot_of[static_cast<size_t>(base)];
        if (base_slot < 0) throw InternalError("planner: view of an unplanned value");
        const int id = new_slot(SlotKind::View, o, g.value(o).info);
        BufferSlot& s = plan.slots[static_cast<size_t>(id)];
        s.base = base_slot;
        s.strides = la.layouts[static_cast<size_t>(o)].strides;
        s.view_offset = la.layouts[static_cast<size_t>(o)].offset;
        s.bytes = 0;
        slot_of[static_cast<size_t>(o)] = id;
      } else {
        slot_of[static_cast<size_t>(o)] = new_slot(SlotKind::Arena, o, g.value(o).info);
        plan.slots[static_cast<size_t>(slot_of[static_cast<size_t>(o)])].first_step = step_index;
      }
    }
    if (pure_view) continue;
    PlanStep st;
    st.schema = node.schema;
    st.attrs = node.attrs;
    st.meta = node.meta;
    if (node.attrs.has("fused")) st.fusion_group = next_group++;
    for (ValueId v : node.inputs) st.inputs.push_back(slot_of[static_cast<size_t>(v)]);
    for (ValueId v : node.outputs) st.outputs.push_back(slot_of[static_cast<size_t>(v)]);
    const size_t ws = opts.workspace ? opts.workspace(g, node) : 0;
    if (ws > 0) {
      TensorInfo wi{{static_cast<int64_t>(ws)}, DType::UInt8, g.value(node.outputs.empty() ? node.inputs[0] : node.outputs[0]).info.device};
      st.workspace = new_slot(SlotKind::Workspace, kNoValue, wi);
      BufferSlot& w = plan.slots[static_cast<size_t>(st.workspace)];
      w.first_step = w.last_step = step_index;
      w.name = "workspace of " + node_where(node.op(), node.meta.scope);
    }
    plan.steps.push_back(std::move(st));
  }

  // Liveness: extend each root buffer to its last reader (through views).
  const int nsteps = static_cast<int>(plan.steps.size());
  for (int i = 0; i < nsteps; ++i) {
    for (int s : plan.steps[static_cast<size_t>(i)].inputs) {
      BufferSlot& r = plan.slots[static_cast<size_t>(plan.root_slot(s))];
      r.last_step = std::max(r.last_step, i);
    }
    for (int s : plan.steps[static_cast<size_t>(i)].outputs) {
      BufferSlot& r = plan.slots[static_cast<size_t>(plan.root_slot(s))];
      r.last_step = std::max(r.last_step, i);
    }
  }
  // Outputs leave the arena; a view output keeps its base alive as an output too.
  for (ValueId v : outputs) {
    const int s = slot_of.at(static_cast<size_t>(v));
    if (s < 0) throw InternalError("planner: output " + g.value_str(v) + " was not computed");
    BufferSlot& r = plan.slots[static_cast<size_t>(plan.root_slot(s))];
    if (r.kind == SlotKind::Arena) r.kind = SlotKind::Output;
    plan.output_slots.push_back(s);
    plan.output_values.push_back(v);
  }
  for (auto& s : plan.slots) {
    if (s.kind == SlotKind::Input || s.kind == SlotKind::Output) {
      if (s.kind == SlotKind::Input) s.first_step = -1;
      s.last_step = nsteps;
    }
  }
  // Arena values nobody reads still need memory for the step that writes them.
  for (auto& s : plan.slots) {
    if (s.kind == SlotKind::Arena && s.last_step < s.first_step) s.last_step = s.first_step;
  }

  if (opts.inplace_reuse) {
    write_values_into_targets(plan);
    reuse_inputs_in_place(plan);
  }

  // Every offset and total computed below is at most the sum of all buffers: check it once
  // (types.h: kMaxSize), so the packing and accounting need no overflow checks of their own.
  int64_t total = 0;
  for (const auto& s : plan.slots) {
    if (s.bytes > static_cast<size_t>(kMaxSize) || !size_add(total, static_cast<int64_t>(s.bytes), total)) {
      throw OutOfMemoryError(ErrorMessage("this plan's buffers add up to more than 2^60 bytes")
                                 .detail("largest so far: " + s.info.str())
                                 .cause("a shape far larger than intended (an expand or a huge batch)")
                                 .fix("check the shapes of the step's tensors")
                                 .str());
    }
  }
  // Pack each device's arena and account.
  std::vector<Device> devices;
  for (const auto& s : plan.slots) {
    if (std::find(devices.begin(), devices.end(), s.info.device) == devices.end()) devices.push_back(s.info.device);
  }
  for (const Device& d : devices) {
    size_t arena = 0;
    pack_arena(plan.slots, d, arena);
    plan.arena_bytes[d] = arena;
    // Peak of the bytes live at each step, by one sweep over the lifetimes' ends (a buffer
    // counts from first_step to last_step, both included, at steps 0 .. n - 1), linear in the
    // steps and slots: a plan of thousands of recorded in-place writes has as many of each.
    const int n = std::max(nsteps, 1);
    std::vector<int64_t> change(static_cast<size_t>(n) + 1, 0);
    for (const auto& s : plan.slots) {
      if ((s.kind != SlotKind::Arena && s.kind != SlotKind::Workspace) || !(s.info.device == d)) continue;
      const int lo = std::max(s.first_step, 0);
      const int hi = std::min(s.last_step, n - 1);
      if (lo > hi) continue;
      change[static_cast<size_t>(lo)] += static_cast<int64_t>(s.bytes);
      change[static_cast<size_t>(hi) + 1] -= static_cast<int64_t>(s.bytes);
    }
    size_t peak = 0;
    int64_t live = 0;
    for (int i = 0; i < n; ++i) {
      live += change[static_cast<size_t>(i)];
      peak = std::max(peak, static_cast<size_t>(live));
    }
    plan.peak_live_bytes[d] = peak;
    size_t ext = 0;
    for (const auto& s : plan.slots) {
      if ((s.kind == SlotKind::Input || s.kind == SlotKind::Output) && s.info.device == d) ext += s.bytes;
    }
    plan.external_bytes[d] = ext;
  }
  return plan;
}

}  // namespace glassgrad
