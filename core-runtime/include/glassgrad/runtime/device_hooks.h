// What a non-CPU backend provides to the core: copies (any direction involving its device,
// strided or not), fills and synchronization. The CUDA backend registers these when it loads;
// until then, touching a CUDA tensor raises DeviceError with the reason CUDA is unavailable.
#pragma once
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

struct DeviceHooks {
  void (*copy)(const Tensor& dst, const Tensor& src) = nullptr;  // same shape and dtype
  void (*fill)(const Tensor& dst, double value) = nullptr;
  void (*synchronize)(const Device& d) = nullptr;
};

void register_device_hooks(DeviceType type, const DeviceHooks& hooks);
// Throws DeviceError naming the device when no backend is registered for it.
const DeviceHooks& device_hooks(const Device& d);

// Copies src into dst (same shape and dtype, any strides, any devices).
void copy_tensor(const Tensor& dst, const Tensor& src);
void fill_tensor(const Tensor& dst, double value);
void synchronize(const Device& d);

// CPU implementations (kernels/cpu/copy.cpp).
namespace cpu {
void strided_copy(const Tensor& dst, const Tensor& src);
void fill(const Tensor& dst, double value);
}  // namespace cpu

}  // namespace glassgrad
