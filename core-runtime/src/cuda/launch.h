// Launching a kernel of the embedded module: grid sizing from the output, limit checks before
// the launch, and errors that name the kernel, its configuration, the op and every tensor.
//
// Grids are always computed from the work (element count, tiles) and capped at limits every
// GPU since compute capability 3.0 accepts (x <= 2^31 - 1, y and z <= 65535, block <= 1024);
// kernels cover what a cap leaves out with grid-stride loops. So the failure docs/debugging.md's
// section 1 describes ("invalid configuration argument" once a layer grew past the grid limit)
// cannot happen; if a configuration were ever invalid, check_config() says so before launching.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "kernel_interface.h"
#include "params.h"
#include "cuda/backend.h"
#include "cuda/functions.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/strided.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
namespace cuda {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// Where a launch comes from, for error messages: the op (and layer) and its tensors.
struct LaunchSite {
  const char* op = "";
  const KernelContext* ctx = nullptr;            // op kernels
  const std::vector<Tensor>* tensors = nullptr;  // internal launches (copies, fills)
};

// Blocks of `threads` threads for n elements under a grid-stride loop: enough to fill the GPU
// several times over, never more than the work.
unsigned blocks_for(const DeviceState& s, int64_t n, unsigned threads);
// Caps a y/z grid extent at 65535.
unsigned cap_yz(int64_t n);
// Smallest power of two >= n within [lo, hi] (block sizes for reductions).
unsigned pow2_block(int64_t n, unsigned lo, unsigned hi);
// Kernels where a block owns a channel of `units` loads (values, or groups of four): about one
// batch of eight loads a thread, within their launch bound of 1024 threads.
unsigned channel_block(int64_t units);
// float32 channels of whole groups of four values (I % 4 == 0) whose tensors are all 16-byte
// aligned: the channel kernels that load four values at a time apply.
bool float4_channels(DType dt, int64_t I, std::initializer_list<const void*> ptrs);

// The device of a kernel's outputs (or first input), initialized.
DeviceState& state_of(const KernelContext& c);
DeviceState& state_of(const Tensor& t);
CUstream stream_of(DeviceState& s, const KernelContext* c);

void launch_raw(DeviceState& s, CUstream stream, const char* kernel, Dim3 grid, Dim3 block, void** params,
                const LaunchSite& site);

// Launches kernel K, a handle declared by its family's table (kernels/cuda/<family>.h, e.g.
// kernels::gg_maxpool_fwd<float>), with `args` converted to its parameter types. A wrong
// argument count, a narrowing conversion, a pointer of another type or another struct does not
// compile (kernel_interface.h).
template <typename K, typename... A>
void launch(DeviceState& s, CUstream stream, Dim3 grid, Dim3 block, const LaunchSite& site, const A&... args) {
  if constexpr (check_launch<K, A...>()) {
    typename KernelParams<decltype(&K::params)>::Values values(args...);
    launch_raw(s, stream, K::name, grid, block, values.pointers, site);
  }
}

// An op kernel's launch of n threads in blocks of `threads` under a grid-stride loop (grid from
// blocks_for), on the op's device and stream, with the op for messages:
//   const OpLaunch L(c, "MaxPool2D", y.numel());
//   L.run<kernels::gg_maxpool_fwd<float>>(g, ptr<float>(y), ptr<const float>(x));
struct OpLaunch {
  OpLaunch(const KernelContext& c, const char* op, int64_t n, unsigned threads = 256);
  template <typename K, typename... A>
  void run(const A&... args) const {
    launch<K>(s, stream, grid, block, site, args...);
  }
  DeviceState& s;
  CUstream stream;
  LaunchSite site;
  Dim3 grid, block;
};

// Launches `kernel` by name with arguments `args` (their types must be exactly the kernel's
// parameter types: int for int, int64_t for int64_t, pointers, parameter structs by value).
// For the kernels not yet declared in a family table.
template <typename... A>
void launch(DeviceState& s, CUstream stream, const char* kernel, Dim3 grid, Dim3 block, const LaunchSite& site,
            A... args) {
  void* params[] = {static_cast<void*>(&args)...};
  launch_raw(s, stream, kernel, grid, block, params, site);
}

// Calls f(T{}) with T the element type of a float dtype: float for float32, double for float64.
template <typename F>
void dispatch_float(DType dt, F&& f) {
  if (dt == DType::Float64) {
    f(double{});
  } else {
    f(float{});
  }
}

// Calls f(T{}) with T the element type of a float or int64 dtype: int64_t for int64, else as
// dispatch_float.
template <typename F>
void dispatch_float_int64(DType dt, F&& f) {
  if (dt == DType::Int64) {
    f(int64_t{});
  } else {
    dispatch_float(dt, f);
  }
}

// Kernel-side views of tensors.
template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// collapse_axes (strided.h) for a kernel's parameter block: throws UnsupportedError, naming the
// op and `fix`, when more than GG_MAX_DIMS axes remain.
CollapsedAxes collapse_for_kernel(const Shape& shape, const std::vector<Strides>& strides, const LaunchSite& site,
                                  const char* fix = "make the input contiguous first: x.contiguous()",
                                  size_t min_rank = 1);
// GGIter over `shape` for operands with the given element strides (operand 0 is usually the
// dense output), collapsed by collapse_for_kernel.
GGIter make_iter(const Shape& shape, const std::vector<Strides>& strides, const LaunchSite& site);
// Throws UnsupportedError when a tensor has 2^31 elements or more (kernels with 32-bit index
// arithmetic).
void require_int32_sizes(const KernelContext& c, const char* op);

// The DType code of the parameter blocks.
inline int dtype_code(DType d) { return static_cast<int>(d); }
const char* dtype_suffix(DType d);  // "f32", "f64", "i64", "u8" (bool uses u8)
// kernel name = base + "_" + suffix, kept in a static string table (names are used as keys).
std::string kname(const char* base, DType d);

}  // namespace cuda
}  // namespace glassgrad
