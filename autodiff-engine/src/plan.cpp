#include "glassgrad/autodiff/plan.h"

#include <cstdio>
#include <sstream>

namespace glassgrad {

const char* slot_kind_name(SlotKind k) {
  switch (k) {
    case SlotKind::Input: return "input";
    case SlotKind::Output: return "output";
    case SlotKind::Arena: return "arena";
    case SlotKind::Workspace: return "workspace";
    case SlotKind::View: return "view";
  }
  return "?";
}

std::string format_bytes(size_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%zu B", bytes);
  else if (bytes < (1u << 20)) std::snprintf(buf, sizeof buf, "%.2f KiB", b / 1024.0);
  else if (bytes < (1ull << 30)) std::snprintf(buf, sizeof buf, "%.2f MiB", b / (1024.0 * 1024.0));
  else std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

int Plan::root_slot(int slot) const {
  while (slot >= 0 && slots[static_cast<size_t>(slot)].kind == SlotKind::View) slot = slots[static_cast<size_t>(slot)].base;
  return slot;
}

size_t Plan::predicted_peak_bytes(const Device& d) const {
  size_t total = 0;
  auto a = arena_bytes.find(d);
  if (a != arena_bytes.end()) total += a->second;
  auto e = external_bytes.find(d);
  if (e != external_bytes.end()) total += e->second;
  return total;
}

size_t Plan::predicted_peak_bytes() const {
  size_t total = 0;
  for (const auto& kv : arena_bytes) total += predicted_peak_bytes(kv.first);
  return total;
}

namespace {
std::string slot_ref(const Plan& p, int s) {
  const BufferSlot& b = p.slots[static_cast<size_t>(s)];
  std::string r = "$" + std::to_string(s);
  if (!b.name.empty()) r += ":" + b.name;
  return r;
}
std::string pad(std::string s, size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}
}  // namespace

std::string Plan::str(const PrintOptions& opts) const {
  std::ostringstream os;
  os << "Plan: " << steps.size() << " steps, " << slots.size() << " buffers";
  for (const auto& kv : arena_bytes) {
    os << "\n  " << kv.first.str() << ": arena " << format_bytes(kv.second) << " (peak live "
       << format_bytes(peak_live_bytes.at(kv.first)) << "), inputs+outputs "
       << format_bytes(external_bytes.at(kv.first)) << ", predicted peak "
       << format_bytes(predicted_peak_bytes(kv.first));
  }
  if (!notes.empty()) os << "\n  " << notes;
  os << "\n";
  const size_t n = opts.max_steps < 0 ? steps.size() : std::min(steps.size(), static_cast<size_t>(opts.max_steps));
  for (size_t i = 0; i < n; ++i) {
    const PlanStep& st = steps[i];
    std::string io;
    for (size_t k = 0; k < st.inputs.size(); ++k) io += (k ? ", " : "") + slot_ref(*this, st.inputs[k]);
    io += " -> ";
    for (size_t k = 0; k < st.outputs.size(); ++k) io += (k ? ", " : "") + slot_ref(*this, st.outputs[k]);
    os << "  #" << pad(std::to_string(i), 4) << pad(st.op(), 24) << io;
    if (!st.attrs.empty()) os << "  {" << st.attrs.str() << "}";
    if (st.workspace >= 0) os << "  ws " << slot_ref(*this, st.workspace);
    if (!st.meta.scope.empty() || st.meta.role != NodeRole::Forward) {
      os << "  #";
      if (!st.meta.scope.empty()) os << " " << st.meta.scope;
      os << " (" << role_name(st.meta.role) << ")";
    }
    if (st.fusion_group >= 0) {
      os << " [fusion " << st.fusion_group;
      if (st.attrs.has("fused")) os << ": " << st.attrs.s("fused");
      os << "]";
    }
    os << "\n";
  }
  if (n < steps.size()) os << "  ... " << (steps.size() - n) << " more steps\n";
  if (opts.buffers) {
    os << "buffers:\n";
    for (const auto& b : slots) {
      os << "  " << pad(slot_ref(*this, b.id), 28) << pad(slot_kind_name(b.kind), 10)
         << pad(shape_str(b.info.shape) + " " + dtype_name(b.info.dtype), 30);
      if (b.kind == SlotKind::View) {
        os << "view of $" << b.base << " strides " << shape_str(b.strides) << " +" << b.view_offset;
      } else {
        os << pad(format_bytes(b.bytes), 12);
        if (b.kind == SlotKind::Arena || b.kind == SlotKind::Workspace) {
          os << "@" << pad(std::to_string(b.offset), 10) << " live #" << b.first_step << "..#" << b.last_step;
        }
      }
      os << "\n";
    }
  }
  return os.str();
}

std::string Plan::dot() const {
  std::ostringstream os;
  os << "digraph plan {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  for (const auto& b : slots) {
    if (b.kind == SlotKind::Workspace) continue;
    const char* color = b.kind == SlotKind::Input ? "lightblue" : b.kind == SlotKind::Output ? "lightgreen"
                        : b.kind == SlotKind::View ? "lightyellow" : "white";
    os << "  b" << b.id << " [shape=note, style=filled, fillcolor=" << color << ", label=\"$" << b.id
       << (b.name.empty() ? "" : " " + b.name) << "\\n" << shape_str(b.info.shape) << " "
       << dtype_name(b.info.dtype) << "\"];\n";
    if (b.kind == SlotKind::View) os << "  b" << b.base << " -> b" << b.id << " [style=dashed];\n";
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& st = steps[i];
    os << "  s" << i << " [shape=box, style=\"rounded,filled\", fillcolor="
       << (st.meta.role == NodeRole::Backward ? "mistyrose" : st.meta.role == NodeRole::Forward ? "white" : "lavender")
       << ", label=\"#" << i << " " << st.op() << (st.meta.scope.empty() ? "" : "\\n" + st.meta.scope) << "\"];\n";
    for (int s : st.inputs) os << "  b" << s << " -> s" << i << ";\n";
    for (int s : st.outputs) os << "  s" << i << " -> b" << s << ";\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace glassgrad
