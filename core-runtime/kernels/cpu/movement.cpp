// Movement kernels. Reshape/Permute/Slice/Expand/Contiguous normally run as views (no kernel);
// these kernels materialize the view into a dense output when a copy is needed (a Reshape of a
// non-contiguous tensor, or an explicit Contiguous). SliceBackward scatters into zeros. Assign
// copies its value into its target's buffer (the in-place state updates of optimizers).
// The kernels are device-agnostic (copy_tensor/fill_tensor); the CUDA backend registers them too.
#include "glassgrad/runtime/movement_kernels.h"

#include "glassgrad/runtime/device_hooks.h"

namespace glassgrad {

namespace movement {

// Reshape that could not be a view: same elements in row-major order. `out` is dense, so it
// can always be viewed with the input's shape.
void reshape_copy(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  copy_tensor(c.outputs[0].view(x.shape()), x);
}

void permute_copy(const KernelContext& c) {
  copy_tensor(c.outputs[0], c.inputs[0].permute(c.attrs.ints("dims")));
}

void slice_copy(const KernelContext& c) {
  const Attrs& a = c.attrs;
  copy_tensor(c.outputs[0], c.inputs[0].slice(a.i("dim"), a.i("start"), a.i("stop"), a.i("step", 1)));
}

void expand_copy(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0].expand(c.outputs[0].shape())); }

void contiguous_copy(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0]); }

// Assign(target, value): the output is the target's buffer (in place); value has its shape.
void assign_copy(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[1]); }

void slice_backward(const KernelContext& c) {
  const Attrs& a = c.attrs;
  const Tensor& dx = c.outputs[0];
  fill_tensor(dx, 0.0);
  copy_tensor(dx.slice(a.i("dim"), a.i("start"), a.i("stop"), a.i("step", 1)), c.inputs[0]);
}

}  // namespace movement

void register_cpu_movement_kernels(KernelRegistry& r) {
  using namespace movement;
  for (int k = 0; k < kNumDTypes; ++k) {  // byte moves: the storage types too (compute_dtypes.h)
    const DType dt = static_cast<DType>(k);
    r.add("Reshape", DeviceType::CPU, dt, reshape_copy);
    r.add("Permute", DeviceType::CPU, dt, permute_copy);
    r.add("Slice", DeviceType::CPU, dt, slice_copy);
    r.add("Expand", DeviceType::CPU, dt, expand_copy);
    r.add("Contiguous", DeviceType::CPU, dt, contiguous_copy);
    r.add("Detach", DeviceType::CPU, dt, contiguous_copy);
    r.add("Assign", DeviceType::CPU, dt, assign_copy);
    r.add("SliceBackward", DeviceType::CPU, dt, slice_backward);
  }
}

}  // namespace glassgrad
