// The pinned host memory allocator of pinned_memory.h: blocks from cuMemHostAlloc, cached by
// size, each with the events recorded after the asynchronous copies that read it.
//
// Invariant: a block is in `free_` only when no tensor holds it; it leaves `free_` only when
// every event in its `reads` has completed (cuEventQuery), so no queued copy still reads it.
// Registered ranges (register_pinned_range) are blocks too, never in `free_`: their memory
// belongs to the caller, who unregisters them.
// Sizes are rounded up to a power of two (at least 4 KiB) so batches of one shape reuse blocks.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuda/backend.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/pinned_memory.h"

namespace glassgrad {
namespace cuda {
namespace {

constexpr unsigned int CU_MEMHOSTALLOC_PORTABLE = 0x01;     // usable from every context
constexpr unsigned int CU_MEMHOSTREGISTER_PORTABLE = 0x01;  // likewise, for a registered range
constexpr size_t kMinBlock = size_t(1) << 12;

struct Block {
  void* ptr = nullptr;
  size_t size = 0;
  std::vector<CUevent> reads;  // events after copies queued from this block, not yet known done
  bool registered = false;     // a caller's range locked in place (not from cuMemHostAlloc)
};

class PinnedPool {
 public:
  std::shared_ptr<Storage> allocate(size_t nbytes, const std::string& name) {
    const size_t size = rounded(nbytes);
    Block* b = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      b = reuse(size);
    }
    if (b == nullptr) b = fresh(size);
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_use_bytes_ += static_cast<int64_t>(b->size);
    }
    return Storage::wrap(b->ptr, nbytes, Device::cpu(), [this, b] { release(b); }, name);
  }

  bool holds(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    return containing(p) != nullptr;
  }

  bool register_range(void* p, size_t n) {
    if (api().cuMemHostRegister == nullptr || api().cuMemHostUnregister == nullptr || n == 0) return false;
    make_current(state(0));  // portable: every context sees the range as pinned
    if (api().cuMemHostRegister(p, n, CU_MEMHOSTREGISTER_PORTABLE) != CUDA_SUCCESS) return false;
    auto block = std::make_unique<Block>();
    block->ptr = p;
    block->size = n;
    block->registered = true;
    std::lock_guard<std::mutex> lock(mu_);
    blocks_[p] = std::move(block);
    return true;
  }

  void unregister_range(void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.find(p);
    if (it == blocks_.end() || !it->second->registered) return;
    Block* b = it->second.get();
    for (CUevent e : b->reads) check(api().cuEventSynchronize(e), "waiting for a copy from registered memory");
    reads_done(b);
    api().cuMemHostUnregister(p);
    blocks_.erase(it);
  }

  bool note_read(const void* host, CUstream stream) {
    std::lock_guard<std::mutex> lock(mu_);
    Block* b = containing(host);
    if (b == nullptr) return false;
    if (api().cuEventCreate == nullptr || api().cuEventQuery == nullptr || api().cuEventRecord == nullptr) {
      // No events: wait for the copy here, so the block is free to reuse when its tensor dies.
      check(api().cuStreamSynchronize(stream), "waiting for a copy from pinned memory");
      return true;
    }
    reads_done(b);  // a long-lived block copied every step keeps only the copies in flight
    any_reads_.store(true, std::memory_order_release);
    CUevent e = take_event();
    check(api().cuEventRecord(e, stream), "recording a pinned-memory copy");
    b->reads.push_back(e);
    return true;
  }

  void wait_reads(const void* host) {
    // No copy was ever noted: nothing to wait for, without the lock and the lookup (a CPU
    // plan's realize asks for every buffer an in-place update writes, every step).
    if (!any_reads_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(mu_);
    Block* b = containing(host);
    if (b == nullptr || b->reads.empty()) return;
    for (CUevent e : b->reads) check(api().cuEventSynchronize(e), "waiting for a copy from pinned memory");
    reads_done(b);
  }

  PinnedMemoryStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    PinnedMemoryStats s;
    s.blocks = static_cast<int64_t>(blocks_.size());
    s.bytes_in_use = in_use_bytes_;
    for (const auto& f : free_) s.bytes_cached += static_cast<int64_t>(f.first);
    s.allocations = allocations_;
    return s;
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = free_.begin(); it != free_.end();) {
      Block* b = it->second;
      if (!reads_done(b)) {
        ++it;
        continue;
      }
      api().cuMemFreeHost(b->ptr);
      blocks_.erase(b->ptr);
      it = free_.erase(it);
    }
  }

 private:
  // The block holding `host`, or nullptr. Caller holds mu_.
  Block* containing(const void* host) {
    auto it = blocks_.upper_bound(host);  // the block starting after `host`
    if (it == blocks_.begin()) return nullptr;
    --it;
    Block* b = it->second.get();
    if (static_cast<const char*>(host) >= static_cast<const char*>(b->ptr) + b->size) return nullptr;
    return b;
  }

  static size_t rounded(size_t n) {
    size_t s = kMinBlock;
    while (s < n) s <<= 1;
    return s;
  }

  // Drops the events of finished copies; true when none is left in flight. Caller holds mu_.
  bool reads_done(Block* b) {
    auto& r = b->reads;
    if (r.empty()) return true;
    auto done = std::partition(r.begin(), r.end(), [](CUevent e) { return api().cuEventQuery(e) == CUDA_ERROR_NOT_READY; });
    for (auto it = done; it != r.end(); ++it) spare_events_.push_back(*it);
    r.erase(done, r.end());
    return r.empty();
  }

