// Early host reads of an executor's outputs (glassgrad/runtime/host_copy.h, docs/cuda.md "Early
// host reads"): which outputs a run copies, where in the run, and handing the copies out.
//
// Ordering invariant: an output's copy is queued on the device's stream after the last step that
// writes its buffer (output_ready_steps) and before any later step is launched; nothing after that
// step writes the buffer, so the copy holds the value the run returns.
#include <algorithm>

#include "executor_reads.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/executor.h"
#include "glassgrad/runtime/pinned_memory.h"

namespace glassgrad {

void Executor::init_reads() {
  const Plan& p = *plan_;
  std::vector<int> last_write(p.slots.size(), -1);
  for (size_t i = 0; i < p.steps.size(); ++i) {
    for (int o : p.steps[i].outputs) last_write[static_cast<size_t>(p.root_slot(o))] = static_cast<int>(i);
  }
  ready_step_.clear();
  wishes_.assign(p.output_slots.size(), nullptr);
  unread_marks_.assign(p.output_slots.size(), nullptr);
  for (size_t i = 0; i < p.output_slots.size(); ++i) {
    const int slot = p.output_slots[i];
    const BufferSlot& s = p.slots[static_cast<size_t>(slot)];
    ready_step_.push_back(last_write[static_cast<size_t>(p.root_slot(slot))]);
    // A buffer of its own (not a view of another output or of an input), small, on a GPU.
    if (s.kind != SlotKind::Output || !s.info.device.is_cuda() || s.info.nbytes() > kEarlyReadBytes ||
        ready_step_.back() < 0) {
      continue;
    }
    wishes_[i] = std::make_shared<ReadWish>();
    auto mark = std::make_shared<HostCopy>();
    mark->wish = wishes_[i];
    unread_marks_[i] = std::move(mark);
  }
  host_copy_drops_.clear();
  for (size_t k = 0; k < p.input_slots.size(); ++k) {
    if (last_write[static_cast<size_t>(p.input_slots[k])] >= 0) host_copy_drops_.push_back(k);
  }
  if (std::all_of(wishes_.begin(), wishes_.end(), [](const auto& w) { return w == nullptr; })) wishes_.clear();
}

Executor::Reads Executor::plan_reads(const std::vector<char>* wanted) {
  Reads r;
  r.wanted = wanted;
  if (wishes_.empty() || !early_reads_enabled()) return r;
  for (size_t i = 0; i < wishes_.size(); ++i) {
    if (!wishes_[i] || (wanted && !(*wanted)[i]) || !wishes_[i]->requested()) continue;
    r.outputs.push_back(i);
    r.split = std::max(r.split, ready_step_[i]);
  }
  return r;
}

void Executor::queue_reads(Reads& r, const std::vector<Tensor>& slots, const void* error_word) {
  r.blocks.assign(r.outputs.size(), Tensor());
  r.error_word = error_word != nullptr;
  for (size_t j = 0; j < r.outputs.size(); ++j) {
    const size_t i = r.outputs[j];
    const Tensor& src = slots[static_cast<size_t>(plan_->output_slots[i])];
    const size_t bytes = error_word_offset(src.nbytes()) + sizeof(int64_t);
    Tensor block;
    try {
      block = empty_pinned({static_cast<int64_t>(bytes)}, DType::UInt8, "early host read");
    } catch (const Error&) {
      continue;  // no pinned memory now: this output is read the ordinary way
    }
    cuda::copy_to_host_async(block, src, error_word);
    r.blocks[j] = std::move(block);
    wishes_[i]->state = ReadWish::kMade;
  }
}

void Executor::attach_reads(const Reads& r, const std::vector<Tensor>& results) {
  for (size_t i = 0; i < wishes_.size() && i < results.size(); ++i) {
    if (!wishes_[i] || !results[i].storage()) continue;
    std::shared_ptr<const HostCopy> copy = unread_marks_[i];
    for (size_t j = 0; j < r.outputs.size() && j < r.blocks.size(); ++j) {
      if (r.outputs[j] != i || !r.blocks[j].defined()) continue;
      auto made = std::make_shared<HostCopy>();
      made->block = r.blocks[j];
      made->data_bytes = results[i].nbytes();
      made->error_word = r.error_word;
      made->wish = wishes_[i];
      copy = std::move(made);
    }
    results[i].storage()->set_host_copy(std::move(copy));
  }
}

std::vector<std::string> Executor::early_read_states() const {
  static const char* const kNames[] = {"idle", "wanted", "made", "read"};
  std::vector<std::string> out(plan_->output_slots.size());
  for (size_t i = 0; i < wishes_.size(); ++i) {
    if (wishes_[i]) out[i] = kNames[wishes_[i]->state.load()];
  }
  return out;
}

}  // namespace glassgrad
