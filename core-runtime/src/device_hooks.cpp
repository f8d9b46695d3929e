#include "glassgrad/runtime/device_hooks.h"

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/host_copy.h"

namespace glassgrad {

namespace {
DeviceHooks& cuda_hooks() {
  static DeviceHooks h;
  return h;
}
}  // namespace

void register_device_hooks(DeviceType type, const DeviceHooks& hooks) {
  if (type == DeviceType::CUDA) cuda_hooks() = hooks;
}

const DeviceHooks& device_hooks(const Device& d) {
  if (d.is_cuda()) cuda::ensure_initialized(d.index);  // registers the hooks, or explains why not
  const DeviceHooks& h = cuda_hooks();
  if (d.is_cuda() && h.copy) return h;
  throw DeviceError(ErrorMessage("device " + d.str() + " is not available")
                        .cause("the CUDA backend is not loaded (no GPU, no driver, or a CPU-only build)")
                        .fix("see glassgrad.cuda.why_unavailable(), or use device='cpu'")
                        .str());
}

void copy_tensor(const Tensor& dst, const Tensor& src) {
  if (dst.shape() != src.shape() || dst.dtype() != src.dtype()) {
    throw ShapeError(ErrorMessage("copy: destination and source differ")
                         .detail("destination: " + dst.info().str())
                         .detail("source:      " + src.info().str())
                         .str());
  }
  if (dst.numel() == 0) return;
  drop_host_copy(dst);  // host_copy.h: a write into a storage drops its early copy
  if (dst.device().is_cpu() && src.device().is_cpu()) {
    cpu::strided_copy(dst, src);
    return;
  }
  device_hooks(dst.device().is_cpu() ? src.device() : dst.device()).copy(dst, src);
}

void fill_tensor(const Tensor& dst, double value) {
  if (dst.numel() == 0) return;
  drop_host_copy(dst);
  if (dst.device().is_cpu()) {
    cpu::fill(dst, value);
    return;
  }
  device_hooks(dst.device()).fill(dst, value);
}

void synchronize(const Device& d) {
  if (d.is_cpu()) return;
  const DeviceHooks& h = device_hooks(d);
  if (h.synchronize) h.synchronize(d);
}

}  // namespace glassgrad
