#include "glassgrad/runtime/arena.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "glassgrad/runtime/allocator.h"

namespace glassgrad {

namespace {
std::mutex& arena_mutex() {
  static std::mutex m;
  return m;
}
// (device, level) -> arena; level 0 is the ordinary one.
std::map<std::pair<Device, int>, Tensor>& arenas() {
  static auto* a = new std::map<std::pair<Device, int>, Tensor>();
  return *a;
}
std::vector<char>& busy_levels() {  // busy_levels()[k]: a running plan holds level k
  static auto* b = new std::vector<char>();
  return *b;
}
thread_local int t_level = 0;

// The policy: the held arena serves any plan it fits; a larger plan gets a new arena of its
// size. Under a memory limit a smaller plan gets one of its size too when the held arena's
// excess is memory the limit has no other room for, so that a big arena left by an earlier plan
// does not hold memory the limit should give to others; with room to spare it keeps the held
// one, whose address then stays put (a step of two plans, each replayed as a CUDA graph bound
// to the arena's address, alternated arenas every step and never replayed).
bool needs_new_arena(const Tensor& held, const Device& d, size_t bytes, size_t also_allocated) {
  if (!held.defined() || held.nbytes() < bytes) return true;
  if (held.nbytes() == bytes) return false;
  const MemoryStats m = allocator_for(d).stats();
  if (m.limit == 0) return false;
  const size_t room = m.limit > m.current ? m.limit - m.current : 0;
  const size_t excess = held.nbytes() - bytes;
  return room < also_allocated || room - also_allocated < excess;
}
size_t new_arena_size(size_t bytes) { return std::max<size_t>(bytes, 64); }
}  // namespace

ArenaLease::ArenaLease() : previous_(t_level) {
  std::lock_guard<std::mutex> lock(arena_mutex());
  std::vector<char>& busy = busy_levels();
  size_t k = 0;
  while (k < busy.size() && busy[k]) ++k;
  if (k == busy.size()) busy.push_back(0);
  busy[k] = 1;
  level_ = static_cast<int>(k);
  t_level = level_;
}

ArenaLease::~ArenaLease() {
  std::lock_guard<std::mutex> lock(arena_mutex());
  busy_levels()[static_cast<size_t>(level_)] = 0;
  if (level_ > 0) {  // a nested plan's arena: give the memory back now
    for (auto it = arenas().begin(); it != arenas().end();) {
      it = it->first.second == level_ ? arenas().erase(it) : std::next(it);
    }
  }
  t_level = previous_;
}

Tensor arena_for(const Device& d, size_t bytes, size_t also_allocated) {
  std::lock_guard<std::mutex> lock(arena_mutex());
  Tensor& a = arenas()[{d, t_level}];
  if (needs_new_arena(a, d, bytes, also_allocated)) {
    a = Tensor();  // free the old arena before taking the new one
    a = Tensor::empty({static_cast<int64_t>(new_arena_size(bytes))}, DType::UInt8, d, "arena");
  }
  return a;
}

size_t arena_growth(const Device& d, size_t bytes, size_t also_allocated) {
  if (bytes == 0) return 0;
  std::lock_guard<std::mutex> lock(arena_mutex());
  auto it = arenas().find({d, t_level});
  const Tensor held = it == arenas().end() ? Tensor() : it->second;
  return needs_new_arena(held, d, bytes, also_allocated) ? new_arena_size(bytes) : 0;
}

size_t arena_bytes(const Device& d) {
  std::lock_guard<std::mutex> lock(arena_mutex());
  auto it = arenas().find({d, 0});
  return (it == arenas().end() || !it->second.defined()) ? 0 : it->second.nbytes();
}

void release_arenas() {
  std::lock_guard<std::mutex> lock(arena_mutex());
  arenas().clear();
}

}  // namespace glassgrad
