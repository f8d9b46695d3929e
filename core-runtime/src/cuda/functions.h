// The registry of CUDA functions: every name the runtime may load from the embedded module.
//
// Each launcher file declares, at namespace scope, the functions it launches:
//   const FunctionNames kConvFunctions({"gg_conv_fwd_direct", "gg_conv_fwd_reduce"}, float_dtypes());
// registers gg_conv_fwd_direct_f32, gg_conv_fwd_direct_f64, ... (the suffixes of kname(); Bool
// shares UInt8's "_u8"), and `FunctionNames({"gg_cast"})` a name without a dtype suffix.
// Invariants, each checked:
//   - function() (backend.cpp) loads no name outside the registry (require_registered below),
//     so every launch that the GPU tests exercise proves its name is declared;
//   - python-bindings/tests/test_cuda_sass.py reads the registry (cuda::kernel_names()) and
//     checks that the fatbin holds exactly these functions, as SASS for every embedded
//     architecture and in the PTX.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "glassgrad/autodiff/types.h"

namespace glassgrad {
namespace cuda {

struct FunctionNames {
  FunctionNames(std::initializer_list<const char*> bases, const std::vector<DType>& dtypes);
  explicit FunctionNames(std::initializer_list<const char*> names);
};

// Throws InternalError when `name` is not registered (a launcher launches an undeclared name).
void require_registered(const char* name);

}  // namespace cuda
}  // namespace glassgrad
