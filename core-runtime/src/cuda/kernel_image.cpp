// The CUDA kernels embedded in this build (one fatbin, GlassgradFatbin.cmake) and their
// loading into a device's context: which architectures the build holds, which image a GPU
// runs (its own machine code, or PTX the driver JIT-compiles), and why loading failed, in
// words a user can act on.
#include "cuda/backend.h"

#ifndef GLASSGRAD_HAVE_CUDA_KERNELS
#define GLASSGRAD_HAVE_CUDA_KERNELS 0
#endif

#if GLASSGRAD_HAVE_CUDA_KERNELS
extern "C" const unsigned char glassgrad_cuda_fatbin_begin[];
extern "C" const unsigned char glassgrad_cuda_fatbin_end[];
#endif

namespace glassgrad {
namespace cuda {

bool built_with_kernels() { return GLASSGRAD_HAVE_CUDA_KERNELS != 0; }

std::string built_archs() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  return GLASSGRAD_CUDA_ARCH_DESC;
#else
  return "";
#endif
}

std::string built_cuda_version() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  return GLASSGRAD_CUDA_BUILD_VERSION;
#else
  return "";
#endif
}

const unsigned char* fatbin_data() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  return glassgrad_cuda_fatbin_begin;
#else
  return nullptr;
#endif
}

size_t fatbin_size() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  return static_cast<size_t>(glassgrad_cuda_fatbin_end - glassgrad_cuda_fatbin_begin);
#else
  return 0;
#endif
}

namespace {

std::string arch_sentence() {
  return "this build embeds kernels for " + built_archs() + " (CUDA " + built_cuda_version() + ")";
}

bool arch_built(int major, int minor) {
  const std::string tag = "sm_" + std::to_string(major * 10 + minor);
  const std::string a = built_archs();
  size_t pos = 0;
  while ((pos = a.find(tag, pos)) != std::string::npos) {
    const size_t end = pos + tag.size();
    if (end == a.size() || a[end] == ',' || a[end] == ' ') return true;
    pos = end;
  }
  return false;
}

}  // namespace

std::string kernel_image_for(const DeviceInfo& info) {
  return arch_built(info.major, info.minor) ? "sm_" + std::to_string(info.major * 10 + info.minor) + " machine code"
                                             : "PTX, JIT-compiled by the driver";
}

std::string load_kernel_image(DeviceState& s, const std::string& gpu) {
  const DeviceInfo& info = s.info;
  char log[8192] = {0};
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[2] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log) - 1))};
  const CUresult r = api().cuModuleLoadDataEx(&s.module, fatbin_data(), 2, opts, vals);
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
    return "the embedded CUDA kernels have no image for " + gpu + ": " + arch_sentence() +
           ", and the driver cannot use any of them on compute capability " + std::to_string(info.major) + "." +
           std::to_string(info.minor) + "; rebuild with GLASSGRAD_CUDA_ARCHS=" +
           std::to_string(info.major * 10 + info.minor) + " (CUDA 13 supports 7.5 and newer, CUDA 12 5.0 and newer)";
  }
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    return "the NVIDIA driver (version " + std::to_string(info.driver_version) + ") is older than the CUDA " +
           built_cuda_version() + " toolkit the kernels were built with, so it cannot JIT their PTX for " + gpu +
           "; update the driver, or rebuild with GLASSGRAD_CUDA_ARCHS=" + std::to_string(info.major * 10 + info.minor);
  }
  if (r != CUDA_SUCCESS) {
    std::string msg = "loading the CUDA kernels on " + gpu + " failed: " + result_string(r);
    if (log[0]) msg += " (JIT log: " + std::string(log) + ")";
    return msg;
  }
  return "";
}

}  // namespace cuda
}  // namespace glassgrad
