// Device error words: errors a kernel finds on the device while a captured graph replays (a
// cross-entropy label out of range) are written to a word registered here (-1: none) and
// raised at the next synchronization of the device, since no launch returns to the host then.
#include <mutex>
#include <vector>

#include "cuda/backend.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

namespace {
struct ErrorWord {
  int index;
  CUdeviceptr word;
  std::string what;
};
std::mutex& words_mutex() {
  static std::mutex m;
  return m;
}
std::vector<ErrorWord>& error_words() {
  static auto* w = new std::vector<ErrorWord>();  // never destroyed: read until the process ends
  return *w;
}
}  // namespace

void register_error_word(int index, void* device_word, std::string what) {
  std::lock_guard<std::mutex> lock(words_mutex());
  error_words().push_back({index, reinterpret_cast<CUdeviceptr>(device_word), std::move(what)});
}

void unregister_error_word(void* device_word) noexcept {
  std::lock_guard<std::mutex> lock(words_mutex());
  auto& w = error_words();
  for (auto it = w.begin(); it != w.end();) {
    it = it->word == reinterpret_cast<CUdeviceptr>(device_word) ? w.erase(it) : it + 1;
  }
}

void check_error_words(int index) {
  std::vector<ErrorWord> words;
  {
    std::lock_guard<std::mutex> lock(words_mutex());
    words = error_words();
  }
  DeviceState& s = state(index);
  for (const auto& w : words) {
    if (w.index != index) continue;
    int64_t value = -1;
    check(api().cuMemcpyDtoHAsync(&value, w.word, sizeof value, s.stream), "reading a device error word");
    check(api().cuStreamSynchronize(s.stream), "reading a device error word");
    if (value == -1) continue;
    const int64_t reset = -1;
    api().cuMemcpyHtoDAsync(w.word, &reset, sizeof reset, s.stream);
    api().cuStreamSynchronize(s.stream);
    throw IndexError(w.what + ": a label out of range was found at position " + std::to_string(value) +
                     " of a batch while a captured CUDA graph replayed (reported at this synchronization; "
                     "that batch's data has been overwritten since)\n  fix: check the labels are in [0, classes), "
                     "or set GLASSGRAD_CUDA_GRAPHS=0 to check them at every step");
  }
}

}  // namespace cuda
}  // namespace glassgrad
