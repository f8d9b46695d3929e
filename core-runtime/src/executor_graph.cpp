// Whole-step CUDA graphs (executor.h): a plan on one CUDA device runs step by step twice, is
// then captured as one graph, and replays from then on. The life of a graph, in order:
//   warm up     two step-by-step runs; the second tells which inputs kept their address
//   capture     bind every buffer the graph touches (staging buffers for the moving inputs,
//               graph-owned outputs, the error word) and record one step-by-step run
//   replay      copy the moving inputs into staging, one launch, lend the outputs; with early
//               host reads (executor_reads.cpp), two launches with their copies between
//   lend        an output that is a whole graph-owned buffer is returned as a lent storage viewing
//               it (storage.h, docs/cuda.md "Lent graph outputs"); the next run of the plan first
//               claims those still alive (a buffer of their own and a device copy), so outputs
//               that died (gradients after zero_grad) cost no allocation and no copy
//   re-split    early host reads asked for after another step than the graph's split: captured
//               again in two parts at that step (no warm-up)
//   recapture   when the arena or an input updated in place moved: drop the graph and warm up
//               again; when a read-only input bound directly moved: stage it, capture again
//   give up     when an input updated in place moves, or a kernel cannot be captured:
//               step by step from then on
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/debug.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/executor.h"
#include "glassgrad/runtime/settings.h"
#include "executor_graph.h"
#include "executor_reads.h"

namespace glassgrad {

bool runs_as_cuda_graph(const Plan& p) {
  return cuda_graphs_enabled() && !poison_freed() && graph_capturable(p);
}

Executor::~Executor() = default;

bool Executor::graph_captured() const { return graph_ && graph_->exec != nullptr; }
int Executor::graph_replays() const { return graph_ ? graph_->replays : 0; }
int Executor::graph_captures() const { return graph_ ? graph_->captures : 0; }

void* Executor::capture_part(size_t begin, size_t end) {
  GraphState& G = *graph_;
  cuda::begin_capture(G.device);
  try {
    execute(G.slots, false, G.error_word.data_ptr(), nullptr, begin, end);
  } catch (...) {
    cuda::abort_capture(G.device);
    throw;
  }
  return cuda::end_capture(G.device);
}

bool Executor::capture_graph(const std::vector<Tensor>& inputs, const void* arena_ptr, int split) {
  GraphState& G = *graph_;
  const Plan& p = *plan_;
  const Device dev = Device::cuda(G.device);
  // Everything the graph reads or writes is allocated first: capturing records addresses, so
  // they must stay valid (and unshared) for the graph's life.
  G.staging.assign(inputs.size(), Tensor());
  std::vector<Tensor> bound = inputs;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!G.stable[k]) {
      G.staging[k] = Tensor::empty(inputs[k].shape(), inputs[k].dtype(), dev, "graph input");
      bound[k] = G.staging[k];
    }
  }
  G.outputs.clear();
  for (const BufferSlot& s : p.slots) {
    if (s.kind == SlotKind::Output) G.outputs[s.id] = Tensor::empty(s.info.shape, s.info.dtype, dev, slot_names_[static_cast<size_t>(s.id)]);
  }
  if (!G.error_word.defined()) {
    G.error_word = Tensor::full({1}, -1.0, DType::Int64, dev, "graph error word");
    cuda::register_error_word(G.device, G.error_word.data_ptr(), "a captured plan");
  }
  G.slots = bind(bound, G.outputs);
  G.arena = arena_ptr;
  try {
    RetainScope keep(&G.retained);
    const size_t cut = split >= 0 ? static_cast<size_t>(split) + 1 : 0;
    if (cut > 0) G.prefix = capture_part(0, cut);
    G.exec = capture_part(cut, p.steps.size());
    G.split = split;
    ++G.captures;
  } catch (const std::exception&) {
    G.drop_graphs();
    G.failed = true;  // e.g. a kernel that cannot be captured: run step by step from now on
    return false;
  }
  return true;
}

