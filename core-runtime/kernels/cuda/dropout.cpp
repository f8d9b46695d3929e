// Launcher of the Dropout kernel (kernels/cuda/dropout.cu): a grid-stride loop over groups of four
// elements, a whole group one 16-byte load and store (float32) when both tensors are 16-byte aligned.
#include <cstdint>

#include "philox.h"
#include "cuda/launch.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

const FunctionNames kDropoutFunctions({"gg_dropout"}, float_dtypes());

namespace {

// inputs x, seed; output y
void dropout(const KernelContext& c) {
  const Tensor& y = c.outputs[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const double p = c.attrs.f("p");
  const uint64_t threshold = philox::keep_threshold(p);
  const double scale = p >= 1.0 ? 0.0 : 1.0 / (1.0 - p);
  const DType dt = y.dtype();
  const void* x = c.inputs[0].data_ptr();
  const int vec4 = reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                           reinterpret_cast<uintptr_t>(y.data_ptr()) % 16 == 0
                       ? 1
                       : 0;
  DeviceState& s = state_of(c);
  const Dim3 grid{blocks_for(s, (n + 3) / 4, 256)};
  const LaunchSite site{"Dropout", &c};
  const void* seed = c.inputs[1].data_ptr();
  if (dt == DType::Float32) {
    launch(s, stream_of(s, &c), "gg_dropout_f32", grid, Dim3{256}, site, n, threshold, static_cast<float>(scale),
           vec4, y.data_ptr(), x, seed);
  } else {
    launch(s, stream_of(s, &c), "gg_dropout_f64", grid, Dim3{256}, site, n, threshold, scale, vec4, y.data_ptr(), x,
           seed);
  }
}

}  // namespace

void add_dropout_kernels(std::vector<KernelDef>& k) { k.push_back({"Dropout", dropout, float_dtypes()}); }

}  // namespace cuda
}  // namespace glassgrad
