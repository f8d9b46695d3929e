// Storage types on ops that compute in wider types (docs/dtypes.md). int8, int16, int32, float16
// and bfloat16 tensors are stored as they are, but kernels exist for them only where an op moves
// or converts bytes (Cast, Full, ToDevice and the copies behind views: Reshape, Permute, Slice,
// Expand, Contiguous, Detach, Assign, SliceBackward). Every other op on them is recorded as
//   cast the storage-type inputs to their compute_dtype -> the op -> cast results back
// by the two places nodes are made (the runtime's lazy tracer and Graph::add_node, which a
// gradient rule's emit goes through), both asking this file, so families and kernels never see
// a storage type and the casts' own gradients carry gradients through.
#pragma once
#include <optional>
#include <vector>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/graph.h"
#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

// How one node on storage-type inputs is recorded. Empty (no value) when it needs no casts.
struct ComputeDTypes {
  std::vector<DType> inputs;  // the dtype each input is cast to (its own when it needs no cast)
  Attrs attrs;                // the node's attributes, a storage-type "dtype" one widened
  // The storage type results come back in: the dispatch input's (kernels are looked up by it), or
  // for an op whose dtype is an attribute (dispatch_input -1), the attribute's.
  DType storage = DType::Float32;
};

// The ops whose kernels take every dtype as it is: byte moves and conversions (the CPU registers
// them for every dtype: kernels/cpu/creation.cpp, movement.cpp; CUDA follows the CPU).
bool takes_storage_types(const OpSchema& s);

// nullopt when no input (and no dtype attribute) is a storage type, or the op takes them.
// Throws DTypeError for an op that updates a storage-type input in place.
std::optional<ComputeDTypes> compute_dtypes(const OpSchema& s, const std::vector<TensorInfo>& inputs,
                                            const Attrs& attrs, const NodeMeta& meta);

// The dtype each output of the node, computed as `computed`, comes back in: the storage type for
// results of its compute dtype, except integer outputs that are indices rather than values
// (an argmax of an int32 tensor is int64, as PyTorch's): those the op gives as int64 also when
// the data is floating, which a second run of the shape rule on float64 data tells.
std::vector<DType> result_dtypes(const OpSchema& s, const std::vector<TensorInfo>& inputs, const ComputeDTypes& c,
                                 const std::vector<TensorInfo>& computed, const NodeMeta& meta);

}  // namespace glassgrad
