// The CUDA kernels embedded in this build and their loading into a device's context: nvcc's
// fatbin (GlassgradFatbin.cmake: sm_75 and newer with CUDA 13, plus PTX) and NVRTC 12's images
// for Maxwell to Volta (GlassgradLegacy.cmake, glassgrad/runtime/cuda.h); which one a GPU runs
// (image_choice.h: its own machine code, the newest lower of its major version, else PTX the
// driver JIT-compiles), and why loading failed, in words a user can act on.
#include <cstdlib>

#include "cuda/backend.h"
#include "cuda/image_choice.h"
#include "glassgrad/runtime/settings.h"

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
  std::string d = GLASSGRAD_CUDA_ARCH_DESC;
  std::string legacy;
  for (const LegacyImage& img : legacy_images()) legacy += std::string(legacy.empty() ? "" : ", ") + (img.ptx ? "PTX " : "") + img.name;
  if (!legacy.empty()) d += "; NVRTC 12: " + legacy;
  return d;
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

#if !GLASSGRAD_HAVE_CUDA_KERNELS
const std::vector<LegacyImage>& legacy_images() {
  static const std::vector<LegacyImage> none;
  return none;
}
#endif

namespace {

std::string arch_sentence() {
  return "this build embeds kernels for " + built_archs() + " (CUDA " + built_cuda_version() + ")";
}

#if GLASSGRAD_HAVE_CUDA_KERNELS
// "75,80,90" -> {75, 80, 90}: the architectures nvcc's fatbin was built for (a CPU-only build
// embeds none, so it has no list to read).
std::vector<int> arch_list(const char* csv) {
  std::vector<int> v;
  for (const char* p = csv; *p;) {
    v.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return v;
}
#endif

// Every image this build holds: nvcc's fatbin (its SASS architectures and its PTX) and NVRTC's.
std::vector<ImageOption> embedded_images() {
  std::vector<ImageOption> o;
#if GLASSGRAD_HAVE_CUDA_KERNELS
  for (int a : arch_list(GLASSGRAD_CUDA_SASS_ARCHS)) o.push_back({"sm_" + std::to_string(a), a, false, true});
  for (int a : arch_list(GLASSGRAD_CUDA_PTX_ARCHS)) o.push_back({"compute_" + std::to_string(a), a, true, true});
#endif
  for (const LegacyImage& img : legacy_images()) o.push_back({img.name, img.arch, img.ptx, false});
  return o;
}

// GLASSGRAD_CUDA_IMAGE=compute_50 runs NVRTC's Maxwell PTX on any GPU (the driver JIT-compiles
// it), so the sm_50 code path is tested without an old card.
std::string forced_image() { return forced_kernel_image(); }

}  // namespace

std::string kernel_image_for(const DeviceInfo& info) {
  const std::vector<ImageOption> options = embedded_images();
  std::string why;
  const ImageOption* o = choose_image(info.major, info.minor, options, forced_image(), &why);
  if (!o) return "none (" + why + ")";
  const std::string by = o->nvcc ? "nvcc, CUDA " + built_cuda_version() : "NVRTC 12";
  std::string d = o->ptx ? "PTX " + o->name + " (" + by + "), JIT-compiled by the driver"
                         : o->name + " machine code (" + by + ")";
  if (!forced_image().empty()) d += "; forced by GLASSGRAD_CUDA_IMAGE";
  return d;
}

std::string load_kernel_image(DeviceState& s, const std::string& gpu) {
  const DeviceInfo& info = s.info;
  const std::vector<ImageOption> options = embedded_images();
  std::string why;
  const ImageOption* choice = choose_image(info.major, info.minor, options, forced_image(), &why);
  if (!choice) {
    const int cc = info.major * 10 + info.minor;
    std::string fix;  // a forced name's `why` already says to unset it
    if (forced_image().empty())
      fix = cc < 75 ? "; rebuild with CUDA 12's NVRTC, which compiles the Maxwell-to-Volta images (pip install "
                      "nvidia-cuda-nvrtc-cu12, then build with GLASSGRAD_CUDA_LEGACY=ON; docs/cuda.md)"
                    : "; rebuild with GLASSGRAD_CUDA_ARCHS=" + std::to_string(cc);
    return "the embedded CUDA kernels have no image for " + gpu + ": " + why + fix;
  }
  const void* image = fatbin_data();
  for (const LegacyImage& img : legacy_images())
    if (!choice->nvcc && choice->name == img.name) image = img.begin;
  char log[8192] = {0};
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[2] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log) - 1))};
  const CUresult r = api().cuModuleLoadDataEx(&s.module, image, 2, opts, vals);
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
    return "the embedded CUDA kernels have no image for " + gpu + ": " + arch_sentence() + " (chosen: " +
           choice->name + "), and the driver cannot use it on compute capability " + std::to_string(info.major) +
           "." + std::to_string(info.minor) + "; rebuild with GLASSGRAD_CUDA_ARCHS=" +
           std::to_string(info.major * 10 + info.minor) +
           (forced_image().empty() ? "" : ", or unset GLASSGRAD_CUDA_IMAGE");
  }
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    return "the NVIDIA driver (version " + std::to_string(info.driver_version) + ") is older than the CUDA " +
           (choice->nvcc ? built_cuda_version() : std::string("12")) + " compiler of the kernels' PTX (" + choice->name +
           "), so it cannot JIT it for " + gpu + "; update the driver, or rebuild with GLASSGRAD_CUDA_ARCHS=" +
           std::to_string(info.major * 10 + info.minor);
  }
  if (r != CUDA_SUCCESS) {
    std::string msg = "loading the CUDA kernels (" + choice->name + ") on " + gpu + " failed: " + result_string(r);
    if (log[0]) msg += " (JIT log: " + std::string(log) + ")";
    return msg;
  }
  return "";
}

}  // namespace cuda
}  // namespace glassgrad
