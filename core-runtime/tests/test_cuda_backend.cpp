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
    EXPECT_GT(cuda::fatbin_size(), 1000u);
    EXPECT_EQ(cuda::built_archs().rfind("sm_", 0), 0u) << cuda::built_archs();
  }
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

// The image rule (image_choice.h) over a CUDA 13 fatbin (sm_75..sm_120 + PTX compute_75) and
// NVRTC 12's images (sm_50, 52, 60, 61, 70 + PTX compute_50).
TEST(CudaBackend, KernelImageIsChosenByComputeCapability) {
  std::vector<cuda::ImageOption> images;
  for (int a : {75, 80, 86, 89, 90, 100, 120}) images.push_back({"sm_" + std::to_string(a), a, false, true});
  images.push_back({"compute_75", 75, true, true});
  for (int a : {50, 52, 60, 61, 70}) images.push_back({"sm_" + std::to_string(a), a, false, false});
  images.push_back({"compute_50", 50, true, false});
  const auto pick = [&](int major, int minor, const std::string& forced = "") {
    std::string why;
    const cuda::ImageOption* o = cuda::choose_image(major, minor, images, forced, &why);
    return o ? o->name + (o->nvcc ? "/nvcc" : "/nvrtc") : "none: " + why;
  };
  EXPECT_EQ(pick(6, 1), "sm_61/nvrtc");        // GTX 1050 Ti: its own machine code
  EXPECT_EQ(pick(9, 0), "sm_90/nvcc");         // H100/H200
  EXPECT_EQ(pick(6, 2), "sm_61/nvrtc");        // Jetson TX2: the newest lower SASS of major 6
  EXPECT_EQ(pick(5, 3), "sm_52/nvrtc");        // Jetson Nano
  EXPECT_EQ(pick(7, 2), "sm_70/nvrtc");        // Xavier: SASS of major 7 below 7.2, not nvcc's 7.5
  EXPECT_EQ(pick(8, 7), "sm_86/nvcc");         // Orin
  EXPECT_EQ(pick(12, 1), "sm_120/nvcc");
  EXPECT_EQ(pick(13, 0), "compute_75/nvcc");   // a future GPU: the newest PTX
  EXPECT_EQ(pick(9, 0, "compute_50"), "compute_50/nvrtc");
  EXPECT_NE(pick(3, 5).find("no embedded kernel image runs on compute capability 3.5"), std::string::npos);
  EXPECT_NE(pick(9, 0, "sm_35").find("names none of the NVRTC images"), std::string::npos);
  EXPECT_NE(pick(9, 0, "compute_75").find("it has: sm_50, sm_52, sm_60, sm_61, sm_70, compute_50"),
            std::string::npos);  // nvcc's images are not forced: the driver picks in its fatbin
  EXPECT_EQ(pick(7, 5, "sm_70"), "sm_70/nvrtc");  // forced even where the driver would refuse it
  images.resize(8);  // without NVRTC's images, Pascal has none
  EXPECT_NE(pick(6, 1).find("no embedded kernel image"), std::string::npos);
  EXPECT_NE(pick(9, 0, "compute_50").find("built without GLASSGRAD_CUDA_LEGACY"), std::string::npos);
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
