// The movement kernels behind Reshape / Permute / Slice / Expand / Contiguous / Detach /
// SliceBackward when a view is not possible, and Assign (see kernels/cpu/movement.cpp). They
// only use copy_tensor and fill_tensor, which take any strides on any device, so one definition
// serves the CPU and the CUDA registrations alike.
#pragma once
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {
namespace movement {

void reshape_copy(const KernelContext& c);
void permute_copy(const KernelContext& c);
void slice_copy(const KernelContext& c);
void expand_copy(const KernelContext& c);
void contiguous_copy(const KernelContext& c);  // also Detach
void assign_copy(const KernelContext& c);      // Assign(target, value): value into target's buffer
void slice_backward(const KernelContext& c);

}  // namespace movement
}  // namespace glassgrad
