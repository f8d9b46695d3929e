#include "cuda/image_choice.h"

namespace glassgrad {
namespace cuda {

const ImageOption* choose_image(int major, int minor, const std::vector<ImageOption>& options,
                                const std::string& forced, std::string* why) {
  if (!forced.empty()) {
    // Only an image loaded on its own can be forced: nvcc's fatbin is one module, and the
    // driver picks its image by the same rule as below.
    std::string names;
    for (const ImageOption& o : options) {
      if (o.nvcc) continue;
      if (o.name == forced) return &o;
      names += (names.empty() ? "" : ", ") + o.name;
    }
    *why = "GLASSGRAD_CUDA_IMAGE=" + forced + " names none of the NVRTC images this build can force (" +
           (names.empty() ? std::string("it has none: built without GLASSGRAD_CUDA_LEGACY") : "it has: " + names) +
           "); unset it to let the compute capability pick";
    return nullptr;
  }
  const int cc = major * 10 + minor;
  // Better = higher rank, then newer architecture, then nvcc's.
  const auto rank = [&](const ImageOption& o) {
    if (!o.ptx && o.arch == cc) return 3;
    if (!o.ptx && o.arch / 10 == major && o.arch < cc) return 2;
    if (o.ptx && o.arch <= cc) return 1;
    return 0;
  };
  const ImageOption* best = nullptr;
  for (const ImageOption& o : options) {
    if (rank(o) == 0) continue;
    if (!best || rank(o) > rank(*best) || (rank(o) == rank(*best) && o.arch > best->arch) ||
        (rank(o) == rank(*best) && o.arch == best->arch && o.nvcc && !best->nvcc))
      best = &o;
  }
  if (!best) {
    std::string names;
    for (const ImageOption& o : options) names += (names.empty() ? "" : ", ") + o.name;
    *why = "no embedded kernel image runs on compute capability " + std::to_string(major) + "." +
           std::to_string(minor) + " (this build has: " + (names.empty() ? "none" : names) + ")";
  }
  return best;
}

}  // namespace cuda
}  // namespace glassgrad
