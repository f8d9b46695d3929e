// a + b of two tensors of one dtype in one call (lazy.h, record_plain_sum): the residual adds of a
// training step's forward (docs/performance.md, "tenth round").
#include <memory>

#include "glassgrad/runtime/lazy.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

std::unique_ptr<Handle> record_plain_sum(Handle& a, Handle& b, const SharedMeta& meta) {
  // Invariant: the case the Python operator's path would record as Add(a, b) with no conversion
  // (one dtype is its own result type; bool + bool is a logical or there) and with the result
  // laid out row-major (no input is a view, whose layout may order the result otherwise).
  if (!a.chain().empty() || !b.chain().empty()) return nullptr;
  const DType dt = a.value()->info.dtype;
  if (dt == DType::Bool || b.value()->info.dtype != dt) return nullptr;
  static const OpSchema& add = OpRegistry::instance().at("Add");
  static const SharedAttrs none = share_attrs(Attrs());
  std::vector<std::unique_ptr<Handle>> outs = record_handles(add, {&a, &b}, none, meta);
  return std::move(outs.at(0));
}

}  // namespace lazy
}  // namespace glassgrad
