// Collective kernels on the CPU (ops/collective.cpp in the engine says what they compute).
//   BucketPack: flat[off_i : off_i + numel(g_i)] = g_i (row-major), off_i = sum_{j<i} numel(g_j).
//   AllReduce:  out = x, then the group's communicator reduces out in place across the ranks
//               (it returns when the result is there: the CPU has no streams).
//   AllReduceWait: out = x (the CPU communicators finish inside AllReduce).
// Empty tensors have no storage (data_ptr() is null), and memcpy from or to a null pointer is
// undefined even for 0 bytes (C17 7.24.1p2), so every copy goes through copy_bytes.
#include <cstring>

#include "cpu/registration.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/families/collective.h"
#include "glassgrad/runtime/communicator.h"
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {

namespace {

void copy_bytes(void* dst, const void* src, size_t n) {
  if (n > 0 && dst != src) std::memcpy(dst, src, n);
}

void pack_bucket(const KernelContext& c) {
  char* dst = static_cast<char*>(c.outputs[0].data_ptr());
  for (const Tensor& g : c.inputs) {  // dense: the schema does not accept strided inputs
    copy_bytes(dst, g.data_ptr(), g.nbytes());
    dst += g.nbytes();
  }
}

void reduce_over_ranks(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& out = c.outputs[0];
  copy_bytes(out.data_ptr(), x.data_ptr(), x.nbytes());
  const std::string where = node_where("AllReduce", c.meta.scope);
  const CollectiveAttrs a = CollectiveAttrs::from(c.attrs);
  communicator(a.group, where)->all_reduce(out.data_ptr(), out.numel(), out.dtype(),
                                           a.average ? ReduceOp::Average : ReduceOp::Sum, nullptr);
}

void copy_after_wait(const KernelContext& c) {
  copy_bytes(c.outputs[0].data_ptr(), c.inputs[0].data_ptr(), c.inputs[0].nbytes());
}

// The same kernels for every dtype: they move bytes.
template <typename>
constexpr KernelFn bucket_pack = pack_bucket;
template <typename>
constexpr KernelFn all_reduce = reduce_over_ranks;
template <typename>
constexpr KernelFn all_reduce_wait = copy_after_wait;

}  // namespace

void register_cpu_collective_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/collective.def"
}

}  // namespace glassgrad
