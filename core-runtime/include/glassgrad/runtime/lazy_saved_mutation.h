// torch.autograd.graph.allow_mutation_on_saved_tensors (docs/autograd.md, "Saved tensors written
// in place"): while its context is open, a value that a node recorded inside the context saved may
// be written in place before backward() reads it. The graph keeps every version of a value (an
// in-place op makes a new one, and a write over a buffer that nodes still to be differentiated read
// copies it first), so backward() reads the value as it was saved: only PyTorch's refusal is lifted.
#pragma once

#include <cstdint>

namespace glassgrad {
namespace lazy {

// Opens the context at the op sequence number `since` (current_seq() as it opens); 0 closes it.
void allow_mutation_on_saved_since(uint64_t since);
// The open context's first sequence number, or 0 when none is open.
uint64_t mutation_on_saved_allowed_since();

}  // namespace lazy
}  // namespace glassgrad
