// The CUDA convolution algorithm switch (the backend's other switches: settings.h).
#include <atomic>
#include <mutex>

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

std::mutex& tile_mutex() {
  static std::mutex m;
  return m;
}
std::string& forced_tile_name() {  // "" or the product tile after ':' (guarded by tile_mutex)
  static std::string t;
  return t;
}

}  // namespace

namespace conv {
bool known_tile(const std::string& algo, const std::string& name);  // conv.cpp
std::vector<std::string> forcible_specs();                         // conv.cpp
}  // namespace conv

std::vector<std::string> conv_algo_specs() { return conv::forcible_specs(); }

void set_conv_algo(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string algo = spec.substr(0, colon), tile = colon == std::string::npos ? "" : spec.substr(colon + 1);
  for (int i = 0; i < 5; ++i)
    if (algo == kConvAlgos[i]) {
      if (colon != std::string::npos && !conv::known_tile(algo, tile))
        throw ValueError(ErrorMessage("unknown product tile '" + tile + "' for the CUDA convolution algorithm '" +
                                      algo + "'")
                             .fix("name a tile of 'igemm' (e.g. 'igemm:64x128') or of 'winograd2' / 'winograd4' "
                                  "(e.g. 'winograd4:64x64'), 'direct:fewc' (the few-channel input gradient), or "
                                  "give the algorithm alone")
                             .str());
      std::lock_guard<std::mutex> lock(tile_mutex());
      forced_tile_name() = tile;
      algo_code() = i;
      return;
    }
  throw ValueError(ErrorMessage("unknown CUDA convolution algorithm '" + spec + "'")
                       .fix("use one of 'auto', 'direct', 'igemm', 'winograd2', 'winograd4' (the last three "
                            "optionally with ':<tile>'; 'direct:fewc' the few-channel input gradient)")
                       .str());
}

std::string conv_algo() {
  std::lock_guard<std::mutex> lock(tile_mutex());
  const std::string& t = forced_tile_name();
  return t.empty() ? std::string(kConvAlgos[algo_code()]) : std::string(kConvAlgos[algo_code()]) + ":" + t;
}

}  // namespace cuda
}  // namespace glassgrad
