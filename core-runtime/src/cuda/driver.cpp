// Opens libcuda.so.1 with dlopen and resolves the driver entry points of driver_api.h, once.
// Failing is normal (a machine without an NVIDIA driver): the reason is kept for
// glassgrad.cuda.why_unavailable() and nothing throws here.
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "cuda/driver_api.h"

namespace glassgrad {
namespace cuda {

namespace {

struct Loaded {
  DriverApi api{};
  bool ok = false;
  std::string error;
};

template <typename F>
bool resolve(void* lib, const char* name, F& fn, std::string& error) {
  void* p = dlsym(lib, name);
  if (!p) {
    if (error.empty()) error = std::string("libcuda.so.1 has no entry point ") + name + " (driver too old?)";
    return false;
  }
  fn = reinterpret_cast<F>(p);
  return true;
}

Loaded load() {
  Loaded L;
  // libcuda.so.1 is what the driver package installs; the unversioned name only exists with
  // the development files, so it is only the fallback.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e1 = dlerror();
    std::string first = e1 ? e1 : "unknown dlopen error";
    lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      L.error = "the NVIDIA driver library libcuda.so.1 could not be loaded (" + first +
                "); install the NVIDIA driver, or use the CPU";
      return L;
    }
  }
  DriverApi& a = L.api;
  std::string& err = L.error;
  bool ok = true;
  ok &= resolve(lib, "cuInit", a.cuInit, err);
  ok &= resolve(lib, "cuDriverGetVersion", a.cuDriverGetVersion, err);
  ok &= resolve(lib, "cuGetErrorName", a.cuGetErrorName, err);
  ok &= resolve(lib, "cuGetErrorString", a.cuGetErrorString, err);
  ok &= resolve(lib, "cuDeviceGetCount", a.cuDeviceGetCount, err);
  ok &= resolve(lib, "cuDeviceGet", a.cuDeviceGet, err);
  ok &= resolve(lib, "cuDeviceGetName", a.cuDeviceGetName, err);
  ok &= resolve(lib, "cuDeviceGetAttribute", a.cuDeviceGetAttribute, err);
  ok &= resolve(lib, "cuDeviceTotalMem_v2", a.cuDeviceTotalMem, err);
  ok &= resolve(lib, "cuDevicePrimaryCtxRetain", a.cuDevicePrimaryCtxRetain, err);
  ok &= resolve(lib, "cuCtxSetCurrent", a.cuCtxSetCurrent, err);
  ok &= resolve(lib, "cuCtxSynchronize", a.cuCtxSynchronize, err);
  ok &= resolve(lib, "cuStreamCreate", a.cuStreamCreate, err);
  ok &= resolve(lib, "cuStreamSynchronize", a.cuStreamSynchronize, err);
  ok &= resolve(lib, "cuModuleLoadDataEx", a.cuModuleLoadDataEx, err);
  ok &= resolve(lib, "cuModuleGetFunction", a.cuModuleGetFunction, err);
  ok &= resolve(lib, "cuFuncGetAttribute", a.cuFuncGetAttribute, err);
  ok &= resolve(lib, "cuLaunchKernel", a.cuLaunchKernel, err);
  ok &= resolve(lib, "cuMemAlloc_v2", a.cuMemAlloc, err);
  ok &= resolve(lib, "cuMemFree_v2", a.cuMemFree, err);
  ok &= resolve(lib, "cuMemGetInfo_v2", a.cuMemGetInfo, err);
  ok &= resolve(lib, "cuMemcpyHtoDAsync_v2", a.cuMemcpyHtoDAsync, err);
  ok &= resolve(lib, "cuMemcpyDtoHAsync_v2", a.cuMemcpyDtoHAsync, err);
  ok &= resolve(lib, "cuMemcpyDtoDAsync_v2", a.cuMemcpyDtoDAsync, err);
  ok &= resolve(lib, "cuMemsetD8Async", a.cuMemsetD8Async, err);
  if (!ok) return L;  // the library stays open: unloading a driver is never worth the risk
  {
    std::string ignored;  // graphs are optional: without them, plans run kernel by kernel
    bool graphs = resolve(lib, "cuStreamBeginCapture_v2", a.cuStreamBeginCapture, ignored);
    graphs &= resolve(lib, "cuStreamEndCapture", a.cuStreamEndCapture, ignored);
    graphs &= resolve(lib, "cuGraphInstantiateWithFlags", a.cuGraphInstantiateWithFlags, ignored);
    graphs &= resolve(lib, "cuGraphLaunch", a.cuGraphLaunch, ignored);
    graphs &= resolve(lib, "cuGraphExecDestroy", a.cuGraphExecDestroy, ignored);
    graphs &= resolve(lib, "cuGraphDestroy", a.cuGraphDestroy, ignored);
    if (!graphs) a.cuStreamBeginCapture = nullptr;
    bool events = resolve(lib, "cuEventCreate", a.cuEventCreate, ignored);
    events &= resolve(lib, "cuEventRecord", a.cuEventRecord, ignored);
    events &= resolve(lib, "cuEventSynchronize", a.cuEventSynchronize, ignored);
    events &= resolve(lib, "cuEventElapsedTime", a.cuEventElapsedTime, ignored);
    events &= resolve(lib, "cuEventDestroy_v2", a.cuEventDestroy, ignored);
    if (!events) a.cuEventCreate = nullptr;
    if (!resolve(lib, "cuStreamWaitEvent", a.cuStreamWaitEvent, ignored)) a.cuStreamWaitEvent = nullptr;
    if (!resolve(lib, "cuMemHostAlloc", a.cuMemHostAlloc, ignored)) a.cuMemHostAlloc = nullptr;
    if (!resolve(lib, "cuMemFreeHost", a.cuMemFreeHost, ignored)) a.cuMemFreeHost = nullptr;
    if (!resolve(lib, "cuMemHostRegister_v2", a.cuMemHostRegister, ignored) ||
        !resolve(lib, "cuMemHostUnregister", a.cuMemHostUnregister, ignored)) {
      a.cuMemHostRegister = nullptr;
      a.cuMemHostUnregister = nullptr;
    }
    if (!resolve(lib, "cuEventQuery", a.cuEventQuery, ignored)) a.cuEventQuery = nullptr;
  }
  const CUresult r = a.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    const char* text = nullptr;
    a.cuGetErrorName(r, &name);
    a.cuGetErrorString(r, &text);
    L.error = std::string("the NVIDIA driver failed to initialize: cuInit returned ") + (name ? name : "?") +
              " (" + (text ? text : "no description") + ")";
    if (r == CUDA_ERROR_NO_DEVICE) L.error += "; no CUDA GPU is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES)";
    return L;
  }
  L.ok = true;
  return L;
}

const Loaded& loaded() {
  static const Loaded* L = new Loaded(load());  // never destroyed: the driver outlives us
  return *L;
}

}  // namespace

const DriverApi* driver() {
  const Loaded& L = loaded();
  return L.ok ? &L.api : nullptr;
}

const std::string& driver_error() { return loaded().error; }

std::string result_string(CUresult r) {
  const Loaded& L = loaded();
  const char* name = nullptr;
  const char* text = nullptr;
  if (L.api.cuGetErrorName) L.api.cuGetErrorName(r, &name);
  if (L.api.cuGetErrorString) L.api.cuGetErrorString(r, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(r);
  if (text) s += std::string(": ") + text;
  return s;
}

}  // namespace cuda
}  // namespace glassgrad
