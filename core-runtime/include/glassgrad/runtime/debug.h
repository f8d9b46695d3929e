// Debugging aids of the runtime (glassgrad.debug in Python):
//
//   stats_of(t)           min/max/mean/std of the finite elements, NaN and Inf counts
//   step observers        any number of callbacks run after each executed plan step, composed
//                         into the executor's one StepObserver (executor.h); Python hooks and the
//                         anomaly mode are observers
//   anomaly mode          after each step, its float outputs are scanned for NaN/Inf; the first
//                         step that produced one stops the run with a NonFiniteError naming the
//                         op, the layer, the source line, forward/backward, and its inputs' stats
//   buffer labels         what each plan buffer holds ("conv1/Conv2D.y"), for the allocation log
//                         and for messages
//   check_memory_limit    run by the executor before a plan: if running it would go over the
//                         allocator's limit, throws OutOfMemoryError naming the need, the limit,
//                         the largest buffers and their layers, and the options
//
// Not thread-safe (like the lazy tracer): used from the Python thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/plan.h"
#include "glassgrad/runtime/executor.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// A computation produced NaN or Inf (anomaly mode, check_nan_gradients). Python:
// glassgrad.debug.NonFiniteError, a GlassgradError and a FloatingPointError.
class NonFiniteError : public Error {
  using Error::Error;
};

namespace debug {

struct TensorStats {
  TensorInfo info;
  int64_t count = 0;    // elements
  int64_t nan = 0;
  int64_t pos_inf = 0;
  int64_t neg_inf = 0;
  int64_t finite = 0;   // min/max/mean/std are over these (NaN when there are none)
  double min = 0, max = 0, mean = 0, std = 0;  // std: population (divides by `finite`)
  int64_t inf() const { return pos_inf + neg_inf; }
  bool all_finite() const { return nan == 0 && inf() == 0; }
  // "min -1.25 max 3.5 mean 0.1 std 0.98  nan 0 inf 0" (+inf/-inf split when there are some)
  std::string str() const;
};
// Works for every dtype, any strides, any device (copies to the CPU first).
TensorStats stats_of(const Tensor& t);

// Observers run after each executed step, in the order they were added.
int add_step_observer(StepObserver observer);  // returns an id for remove_step_observer
void remove_step_observer(int id);
// The host wall time, in seconds, of the kernel call of the step an observer is being called for
// (the executor times it only while an observer is installed, and excludes the observer's own
// copies; per thread). On a GPU the call launches the kernel, so this is launch time, not kernel time.
double last_step_seconds();
void set_last_step_seconds(double seconds);  // the executor, before it calls the observers

void set_detect_anomaly(bool on);
bool detect_anomaly();
// The check the anomaly mode runs after a step; throws NonFiniteError at the first float output
// holding NaN or Inf.
void check_step_outputs(size_t index, const Plan& plan, const PlanStep& step, const std::vector<Tensor>& inputs,
                        const std::vector<Tensor>& outputs);
// How messages name a step: op, layer, role and the line that recorded it.
std::string describe_step(const Plan& plan, size_t index);  // "Log 'head' (forward, recorded at a.py:3)"

// What each slot of a plan holds: its value's name ("conv1.weight"), else the producing step's
// layer, op and output ("conv1/Conv2D.y"), "workspace of Conv2D 'conv1'", "view of ...".
std::vector<std::string> buffer_labels(const Plan& plan);

struct BufferUse {
  int slot = -1;
  size_t bytes = 0;
  std::string label;   // buffer_labels()
  std::string where;   // "Conv2D 'conv1' (forward)" or "parameter", "plan input"
};
// The k largest buffers a plan uses on a device (inputs, outputs, arena and workspace slots).
std::vector<BufferUse> largest_buffers(const Plan& plan, const Device& d, size_t k);

// What running `plan` would hold on `d` at its peak, from `held` bytes in use before it: minus
// an arena it replaces (freed first), plus the new arena, the outputs, and, for a plan replayed
// as a CUDA graph, the graph's own output buffers (the outputs are copied out of them). The one
// prediction behind the memory limit's check and glassgrad.memory_report.
struct MemoryNeed {
  size_t held = 0;
  size_t arena_freed = 0;    // the arena held now, when the plan replaces it
  size_t arena_new = 0;      // the arena the plan allocates (0: it reuses the one held)
  size_t outputs = 0;
  size_t graph_outputs = 0;
  size_t total() const;
};
MemoryNeed memory_need(const Plan& plan, const Device& d, size_t held);
// What a run of the plan takes from d's allocator besides its arena: its outputs, twice for a
// plan replayed as a CUDA graph (it hands out copies of the outputs it keeps). arena_for's
// `also_allocated`, so the check before a run and the run agree on the arena (0 when d has no limit).
size_t allocated_besides_arena(const Plan& plan, const Device& d);
// memory_need(plan, d, bytes in use now).total()
size_t predicted_need(const Plan& plan, const Device& d);
// Throws OutOfMemoryError before anything runs when predicted_need() exceeds a device's limit.
// graph_outputs_held: the plan's captured CUDA graph already holds its output buffers (they are
// in the memory in use), so a replay adds only the outputs it copies out.
void check_memory_limit(const Plan& plan, bool graph_outputs_held = false);
// The compiler's "does not fit in its memory budget" message, completed with what the plain
// (unbudgeted) plan would hold: its largest buffers and their layers, and the memory held
// outside the step, which a limit must also cover.
std::string explain_over_budget(const std::string& compiler_message, const Plan& plain, const Device& d);

}  // namespace debug
}  // namespace glassgrad
