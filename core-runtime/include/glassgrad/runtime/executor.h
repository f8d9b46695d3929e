// Executor: runs a Plan (glassgrad/autodiff/plan.h) step by step with the registered kernels.
// Intermediates live in one arena per device, shared by every executor on that device and
// grown on demand (plans run one at a time). Inputs are bound per run; outputs are freshly
// allocated per run, so results survive the next run.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "glassgrad/autodiff/passes.h"
#include "glassgrad/autodiff/plan.h"
#include "glassgrad/runtime/arena.h"
#include "glassgrad/runtime/host_copy.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/settings.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// Called after each step a plan executes, with the step's index, the step (op, attributes, layer
// scope, source line, role), its inputs as the step read them (an input whose memory the step
// overwrote, in place or by buffer reuse, is passed as a copy taken before the step) and its
// outputs. The debugging aids ride on it (glassgrad/runtime/debug.h: the NaN/Inf anomaly mode,
// Python hooks). Process-wide; when none is set a run pays one pointer check per step. While one
// is set, plans run step by step (no CUDA graph replay), so it sees every step.
using StepObserver = std::function<void(size_t index, const Plan& plan, const PlanStep& step,
                                        const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs)>;
void set_step_observer(StepObserver observer);  // an empty function removes it

struct ExecutorOptions {
  // Fill every arena buffer with NaN (floats) / 0xFF bytes once its lifetime ends, so a
  // liveness bug shows up as wrong numbers instead of passing by luck.
  bool poison_freed = false;
};

// Whether runs of `plan` replay a CUDA graph once warmed up (all of it on one CUDA device whose
// driver has graphs, graphs on, freed buffers not poisoned).
bool runs_as_cuda_graph(const Plan& plan);

// Whole-step CUDA graphs: a plan that runs entirely on one CUDA device is run kernel by kernel
// twice (warm-up, and to see which inputs keep their address from run to run), then captured
// as one CUDA graph and replayed with a single launch from then on. Inputs whose address moves
// (a new batch) are copied into the graph's own input buffers before each replay; outputs are
// written to the graph's buffers and copied out into fresh tensors. A replay needs the same
// arena and the same addresses for the inputs that kept theirs (parameters, optimizer state);
// otherwise the executor runs the plan step by step and captures again. GLASSGRAD_CUDA_GRAPHS=0
// turns graphs off.
//
// Early host reads (host_copy.h, executor_reads.cpp): a small output on a GPU that the host read
// after an earlier run is copied into pinned memory right after the last step that writes it, and
// the returned tensor's storage carries that copy; a graph replay then launches as two graphs, the
// steps up to that one and the rest, with the copy queued between them.
class Executor {
 public:
  explicit Executor(std::shared_ptr<const Plan> plan, ExecutorOptions opts = {});
  ~Executor();
  // inputs: in plan().input_values order, with the planned shapes and dtypes.
  // Returns the outputs in plan().output_values order. With `wanted`, outputs whose entry is 0
  // may come back undefined (a replay then skips copying them out).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const std::vector<char>* wanted = nullptr);
  // A dry run: no kernel runs and no arena is taken. Returns the outputs as run() binds them:
  // uninitialized tensors of the planned shapes, and views of the inputs for outputs that alias
  // one (in-place updates). glassgrad.plan_only (memory reports) runs plans this way.
  std::vector<Tensor> dry_run(const std::vector<Tensor>& inputs);
  const Plan& plan() const { return *plan_; }
  // Whether runs now replay a captured CUDA graph, how many replays there were, and how many
  // times a graph was captured (more than 1: recaptured after an arena or a stable input moved).
  bool graph_captured() const;
  int graph_replays() const;
  int graph_captures() const;
  // Workspace size callback for compile(): asks each kernel what scratch it needs.
  static WorkspaceFn workspace_fn();
  // Per output: the index of the last step that writes its buffer, after which its value is
  // complete (-1: no step writes it, e.g. a view of an input).
  const std::vector<int>& output_ready_steps() const { return ready_step_; }
  // Per output, its early host read: "" (not a candidate: not a small buffer of its own on a GPU),
  // "idle", "wanted" (read after a run without a copy), "made" (copied, not read yet), "read".
  std::vector<std::string> early_read_states() const;

