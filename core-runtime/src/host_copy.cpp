// The host's side of early host reads (glassgrad/runtime/host_copy.h).
#include "glassgrad/runtime/host_copy.h"

#include <cstring>

#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/pinned_memory.h"

namespace glassgrad {

bool read_host_copy(const Tensor& src, Tensor& out) {
  if (!src.storage() || !src.device().is_cuda()) return false;
  const std::shared_ptr<const HostCopy> copy = src.storage()->host_copy();  // held: a write may drop it meanwhile
  if (!copy) return false;
  if (!copy->block.defined()) {
    int idle = ReadWish::kIdle;
    if (copy->wish) copy->wish->state.compare_exchange_strong(idle, ReadWish::kWanted);
    return false;
  }
  const size_t begin = static_cast<size_t>(src.offset()) * src.itemsize();
  if (!src.is_contiguous() || begin + src.nbytes() > copy->data_bytes) return false;
  cuda::finish_host_copy(src.device().index, copy->block, copy->data_bytes, copy->error_word);
  out = Tensor::empty(src.shape(), src.dtype(), Device::cpu());
  const auto* bytes = static_cast<const unsigned char*>(copy->block.data_ptr());
  if (src.nbytes() > 0) std::memcpy(out.data_ptr(), bytes + begin, src.nbytes());
  if (copy->wish) copy->wish->state = ReadWish::kRead;
  if (is_pinned(copy->block)) {
    // Complete now: its bytes move to ordinary memory of their size, and the pinned block goes back
    // to its pool, so losses kept in a list hold no pinned memory and a second read stays early.
    auto kept = std::make_shared<HostCopy>();
    kept->block = Tensor::empty({static_cast<int64_t>(copy->data_bytes)}, DType::UInt8, Device::cpu());
    if (copy->data_bytes > 0) std::memcpy(kept->block.data_ptr(), bytes, copy->data_bytes);
    kept->data_bytes = copy->data_bytes;
    kept->wish = copy->wish;
    if (src.storage()->host_copy() == copy) src.storage()->set_host_copy(std::move(kept));
  }
  return true;
}

}  // namespace glassgrad
