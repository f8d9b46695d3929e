// An optimizer step's updates in one call and the journal of what they moved (lazy_updates.h).
#include "glassgrad/runtime/lazy_updates.h"

#include <memory>

#include "glassgrad/autodiff/errors.h"
#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

void record_updates(const std::string& op, const std::vector<std::vector<Handle*>>& rows,
                    const std::vector<std::vector<Handle*>>& targets, const Attrs& attrs, const NodeMeta& meta,
                    UpdateJournal* journal) {
  if (rows.size() != targets.size()) throw InternalError("record_updates: rows and targets differ in length");
  std::vector<std::vector<std::unique_ptr<Handle>>> outs;
  outs.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    outs.push_back(record_handles(op, rows[i], attrs, meta));
    if (outs.back().size() != targets[i].size()) {
      throw InternalError("record_updates: " + op + " has " + std::to_string(outs.back().size()) + " outputs, row " +
                          std::to_string(i) + " names " + std::to_string(targets[i].size()) + " targets");
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 0; j < targets[i].size(); ++j) {
      ValuePtr before = targets[i][j]->value();
      targets[i][j]->reset(outs[i][j]->value());
      if (journal) journal->old.push_back(std::move(before));
    }
  }
}

namespace {
// record_group_updates' list of the nodes' outputs, taken from the thread's kept one and given
// back emptied (the values released, the capacity kept).
struct GroupOutputs {
  std::vector<ValuePtr> values;
  GroupOutputs() { values.swap(kept()); }
  ~GroupOutputs() {
    values.clear();
    if (values.capacity() > kept().capacity()) kept().swap(values);
  }
  GroupOutputs(const GroupOutputs&) = delete;
  GroupOutputs& operator=(const GroupOutputs&) = delete;
  [[gnu::noinline]] static std::vector<ValuePtr>& kept() {
    thread_local std::vector<ValuePtr> list;
    return list;
  }
};
}  // namespace

bool record_group_updates(const std::string& op, const std::vector<Handle*>& params,
                          const std::vector<std::vector<Handle*>>& states, const std::vector<Handle*>& before,
                          const std::vector<Handle*>& after, const Attrs& attrs, const NodeMeta& meta,
                          UpdateJournal* journal) {
  for (const std::vector<Handle*>& kind : states) {
    if (kind.size() != params.size()) throw InternalError("record_group_updates: a state list and params differ in length");
  }
  // Checked for every parameter before anything is recorded: false leaves the graph as it was.
  std::vector<ValuePtr> shared_before, shared_after;
  shared_before.reserve(before.size());
  shared_after.reserve(after.size());
  for (Handle* h : before) shared_before.push_back(h->value());
  for (Handle* h : after) shared_after.push_back(h->value());
  const TensorInfo* like = shared_before.empty() ? (shared_after.empty() ? nullptr : &shared_after[0]->info)
                                                 : &shared_before[0]->info;
  for (Handle* p : params) {
    const ValuePtr& v = p->value();
    if (!v->grad) return false;
    if (like && (v->info.dtype != like->dtype || v->info.device != like->device)) return false;
  }
  const OpSchema& s = OpRegistry::instance().at(op);
  const size_t width = 2 + before.size() + states.size() + after.size();
  const size_t targets = 1 + states.size();
  // Row i's outputs are outs[i * targets + j]: one list for the group, kept from call to call on
  // the thread (a list per row, and a list of them per call, allocated and freed every step; a
  // nested call finds it taken and makes its own).
  GroupOutputs outs;
  outs.values.reserve(params.size() * targets);
  std::vector<ValuePtr> row;
  row.reserve(width);
  RecordMemo memo;
  for (size_t i = 0; i < params.size(); ++i) {
    row.clear();
    const ValuePtr& p = params[i]->value();
    row.push_back(p);
    row.push_back(p->grad);
    row.insert(row.end(), shared_before.begin(), shared_before.end());
    for (const std::vector<Handle*>& kind : states) row.push_back(kind[i]->value());
    row.insert(row.end(), shared_after.begin(), shared_after.end());
    const size_t made = record_schema_memo(s, row, attrs, meta, memo, outs.values);
    if (made != targets) {
      throw InternalError("record_group_updates: " + op + " has " + std::to_string(made) +
                          " outputs, the group names " + std::to_string(targets) + " targets a row");
    }
  }
  if (journal) journal->old.reserve(journal->old.size() + params.size() * targets);
  for (size_t j = 0; j < targets; ++j) {
    const std::vector<Handle*>& moved = j == 0 ? params : states[j - 1];
    for (size_t i = 0; i < params.size(); ++i) {
      ValuePtr old = moved[i]->value();
      moved[i]->reset(std::move(outs.values[i * targets + j]));
      if (journal) journal->old.push_back(std::move(old));
    }
  }
  return true;
}