std::vector<Tensor> Executor::replay_graph(const std::vector<Tensor>& inputs, const std::vector<char>* wanted,
                                           Reads* reads) {
  GraphState& G = *graph_;
  const Plan& p = *plan_;
  const Device dev = Device::cuda(G.device);
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!G.stable[k]) copy_tensor(G.staging[k], inputs[k]);
  }
  // Early host reads go after the prefix when it holds every step they need, else after the whole.
  const bool reading = reads && reads->split >= 0;
  const bool after_prefix = reading && G.prefix && reads->split <= G.split;
  if (G.prefix) cuda::launch_graph(G.device, G.prefix);
  if (after_prefix) queue_reads(*reads, G.slots, G.error_word.data_ptr());
  cuda::launch_graph(G.device, G.exec);
  if (reading && !after_prefix) queue_reads(*reads, G.slots, G.error_word.data_ptr());
  ++G.replays;
  const bool lend = lent_outputs_enabled();
  std::vector<Tensor> results;
  results.reserve(p.output_slots.size());
  for (size_t i = 0; i < p.output_slots.size(); ++i) {
    const int slot = p.output_slots[i];
    const Tensor& in_graph = G.slots[static_cast<size_t>(slot)];
    const int root = p.root_slot(slot);
    if (p.slots[static_cast<size_t>(root)].kind == SlotKind::Input) {
      results.push_back(in_graph);  // a view of a (stable) input, e.g. an updated parameter
    } else if (wanted && !(*wanted)[i]) {
      results.push_back(Tensor());
    } else if (lend && root == slot) {
      // A whole output buffer (views of one are copied as before: a lent view would share the
      // buffer with its siblings and hand out their layout).
      auto s = Storage::lend(in_graph.storage(), slot_names_[static_cast<size_t>(slot)]);
      G.lent.push_back(s);
      results.push_back(Tensor::from_storage(std::move(s), in_graph.shape(), in_graph.strides(), in_graph.offset(),
                                             in_graph.dtype()));
    } else {
      Tensor fresh = Tensor::empty(in_graph.shape(), in_graph.dtype(), dev, slot_names_[static_cast<size_t>(slot)]);
      copy_tensor(fresh, in_graph);
      results.push_back(fresh);
    }
  }
  return results;
}

std::vector<Tensor> Executor::run_graph(const std::vector<Tensor>& inputs, const std::vector<char>* wanted,
                                        Reads* reads) {
  GraphState& G = *graph_;
  G.claim_lent();  // before staging or an address check: a lent output may be one of the inputs
  if (G.failed) return run_steps(inputs, reads);
  const Device dev = Device::cuda(G.device);
  const Plan& p = *plan_;
  const bool has_arena = p.arena_bytes.count(dev) && p.arena_bytes.at(dev) > 0;
  const Tensor arena =
      has_arena ? arena_for(dev, p.arena_bytes.at(dev), debug::allocated_besides_arena(p, dev)) : Tensor();
  const void* arena_ptr = arena.defined() ? arena.data_ptr() : nullptr;
  G.drop_if_moved(p, inputs, arena_ptr);
  // Early host reads after a step before the last: the graph is split there (captured again in two
  // parts when it was split elsewhere or not at all; a split graph stays split when no read is asked).
  const int last = static_cast<int>(p.steps.size()) - 1;
  const int split = reads && reads->split >= 0 && reads->split < last ? reads->split : -1;
  if (G.exec && split >= 0 && split != G.split) {
    G.drop_graphs();
    G.retained.clear();
  }
  if (!G.exec) {
    if (G.warming(inputs)) return run_steps(inputs, reads);
    if (G.moving_inplace_target()) {
      G.failed = true;
      return run_steps(inputs, reads);
    }
    if (!capture_graph(inputs, arena_ptr, split)) return run_steps(inputs, reads);
  }
  return replay_graph(inputs, wanted, reads);
}

}  // namespace glassgrad
