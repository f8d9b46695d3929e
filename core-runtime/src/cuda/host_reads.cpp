// Early host reads on a GPU (glassgrad/runtime/host_copy.h): the copy queued mid-plan into pinned
// memory, and the host's wait for that copy alone.
#include <cstdint>
#include <cstring>

#include "cuda/backend.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/host_copy.h"
#include "glassgrad/runtime/pinned_memory.h"

namespace glassgrad {
namespace cuda {

namespace {
CUdeviceptr dptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }
}  // namespace

void copy_to_host_async(const Tensor& block, const Tensor& src, const void* error_word) {
  const size_t bytes = src.nbytes();
  const size_t need = error_word ? error_word_offset(bytes) + sizeof(int64_t) : bytes;
  if (!src.device().is_cuda() || !src.is_contiguous() || !block.device().is_cpu() || block.nbytes() < need) {
    throw InternalError("copy_to_host_async: needs a dense GPU source and a host block of " + std::to_string(need) +
                        " bytes, got " + src.info().str() + " and " + block.info().str());
  }
  DeviceState& s = state(src.device().index);
  make_current(s);
  auto* host = static_cast<unsigned char*>(block.data_ptr());
  if (bytes > 0) {
    check(api().cuMemcpyDtoHAsync(host, dptr(src.data_ptr()), bytes, s.stream),
          "early device-to-host copy of " + src.info().str());
  }
  if (error_word) {
    check(api().cuMemcpyDtoHAsync(host + error_word_offset(bytes), dptr(error_word), sizeof(int64_t), s.stream),
          "early copy of a captured graph's error word");
  }
  note_pinned_read(host, s.stream);  // the block stays out of reuse until the copies finished
}

void finish_host_copy(int index, const Tensor& block, size_t data_bytes, bool error_word) {
  wait_pinned_reads(block.data_ptr());
  bool errors = deferred_checks_pending(index);
  if (error_word) {
    int64_t word = -1;
    std::memcpy(&word, static_cast<const unsigned char*>(block.data_ptr()) + error_word_offset(data_bytes), sizeof word);
    errors = errors || word != -1;
  }
  if (errors) synchronize(index);  // reads the words and raises for the first error set, as every sync does
}

}  // namespace cuda
}  // namespace glassgrad
