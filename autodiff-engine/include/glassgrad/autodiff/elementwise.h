// What the host knows about each elementwise op: the rows of elementwise_ops.def as data, for
// the schemas, the fusion pass, the kernel registrations and the Python bindings.
#pragma once
#include <string>

#include "glassgrad/autodiff/elementwise_scalar.h"

namespace glassgrad {

struct ElementwiseInfo {
  ElementwiseOp op;
  const char* name;
  ElementwiseKind kind;
  ElementwiseDTypes dtypes;
  const char* scalar;    // the scalar attribute's key, "" when none
  const char* gradient;  // "", "custom", "linear" or the backward row's name (see the .def)
  const char* formula;

  int arity() const { return kind == ElementwiseKind::Unary ? 1 : 2; }
  bool has_scalar() const { return scalar[0] != '\0'; }
  // FusedElementwise runs every row whose output is a float of its inputs' dtype.
  bool fusible() const { return kind != ElementwiseKind::Compare; }
  bool is_backward() const { return kind == ElementwiseKind::BackwardX || kind == ElementwiseKind::BackwardY; }
};

// Row of `op`; throws InternalError for a code outside the table.
const ElementwiseInfo& elementwise_info(ElementwiseOp op);
// Row named `name`, or nullptr when it is not a table op.
const ElementwiseInfo* find_elementwise(const std::string& name);
// Every row, in code order.
const ElementwiseInfo* elementwise_table();

}  // namespace glassgrad
