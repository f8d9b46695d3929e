// Collective kernels on CUDA (ops/collective.cpp in the engine says what they compute). No
// device code: BucketPack is one device-to-device copy per gradient on the compute stream, and
// the reductions are the communicator's (NCCL: on its own stream, joined by AllReduceWait).
#include "cuda/launch.h"
#include "glassgrad/autodiff/families/collective.h"
#include "glassgrad/runtime/communicator.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

namespace {

CUdeviceptr dptr(const Tensor& t) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(t.data_ptr())); }

void copy_on(DeviceState& s, CUstream stream, const Tensor& dst, size_t offset, const Tensor& src) {
  if (src.nbytes() == 0) return;
  check(api().cuMemcpyDtoDAsync(dptr(dst) + offset, dptr(src), src.nbytes(), stream), "BucketPack: copying " + src.info().str());
  (void)s;
}

std::string where(const KernelContext& c, const char* op) {
  return node_where(op, c.meta.scope);
}

void bucket_pack(const KernelContext& c) {
  DeviceState& s = state_of(c);
  make_current(s);
  const CUstream stream = stream_of(s, &c);
  size_t off = 0;
  for (const Tensor& g : c.inputs) {
    copy_on(s, stream, c.outputs[0], off, g);
    off += g.nbytes();
  }
}

void all_reduce(const KernelContext& c) {
  DeviceState& s = state_of(c);
  make_current(s);
  const CUstream stream = stream_of(s, &c);
  const Tensor& out = c.outputs[0];
  if (out.data_ptr() != c.inputs[0].data_ptr()) copy_on(s, stream, out, 0, c.inputs[0]);
  const CollectiveAttrs a = CollectiveAttrs::from(c.attrs);
  const ReduceOp op = a.average ? ReduceOp::Average : ReduceOp::Sum;
  auto comm = communicator(a.group, where(c, "AllReduce"));
  if (a.bucket >= 0) {
    comm->all_reduce_async(out.data_ptr(), out.numel(), out.dtype(), op, stream, a.bucket);
  } else {
    comm->all_reduce(out.data_ptr(), out.numel(), out.dtype(), op, stream);
  }
}

void all_reduce_wait(const KernelContext& c) {
  DeviceState& s = state_of(c);
  make_current(s);
  const CUstream stream = stream_of(s, &c);
  const CollectiveAttrs a = CollectiveAttrs::from(c.attrs);
  communicator(a.group, where(c, "AllReduceWait"))->wait(a.bucket, stream);
  if (c.outputs[0].data_ptr() != c.inputs[0].data_ptr()) copy_on(s, stream, c.outputs[0], 0, c.inputs[0]);
}

}  // namespace

void add_collective_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/collective.def"
}

}  // namespace cuda
}  // namespace glassgrad
