#include "cuda/functions.h"

#include <algorithm>
#include <set>

#include "cuda/launch.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {
namespace cuda {

namespace {

// Filled by the FunctionNames objects while the library's static objects are constructed;
// only read afterwards.
std::set<std::string>& registry() {
  static auto* names = new std::set<std::string>();  // never destroyed: read until exit
  return *names;
}

}  // namespace

FunctionNames::FunctionNames(std::initializer_list<const char*> bases, const std::vector<DType>& dtypes) {
  for (const char* base : bases)
    for (DType d : dtypes) registry().insert(kname(base, d));
}

FunctionNames::FunctionNames(std::initializer_list<const char*> names) {
  for (const char* name : names) registry().insert(name);
}

void require_registered(const char* name) {
  if (registry().count(name)) return;
  throw InternalError(ErrorMessage(std::string("CUDA kernel '") + name + "' is launched but not declared")
                          .cause("every CUDA function a launcher loads is declared next to it (a FunctionNames "
                                 "object in kernels/cuda/<family>.cpp), so that the fatbin checks cover it")
                          .fix("add the name to the FunctionNames of the launcher that launches it")
                          .str());
}

std::vector<std::string> kernel_names() {
  if (!built_with_kernels()) return {};
  return {registry().begin(), registry().end()};
}

}  // namespace cuda
}  // namespace glassgrad
