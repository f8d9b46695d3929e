// The CUDA backend from C++, on any machine: it never throws merely because there is no GPU,
// it says why it is unavailable, a CUDA tensor then raises DeviceError with that reason, and
// a build with kernels registers a CUDA kernel next to every CPU kernel. (Parity of the
// kernels themselves is tested on a GPU machine: python-bindings/tests/test_cuda_ops.py.)
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "cuda/functions.h"
#include "cuda/image_choice.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
namespace {

TEST(CudaBackend, AvailabilityAndReasonAgree) {
  const bool available = cuda::is_available();
  const std::string why = cuda::why_unavailable();
  EXPECT_EQ(available, why.empty()) << why;
  if (!cuda::built_with_kernels()) {
    EXPECT_FALSE(available);
    EXPECT_NE(why.find("no CUDA kernels"), std::string::npos) << why;
    EXPECT_EQ(cuda::fatbin_size(), 0u);
  } else {
    size_t bytes = cuda::fatbin_size();  // 0 when the build holds CUDA 12 images only
    for (const cuda::LegacyImage& img : cuda::legacy_images()) bytes += img.size;
    EXPECT_GT(bytes, 1000u);
    EXPECT_FALSE(cuda::built_archs().empty());
  }
  // The build's own sentence on its kernels starts by saying whether it has any.
  EXPECT_EQ(cuda::build_note().rfind(cuda::built_with_kernels() ? "CUDA kernels for " : "no CUDA kernels: ", 0), 0u)
      << cuda::build_note();
}

TEST(CudaBackend, CudaTensorWithoutAGpuRaisesDeviceErrorWithTheReason) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is visible";
  try {
    Tensor::empty({4}, DType::Float32, Device::cuda(0));
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cuda:0"), std::string::npos) << msg;
    EXPECT_NE(msg.find(cuda::why_unavailable()), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
  }
}

// The registry of CUDA functions (src/cuda/functions.h): the launchers' declarations, refused
// names, and what cuda::kernel_names() reports for the fatbin tests.
TEST(CudaBackend, OnlyDeclaredCudaFunctionsCanBeLoaded) {
  try {
    cuda::require_registered("gg_not_a_kernel_f32");
    FAIL() << "expected InternalError";
  } catch (const InternalError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("gg_not_a_kernel_f32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("FunctionNames"), std::string::npos) << msg;
  }
  const std::vector<std::string> names = cuda::kernel_names();
  if (!cuda::built_with_kernels()) {
    EXPECT_TRUE(names.empty());
    return;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  for (const char* expected : {"gg_cast", "gg_conv_fwd_direct_f32", "gg_conv_fwd_direct_f64", "gg_compare_u8"})
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), std::string(expected))) << expected;
  for (const auto& n : names) EXPECT_NO_THROW(cuda::require_registered(n.c_str())) << n;
}

// The image rule (image_choice.h) over a full build: a CUDA 13 fatbin (sm_75..sm_120 + PTX
// compute_75, driver 13000 and newer) and NVRTC 12's images (sm_50..sm_90 cubins from driver
// 12000, PTX compute_50 from 12090).
std::vector<cuda::ImageOption> full_build_images() {
  std::vector<cuda::ImageOption> images;
  for (int a : {75, 80, 86, 89, 90, 100, 120}) images.push_back({"sm_" + std::to_string(a), a, false, true, 13000});
  images.push_back({"compute_75", 75, true, true, 13000});
  for (int a : {50, 52, 60, 61, 70, 75, 80, 86, 89, 90})
    images.push_back({"sm_" + std::to_string(a), a, false, false, 12000});
  images.push_back({"compute_50", 50, true, false, 12090});
  return images;
}

std::string pick(const std::vector<cuda::ImageOption>& images, int major, int minor, int driver,
                 const std::string& forced = "") {
  std::string why;
  const cuda::ImageOption* o = cuda::choose_image(major, minor, driver, images, forced, &why);
  return o ? o->name + (o->nvcc ? "/nvcc" : "/nvrtc") : "none: " + why;
}

TEST(CudaBackend, KernelImageIsChosenByComputeCapability) {
  std::vector<cuda::ImageOption> images = full_build_images();
  const int d580 = 13000;
  EXPECT_EQ(pick(images, 6, 1, d580), "sm_61/nvrtc");        // GTX 1050 Ti: its own machine code
  EXPECT_EQ(pick(images, 9, 0, d580), "sm_90/nvcc");         // H100/H200: nvcc's wins the tie
  EXPECT_EQ(pick(images, 6, 2, d580), "sm_61/nvrtc");        // Jetson TX2: the newest lower SASS of major 6
  EXPECT_EQ(pick(images, 5, 3, d580), "sm_52/nvrtc");        // Jetson Nano
  EXPECT_EQ(pick(images, 7, 2, d580), "sm_70/nvrtc");        // Xavier: SASS of major 7 below 7.2, not 7.5
  EXPECT_EQ(pick(images, 8, 7, d580), "sm_86/nvcc");         // Orin
  EXPECT_EQ(pick(images, 12, 1, d580), "sm_120/nvcc");
  EXPECT_EQ(pick(images, 13, 0, d580), "compute_75/nvcc");   // a future GPU: the newest PTX
  EXPECT_EQ(pick(images, 9, 0, d580, "compute_50"), "compute_50/nvrtc");
  EXPECT_NE(pick(images, 3, 5, d580).find("no embedded kernel image runs on compute capability 3.5"), std::string::npos);
  EXPECT_NE(pick(images, 9, 0, d580, "sm_35").find("names none of the NVRTC images"), std::string::npos);
  EXPECT_NE(pick(images, 9, 0, d580, "compute_75").find("it has: sm_50, sm_52, sm_60, sm_61, sm_70, sm_75"),
            std::string::npos);  // nvcc's images are not forced: the driver picks in its fatbin
  EXPECT_EQ(pick(images, 7, 5, d580, "sm_70"), "sm_70/nvrtc");  // forced even where the driver would refuse it
  EXPECT_EQ(pick(images, 9, 0, 0), "sm_90/nvcc");  // an unknown driver version: every image counts
  images.resize(8);  // without NVRTC's images, Pascal has none
  EXPECT_NE(pick(images, 6, 1, d580).find("no embedded kernel image"), std::string::npos);
  EXPECT_NE(pick(images, 9, 0, d580, "compute_50").find("built without GLASSGRAD_CUDA_LEGACY"), std::string::npos);
}

