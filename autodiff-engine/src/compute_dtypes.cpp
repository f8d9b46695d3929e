// Storage types computed in their compute dtype (compute_dtypes.h, docs/dtypes.md).
#include "glassgrad/autodiff/compute_dtypes.h"

#include <string>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/family.h"

namespace glassgrad {

// The rows declared for every dtype (DTypeSet::Every): the byte moves and conversions.
bool takes_storage_types(const OpSchema& s) {
#define GG_EVERY_DTYPE(Name, Kernel, DTypes, Inputs, Outputs, Formula) \
  if (DTypeSet::DTypes == DTypeSet::Every && s.name == #Name) return true;
#define GG_OP GG_EVERY_DTYPE
#include "glassgrad/autodiff/families/creation.def"
#define GG_OP GG_EVERY_DTYPE
#include "glassgrad/autodiff/families/movement.def"
#define GG_OP GG_EVERY_DTYPE
#include "glassgrad/autodiff/families/indexing.def"
#undef GG_EVERY_DTYPE
  return false;
}

namespace {

// The storage type a "dtype" attribute names, if it names one.
std::optional<DType> storage_attr(const Attrs& attrs) {
  const AttrValue* v = attrs.find("dtype");
  const std::string* name = v ? std::get_if<std::string>(v) : nullptr;
  if (!name) return std::nullopt;
  for (int k = 0; k < kNumDTypes; ++k) {
    const DType d = static_cast<DType>(k);
    if (*name == dtype_name(d)) return is_storage_only(d) ? std::optional<DType>(d) : std::nullopt;
  }
  return std::nullopt;
}

// Inputs whose dtype the op's shape rule judges as given, not widened first: class-index labels,
// which PyTorch takes as int64 or uint8 only (an int32 target is refused, class_labels.h).
bool judged_as_given(const OpSchema& s, size_t input) {
  return input == 1 && (s.name == "CrossEntropy" || s.name == "CrossEntropyBackward");
}

}  // namespace

std::optional<ComputeDTypes> compute_dtypes(const OpSchema& s, const std::vector<TensorInfo>& inputs,
                                            const Attrs& attrs, const NodeMeta& meta) {
  // Nearly every recorded op meets no storage type: that is decided first, before the op's name
  // is looked up among the ops that take storage types and before anything is copied.
  bool needed = false;
  for (size_t k = 0; k < inputs.size() && !needed; ++k) {
    needed = is_storage_only(inputs[k].dtype) && !judged_as_given(s, k);
  }
  const std::optional<DType> attr = storage_attr(attrs);
  if (!needed && !attr) return std::nullopt;
  if (takes_storage_types(s)) return std::nullopt;
  ComputeDTypes c;
  c.attrs = attrs;
  c.inputs.reserve(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const DType d = inputs[k].dtype;
    c.inputs.push_back(is_storage_only(d) && !judged_as_given(s, k) ? compute_dtype(d) : d);
  }
  for (const auto& io : s.inplace) {
    const TensorInfo& target = inputs[static_cast<size_t>(io.second)];
    if (!is_storage_only(target.dtype)) continue;
    throw DTypeError(ErrorMessage(node_where(s.name, meta.scope) + " updates input '" +
                                  s.inputs[static_cast<size_t>(io.second)] + "' (" + target.str() +
                                  ") in place, but " + dtype_name(target.dtype) +
                                  " is a storage type: glassgrad computes it in " +
                                  dtype_name(compute_dtype(target.dtype)))
                         .fix("keep what an optimizer updates in float32 or int64, e.g. model.float()")
                         .str());
  }
  const int k = s.dispatch_input;
  if (k >= 0 && k < static_cast<int>(inputs.size())) c.storage = inputs[static_cast<size_t>(k)].dtype;
  if (attr) {
    c.attrs.set("dtype", std::string(dtype_name(compute_dtype(*attr))));
    if (!is_storage_only(c.storage)) c.storage = *attr;
  }
  return c;
}

std::vector<DType> result_dtypes(const OpSchema& s, const std::vector<TensorInfo>& inputs, const ComputeDTypes& c,
                                 const std::vector<TensorInfo>& computed, const NodeMeta& meta) {
  std::vector<DType> out;
  out.reserve(computed.size());
  const DType wide = compute_dtype(c.storage);
  for (const TensorInfo& t : computed) out.push_back(t.dtype == wide ? c.storage : t.dtype);
  if (wide != DType::Int64 || wide == c.storage) return out;
  // Integer data: an int64 output that stays int64 on float64 data is an index.
  std::vector<TensorInfo> probe = inputs;
  for (size_t i = 0; i < probe.size(); ++i) {
    probe[i].dtype = probe[i].dtype == c.storage ? DType::Float64 : c.inputs[i];
  }
  std::vector<TensorInfo> floating;
  try {
    floating = infer_node(s, probe, c.attrs, meta);
  } catch (const Error&) {
    return out;  // an integer-only op: its int64 outputs are values
  }
  for (size_t k = 0; k < out.size() && k < floating.size(); ++k) {
    if (computed[k].dtype == DType::Int64 && floating[k].dtype == DType::Int64) out[k] = DType::Int64;
  }
  return out;
}

}  // namespace glassgrad
