// DeviceHooks for CUDA tensors: copies in every direction (host <-> device, device <-> device,
// between GPUs through the host), strided on either side, fills and synchronization.
//
// Contiguous transfers are single cuMemcpy calls on the device's stream (from pinned memory: on
// the copy stream, then one device copy on the device's stream, copy_stream.cpp). A strided side goes
// through a dense staging tensor: on the host with the CPU strided copy, on the device with
// the gg_copy_w* kernels (which read and write any strides), so every combination works.
// Device -> host copies synchronize the stream (the host reads the data right after).
#include <cstring>

#include "cuda/copy_stream.h"
#include "cuda/launch.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/pinned_memory.h"
#include "../../kernels/half_rules.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kCopyFunctions({"gg_copy_w1", "gg_copy_w2", "gg_copy_w4", "gg_copy_w8", "gg_fill_w1", "gg_fill_w2",
                                     "gg_fill_w4", "gg_fill_w8"});

namespace {

CUdeviceptr dptr(const Tensor& t) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(t.data_ptr())); }

// dst and src on the same GPU, any strides.
void device_strided_copy(const Tensor& dst, const Tensor& src) {
  DeviceState& s = state_of(dst);
  std::vector<Tensor> tensors{dst, src};
  LaunchSite site{"copy", nullptr, &tensors};
  if (dst.is_contiguous() && src.is_contiguous()) {
    make_current(s);
    check(api().cuMemcpyDtoDAsync(dptr(dst), dptr(src), dst.nbytes(), s.stream),
          "device-to-device copy of " + dst.info().str());
    return;
  }
  const GGIter it = make_iter(dst.shape(), {dst.strides(), src.strides()}, site);
  const int64_t n = dst.numel();
  const Dim3 grid{blocks_for(s, n, 256)}, block{256};
  switch (dst.itemsize()) {
    case 1: launch(s, s.stream, "gg_copy_w1", grid, block, site, n, it, dst.data_ptr(), src.data_ptr()); break;
    case 2: launch(s, s.stream, "gg_copy_w2", grid, block, site, n, it, dst.data_ptr(), src.data_ptr()); break;
    case 4: launch(s, s.stream, "gg_copy_w4", grid, block, site, n, it, dst.data_ptr(), src.data_ptr()); break;
    case 8: launch(s, s.stream, "gg_copy_w8", grid, block, site, n, it, dst.data_ptr(), src.data_ptr()); break;
    default: throw InternalError("CUDA copy: unexpected item size");
  }
}

void host_to_device(const Tensor& dst, const Tensor& src) {
  const Tensor host = src.is_contiguous() ? src : src.contiguous();
  const Tensor dense = dst.is_contiguous() ? dst : Tensor::empty(dst.shape(), dst.dtype(), dst.device());
  DeviceState& s = state_of(dst);
  // A pinned source (NumPy data staged by from_numpy, a DataLoader's pinned batch) goes through
  // the copy stream, overlapping the work already queued (copy_stream.cpp); otherwise the copy
  // is queued on the device's stream. A pageable source is staged by the driver before it
  // returns, so `host` may die right after; a pinned one is read while the copy runs, and its
  // allocator keeps the block until then.
  if (!copy_in_on_copy_stream(s, dense, host)) {
    make_current(s);
    check(api().cuMemcpyHtoDAsync(dptr(dense), host.data_ptr(), dense.nbytes(), s.stream),
          "host-to-device copy of " + dst.info().str());
    note_pinned_read(host.data_ptr(), s.stream);
  }
  if (!dst.is_contiguous()) device_strided_copy(dst, dense);
}

