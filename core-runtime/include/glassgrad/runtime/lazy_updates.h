// An optimizer step's in-place updates, recorded in one call, and the journal of the values they
// moved the step's tensors from: what Optimizer.step (python-bindings/glassgrad/optim/optimizer.py)
// points back to when recording or running the step fails, so a step happens all or not at all.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "glassgrad/runtime/lazy.h"

namespace glassgrad {
namespace lazy {

// The values a step's updates moved its tensors (parameters, state) from, in the order they
// moved. An entry keeps its value alive without pinning it: a realize never computes an old
// value for the journal's sake (the old values of a step are stored tensors anyway).
struct UpdateJournal {
  std::vector<ValuePtr> old;
};

// One node of `op` per row of inputs (the same attrs and meta), then targets[i][j] points at
// output j of row i. Every row is recorded before any target moves, so a refused row leaves every
// target as it was. With a journal, each target's value before it moved is appended to it, in
// target order, as it moves.
void record_updates(const std::string& op, const std::vector<std::vector<Handle*>>& rows,
                    const std::vector<std::vector<Handle*>>& targets, const Attrs& attrs, const NodeMeta& meta,
                    UpdateJournal* journal);

// A parameter group's updates of one op in one call (Optimizer.step's common path): node i reads
// params[i], params[i]'s gradient, `before`, states[0][i], states[1][i], ..., `after`, and its
// outputs move params[i], states[0][i], states[1][i], ... (the inputs and outputs record_updates
// would be given row by row). The shared inputs (`before`, `after`: the group's 0-d
// hyperparameter tensors) are made per device and dtype, so every parameter must have theirs and
// a gradient: when one has not, nothing is recorded and the result is false (the caller records
// the group row by row). Otherwise as record_updates, the journal in target-kind order: every
// parameter's old value, then every states[0] entry's, and so on.
bool record_group_updates(const std::string& op, const std::vector<Handle*>& params,
                          const std::vector<std::vector<Handle*>>& states, const std::vector<Handle*>& before,
                          const std::vector<Handle*>& after, const Attrs& attrs, const NodeMeta& meta,
                          UpdateJournal* journal);

// h.reset(v), its value before appended to the journal.
void reset_logged(Handle& h, const ValuePtr& v, UpdateJournal& journal);

// revert_all(handles, journal.old): handles[i] is the tensor whose old value is journal.old[i].
size_t revert_logged(const std::vector<Handle*>& handles, const UpdateJournal& journal);

// Whether each tensor has a gradient (the parameters an optimizer step updates), without making
// a handle on any gradient.
std::vector<bool> have_grads(const std::vector<Handle*>& handles);

// The positions i (ascending) of the tensors whose value is not computed yet (handles[i] not
// realized): an optimizer step reads its parameters' in one call, as have_grads their gradients.
std::vector<int64_t> unrealized(const std::vector<Handle*>& handles);

// A BatchNorm layer's running statistics in a training step (glassgrad/_batchnorm.py): when
// both running_mean and running_var are stored values, records `op` (BatchNormUpdateStats) on
// (running_mean, running_var, mean, var) and moves the two handles to its two outputs, as
// h.reset does; false, and nothing recorded, when either is not stored or is a view (a slice of a
// buffer: moving its handle would leave the base unwritten, so the caller writes it in place,
// docs/inplace-and-views.md). With a counter (the
// layer's num_batches_tracked), also records its += 1 (AddScalarInPlace, value 1) and moves it,
// in the same call: one runtime call a layer for the statistics and the count (docs/performance.md,
// "tenth round"). Both nodes are recorded before any handle moves, so a refused node (the
// statistics' or the counter's) moves none of them.
bool update_stored_stats(const OpSchema& op, Handle& running_mean, Handle& running_var, Handle& mean, Handle& var,
                         const SharedAttrs& attrs, const SharedMeta& meta, Handle* counter = nullptr);

// A BatchNorm layer's training forward and its statistics update in one call: `forward`
// (BatchNorm2DTrain) recorded on `inputs` (x, weight, bias), then update_stored_stats on its batch
// mean and variance, with the same metadata. Returns the forward's output alone when the update
// was recorded (the batch statistics' handles, which only the update reads, are never handed out:
// each made and freed a Python object, about 1.8k instructions, 40 a ResNet-18 step), and all three
// outputs when update_stored_stats refused (false). An error of the update (a DTypeError for half
// statistics) propagates; the forward's node, held by nothing, then dies with its handles.
std::vector<std::unique_ptr<Handle>> record_batchnorm_training(const OpSchema& forward, const std::vector<Handle*>& inputs,
                                                               const SharedAttrs& forward_attrs, const OpSchema& update,
                                                               Handle& running_mean, Handle& running_var,
                                                               const SharedAttrs& update_attrs, const SharedMeta& meta,
                                                               Handle* counter);

// The positions i (ascending) of the tensors that are views (handles[i]'s chain not empty): the
// only parameters an optimizer step may find not dense in row-major order (optim/_stand_ins.py),
// read in one call, as unrealized.
std::vector<int64_t> views(const std::vector<Handle*>& handles);

}  // namespace lazy
}  // namespace glassgrad
