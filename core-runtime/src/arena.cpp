#include "glassgrad/runtime/arena.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "glassgrad/runtime/allocator.h"

namespace glassgrad {

namespace {
std::mutex& arena_mutex() {
  static std::mutex m;
  return m;
}
std::map<Device, Tensor>& arenas() {
  static auto* a = new std::map<Device, Tensor>();
  return *a;
}

// The policy: the held arena serves any plan it fits; a larger plan gets a new arena of its
// size, and under a memory limit so does a smaller one, so that a big arena left by an earlier
// plan does not hold memory the limit should give to others.
bool needs_new_arena(const Tensor& held, const Device& d, size_t bytes) {
  if (!held.defined() || held.nbytes() < bytes) return true;
  return held.nbytes() > bytes && allocator_for(d).limit() != 0;
}
size_t new_arena_size(size_t bytes) { return std::max<size_t>(bytes, 64); }
}  // namespace

Tensor arena_for(const Device& d, size_t bytes) {
  std::lock_guard<std::mutex> lock(arena_mutex());
  Tensor& a = arenas()[d];
  if (needs_new_arena(a, d, bytes)) {
    a = Tensor();  // free the old arena before taking the new one
    a = Tensor::empty({static_cast<int64_t>(new_arena_size(bytes))}, DType::UInt8, d, "arena");
  }
  return a;
}

size_t arena_growth(const Device& d, size_t bytes) {
  if (bytes == 0) return 0;
  std::lock_guard<std::mutex> lock(arena_mutex());
  auto it = arenas().find(d);
  const Tensor held = it == arenas().end() ? Tensor() : it->second;
  return needs_new_arena(held, d, bytes) ? new_arena_size(bytes) : 0;
}

size_t arena_bytes(const Device& d) {
  std::lock_guard<std::mutex> lock(arena_mutex());
  auto it = arenas().find(d);
  return (it == arenas().end() || !it->second.defined()) ? 0 : it->second.nbytes();
}

void release_arenas() {
  std::lock_guard<std::mutex> lock(arena_mutex());
  arenas().clear();
}

}  // namespace glassgrad
