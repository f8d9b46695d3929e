// Which convolutions the CUDA kernels compute. Grouped and dilated Conv2D have CPU kernels but no
// CUDA kernels yet: the CUDA launchers refuse them with UnsupportedError (never a dense,
// undilated result in their place). Declared apart from the launchers so that a test on a
// machine without a GPU can check the refusal.
#pragma once
#include <string>

#include "glassgrad/autodiff/conv_geometry.h"

namespace glassgrad {
namespace cuda {

// Throws UnsupportedError naming the op, the layer (scope), the groups / dilation and the fix
// when g is grouped or dilated.
void require_conv_support(const char* op, const std::string& scope, const Conv2DGeometry& g);

}  // namespace cuda
}  // namespace glassgrad
