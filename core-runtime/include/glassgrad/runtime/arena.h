// The arena of a device: one buffer from the device's allocator that every plan's
// intermediates live in (at the offsets the planner gave them), shared by all plans and grown
// on demand. Under a memory limit it also shrinks to what the running plan needs, unless the
// limit has room for what it holds beyond that (docs/architecture.md, "Memory limits and CUDA
// graphs": two plans of one step that swapped arenas every step never replayed as graphs).
#pragma once
#include <cstddef>

#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// Plans that run while another plan is running (a hook or an observer that computes tensors,
// or another thread while a hook holds the first) must not share its arena: they would
// overwrite its live buffers. Executor::run holds an ArenaLease for the whole run: the lowest
// arena level no running plan uses. Level 0 is the ordinary arena (the only one when plans run
// one at a time); higher levels are freed when their lease ends.
class ArenaLease {
 public:
  ArenaLease();
  ~ArenaLease();
  ArenaLease(const ArenaLease&) = delete;
  ArenaLease& operator=(const ArenaLease&) = delete;
  int level() const { return level_; }

 private:
  int level_;
  int previous_;  // the thread's level before this lease (nested runs on one thread)
};

// The arena for a plan needing `bytes` on d, at this thread's current lease level (0 outside a
// run): the held one, or a new one (the old freed first). `also_allocated`: what the run takes
// from the allocator besides its arena (its outputs). Under a memory limit a held arena larger
// than `bytes` is kept while the room left under the limit, less also_allocated, is at least
// what it holds beyond `bytes`; otherwise it is replaced by one of `bytes`.
Tensor arena_for(const Device& d, size_t bytes, size_t also_allocated);
// What arena_for(d, bytes, also_allocated) would allocate now: 0 when it reuses the held arena.
size_t arena_growth(const Device& d, size_t bytes, size_t also_allocated);
size_t arena_bytes(const Device& d);  // held now at level 0 (0 if none)
void release_arenas();

}  // namespace glassgrad
