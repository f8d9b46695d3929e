// Storage types on ops that compute in wider types (docs/dtypes.md). int8, int16, int32, float16
// and bfloat16 tensors are stored as they are, but kernels exist for them only where an op moves
// or converts bytes (Cast, Full, ToDevice and the copies behind views: Reshape, Permute, Slice,
// Expand, Contiguous, Detach, Assign, SliceBackward, and SliceScatter, which writes through a
// view). Every other op on them is recorded as
//   cast the storage-type inputs to their compute_dtype -> the op -> cast results back
// by the two places nodes are made (the runtime's lazy tracer and Graph::add_node, which a
// gradient rule's emit goes through), both asking this file, so families and kernels never see
// a storage type and the casts' own gradients carry gradients through.
#pragma once
#include <optional>
#include <string>
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

// The ops whose kernels take every dtype as it is: byte moves and conversions, the rows of
// families/creation.def, movement.def and indexing.def declared for DTypeSet::Every (both
// backends register them for every dtype).
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

// The node on storage-type inputs as it is recorded or run: its inputs cast to their compute
// dtype, the op, its results cast back (result_dtypes). One sequence for every kind of node
// handle H (an engine ValueId, a lazy value, an eager tensor): `make(op, inputs, attrs)` makes one
// node and returns its outputs, `info(h)` is a handle's TensorInfo.
template <class H, class Make, class Info>
std::vector<H> computed_node(const OpSchema& s, std::vector<H> inputs, const std::vector<TensorInfo>& infos,
                             const ComputeDTypes& c, const NodeMeta& meta, Make make, Info info) {
  const auto cast = [&make](const H& h, DType to) {
    return make("Cast", std::vector<H>{h}, Attrs{{"dtype", std::string(dtype_name(to))}})[0];
  };
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (c.inputs[k] != infos[k].dtype) inputs[k] = cast(inputs[k], c.inputs[k]);
  }
  std::vector<H> outs = make(s.name, inputs, c.attrs);
  std::vector<TensorInfo> computed;
  for (const H& h : outs) computed.push_back(info(h));
  const std::vector<DType> back = result_dtypes(s, infos, c, computed, meta);
  for (size_t k = 0; k < outs.size(); ++k) {
    if (back[k] != computed[k].dtype) outs[k] = cast(outs[k], back[k]);
  }
  return outs;
}

}  // namespace glassgrad
