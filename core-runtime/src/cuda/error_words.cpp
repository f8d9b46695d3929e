// Device error words: errors a kernel finds on the device while a captured graph replays (a
// cross-entropy label out of range) are written to a word registered here (-1: none) and
// raised at the next synchronization of the device, since no launch returns to the host then.
#include <mutex>
#include <vector>

#include "params.h"
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

struct DeferredCheck {
  int index;
  Tensor word;
  std::function<void(int64_t)> on_error;
};
std::vector<DeferredCheck>& deferred_checks() {
  static auto* d = new std::vector<DeferredCheck>();
  return *d;
}

// Reads the pending checks of device `index` (after its stream finished) and raises the first
// error, in launch order. The list is taken first: reading values may synchronize again.
void run_deferred_checks(int index) {
  std::vector<DeferredCheck> mine;
  {
    std::lock_guard<std::mutex> lock(words_mutex());
    auto& all = deferred_checks();
    for (auto it = all.begin(); it != all.end();) {
      if (it->index == index) {
        mine.push_back(std::move(*it));
        it = all.erase(it);
      } else {
        ++it;
      }
    }
  }
  if (mine.empty()) return;
  DeviceState& s = state(index);
  std::vector<int64_t> values(mine.size(), -1);
  for (size_t i = 0; i < mine.size(); ++i) {
    check(api().cuMemcpyDtoHAsync(&values[i], reinterpret_cast<CUdeviceptr>(mine[i].word.data_ptr()), sizeof(int64_t),
                                  s.stream),
          "reading a deferred check");
  }
  check(api().cuStreamSynchronize(s.stream), "reading the deferred checks");
  for (size_t i = 0; i < mine.size(); ++i) {
    if (values[i] != -1) mine[i].on_error(values[i]);
  }
}

void defer_check(int index, Tensor word, std::function<void(int64_t)> on_error) {
  size_t pending = 0;
  {
    std::lock_guard<std::mutex> lock(words_mutex());
    deferred_checks().push_back(DeferredCheck{index, std::move(word), std::move(on_error)});
    pending = deferred_checks().size();
  }
  if (pending > kMaxDeferredChecks) synchronize(index);  // reads them all
}

void check_error_words(int index) {
  run_deferred_checks(index);
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
    if (value & GG_INDEX_ERROR_TAG) {  // an indexing kernel's record (kernels/cuda/indexing.cu)
      const int64_t operand = (value >> 56) & 0x3f, position = value & ((int64_t{1} << 56) - 1);
      throw IndexError(w.what + ": an index out of bounds was found (index tensor " + std::to_string(operand) +
                       " of an indexing op, its element " + std::to_string(position) +
                       ") while a captured CUDA graph replayed (reported at this synchronization)\n  fix: keep "
                       "indices within the size of the dimension they index, or set GLASSGRAD_CUDA_GRAPHS=0 to "
                       "check them at every step and name the op");
    }
    throw IndexError(w.what + ": a label out of range was found at position " + std::to_string(value) +
                     " of a batch while a captured CUDA graph replayed (reported at this synchronization; "
                     "that batch's data has been overwritten since)\n  fix: check the labels are in [0, classes), "
                     "or set GLASSGRAD_CUDA_GRAPHS=0 to check them at every step");
  }
}

}  // namespace cuda
}  // namespace glassgrad
