// Which algorithm a CPU convolution kernel runs on given shapes, for reports and benchmarks (the
// roofline columns count Winograd's own multiplications: docs/performance.md, "How far from the
// limit"). The kernels in core-runtime/kernels/cpu/conv.cpp decide by the same functions.
#pragma once
#include <string>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {
namespace cpu {

// op: "Conv2D", "Conv2DBackwardInput" or "Conv2DBackwardWeight"; input_shape is x's (dx's for the
// input gradient), weight_shape w's (dw's), attrs the op's (stride, padding, dilation, groups).
// Returns "winograd2" or "winograd4" (F(2x2, 3x3) / F(4x4, 3x3)), "winograd2s2" (F(2x2, 3x3) at
// stride 2, cpu/conv_winograd.h), "direct" (the few-channel
// forward loops), "dots" (the few-channel weight gradient's row dot products), "dense" (a window
// covering the whole unpadded input: one GEMM over the batch, cpu/conv_dense.h) or "gemm".
std::string conv_algorithm(const std::string& op, const Shape& input_shape, const Shape& weight_shape,
                           const Attrs& attrs, DType dtype);

}  // namespace cpu
}  // namespace glassgrad
