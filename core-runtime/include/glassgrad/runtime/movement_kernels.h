// The movement family's kernels (families/movement.def; kernels/cpu/movement.cpp): the copies
// behind Reshape / Permute / Slice / Expand / Detach when a view is not possible, Contiguous,
// SliceBackward and Assign. They only use copy_tensor and fill_tensor, which take any strides on
// any device, so one definition serves every dtype and the CPU and CUDA registrations alike.
#pragma once
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {
namespace movement {

void detach(const KernelContext& c);
void reshape(const KernelContext& c);
void permute(const KernelContext& c);
void slice(const KernelContext& c);
void slice_backward(const KernelContext& c);
void expand(const KernelContext& c);
void contiguous(const KernelContext& c);
void concat(const KernelContext& c);  // each input into its range along dim
void assign(const KernelContext& c);  // Assign(target, value): value into target's buffer

}  // namespace movement
}  // namespace glassgrad