void device_to_host(const Tensor& dst, const Tensor& src) {
  const Tensor dense = src.is_contiguous() ? src : src.contiguous();  // a device kernel copy
  const Tensor host = dst.is_contiguous() ? dst : Tensor::empty(dst.shape(), dst.dtype(), Device::cpu());
  DeviceState& s = state_of(src);
  make_current(s);
  check(api().cuMemcpyDtoHAsync(host.data_ptr(), dptr(dense), host.nbytes(), s.stream),
        "device-to-host copy of " + src.info().str());
  check(api().cuStreamSynchronize(s.stream), "synchronizing cuda:" + std::to_string(s.index) + " after a copy to the host");
  check_error_words(s.index);
  if (!dst.is_contiguous()) cpu::strided_copy(dst, host);
}

void copy(const Tensor& dst, const Tensor& src) {
  const Device& dd = dst.device();
  const Device& sd = src.device();
  if (dd.is_cuda() && sd.is_cpu()) return host_to_device(dst, src);
  if (dd.is_cpu() && sd.is_cuda()) return device_to_host(dst, src);
  if (dd == sd) return device_strided_copy(dst, src);
  // Between two GPUs: through the host (simple and always allowed; no peer access needed).
  Tensor host = Tensor::empty(src.shape(), src.dtype(), Device::cpu());
  device_to_host(host, src);
  host_to_device(dst, host);
}

void fill(const Tensor& dst, double value) {
  DeviceState& s = state_of(dst);
  std::vector<Tensor> tensors{dst};
  LaunchSite site{"fill", nullptr, &tensors};
  const GGIter it = make_iter(dst.shape(), {dst.strides()}, site);
  const int64_t n = dst.numel();
  const Dim3 grid{blocks_for(s, n, 256)}, block{256};
  switch (dst.dtype()) {
    case DType::Float32: {
      const float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      launch(s, s.stream, "gg_fill_w4", grid, block, site, n, it, dst.data_ptr(), bits);
      break;
    }
    case DType::Float64: {
      unsigned long long bits;
      std::memcpy(&bits, &value, 8);
      launch(s, s.stream, "gg_fill_w8", grid, block, site, n, it, dst.data_ptr(), bits);
      break;
    }
    case DType::Int64: {
      const int64_t v = static_cast<int64_t>(value);
      unsigned long long bits;
      std::memcpy(&bits, &v, 8);
      launch(s, s.stream, "gg_fill_w8", grid, block, site, n, it, dst.data_ptr(), bits);
      break;
    }
    case DType::UInt8: {
      const unsigned char v = static_cast<unsigned char>(value);
      launch(s, s.stream, "gg_fill_w1", grid, block, site, n, it, dst.data_ptr(), v);
      break;
    }
    case DType::Bool: {
      const unsigned char v = value != 0 ? 1 : 0;
      launch(s, s.stream, "gg_fill_w1", grid, block, site, n, it, dst.data_ptr(), v);
      break;
    }
    // The storage types: the value converted as the Cast op converts a float64.
    case DType::Int8: {
      const unsigned char v = static_cast<unsigned char>(static_cast<int64_t>(value));
      launch(s, s.stream, "gg_fill_w1", grid, block, site, n, it, dst.data_ptr(), v);
      break;
    }
    case DType::Int16:
    case DType::Float16:
    case DType::BFloat16: {
      const uint16_t v = dst.dtype() == DType::Int16 ? static_cast<uint16_t>(static_cast<int64_t>(value))
                         : dst.dtype() == DType::Float16 ? half_rules::float_to_half(static_cast<float>(value))
                                                         : half_rules::float_to_bfloat16(static_cast<float>(value));
      launch(s, s.stream, "gg_fill_w2", grid, block, site, n, it, dst.data_ptr(), v);
      break;
    }
    case DType::Int32: {
      const uint32_t v = static_cast<uint32_t>(static_cast<int64_t>(value));
      launch(s, s.stream, "gg_fill_w4", grid, block, site, n, it, dst.data_ptr(), v);
      break;
    }
  }
}

void sync(const Device& d) { synchronize(d.index); }

}  // namespace

void register_hooks() {
  DeviceHooks h;
  h.copy = copy;
  h.fill = fill;
  h.synchronize = sync;
  register_device_hooks(DeviceType::CUDA, h);
}

}  // namespace cuda
}  // namespace glassgrad
