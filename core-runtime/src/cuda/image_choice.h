// Which embedded kernel image a GPU runs, as a pure function of its compute capability, its
// driver's version and the images the build holds (kernel_image.cpp supplies them;
// test_cuda_backend.cpp checks the rule; docs/cuda.md "GPUs glassgrad runs on").
//
// An image is usable when the driver is at least its min_driver (cuDriverGetVersion's number:
// CUDA 13's machine code needs 13000, the 580 driver; CUDA 12's cubins 12000, the 525 driver;
// PTX the version of the compiler that wrote it). Among the usable images, the rule is the CUDA
// driver's own for a fatbin, applied across nvcc's fatbin and NVRTC's images:
//   1. machine code (SASS) of the same compute capability;
//   2. else the newest SASS of the same major version below it (sm_61 runs on 6.2);
//   3. else the newest PTX of a compute capability at most the GPU's, JIT-compiled by the driver.
// nvcc's image wins a tie. A forced image (GLASSGRAD_CUDA_IMAGE=compute_50) is taken as named;
// it must be one of NVRTC's (nvcc's fatbin is loaded whole, and the driver applies the rule).
#pragma once
#include <string>
#include <vector>

namespace glassgrad {
namespace cuda {

struct ImageOption {
  std::string name;    // "sm_90", "compute_75", "sm_61", "compute_50"
  int arch = 0;        // 90, 75, 61, 50
  bool ptx = false;
  bool nvcc = false;   // in nvcc's fatbin (else one of NVRTC's images)
  int min_driver = 0;  // the oldest driver that loads it, as cuDriverGetVersion reports (13000)
};

// The chosen option, or nullptr with *why saying why none fits (naming the driver when images
// for the GPU exist but need a newer one). driver_version 0: unknown, every image counts.
const ImageOption* choose_image(int major, int minor, int driver_version, const std::vector<ImageOption>& options,
                                const std::string& forced, std::string* why);

// "CUDA 12.4 (driver 550 or newer)" for 12040: a driver version in words.
std::string driver_words(int driver_version);
// The driver branch that first supports a CUDA version (12040 -> 550, 13000 -> 580; NVIDIA's
// table of minimum drivers), 0 for one the table does not know.
int driver_branch(int driver_version);

// GLASSGRAD_CUDA_DRIVER_VERSION's text -> cuDriverGetVersion's number: "12040", "12.4" or the
// driver branch "550" (also "550.54.14"). false with *why for anything else.
bool parse_driver_version(const std::string& text, int* version, std::string* why);

}  // namespace cuda
}  // namespace glassgrad
