// Launches of a typed CUDA kernel (kernels/cuda/pool.h) for the compile-fail tests of
// tests/CMakeLists.txt: compiled with -DLAUNCH_CASE=<n>, case 0 must compile and the others must
// stop at the launch's assertion (kernels/cuda/kernel_interface.h), which the tests match.
#include "cuda/launch.h"
#include "pool.h"

#ifndef LAUNCH_CASE
#define LAUNCH_CASE 0
#endif

namespace glassgrad {
namespace cuda {

void launch_cases(DeviceState& s, const GGPool& g, float* y, const float* x, void* raw, int64_t wide) {
  const LaunchSite site{"MaxPool2DBackward"};
  const Dim3 grid{1}, block{256};
  using Fwd = kernels::gg_maxpool_fwd<float>;
  using Bwd = kernels::gg_maxpool_bwd<float>;
#if LAUNCH_CASE == 0  // right: every argument fits its parameter
  launch<Fwd>(s, s.stream, grid, block, site, g, y, x);
  launch<Bwd>(s, s.stream, grid, block, site, g, 1, y, x, x);
#elif LAUNCH_CASE == 1  // an untyped pointer where the kernel takes float*
  launch<Fwd>(s, s.stream, grid, block, site, g, raw, x);
#elif LAUNCH_CASE == 2  // an int64_t where the kernel takes int (the relu flag): narrowing
  launch<Bwd>(s, s.stream, grid, block, site, g, wide, y, x, x);
#elif LAUNCH_CASE == 3  // one argument too few
  launch<Fwd>(s, s.stream, grid, block, site, g, y);
#elif LAUNCH_CASE == 4  // one argument too many
  launch<Fwd>(s, s.stream, grid, block, site, g, y, x, x);
#endif
  (void)raw, (void)wide;
}

}  // namespace cuda
}  // namespace glassgrad
