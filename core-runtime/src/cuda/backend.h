// Internal state of the CUDA backend: one entry per device with its primary context, its one
// stream, the loaded kernel module and a name -> CUfunction cache. Everything is created on
// first use of the device (state()). The backend's files: backend.cpp (device setup, state,
// function lookup, driver errors), kernel_image.cpp (the embedded fatbin and its loading),
// graph_capture.cpp, error_words.cpp, knobs.cpp (switches), driver.cpp (the dlopen'ed driver).
#pragma once
#include <mutex>
#include <string>
#include <unordered_map>

#include "cuda/driver_api.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {
namespace cuda {

struct DeviceState {
  int index = 0;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  CUmodule module = nullptr;
  DeviceInfo info;
  std::mutex mu;  // guards functions
  std::unordered_map<std::string, CUfunction> functions;
};

// The initialized device; throws DeviceError with why_unavailable()'s kind of reason.
DeviceState& state(int index);
// Makes the device's context current on this thread (cheap; call before driver calls).
void make_current(const DeviceState& s);
CUfunction function(DeviceState& s, const char* name);
// Throws CudaError "<what>: <CUDA error name: description>" (plus `fix` when given).
void check(CUresult r, const std::string& what, const std::string& fix = "");
// The driver, known to be loaded (state() succeeded before).
const DriverApi& api();

// Registers the DeviceHooks (copy.cpp); called once when the first device initializes.
void register_hooks();

// The embedded kernels (kernel_image.cpp): which image a GPU of `info` runs ("sm_90 machine
// code" or PTX), and loading them into s's context (current); "" or why they cannot be loaded.
std::string kernel_image_for(const DeviceInfo& info);
std::string load_kernel_image(DeviceState& s, const std::string& gpu);
// Why a build without kernels cannot use CUDA: its build note, and the GPU this machine has with
// the command that rebuilds with kernels for it.
std::string no_kernels_reason();

}  // namespace cuda
}  // namespace glassgrad
