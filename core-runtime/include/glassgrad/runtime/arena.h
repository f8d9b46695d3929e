// The arena of a device: one buffer from the device's allocator that every plan's
// intermediates live in (at the offsets the planner gave them), shared by all plans and grown
// on demand. Under a memory limit it also shrinks to what the running plan needs.
#pragma once
#include <cstddef>

#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// The arena for a plan needing `bytes` on d: the held one, or a new one (the old freed first).
Tensor arena_for(const Device& d, size_t bytes);
// What arena_for(d, bytes) would allocate now: 0 when it reuses the held arena.
size_t arena_growth(const Device& d, size_t bytes);
size_t arena_bytes(const Device& d);  // held now (0 if none)
void release_arenas();

}  // namespace glassgrad
