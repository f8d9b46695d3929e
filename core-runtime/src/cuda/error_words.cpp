// Device error words: errors a kernel finds on the device while a captured graph replays (a
// cross-entropy label out of range) are written to a word registered here (-1: none) and
// raised at the next synchronization of the device, since no launch returns to the host then.
#include <map>
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

namespace {
// The deferred-check arena of one device: kMaxDeferredChecks int64 slots, all -1 except those
// a kernel has set since the last read; slots [0, on_error.size()) are taken, in launch order.
struct CheckArena {
  Tensor words;  // on the device; allocated at the first check, kept for the process
  std::vector<std::function<void(int64_t)>> on_error;
};
std::map<int, CheckArena>& check_arenas() {
  static auto* a = new std::map<int, CheckArena>();  // never destroyed: read until the process ends
  return *a;
}
}  // namespace

// Reads the taken slots of device `index` (after its stream finished), re-arms them and raises
// the first error, in launch order. The list is taken first: reading values may synchronize again.
static void run_deferred_checks(int index) {
  std::vector<std::function<void(int64_t)>> mine;
  Tensor words;
  {
    std::lock_guard<std::mutex> lock(words_mutex());
    auto it = check_arenas().find(index);
    if (it == check_arenas().end() || it->second.on_error.empty()) return;
    mine.swap(it->second.on_error);
    words = it->second.words;
  }
  DeviceState& s = state(index);
  std::vector<int64_t> values(mine.size(), -1);
  const CUdeviceptr base = reinterpret_cast<CUdeviceptr>(words.data_ptr());
  check(api().cuMemcpyDtoHAsync(values.data(), base, values.size() * sizeof(int64_t), s.stream),
        "reading the deferred checks");
  check(api().cuMemsetD8Async(base, 0xff, values.size() * sizeof(int64_t), s.stream), "re-arming the deferred checks");
  check(api().cuStreamSynchronize(s.stream), "reading the deferred checks");
  for (size_t i = 0; i < mine.size(); ++i) {
    if (values[i] != -1) mine[i](values[i]);
  }
}

void* deferred_check_word(int index, std::function<void(int64_t)> on_error) {
  bool full = false;
  {
    std::lock_guard<std::mutex> lock(words_mutex());
    full = check_arenas()[index].on_error.size() >= kMaxDeferredChecks;
  }
  if (full) synchronize(index);  // reads them all and empties the arena
  std::lock_guard<std::mutex> lock(words_mutex());
  CheckArena& a = check_arenas()[index];
  if (!a.words.defined()) {
    a.words = Tensor::empty({static_cast<int64_t>(kMaxDeferredChecks)}, DType::Int64, Device::cuda(index),
                            "deferred index checks");
    DeviceState& s = state(index);
    check(api().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(a.words.data_ptr()), 0xff,
                                kMaxDeferredChecks * sizeof(int64_t), s.stream),
          "arming the deferred checks");
    check(api().cuStreamSynchronize(s.stream), "arming the deferred checks");
  }
  a.on_error.push_back(std::move(on_error));
  return static_cast<int64_t*>(a.words.data_ptr()) + (a.on_error.size() - 1);
}

bool deferred_checks_pending(int index) {
  std::lock_guard<std::mutex> lock(words_mutex());
  auto it = check_arenas().find(index);
  return it != check_arenas().end() && !it->second.on_error.empty();
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
