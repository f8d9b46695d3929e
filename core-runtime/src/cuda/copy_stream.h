// Host-to-device copies of pinned data on a per-device copy stream (copy_stream.cpp).
#pragma once
#include "cuda/backend.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
namespace cuda {

// Copies the pinned CPU tensor `host` into the contiguous device tensor `dst` (same bytes) through
// the device's copy stream, ordered before every later use of dst on s's stream. Returns false,
// copying nothing, where the copy must stay on s's stream: host not pinned, dst not contiguous or
// empty, a CUDA graph capture open, or no event functions in the driver.
bool copy_in_on_copy_stream(DeviceState& s, const Tensor& dst, const Tensor& host);

}  // namespace cuda
}  // namespace glassgrad
