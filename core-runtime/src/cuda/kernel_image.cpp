// The CUDA kernels embedded in this build and their loading into a device's context: nvcc's
// fatbin (GlassgradFatbin.cmake: sm_75 and newer with CUDA 13, plus PTX) and the CUDA 12 images
// NVRTC compiled (GlassgradLegacy.cmake, glassgrad/runtime/cuda.h); which one a GPU runs
// (image_choice.h: by the driver's version, then its own machine code, the newest lower of its
// major version, else PTX the driver JIT-compiles), and why loading failed, in words a user can
// act on, with the one command that rebuilds with kernels for the GPU.
#include <cstdlib>

#include "cuda/backend.h"
#include "cuda/image_choice.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/settings.h"

#ifndef GLASSGRAD_HAVE_CUDA_KERNELS
#define GLASSGRAD_HAVE_CUDA_KERNELS 0
#endif
#ifndef GLASSGRAD_CUDA_BUILD_NOTE  // set by GlassgradCuda.cmake; absent only outside its build
#define GLASSGRAD_CUDA_BUILD_NOTE "no CUDA kernels: built outside glassgrad's CMake files"
#endif

#if GLASSGRAD_HAVE_CUDA_KERNELS
extern "C" const unsigned char glassgrad_cuda_fatbin_begin[];
extern "C" const unsigned char glassgrad_cuda_fatbin_end[];
#endif

