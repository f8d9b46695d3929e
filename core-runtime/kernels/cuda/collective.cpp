// Collective kernels on CUDA (ops/collective.cpp in the engine says what they compute). No
// device code: BucketPack is one device-to-device copy per gradient on the compute stream, and
// the reductions are the communicator's (NCCL: on its own stream, joined by AllReduceWait).
#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/runtime/communicator.h"

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
  const ReduceOp op = c.attrs.s("op") == "average" ? ReduceOp::Average : ReduceOp::Sum;
  const int64_t bucket = c.attrs.i("bucket", -1);
  auto comm = communicator(c.attrs.i("group"), where(c, "AllReduce"));
  if (bucket >= 0) {
    comm->all_reduce_async(out.data_ptr(), out.numel(), out.dtype(), op, stream, bucket);
  } else {
    comm->all_reduce(out.data_ptr(), out.numel(), out.dtype(), op, stream);
  }
}

void all_reduce_wait(const KernelContext& c) {
  DeviceState& s = state_of(c);
  make_current(s);
  const CUstream stream = stream_of(s, &c);
  communicator(c.attrs.i("group"), where(c, "AllReduceWait"))->wait(c.attrs.i("bucket"), stream);
  if (c.outputs[0].data_ptr() != c.inputs[0].data_ptr()) copy_on(s, stream, c.outputs[0], 0, c.inputs[0]);
}

}  // namespace

void add_collective_kernels(std::vector<KernelDef>& k) {
  const std::vector<DType> dtypes{DType::Float32, DType::Float64, DType::Int64};
  k.push_back({"BucketPack", bucket_pack, dtypes});
  k.push_back({"AllReduce", all_reduce, dtypes});
  k.push_back({"AllReduceWait", all_reduce_wait, dtypes});
}

}  // namespace cuda
}  // namespace glassgrad
