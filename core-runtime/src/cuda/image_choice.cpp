#include "cuda/image_choice.h"

#include <cstdlib>

namespace glassgrad {
namespace cuda {

namespace {

// NVIDIA's minimum Linux driver of each CUDA version (the CUDA release notes' table of
// toolkits and drivers), as cuDriverGetVersion numbers the versions. Used for the words of
// messages and to read a driver branch such as "550"; the choice itself compares versions.
struct Branch {
  int version;
  int branch;
};
constexpr Branch kBranches[] = {{12000, 525}, {12010, 530}, {12020, 535}, {12030, 545}, {12040, 550},
                                {12050, 555}, {12060, 560}, {12080, 570}, {12090, 575}, {13000, 580}};

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

int driver_branch(int driver_version) {
  for (const Branch& b : kBranches)
    if (b.version == driver_version) return b.branch;
  return 0;
}

std::string driver_words(int driver_version) {
  std::string s = "CUDA " + version_text(driver_version);
  // The newest branch at most this version: the driver is of that branch or newer.
  int branch = 0;
  for (const Branch& b : kBranches)
    if (b.version <= driver_version) branch = b.branch;
  if (branch) s += " (driver " + std::to_string(branch) + (driver_branch(driver_version) ? "" : " or newer") + ")";
  return s;
}

bool parse_driver_version(const std::string& text, int* version, std::string* why) {
  const std::string fix = "write the driver's CUDA version as cuDriverGetVersion reports it (12040), as "
                          "nvidia-smi prints it (12.4), or its driver branch (550)";
  const size_t dot = text.find('.');
  const std::string head = text.substr(0, dot);
  bool digits = !head.empty();
  for (char c : text) digits = digits && ((c >= '0' && c <= '9') || c == '.');
  if (!digits) {
    *why = "'" + text + "' is not a driver version; " + fix;
    return false;
  }
  const int first = std::atoi(head.c_str());
  if (dot == std::string::npos && first >= 1000) {  // 12040
    *version = first;
    return true;
  }
  if (dot != std::string::npos && first < 100) {  // 12.4
    const std::string rest = text.substr(dot + 1);
    if (rest.empty() || rest.find('.') != std::string::npos) {
      *why = "'" + text + "' is not a driver version; " + fix;
      return false;
    }
    *version = first * 1000 + std::atoi(rest.c_str()) * 10;
    return true;
  }
  // A driver branch (550, 550.54.14): the newest CUDA version whose minimum driver it meets.
  int v = 0;
  for (const Branch& b : kBranches)
    if (b.branch <= first) v = b.version;
  if (!v) {
    *why = "driver " + text + " is older than any CUDA 12 driver (525), the oldest glassgrad's kernels run on; " + fix;
    return false;
  }
  *version = v;
  return true;
}

const ImageOption* choose_image(int major, int minor, int driver_version, const std::vector<ImageOption>& options,
                                const std::string& forced, std::string* why) {
  const auto loads = [&](const ImageOption& o) { return driver_version <= 0 || o.min_driver <= driver_version; };
  if (!forced.empty()) {
    // Only an image loaded on its own can be forced: nvcc's fatbin is one module, and the
    // driver picks its image by the same rule as below.
    std::string names;
    for (const ImageOption& o : options) {
      if (o.nvcc) continue;
      if (o.name == forced) {
        if (loads(o)) return &o;
        *why = "GLASSGRAD_CUDA_IMAGE=" + forced + " needs a driver of " + driver_words(o.min_driver) +
               ", and the driver is " + driver_words(driver_version) + "; unset it, or update the driver";
        return nullptr;
      }
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
  const auto best_of = [&](bool need_driver) {
    const ImageOption* best = nullptr;
    for (const ImageOption& o : options) {
      if (rank(o) == 0 || (need_driver && !loads(o))) continue;
      if (!best || rank(o) > rank(*best) || (rank(o) == rank(*best) && o.arch > best->arch) ||
          (rank(o) == rank(*best) && o.arch == best->arch && o.nvcc && !best->nvcc))
        best = &o;
    }
    return best;
  };
  const ImageOption* best = best_of(true);
  if (best) return best;
  std::string names;
  for (const ImageOption& o : options) names += (names.empty() ? "" : ", ") + o.name;
  const std::string capability = "compute capability " + std::to_string(major) + "." + std::to_string(minor);
  if (const ImageOption* newer = best_of(false)) {
    *why = "the NVIDIA driver (" + driver_words(driver_version) + ") is older than the one this build's kernels for " +
           capability + " need (" + newer->name + ": " + driver_words(newer->min_driver) +
           "), and the build has no CUDA 12 image for it (this build has: " + names + ")";
    return nullptr;
  }
  *why = "no embedded kernel image runs on " + capability + " (this build has: " + (names.empty() ? "none" : names) + ")";
  return nullptr;
}

}  // namespace cuda
}  // namespace glassgrad