 private:
  struct GraphState;
  struct Reads;  // the early copies of one run (executor_reads.cpp)
  std::vector<Tensor> run_steps(const std::vector<Tensor>& inputs, Reads* reads = nullptr);
  // The tensor of every slot. Without an arena (a dry run), arena slots stay undefined and a
  // view of one becomes a fresh tensor of its shape.
  std::vector<Tensor> bind(const std::vector<Tensor>& inputs, const std::map<int, Tensor>& outputs,
                           bool with_arena = true);
  // bind() into t: a vector of every slot's tensor (fresh ones default-constructed), where
  // `laid_out` says that t holds this plan's slots from an earlier run (released, layouts kept):
  // those are rebound (Tensor::rebind) instead of made again.
  void bind_into(std::vector<Tensor>& t, bool laid_out, const std::vector<Tensor>& inputs,
                 const std::map<int, Tensor>& outputs, bool with_arena);
  // Runs steps [begin, end) (end clipped to the plan's); with `reads` asking for copies, they are
  // queued right after step reads->split.
  void execute(std::vector<Tensor>& t, bool poison_now, void* error_word, Reads* reads = nullptr, size_t begin = 0,
               size_t end = SIZE_MAX);
  void execute_steps(std::vector<Tensor>& t, bool poison_now, void* error_word,
                     const std::shared_ptr<const StepObserver>& observer,
                     const std::vector<std::vector<int>>& dies_after, std::map<int, Tensor>* undo, size_t begin,
                     size_t end);
  // Whole-step CUDA graphs (executor_graph.cpp).
  std::vector<Tensor> run_graph(const std::vector<Tensor>& inputs, const std::vector<char>* wanted, Reads* reads);
  // Captures steps [0, split] and (split, end) as two graphs when split >= 0, else one.
  bool capture_graph(const std::vector<Tensor>& inputs, const void* arena_ptr, int split);
  void* capture_part(size_t begin, size_t end);
  std::vector<Tensor> replay_graph(const std::vector<Tensor>& inputs, const std::vector<char>* wanted, Reads* reads);
  // Early host reads (executor_reads.cpp).
  void init_reads();
  Reads plan_reads(const std::vector<char>* wanted);
  void queue_reads(Reads& reads, const std::vector<Tensor>& slots, const void* error_word);
  void attach_reads(const Reads& reads, const std::vector<Tensor>& results);
  std::vector<int> ready_step_;
  std::vector<std::shared_ptr<ReadWish>> wishes_;           // per output; null: not a candidate
  std::vector<std::shared_ptr<const HostCopy>> unread_marks_;  // per candidate: a HostCopy without a copy
  std::vector<size_t> host_copy_drops_;  // plan inputs whose buffer some step writes: their early copies go
  std::shared_ptr<const Plan> plan_;
  ExecutorOptions opts_;
  std::vector<const KernelEntry*> kernels_;  // one per step
  // Per plan input: whether a strided view may be bound as it is (a CPU input that only steps
  // whose schemas take strided inputs read, that no step updates in place and that is not
  // returned); other views are copied into contiguous tensors first.
  std::vector<char> strided_input_ok_;
  std::vector<size_t> updated_inputs_;  // plan inputs some step writes in place
  bool updated_elsewhere(const std::vector<Tensor>& raw_inputs, const Tensor& x) const;
  // Step i starts a run of steps [i, batch_end_[i]) that one KernelEntry::batch call executes
  // (more than one step: see batch_runs in executor.cpp); batch_end_[i] = i + 1 otherwise.
  std::vector<size_t> batch_end_;
  std::vector<std::string> slot_names_;       // what each buffer holds, for the allocation log
  // Per arena or workspace slot: its strides and element offset in the arena, which depend on
  // the plan only (bind() made them again every run); empty strides for other slots.
  std::vector<Strides> arena_strides_;
  std::vector<int64_t> arena_offsets_;
  // The slot tensors of the last finished run, each released (it holds no memory: an arena
  // replaced since is freed) with its layout kept, so the next run binds without allocating a
  // shape and strides per slot. A run takes them under spare_mutex_; a run started while another
  // holds them (a hook, another thread) binds fresh tensors.
  std::vector<Tensor> spare_slots_;
  std::mutex spare_mutex_;
  std::unique_ptr<GraphState> graph_;
};



}  // namespace glassgrad