namespace glassgrad {
namespace cuda {

bool built_with_kernels() { return GLASSGRAD_HAVE_CUDA_KERNELS != 0; }

std::string build_note() { return GLASSGRAD_CUDA_BUILD_NOTE; }

std::string built_archs() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  std::string d = GLASSGRAD_CUDA_ARCH_DESC;
  std::string legacy;
  for (const LegacyImage& img : legacy_images()) legacy += std::string(legacy.empty() ? "" : ", ") + (img.ptx ? "PTX " : "") + img.name;
  if (!legacy.empty()) d += (d.empty() ? "" : "; ") + std::string("NVRTC 12: ") + legacy;
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
  return fatbin_size() ? glassgrad_cuda_fatbin_begin : nullptr;  // empty: CUDA 12 images only
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

// Every image this build holds: nvcc's fatbin (its SASS architectures and its PTX) and NVRTC's,
// each with the oldest driver that loads it: nvcc's machine code needs a driver of nvcc's major
// CUDA version (CUDA 13's: 580), its PTX one of nvcc's exact version; NVRTC's are in its table.
std::vector<ImageOption> embedded_images() {
  std::vector<ImageOption> o;
#if GLASSGRAD_HAVE_CUDA_KERNELS
  const std::string v = GLASSGRAD_CUDA_BUILD_VERSION;  // "13.0"
  const int major = std::atoi(v.c_str()), minor = std::atoi(v.c_str() + v.find('.') + 1);
  for (int a : arch_list(GLASSGRAD_CUDA_SASS_ARCHS))
    o.push_back({"sm_" + std::to_string(a), a, false, true, major * 1000});
  for (int a : arch_list(GLASSGRAD_CUDA_PTX_ARCHS))
    o.push_back({"compute_" + std::to_string(a), a, true, true, major * 1000 + minor * 10});
#endif
  for (const LegacyImage& img : legacy_images()) o.push_back({img.name, img.arch, img.ptx, false, img.min_driver});
  return o;
}

// GLASSGRAD_CUDA_IMAGE=compute_50 runs NVRTC's Maxwell PTX on any GPU (the driver JIT-compiles
// it), so the sm_50 code path is tested without an old card.
std::string forced_image() { return forced_kernel_image(); }

// The driver version the choice assumes: the real one, or GLASSGRAD_CUDA_DRIVER_VERSION's (so
// that the CUDA 12 images a 535-575 driver would get are tested on a newer one). *why is set
// when the variable cannot be read.
int driver_for_choice(const DeviceInfo& info, std::string* why) {
  const std::string forced = forced_driver_version();
  if (forced.empty()) return info.driver_version;
  int v = 0;
  if (!parse_driver_version(forced, &v, why)) {
    *why = "GLASSGRAD_CUDA_DRIVER_VERSION: " + *why;
    return -1;
  }
  return v;
}

std::string driver_note(const DeviceInfo& info) {
  std::string ignored;
  if (forced_driver_version().empty()) return "";
  return "; chosen for a driver of " + driver_words(driver_for_choice(info, &ignored)) +
         " (GLASSGRAD_CUDA_DRIVER_VERSION; the driver is " + driver_words(info.driver_version) + ")";
}

// The one command that rebuilds glassgrad with kernels for a GPU of compute capability cc (the
// CUDA 12 images too when its driver is older than nvcc's CUDA).
std::string rebuild_command(int cc, bool cuda12) {
  return "GLASSGRAD_CUDA_ARCHS=" + std::to_string(cc) + (cuda12 ? " GLASSGRAD_CUDA_LEGACY=ON" : "") +
         " bash tools/setup.sh   (in glassgrad's source tree; docs/cuda.md)";
}

}  // namespace

std::string kernel_image_for(const DeviceInfo& info) {
  const std::vector<ImageOption> options = embedded_images();
  std::string why;
  const int driver = driver_for_choice(info, &why);
  const ImageOption* o = driver < 0 ? nullptr : choose_image(info.major, info.minor, driver, options, forced_image(), &why);
  if (!o) return "none (" + why + ")";
  const std::string by = o->nvcc ? "nvcc, CUDA " + built_cuda_version() : "NVRTC 12";
  std::string d = o->ptx ? "PTX " + o->name + " (" + by + "), JIT-compiled by the driver"
                         : o->name + " machine code (" + by + ")";
  if (!forced_image().empty()) d += "; forced by GLASSGRAD_CUDA_IMAGE";
  return d + driver_note(info);
}

std::string no_kernels_reason() {
  std::string why = "this build of glassgrad has " + build_note();
  const DriverApi* a = driver();
  int count = 0;
  CUdevice dev = 0;
  if (!a || a->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0 || a->cuDeviceGet(&dev, 0) != CUDA_SUCCESS)
    return why + "; to build them for a GPU, on its machine: bash tools/setup.sh, or anywhere: " +
           "GLASSGRAD_CUDA_ARCHS=all bash tools/setup.sh (docs/cuda.md)";
  char name[256] = {0};
  int major = 0, minor = 0;
  a->cuDeviceGetName(name, sizeof(name) - 1, dev);
  a->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  a->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  return why + "; this machine has cuda:0 (" + name + ", compute capability " + std::to_string(major) + "." +
         std::to_string(minor) + "), so rebuild with kernels for it: " + rebuild_command(major * 10 + minor, false);
}

std::string load_kernel_image(DeviceState& s, const std::string& gpu) {
  const DeviceInfo& info = s.info;
  const std::vector<ImageOption> options = embedded_images();
  std::string why;
  const int driver = driver_for_choice(info, &why);
  if (driver < 0) return why;
  const ImageOption* choice = choose_image(info.major, info.minor, driver, options, forced_image(), &why);
  if (!choice) {
    const int cc = info.major * 10 + info.minor;
    std::string fix;  // a forced name's `why` already says to unset it
    if (forced_image().empty()) {
      // Too old a driver for nvcc's images: the CUDA 12 ones, unless the GPU is too new for them.
      const bool cuda12 = driver < std::atoi(built_cuda_version().c_str()) * 1000 && cc <= 90;
      fix = "; rebuild with kernels for it: " + rebuild_command(cc, cuda12);
      if (cuda12) fix += ", or update the NVIDIA driver to 580 or newer";
    }
    return "the embedded CUDA kernels have no image for " + gpu + driver_note(info) + ": " + why + fix;
  }
  const void* image = fatbin_data();
  std::vector<unsigned char> unpacked;  // a CUDA 12 image, unpacked for the driver (packed_images.cpp)
  for (const LegacyImage& img : legacy_images())
    if (!choice->nvcc && choice->name == img.name) {
      try {
        unpacked = legacy_image_bytes(img);
      } catch (const Error& e) {
        return e.what();
      }
      image = unpacked.data();
    }
  char log[8192] = {0};
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[2] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log) - 1))};
  const CUresult r = api().cuModuleLoadDataEx(&s.module, image, 2, opts, vals);
  const int cc = info.major * 10 + info.minor;
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
    return "the embedded CUDA kernels have no image for " + gpu + ": " + arch_sentence() + " (chosen: " +
           choice->name + driver_note(info) + "), and the driver cannot use it on compute capability " +
           std::to_string(info.major) + "." + std::to_string(info.minor) + "; rebuild with kernels for it: " +
           rebuild_command(cc, false) + (forced_image().empty() ? "" : ", or unset GLASSGRAD_CUDA_IMAGE") +
           (forced_driver_version().empty() ? "" : ", or unset GLASSGRAD_CUDA_DRIVER_VERSION");
  }
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    return "the NVIDIA driver (" + driver_words(info.driver_version) + ") is older than the CUDA " +
           (choice->nvcc ? built_cuda_version() : std::string("12")) + " compiler of the kernels' PTX (" + choice->name +
           driver_note(info) + "), so it cannot JIT it for " + gpu + "; update the driver, or rebuild with kernels for it: " +
           rebuild_command(cc, false);
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
