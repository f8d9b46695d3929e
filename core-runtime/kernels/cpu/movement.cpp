// Movement kernels (families/movement.def). Reshape/Permute/Slice/Expand/Detach normally run as
// views (no kernel); these kernels materialize the view into a dense output when a copy is needed
// (a Reshape of a non-contiguous tensor, or an explicit Contiguous). SliceBackward scatters into
// zeros; Concat copies each input into its range. Assign copies its value into its target's
// buffer (the in-place state updates of optimizers). The kernels are device- and dtype-agnostic (copy_tensor/fill_tensor move bytes):
// one function per row serves every dtype, and the CUDA backend registers them too.
#include "glassgrad/runtime/movement_kernels.h"

#include "cpu/registration.h"
#include "glassgrad/runtime/device_hooks.h"

namespace glassgrad {

namespace movement {

void detach(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0]); }

// Reshape that could not be a view: same elements in row-major order. `out` is dense, so it
// can always be viewed with the input's shape.
void reshape(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  copy_tensor(c.outputs[0].view(x.shape()), x);
}

void permute(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0].permute(c.attrs.ints("dims"))); }

void slice(const KernelContext& c) {
  const Attrs& a = c.attrs;
  copy_tensor(c.outputs[0], c.inputs[0].slice(a.i("dim"), a.i("start"), a.i("stop"), a.i("step", 1)));
}

void slice_backward(const KernelContext& c) {
  const Attrs& a = c.attrs;
  const Tensor& dx = c.outputs[0];
  fill_tensor(dx, 0.0);
  copy_tensor(dx.slice(a.i("dim"), a.i("start"), a.i("stop"), a.i("step", 1)), c.inputs[0]);
}

void expand(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0].expand(c.outputs[0].shape())); }

void contiguous(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0]); }

// Concat: each input copied into its range of the output along dim (the inputs may be strided).
void concat(const KernelContext& c) {
  const int64_t dim = c.attrs.i("dim");
  int64_t start = 0;
  for (const Tensor& x : c.inputs) {
    const int64_t n = x.shape()[static_cast<size_t>(dim)];
    if (n > 0) copy_tensor(c.outputs[0].slice(dim, start, start + n, 1), x);
    start += n;
  }
}

// Assign(target, value): the output is the target's buffer (in place); value has its shape.
void assign(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[1]); }

}  // namespace movement

void register_cpu_movement_kernels(KernelRegistry& r) {
  using namespace movement;
#define GG_OP GG_ADD_CPU_UNTYPED_KERNEL
#include "glassgrad/autodiff/families/movement.def"
}

}  // namespace glassgrad
