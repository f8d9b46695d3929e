// Executor: runs a Plan (glassgrad/autodiff/plan.h) step by step with the registered kernels.
// Intermediates live in one arena per device, shared by every executor on that device and
// grown on demand (plans run one at a time). Inputs are bound per run; outputs are freshly
// allocated per run, so results survive the next run.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glassgrad/autodiff/passes.h"
#include "glassgrad/autodiff/plan.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// Called after each step a plan executes, with the step's index, the step (op, attributes, layer
// scope, source line, role), its inputs as the step read them (an input whose memory the step
// overwrote, in place or by buffer reuse, is passed as a copy taken before the step) and its
// outputs. The debugging aids ride on it (glassgrad/runtime/debug.h: the NaN/Inf anomaly mode,
// Python hooks). Process-wide; when none is set a run pays one pointer check per step.
using StepObserver = std::function<void(size_t index, const Plan& plan, const PlanStep& step,
                                        const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs)>;
void set_step_observer(StepObserver observer);  // an empty function removes it

struct ExecutorOptions {
  // Fill every arena buffer with NaN (floats) / 0xFF bytes once its lifetime ends, so a
  // liveness bug shows up as wrong numbers instead of passing by luck.
  bool poison_freed = false;
};

class Executor {
 public:
  explicit Executor(std::shared_ptr<const Plan> plan, ExecutorOptions opts = {});
  // inputs: in plan().input_values order, with the planned shapes and dtypes (contiguous).
  // Returns the outputs in plan().output_values order.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  const Plan& plan() const { return *plan_; }
  // Workspace size callback for compile(): asks each kernel what scratch it needs.
  static WorkspaceFn workspace_fn();

 private:
  std::shared_ptr<const Plan> plan_;
  ExecutorOptions opts_;
  std::vector<const KernelEntry*> kernels_;  // one per step
  std::vector<std::string> slot_names_;       // what each buffer holds, for the allocation log
};

// Debug mode for every executor: poison arena buffers as soon as their lifetime ends (as
// ExecutorOptions::poison_freed). Also on when GLASSGRAD_POISON_FREED=1 is set.
void set_poison_freed(bool on);
bool poison_freed();

// The arena of a device: one growing buffer from the device's allocator.
Tensor arena_for(const Device& d, size_t bytes);
size_t arena_bytes(const Device& d);  // held now (0 if none)
void release_arenas();

}  // namespace glassgrad