  // A cached block of exactly `size` bytes whose copies have finished. Caller holds mu_.
  Block* reuse(size_t size) {
    auto range = free_.equal_range(size);
    for (auto it = range.first; it != range.second; ++it) {
      Block* b = it->second;
      if (reads_done(b)) {
        free_.erase(it);
        return b;
      }
    }
    return nullptr;
  }

  Block* fresh(size_t size) {
    DeviceState& s = state(0);  // a context must be current; portable blocks serve every device
    make_current(s);
    void* p = nullptr;
    CUresult r = api().cuMemHostAlloc(&p, size, CU_MEMHOSTALLOC_PORTABLE);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {  // give the idle cached blocks back and try once more
      empty_cache();
      r = api().cuMemHostAlloc(&p, size, CU_MEMHOSTALLOC_PORTABLE);
    }
    if (r != CUDA_SUCCESS) {
      const std::string what = "pin_memory: cannot allocate " + std::to_string(size) + " bytes of page-locked host memory (" +
                               result_string(r) + ")";
      if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        throw OutOfMemoryError(ErrorMessage(what)
                                   .cause("the operating system limits how much memory may be locked")
                                   .fix("DataLoader(pin_memory=False), or smaller batches")
                                   .str());
      }
      check(r, what);
    }
    auto block = std::make_unique<Block>();
    block->ptr = p;
    block->size = size;
    Block* raw = block.get();
    std::lock_guard<std::mutex> lock(mu_);
    blocks_.emplace(p, std::move(block));
    ++allocations_;
    return raw;
  }

  void release(Block* b) {
    std::lock_guard<std::mutex> lock(mu_);
    in_use_bytes_ -= static_cast<int64_t>(b->size);
    free_.emplace(b->size, b);
  }

  CUevent take_event() {
    if (!spare_events_.empty()) {
      CUevent e = spare_events_.back();
      spare_events_.pop_back();
      return e;
    }
    constexpr unsigned int CU_EVENT_DISABLE_TIMING = 0x2;
    CUevent e = nullptr;
    check(api().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "creating an event for a pinned-memory copy");
    return e;
  }

  std::mutex mu_;
  std::atomic<bool> any_reads_{false};  // set by the first note_read, never cleared
  std::map<const void*, std::unique_ptr<Block>> blocks_;  // every block held, by address
  std::multimap<size_t, Block*> free_;                     // blocks no tensor holds, by size
  std::vector<CUevent> spare_events_;
  int64_t in_use_bytes_ = 0;
  int64_t allocations_ = 0;
};

// Never destroyed: tensors may outlive static destruction, and the driver frees the memory at exit.
PinnedPool& pool() {
  static PinnedPool* p = new PinnedPool();
  return *p;
}

}  // namespace

bool note_pinned_read(const void* host, void* stream) {
  return pool().note_read(host, static_cast<CUstream>(stream));
}

}  // namespace cuda

bool pinned_memory_available() { return cuda::is_available(); }

Tensor host_staging(const Shape& shape, DType dtype, const Device& target, const std::string& name) {
  check_shape(shape, dtype, "host staging");
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const size_t bytes = static_cast<size_t>(n) * dtype_size(dtype);
  if (target.is_cuda() && bytes > 0 && bytes <= kStagedBytes && pinned_memory_available()) {
    try {
      return empty_pinned(shape, dtype, name);
    } catch (const Error&) {
      // The driver cannot lock it now (or lacks the calls): the copy goes from ordinary memory.
    }
  }
  return Tensor::empty(shape, dtype, Device::cpu(), name);
}

Tensor empty_pinned(const Shape& shape, DType dtype, const std::string& name) {
  check_shape(shape, dtype, "pin_memory");
  if (!cuda::is_available()) {
    throw DeviceError(ErrorMessage("pin_memory: page-locked memory needs a usable CUDA GPU")
                          .cause(cuda::why_unavailable())
                          .fix("leave pin_memory off on a machine without a GPU")
                          .str());
  }
  if (cuda::api().cuMemHostAlloc == nullptr || cuda::api().cuMemFreeHost == nullptr) {
    throw DeviceError(ErrorMessage("pin_memory: the CUDA driver has no cuMemHostAlloc / cuMemFreeHost")
                          .fix("update the NVIDIA driver, or leave pin_memory off")
                          .str());
  }
  auto storage = cuda::pool().allocate(nbytes(shape, dtype), name);
  return Tensor::from_storage(std::move(storage), shape, contiguous_strides(shape), 0, dtype);
}

bool register_pinned_range(void* host, size_t bytes) {
  if (host == nullptr || !cuda::is_available()) return false;
  return cuda::pool().register_range(host, bytes);
}

void unregister_pinned_range(void* host) {
  if (host != nullptr && cuda::is_available()) cuda::pool().unregister_range(host);
}

bool is_pinned(const Tensor& t) {
  return t.defined() && t.device().is_cpu() && t.storage()->data() != nullptr && cuda::pool().holds(t.storage()->data());
}

PinnedMemoryStats pinned_memory_stats() { return cuda::pool().stats(); }

void empty_pinned_cache() { cuda::pool().empty_cache(); }

void wait_pinned_reads(const void* host) {
  if (host != nullptr) cuda::pool().wait_reads(host);  // a block has events only where the driver has them
}

}  // namespace glassgrad
