// Early host reads (docs/cuda.md, "Early host reads"): a small output of a CUDA plan that the
// host reads (a loss's .item()) is copied into pinned host memory right after the steps that
// write it, while the rest of the plan (backward, the optimizer's updates) runs on; reading it
// waits for that copy only, not for the whole step.
//
// Invariants:
// - A HostCopy hangs on the device Storage whose bytes it copies (Storage::host_copy), set by the
//   executor when the plan that wrote the storage returns it. Every later write into the storage
//   drops it first: a plan that writes an input's buffer (Executor::run), copy_tensor and
//   fill_tensor into it, an eager op's in-place update. So a copy present equals the bytes.
// - The block is complete once every copy queued into it has finished (wait_pinned_reads on it):
//   the queued device-to-host copy is recorded as a pinned-memory use, so the block is never
//   handed out again while the copy may still write it.
// - The device's one stream keeps every other order: the next plan launches behind the running
//   one, and every other host read (a copy to the host, synchronize, memory reports) waits for
//   the whole stream as before.
#pragma once
#include <atomic>
#include <cstddef>
#include <memory>

#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// Outputs up to this size are candidates (a loss, an accuracy, a few logits).
constexpr size_t kEarlyReadBytes = size_t{64} << 10;

// Whether an output of an executor is copied early, learned from the host's reads: a read of an
// output that had no copy asks for one on the next runs; a run whose previous copy was never read
// stops copying (a loop that reads its loss every 500 steps pays for one unread copy each time).
struct ReadWish {
  enum State : int { kIdle = 0, kWanted = 1, kMade = 2, kRead = 3 };
  std::atomic<int> state{kIdle};
  // Whether the run starting now copies this output: kWanted or kRead ask for it; kMade (the
  // last copy was not read) goes back to kIdle.
  bool requested() {
    int s = state.load();
    if (s == kMade) state.compare_exchange_strong(s, kIdle);
    return s == kWanted || s == kRead;
  }
};

struct HostCopy {
  // A pinned block: the storage's first `data_bytes` bytes, then (when `error_word`) the int64
  // error word of the captured graph that computed them, at offset error_word_offset(data_bytes).
  // Undefined when no copy was made: the HostCopy then only carries the wish, so that reading the
  // storage asks for copies on the next runs. After the first read, ordinary memory holding the
  // bytes (no error word), the pinned block given back.
  Tensor block;
  size_t data_bytes = 0;
  bool error_word = false;
  std::shared_ptr<ReadWish> wish;
};

inline size_t error_word_offset(size_t data_bytes) { return (data_bytes + 7) / 8 * 8; }

// The host's read of src (a tensor on a GPU): true and `out` (a new CPU tensor) filled from the
// storage's early copy once it is complete, raising the device errors that copy carries (the
// graph's error word, deferred checks); false when there is no complete copy covering src, and
// then, if the storage carries a wish, the next runs of its plan copy that output early.
bool read_host_copy(const Tensor& src, Tensor& out);

// Drops the early copy of t's storage (a write into it follows).
inline void drop_host_copy(const Tensor& t) {
  if (t.storage() && t.storage()->host_copy()) t.storage()->drop_host_copy();
}

}  // namespace glassgrad
