// An optimizer step's updates in one call and the journal of what they moved (lazy_updates.h).
#include "glassgrad/runtime/lazy_updates.h"

#include <memory>

#include "glassgrad/autodiff/errors.h"

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

}  // namespace lazy
}  // namespace glassgrad
