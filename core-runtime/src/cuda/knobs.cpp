// The CUDA convolution algorithm switch (the backend's other switches: settings.h).
#include <atomic>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {
namespace cuda {

namespace {
std::atomic<int>& algo_code() {
  static std::atomic<int> a{0};
  return a;
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

}  // namespace cuda
}  // namespace glassgrad
