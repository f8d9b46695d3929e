// The CUDA backend's switches: the convolution algorithm and launch blocking (synchronize
// after every launch, so an asynchronous kernel failure names the launch that caused it).
#include <atomic>
#include <cstdlib>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {
namespace cuda {

namespace {
std::atomic<int>& algo_code() {
  static std::atomic<int> a{0};
  return a;
}
std::atomic<int>& blocking_flag() {
  static std::atomic<int> f{[] {
    const char* e = std::getenv("GLASSGRAD_CUDA_LAUNCH_BLOCKING");
    return (e && e[0] && e[0] != '0') ? 1 : 0;
  }()};
  return f;
}

}  // namespace

void set_conv_algo(const std::string& algo) {
  if (algo == "auto") algo_code() = 0;
  else if (algo == "direct") algo_code() = 1;
  else if (algo == "igemm") algo_code() = 2;
  else
    throw ValueError(ErrorMessage("unknown CUDA convolution algorithm '" + algo + "'")
                         .fix("use one of 'auto', 'direct', 'igemm'")
                         .str());
}

std::string conv_algo() {
  const int a = algo_code();
  return a == 0 ? "auto" : a == 1 ? "direct" : "igemm";
}

void set_launch_blocking(bool on) { blocking_flag() = on ? 1 : 0; }
bool launch_blocking() { return blocking_flag() != 0; }

}  // namespace cuda
}  // namespace glassgrad
