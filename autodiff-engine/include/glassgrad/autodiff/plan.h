// A Plan is the engine's output: an ordered list of steps (op, attributes, input and output
// buffer slots) and a buffer table (size, alignment, arena offset, lifetime), plus which slots
// the caller binds (inputs) and reads back (outputs). A C++ project with its own kernels can run
// a plan without glassgrad's runtime: allocate one arena per device of arena_bytes, bind the
// inputs, and call a kernel per step.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/graph.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

// Input:     a graph leaf; the caller binds memory to it on each run (contiguous; a strided view
//            only where every step reading it takes strided inputs and no view slot or write
//            relies on its layout, as the runtime's executor does on the CPU).
// Output:    a result the caller keeps; memory provided per run, outside the arena.
// Arena:     an intermediate living in the device's arena at `offset`, for its lifetime only.
// Workspace: scratch memory of one step (e.g. im2col), in the arena.
// View:      no memory of its own: a (shape, strides, offset) view of slot `base`
//            (Reshape/Permute/Slice outputs, and in-place outputs such as an updated weight).
enum class SlotKind : uint8_t { Input, Output, Arena, Workspace, View };
const char* slot_kind_name(SlotKind k);

struct BufferSlot {
  int id = -1;
  SlotKind kind = SlotKind::Arena;
  TensorInfo info;
  size_t bytes = 0;           // info.nbytes() rounded up to `alignment`
  size_t alignment = 64;
  size_t offset = 0;          // Arena / Workspace: byte offset into the device's arena
  int base = -1;              // View: the slot viewed
  Strides strides;            // View: element strides over base (Input/Output/Arena: contiguous)
  int64_t view_offset = 0;    // View: element offset into base
  int first_step = -1;        // lifetime, inclusive, in step indices (-1: before the first step)
  int last_step = -1;         //   (outputs and inputs live to the end of the plan)
  ValueId value = kNoValue;   // the graph value this slot holds
  std::string name;
};

struct PlanStep {
  const OpSchema* schema = nullptr;
  Attrs attrs;
  std::vector<int> inputs;    // slot ids
  std::vector<int> outputs;   // slot ids
  int workspace = -1;         // slot id, or -1
  NodeMeta meta;
  int fusion_group = -1;      // a fused step (attrs "fused", fusion.h): its number among the
                              // plan's fused steps, each its own; -1 for an unfused step
  const std::string& op() const { return schema->name; }
};

struct PrintOptions {
  bool buffers = true;        // the buffer table after the steps
  int max_steps = -1;         // -1: all
};

struct Plan {
  std::vector<PlanStep> steps;
  std::vector<BufferSlot> slots;
  std::vector<int> input_slots;     // bound by the caller, in the order of `input_values`
  std::vector<ValueId> input_values;
  // Each input's leaf kind: Parameter and State inputs (weights, running statistics, an
  // optimizer's learning-rate tensor) persist across steps; Input ones are each step's data.
  std::vector<ValueKind> input_kinds;
  std::vector<int> output_slots;    // returned to the caller, in the order requested
  std::vector<ValueId> output_values;
  std::map<Device, size_t> arena_bytes;       // one arena per device
  std::map<Device, size_t> peak_live_bytes;   // max over steps of live arena bytes (lower bound)
  std::map<Device, size_t> external_bytes;    // inputs + outputs (not in the arena)
  uint64_t signature = 0;
  std::string notes;    // what the compiler decided, e.g. "checkpointing: 6 segments, 40 nodes recomputed"
  int recomputed_steps = 0;
  // A plan checkpointed to fit CompileOptions::memory_budget: what the plan without checkpointing
  // needs (plan_budget_bytes). 0 for a plan that is not checkpointed.
  size_t unlimited_need = 0;

  // The slot that owns `slot`'s memory: itself, or the end of its chain of View bases.
  int root_slot(int slot) const;
  // Arena + external bytes on a device: what a run needs at its peak.
  size_t predicted_peak_bytes(const Device& d) const;
  size_t predicted_peak_bytes() const;  // summed over devices
  std::string str(const PrintOptions& opts = {}) const;
  std::string dot() const;  // Graphviz
};

std::string format_bytes(size_t bytes);  // "1.50 MiB"

}  // namespace glassgrad
