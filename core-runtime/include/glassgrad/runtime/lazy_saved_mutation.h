// torch.autograd.graph.allow_mutation_on_saved_tensors (docs/autograd.md, "Saved tensors written
// in place"): while its context is open, a value that a node recorded inside the context saved may
// be written in place before backward() reads it. The graph keeps every version of a value (an
// in-place op makes a new one, and a write over a buffer that nodes still to be differentiated read
// copies it first), so backward() reads the value as it was saved: only PyTorch's refusal is lifted.
// Once the context has closed, a backward that reads what such a node saved raises PyTorch's
// AssertionError (SavedOutsideContextError), written or not.
#pragma once

#include <cstdint>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace lazy {

// A backward read what a node recorded inside a closed allow_mutation_on_saved_tensors context
// saved; the bindings raise it as Python's AssertionError, as PyTorch's.
class SavedOutsideContextError : public StateError {
  using StateError::StateError;
};

// Opens the context at the op sequence number `since` (current_seq() as it opens); 0 closes it,
// and the ops recorded from its `since` to current_seq() then count as recorded in a closed one.
void allow_mutation_on_saved_since(uint64_t since);
// The open context's first sequence number, or 0 when none is open.
uint64_t mutation_on_saved_allowed_since();
// Whether an op of sequence number `seq` was recorded inside a context that has closed since. The
// most recent kClosedContextsKept contexts are remembered (a graph older than that many contexts
// is differentiated as one recorded outside any).
bool recorded_in_closed_context(uint64_t seq);
constexpr size_t kClosedContextsKept = 1024;

}  // namespace lazy
}  // namespace glassgrad
