// The CUDA convolution algorithm switch (the backend's other switches: settings.h).
#include <atomic>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {
namespace cuda {

namespace {
// set_conv_algo's names, by code (conv.cpp's forced_algo() reads them back through conv_algo()).
const char* const kConvAlgos[] = {"auto", "direct", "igemm", "winograd2", "winograd4"};

std::atomic<int>& algo_code() {
  static std::atomic<int> a{0};
  return a;
}

}  // namespace

void set_conv_algo(const std::string& algo) {
  for (int i = 0; i < 5; ++i)
    if (algo == kConvAlgos[i]) {
      algo_code() = i;
      return;
    }
  throw ValueError(ErrorMessage("unknown CUDA convolution algorithm '" + algo + "'")
                       .fix("use one of 'auto', 'direct', 'igemm', 'winograd2', 'winograd4'")
                       .str());
}

std::string conv_algo() { return kConvAlgos[algo_code()]; }

}  // namespace cuda
}  // namespace glassgrad
