// What plan buffers hold, and the memory check the executor runs before a plan: everything a
// run will allocate is known from the Plan (arena size, outputs), so an over-limit step is
// refused before any kernel runs, naming what is large and where it comes from.
#include <algorithm>
#include <cstdio>
#include <map>

#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/arena.h"
#include "glassgrad/runtime/debug.h"

namespace glassgrad {
namespace debug {

namespace {

std::string step_where(const PlanStep& st) {
  return node_where(st.op(), st.meta.scope) + " (" + role_name(st.meta.role) + ")";
}

// Step producing each slot (-1: none), and the step each workspace belongs to.
std::vector<int> producers(const Plan& p) {
  std::vector<int> prod(p.slots.size(), -1);
  for (size_t i = 0; i < p.steps.size(); ++i) {
    for (int s : p.steps[i].outputs) {
      if (prod[static_cast<size_t>(s)] < 0) prod[static_cast<size_t>(s)] = static_cast<int>(i);
    }
    if (p.steps[i].workspace >= 0) prod[static_cast<size_t>(p.steps[i].workspace)] = static_cast<int>(i);
  }
  return prod;
}

}  // namespace

std::vector<std::string> buffer_labels(const Plan& p) {
  const std::vector<int> prod = producers(p);
  // A named value that is a view (a gradient reshaped back to its parameter's shape, an
  // in-place update) names the unnamed buffer under it.
  std::vector<std::string> names(p.slots.size());
  for (const BufferSlot& s : p.slots) names[static_cast<size_t>(s.id)] = s.name;
  for (const BufferSlot& s : p.slots) {
    if (s.kind != SlotKind::View || s.name.empty()) continue;
    const int root = p.root_slot(s.id);
    if (root >= 0 && names[static_cast<size_t>(root)].empty()) names[static_cast<size_t>(root)] = s.name;
  }
  std::vector<std::string> labels(p.slots.size());
  for (const BufferSlot& s : p.slots) {  // views come after their bases
    const size_t id = static_cast<size_t>(s.id);
    const int step = prod[id];
    if (s.kind == SlotKind::Workspace && step >= 0) {
      const PlanStep& st = p.steps[static_cast<size_t>(step)];
      labels[id] = "workspace of " + node_where(st.op(), st.meta.scope);
    } else if (!names[id].empty()) {
      labels[id] = names[id];
    } else if (step >= 0) {
      const PlanStep& st = p.steps[static_cast<size_t>(step)];
      size_t k = 0;
      while (k < st.outputs.size() && st.outputs[k] != s.id) ++k;
      const std::string out = k < st.schema->outputs.size() ? st.schema->outputs[k] : std::to_string(k);
      labels[id] = (st.meta.scope.empty() ? "" : st.meta.scope + "/") + st.op() + "." + out;
      // A step's output over another buffer: an in-place op, or an input the planner reused.
      if (s.kind == SlotKind::View && s.base >= 0 && static_cast<size_t>(s.base) < id) {
        labels[id] += " (in place over " + labels[static_cast<size_t>(s.base)] + ")";
      }
    } else if (s.kind == SlotKind::View && s.base >= 0 && static_cast<size_t>(s.base) < id) {
      labels[id] = "view of " + labels[static_cast<size_t>(s.base)];
    } else {
      labels[id] = std::string(slot_kind_name(s.kind)) + " $" + std::to_string(s.id);
    }
  }
  return labels;
}

std::vector<BufferUse> largest_buffers(const Plan& p, const Device& d, size_t k) {
  const std::vector<int> prod = producers(p);
  const std::vector<std::string> labels = buffer_labels(p);
  std::vector<BufferUse> all;
  for (const BufferSlot& s : p.slots) {
    if (s.kind == SlotKind::View || s.info.device != d) continue;
    BufferUse u;
    u.slot = s.id;
    u.bytes = s.bytes;
    u.label = labels[static_cast<size_t>(s.id)];
    const int step = prod[static_cast<size_t>(s.id)];
    if (s.kind == SlotKind::Input) {
      u.where = "plan input (already allocated)";
    } else if (step >= 0) {
      u.where = std::string(slot_kind_name(s.kind)) + " from " + step_where(p.steps[static_cast<size_t>(step)]);
      if (s.kind != SlotKind::Output) {
        u.where += ", live #" + std::to_string(s.first_step) + "..#" + std::to_string(s.last_step);
      }
    } else {
      u.where = slot_kind_name(s.kind);
    }
    all.push_back(std::move(u));
  }
  std::stable_sort(all.begin(), all.end(), [](const BufferUse& a, const BufferUse& b) { return a.bytes > b.bytes; });
  if (all.size() > k) all.resize(k);
  return all;
}

namespace {
size_t output_bytes(const Plan& p, const Device& d) {
  size_t total = 0;
  for (const BufferSlot& s : p.slots) {
    if (s.kind == SlotKind::Output && s.info.device == d) total += s.info.nbytes();
  }
  return total;
}
size_t input_bytes(const Plan& p, const Device& d) {
  size_t total = 0;
  for (const BufferSlot& s : p.slots) {
    if (s.kind == SlotKind::Input && s.info.device == d) total += s.info.nbytes();
  }
  return total;
}
// The arena a run allocates (arena_growth): 0 when the one held is reused, else a new one of
// the plan's size after freeing the old.
size_t new_arena_bytes(const Plan& p, const Device& d) {
  auto it = p.arena_bytes.find(d);
  return arena_growth(d, it == p.arena_bytes.end() ? 0 : it->second, allocated_besides_arena(p, d));
}
// A limit that fits `need`, rounded up, in the form glassgrad.set_memory_limit parses.
std::string limit_that_fits(size_t need) {
  const size_t kib = 1024, mib = kib * 1024;
  if (need < mib) return std::to_string((need + kib - 1) / kib) + "KiB";
  return std::to_string((need + mib - 1) / mib) + "MiB";
}
// The planner gives every device a plan touches an arena entry (possibly 0 bytes).
std::vector<Device> devices_of(const Plan& p) {
  std::vector<Device> ds;
  for (const auto& kv : p.arena_bytes) ds.push_back(kv.first);
  return ds;
}
}  // namespace

size_t MemoryNeed::total() const {
  return held - std::min(held, arena_freed) + arena_new + outputs + graph_outputs;
}

size_t allocated_besides_arena(const Plan& p, const Device& d) {
  if (allocator_for(d).limit() == 0) return 0;  // decides nothing without a limit: skip the slot walk
  const size_t outputs = output_bytes(p, d);
  return runs_as_cuda_graph(p) ? 2 * outputs : outputs;
}

MemoryNeed memory_need(const Plan& p, const Device& d, size_t held) {
  MemoryNeed m;
  m.held = held;
  m.arena_new = new_arena_bytes(p, d);
  m.arena_freed = m.arena_new > 0 ? arena_bytes(d) : 0;  // the old arena goes first
  m.outputs = output_bytes(p, d);
  m.graph_outputs = runs_as_cuda_graph(p) ? m.outputs : 0;
  return m;
}

size_t predicted_need(const Plan& p, const Device& d) {
  return memory_need(p, d, allocator_for(d).stats().current).total();
}

// A refused training step has recorded its backward(): those gradients are pending on the
// parameters and would add to the next step's (the usual step calls zero_grad() last).
const char* const kGradientsStay =
    "a training step refused here keeps the gradients its backward() recorded (param.grad): call "
    "optimizer.zero_grad() before running it again, or they add to the next step's";

std::string explain_over_budget(const std::string& message, const Plan& plain, const Device& d) {
  const size_t current = allocator_for(d).stats().current;
  const size_t held = current - std::min(current, arena_bytes(d));
  const size_t arena = plain.arena_bytes.count(d) ? plain.arena_bytes.at(d) : 0;
  std::string lines = (allocator_for(d).limit() ? "\n  the memory limit: " + allocator_for(d).limit_str() : std::string()) +
                      "\n  held outside this step: " + format_bytes(held) +
                      " (parameters, data, optimizer state, other live tensors); a limit must cover it too: " +
                      "glassgrad.set_memory_limit(\"" + limit_that_fits(held + arena + output_bytes(plain, d)) +
                      "\") runs this step without checkpointing";
  lines += "\n  largest buffers without checkpointing:";
  for (const BufferUse& u : largest_buffers(plain, d, 5)) {
    const BufferSlot& s = plain.slots[static_cast<size_t>(u.slot)];
    lines += "\n    " + format_bytes(u.bytes) + "  " + u.label + "  " + shape_str(s.info.shape) + " " +
             dtype_name(s.info.dtype) + "  <- " + u.where;
  }
  lines += std::string("\n  ") + kGradientsStay;
  const size_t at = message.find("\n  cause:");
  std::string out = message;
  out.insert(at == std::string::npos ? out.size() : at, lines);
  return out;
}

void check_memory_limit(const Plan& p, bool graph_outputs_held) {
  for (const Device& d : devices_of(p)) {
    const size_t limit = allocator_for(d).limit();
    if (limit == 0) continue;
    MemoryNeed parts = memory_need(p, d, allocator_for(d).stats().current);
    if (graph_outputs_held) parts.graph_outputs = 0;
    const size_t need = parts.total();
    if (need <= limit) continue;
    const size_t current = allocator_for(d).stats().current;
    const size_t arena = p.arena_bytes.count(d) ? p.arena_bytes.at(d) : 0;
    ErrorMessage m("this step needs " + format_bytes(need) + " on " + d.str() + " but the memory limit is " +
                   allocator_for(d).limit_str() + " (checked before running it)");
    m.detail("the plan's predicted peak: " + format_bytes(p.predicted_peak_bytes(d)) + " = arena 'arena' " +
             format_bytes(arena) + " (intermediates, packed by lifetime) + inputs " +
             format_bytes(input_bytes(p, d)) + " + outputs " + format_bytes(output_bytes(p, d)));
    m.detail("in use now: " + format_bytes(current) + " (parameters, data, optimizer state, the arena held, "
             "other live tensors); this step adds " + format_bytes(need > current ? need - current : 0));
    m.detail("largest buffers:");
    for (const BufferUse& u : largest_buffers(p, d, 5)) {
      const BufferSlot& s = p.slots[static_cast<size_t>(u.slot)];
      m.detail("  " + format_bytes(u.bytes) + "  " + u.label + "  " + shape_str(s.info.shape) + " " +
               dtype_name(s.info.dtype) + "  <- " + u.where);
    }
    m.detail("options: a smaller batch; micro-batches (loss.backward() on slices of the batch, then one "
             "optimizer.step(): gradients add up); a memory budget so activations are recomputed in backward "
             "instead of kept (checkpointing); or a higher limit. glassgrad.memory_report(train_step, x, y) "
             "predicts a step's memory without running it");
    m.detail(kGradientsStay);
    m.cause("the batch, the model and the activations kept for backward need more memory than the limit allows");
    m.fix("halve the batch size, or raise the limit: glassgrad.set_memory_limit(\"" + limit_that_fits(need) + "\")");
    throw OutOfMemoryError(m.str());
  }
}

}  // namespace debug
}  // namespace glassgrad