void reset_logged(Handle& h, const ValuePtr& v, UpdateJournal& journal) {
  ValuePtr before = h.value();
  h.reset(v);
  journal.old.push_back(std::move(before));
}

size_t revert_logged(const std::vector<Handle*>& handles, const UpdateJournal& journal) {
  return revert_all(handles, journal.old);
}

std::vector<bool> have_grads(const std::vector<Handle*>& handles) {
  std::vector<bool> out;
  out.reserve(handles.size());
  for (const Handle* h : handles) out.push_back(h->value()->grad != nullptr);
  return out;
}

std::vector<int64_t> unrealized(const std::vector<Handle*>& handles) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < handles.size(); ++i)
    if (!handles[i]->value()->realized()) out.push_back(static_cast<int64_t>(i));
  return out;
}

bool update_stored_stats(const OpSchema& op, Handle& running_mean, Handle& running_var, Handle& mean, Handle& var,
                         const SharedAttrs& attrs, const SharedMeta& meta, Handle* counter) {
  if (!running_mean.value()->realized() || !running_var.value()->realized()) return false;
  if (!running_mean.chain().empty() || !running_var.chain().empty()) return false;  // a view: written in place
  std::vector<std::unique_ptr<Handle>> outs = record_handles(op, {&running_mean, &running_var, &mean, &var}, attrs, meta);
  if (outs.size() != 2) throw InternalError("update_stored_stats: " + op.name + " has " + std::to_string(outs.size()) + " outputs, not 2");
  std::vector<std::unique_ptr<Handle>> counted;
  if (counter) {
    // The layer's num_batches_tracked += 1, as the layer recorded it before (one AddScalarInPlace
    // of the same metadata: the fusion pass folds it into the layer's BatchNorm2DTrainUpdate).
    static const OpSchema& add = OpRegistry::instance().at("AddScalarInPlace");
    static const SharedAttrs one = share_attrs(Attrs{{"value", 1.0}});
    counted = record_handles(add, {counter}, one, meta);
    if (counted.size() != 1) throw InternalError("update_stored_stats: AddScalarInPlace has " + std::to_string(counted.size()) + " outputs, not 1");
  }
  // Every node recorded before any handle moves: a refused one leaves all three as they were.
  running_mean.reset(outs[0]->value());
  running_var.reset(outs[1]->value());
  if (counter) counter->reset(counted[0]->value());
  return true;
}

std::vector<std::unique_ptr<Handle>> record_batchnorm_training(const OpSchema& forward, const std::vector<Handle*>& inputs,
                                                               const SharedAttrs& forward_attrs, const OpSchema& update,
                                                               Handle& running_mean, Handle& running_var,
                                                               const SharedAttrs& update_attrs, const SharedMeta& meta,
                                                               Handle* counter) {
  std::vector<std::unique_ptr<Handle>> outs = record_handles(forward, inputs, forward_attrs, meta);
  if (outs.size() != 3) throw InternalError("record_batchnorm_training: " + forward.name + " has " + std::to_string(outs.size()) + " outputs, not 3");
  if (update_stored_stats(update, running_mean, running_var, *outs[1], *outs[2], update_attrs, meta, counter)) outs.resize(1);
  return outs;
}

std::vector<int64_t> views(const std::vector<Handle*>& handles) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < handles.size(); ++i)
    if (!handles[i]->chain().empty()) out.push_back(static_cast<int64_t>(i));
  return out;
}

}  // namespace lazy
}  // namespace glassgrad
