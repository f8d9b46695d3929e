// Which embedded kernel image a GPU runs, as a pure function of its compute capability and the
// images the build holds (kernel_image.cpp supplies them; test_cuda_backend.cpp checks the rule).
//
// The rule, the CUDA driver's own for a fatbin, applied across nvcc's fatbin and NVRTC's images:
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
  std::string name;  // "sm_90", "compute_75", "sm_61", "compute_50"
  int arch = 0;      // 90, 75, 61, 50
  bool ptx = false;
  bool nvcc = false;  // in nvcc's fatbin (else one of NVRTC's images)
};

// The chosen option, or nullptr with *why saying why none fits.
const ImageOption* choose_image(int major, int minor, const std::vector<ImageOption>& options,
                                const std::string& forced, std::string* why);

}  // namespace cuda
}  // namespace glassgrad