// Drivers 525 to 575 cannot load CUDA 13's machine code: the CUDA 12 images run instead.
TEST(CudaBackend, KernelImageIsChosenByDriverVersion) {
  const std::vector<cuda::ImageOption> images = full_build_images();
  for (int driver : {12000, 12040, 12080, 12090}) {  // 525, 550, 570, 575
    SCOPED_TRACE(driver);
    EXPECT_EQ(pick(images, 9, 0, driver), "sm_90/nvrtc");   // H100 on a 550 driver
    EXPECT_EQ(pick(images, 7, 5, driver), "sm_75/nvrtc");   // T4
    EXPECT_EQ(pick(images, 8, 6, driver), "sm_86/nvrtc");   // RTX 30xx
    EXPECT_EQ(pick(images, 8, 9, driver), "sm_89/nvrtc");   // L4, RTX 40xx
    EXPECT_EQ(pick(images, 8, 7, driver), "sm_86/nvrtc");   // Orin: the newest lower of major 8
    EXPECT_EQ(pick(images, 6, 1, driver), "sm_61/nvrtc");
  }
  EXPECT_EQ(pick(images, 13, 0, 12040), "none: the NVIDIA driver (CUDA 12.4 (driver 550)) is older than the one "
            "this build's kernels for compute capability 13.0 need (compute_75: CUDA 13.0 (driver 580)), and the "
            "build has no CUDA 12 image for it (this build has: sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120, "
            "compute_75, sm_50, sm_52, sm_60, sm_61, sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, compute_50)");
  // The PTX of NVRTC 12.9 needs the 575 driver: forced on a 550 one, it is refused with both versions.
  EXPECT_NE(pick(images, 9, 0, 12040, "compute_50").find("needs a driver of CUDA 12.9 (driver 575)"), std::string::npos);
  EXPECT_EQ(pick(images, 9, 0, 12090, "compute_50"), "compute_50/nvrtc");
  // Blackwell on a 570 driver: nvcc's sm_120 needs 580 and NVRTC 12.9's PTX 575; there is no CUDA 12 cubin of it.
  EXPECT_NE(pick(images, 12, 0, 12080).find("need (sm_120: CUDA 13.0 (driver 580))"), std::string::npos);
  std::vector<cuda::ImageOption> nvcc_only(images.begin(), images.begin() + 8);
  EXPECT_NE(pick(nvcc_only, 9, 0, 12040).find("older than the one this build's kernels for compute capability 9.0 "
                                              "need (sm_90: CUDA 13.0 (driver 580))"),
            std::string::npos);
}

TEST(CudaBackend, DriverVersionsAreReadInEveryForm) {
  const auto read = [](const std::string& text) {
    int v = 0;
    std::string why;
    return cuda::parse_driver_version(text, &v, &why) ? std::to_string(v) : "error: " + why;
  };
  EXPECT_EQ(read("12040"), "12040");
  EXPECT_EQ(read("12.4"), "12040");
  EXPECT_EQ(read("13.0"), "13000");
  EXPECT_EQ(read("550"), "12040");
  EXPECT_EQ(read("550.54.14"), "12040");
  EXPECT_EQ(read("535"), "12020");
  EXPECT_EQ(read("580"), "13000");
  EXPECT_EQ(read("565"), "12060");  // a branch between two of the table: the older's CUDA version
  EXPECT_NE(read("470").find("older than any CUDA 12 driver (525)"), std::string::npos);
  EXPECT_NE(read("latest").find("'latest' is not a driver version"), std::string::npos);
  EXPECT_NE(read("12.4.1").find("not a driver version"), std::string::npos);
  EXPECT_EQ(cuda::driver_words(12040), "CUDA 12.4 (driver 550)");
  EXPECT_EQ(cuda::driver_words(12070), "CUDA 12.7 (driver 560 or newer)");
  EXPECT_EQ(cuda::driver_branch(13000), 580);
}

TEST(CudaBackend, UnknownConvAlgorithmIsRefused) {
  EXPECT_THROW(cuda::set_conv_algo("fft"), ValueError);
  EXPECT_EQ(cuda::conv_algo(), "auto");
}

TEST(CudaBackend, EveryCpuKernelHasACudaKernelWhenBuiltWithKernels) {
  std::set<std::pair<std::string, DType>> cpu, gpu;
  for (const auto& k : KernelRegistry::instance().list()) {
    (std::get<1>(k) == DeviceType::CPU ? cpu : gpu).insert({std::get<0>(k), std::get<2>(k)});
  }
  if (!cuda::built_with_kernels()) {
    EXPECT_TRUE(gpu.empty());
    return;
  }
  for (const auto& k : cpu) EXPECT_TRUE(gpu.count(k)) << k.first << " " << dtype_name(k.second);
}

}  // namespace
}  // namespace glassgrad
