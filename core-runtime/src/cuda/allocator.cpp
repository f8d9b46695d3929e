#include "cuda/allocator.h"

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

size_t size_class(size_t bytes) {
  if (bytes <= (size_t(1) << 20)) return (bytes + 511) / 512 * 512;
  size_t top = size_t(1) << 20;
  while (top < bytes) top <<= 1;          // bytes in (top/2, top]
  const size_t step = top / 16;           // 8 classes between top/2 and top
  return (bytes + step - 1) / step * step;
}

CachingAllocator::CachingAllocator(DeviceState& s) : Allocator(Device::cuda(s.index)), s_(s) {}

void* CachingAllocator::raw_allocate(size_t bytes) {
  const size_t cls = size_class(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(cls);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      cached_ -= cls;
      return p;
    }
  }
  make_current(s_);
  CUdeviceptr p = 0;
  const CUresult r = api().cuMemAlloc(&p, cls);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) return nullptr;  // the base class empties the cache and retries
  check(r, "cuMemAlloc of " + std::to_string(cls) + " bytes on cuda:" + std::to_string(s_.index));
  return reinterpret_cast<void*>(static_cast<uintptr_t>(p));
}

void CachingAllocator::raw_free(void* ptr, size_t bytes) noexcept {
  const size_t cls = size_class(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  free_[cls].push_back(ptr);
  cached_ += cls;
}

size_t CachingAllocator::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

void CachingAllocator::empty_cache() {
  std::map<size_t, std::vector<void*>> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(free_);
    cached_ = 0;
  }
  if (blocks.empty()) return;
  make_current(s_);
  // A cached block has no owner on the host, but kernels queued before its free may still be
  // using it on the stream: let them finish before the driver gets the memory back.
  api().cuStreamSynchronize(s_.stream);
  for (auto& kv : blocks)
    for (void* p : kv.second) api().cuMemFree(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)));
}

}  // namespace cuda
}  // namespace glassgrad
