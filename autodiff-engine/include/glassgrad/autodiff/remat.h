// Rematerialization (gradient checkpointing, Chen et al. 2016, "Training Deep Nets with
// Sublinear Memory Cost"): instead of keeping every forward activation that the backward pass
// reads, keep a few checkpoints and recompute the rest from them just before they are needed.
// Recomputed nodes are ordinary graph nodes with NodeMeta::role "recompute", so they show in
// printed plans.
#pragma once
#include <cstddef>
#include <vector>

#include "glassgrad/autodiff/graph.h"

namespace glassgrad {

// Forward activations that backward nodes read, in recording order (the candidates). Views of
// leaves are not among them (view_of_leaf).
std::vector<ValueId> saved_activations(const Graph& g);

// Whether v is a chain of one or more pure forward views ending at a leaf (a Linear's weight.T):
// such a value has no memory of its own, so keeping it for the backward pass costs nothing and
// recomputing it would save nothing; rematerialize keeps it and checkpointing does not count it.
bool view_of_leaf(const Graph& g, ValueId v);

// Saved activations cheaper to recompute than to keep (docs/architecture.md, "From Python to
// kernels"): the output of a unary elementwise op, a LayerNorm or a Reshape whose inputs the
// backward pass reads anyway (saved activations), are leaves, or are views of either.
// Recomputing such a value just before its backward readers extends no other value's lifetime
// and costs one memory-bound pass; a GPT block recomputes its MLP's GELU output, its LayerNorms'
// outputs and its heads' reassembled output instead of keeping them (docs/gpt-step.md). Values
// under `small_bytes` stay saved, and so does a ReLU that fusion folds into its producer.
std::vector<ValueId> cheap_recomputes(const Graph& g, const std::vector<ValueId>& saved,
                                      size_t small_bytes = 64 * 1024);

// Rewrites g: every saved activation not in `checkpoints` is recomputed for its backward
// readers (a clone of its producers back to checkpoints, leaves and views of leaves, shared by all readers),
// scheduled just before the first reader. Values whose producers cannot be re-run (in-place
// updates, side effects) stay saved. Returns the number of recompute nodes added.
int rematerialize(Graph& g, const std::vector<ValueId>& checkpoints);

// Forward values that separate the forward graph: right after the node producing v, v is the
// only forward value still to be read by later forward nodes (a block's output in a ResNet).
// Recomputation that starts from a separator never reaches back past it.
std::vector<ValueId> forward_separators(const Graph& g);

// Checkpoints for `segments` segments: separators chosen so that the saved activations between
// consecutive ones have roughly equal bytes, plus every saved activation smaller than
// `small_bytes` (cheaper to keep than to recompute).
std::vector<ValueId> segment_checkpoints(const Graph& g, const std::vector<ValueId>& saved, int segments,
                                         size_t small_bytes = 64 * 1024);

}  // namespace glassgrad
