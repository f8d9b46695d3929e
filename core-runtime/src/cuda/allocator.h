// Caching device allocator for one GPU. Accounting, the allocation log and the memory limit
// come from glassgrad::Allocator; this class only decides where bytes come from.
//
// Requests are rounded up to a size class (multiples of 512 B up to 1 MiB; above that, 8
// classes per power of two, so at most 12.5% is lost to rounding). A freed block goes to its
// class's free list instead of back to the driver, so a training loop that allocates the same
// shapes every step stops calling cuMemAlloc/cuMemFree (both synchronize the device) after the
// first step. Reuse is safe without events because every kernel and copy of the device runs on
// its one stream: work that used the old buffer is ordered before work that uses the new one.
// empty_cache() returns the free lists to the driver (the base class calls it and retries
// once when cuMemAlloc reports out of memory).
#pragma once
#include <map>
#include <mutex>
#include <vector>

#include "cuda/backend.h"
#include "glassgrad/runtime/allocator.h"

namespace glassgrad {
namespace cuda {

size_t size_class(size_t bytes);

class CachingAllocator final : public Allocator {
 public:
  explicit CachingAllocator(DeviceState& s);
  void empty_cache() override;

 protected:
  void* raw_allocate(size_t bytes) override;
  void raw_free(void* ptr, size_t bytes) noexcept override;
  size_t cached_bytes() const override;

 private:
  DeviceState& s_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // size class -> cached blocks
  size_t cached_ = 0;
};

}  // namespace cuda
}  // namespace glassgrad
