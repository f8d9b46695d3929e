// One declaration per op: a family's ops are the rows of families/<family>.def, and everything
// that lists ops follows from the rows (the schema skeletons here, the CPU registrations in
// core-runtime/kernels/cpu/registration.h, the CUDA registrations in kernels/cuda/registry.h).
//
//   GG_OP(Name, Kernel, DTypes, Inputs, Outputs, Formula)
//     Name     the schema name (CamelCase): kernels are registered and looked up under it
//     Kernel   the op's symbol in every layer of the family:
//                engine   void Kernel(OpSchema& s)             in src/ops/<family>.cpp: the shape
//                         rule, gradient rule and flags (everything but the row's columns)
//                CPU      Kernel<T>                             in kernels/cpu/<family>.cpp: a kernel
//                         function template, or a variable template holding a KernelEntry (a kernel
//                         with a workspace size function)
//                CUDA     Kernel                                in kernels/cuda/<family>.cpp: the
//                         launcher (a KernelFn, or a KernelEntry with a workspace or batch function)
//     DTypes   the dtypes both backends register: Float (float32, float64), FloatInt64 (+ int64),
//              Numeric (+ uint8), Any (+ bool), Every (+ the storage types int8, int16, int32,
//              float16, bfloat16: the ops that take them as they are, compute_dtypes.h; their CPU
//              kernel is one function for every dtype, registered by GG_ADD_CPU_UNTYPED_KERNEL)
//     Inputs   ("x", "weight", "bias?"): input names in order; a trailing '?' marks an optional
//              input (and every one after it); "g[256]" stands for g0 (required) and the
//              optional g1 ... g255
//     Outputs  ("y", "mean"): output names in order (the count is fixed)
//     Formula  one line saying what it computes, printed by explain()
//
// A row's attributes, with their defaults, are read once per family by the family's geometry
// (families/<family>.h), which the shape rule and both backends call.
//
// The rows are expanded by defining GG_OP and including the table, which undefines GG_OP:
//   void register_pool_ops(OpRegistry& r) {
//   #define GG_OP GG_ADD_OP_SCHEMA
//   #include "glassgrad/autodiff/families/pool.def"
//   }
#pragma once
#include <string>
#include <vector>

#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

// The dtypes an op's kernels accept, the same on every backend (kernels/cuda/registry.cpp
// registers a CUDA kernel for a dtype only where the CPU has one).
enum class DTypeSet { Float, FloatInt64, Numeric, Any, Every };
const std::vector<DType>& dtypes_of(DTypeSet set);

// A schema with a row's columns filled in (name, inputs with min_inputs from the '?' marks,
// outputs, formula), completed by the family's `rules` (shape rule, gradient, flags).
OpSchema declared_op(const char* name, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs, const char* formula, void (*rules)(OpSchema&));

}  // namespace glassgrad

// ("a", "b") -> std::vector<std::string>{"a", "b"}
#define GG_NAMES(...) std::vector<std::string>{__VA_ARGS__}
// Expands a row into r.add(the row's schema) inside register_<family>_ops(OpRegistry& r).
#define GG_ADD_OP_SCHEMA(Name, Kernel, DTypes, Inputs, Outputs, Formula) \
  r.add(::glassgrad::declared_op(#Name, GG_NAMES Inputs, GG_NAMES Outputs, Formula, Kernel));
