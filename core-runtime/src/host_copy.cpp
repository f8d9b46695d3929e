// The host's side of early host reads (glassgrad/runtime/host_copy.h).
#include "glassgrad/runtime/host_copy.h"

#include <cstring>

#include "glassgrad/runtime/cuda.h"

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
  if (src.nbytes() > 0) std::memcpy(out.data_ptr(), static_cast<const unsigned char*>(copy->block.data_ptr()) + begin, src.nbytes());
  if (copy->wish) copy->wish->state = ReadWish::kRead;
  return true;
}

}  // namespace glassgrad
