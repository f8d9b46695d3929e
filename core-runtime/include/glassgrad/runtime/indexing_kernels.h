// What the CPU kernels and the CUDA launchers of the indexing ops share (kernels/cpu/indexing.cpp,
// kernels/cuda/indexing.cpp): the walk of a node (indexing.h in the engine) and the bounds check's
// message.
#pragma once
#include <cstdint>
#include <string>

#include "glassgrad/autodiff/indexing.h"
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {
namespace indexing {

// The walk of node `op` (Gather, Scatter, IndexSelect, IndexAdd, Index, IndexPut) from its
// tensors and attributes. first_index: the input holding index operand 0.
IndexWalk walk_of(const std::string& op, const KernelContext& c);
int first_index_input(const std::string& op);

// Position (element number, row-major) of the first value of a dense int64 array outside
// [0, size) ([-size, size) when wrap), or -1.
int64_t first_out_of_bounds(const int64_t* values, int64_t n, int64_t size, bool wrap);

// Throws IndexError: "<op 'layer'>: index <value> is out of bounds for dimension <dim> with size
// <size>", the position of the value in its index tensor, the shapes and the valid range.
[[noreturn]] void throw_out_of_bounds(const std::string& op, const KernelContext& c, int operand, int64_t position,
                                      int64_t value);

// The host-side check (CPU): every index operand's values against their dim.
void check_bounds(const std::string& op, const KernelContext& c);

// SliceScatter through copy_tensor (kernels/cpu/indexing.cpp): serves every device and dtype.
void slice_scatter(const KernelContext& c);

}  // namespace indexing
}  // namespace glassgrad
