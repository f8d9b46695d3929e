// What a computed value keeps of the graph that made it (docs/architecture.md, "What a computed
// value keeps"). A recorded node holds its inputs, so a value held by a handle keeps every input
// of its graph alive: each kept loss of a training loop (`losses.append(loss)`) kept its batch's
// images and labels, each kept accuracy or prediction its batch too. PyTorch frees them: a
// tensor that needs no gradient has no graph, and a backward() frees what its nodes saved.
// Two releases, each only where nothing can compute through what it drops:
//   - a computed value that needs no gradient, held by a handle and computed, forgets its
//     producer: realize and backward both stop at it (export.cpp, collect), and it becomes the
//     leaf PyTorch counts it as;
//   - after a backward() without retain_graph, the nodes it freed let go of the leaves they read
//     that need no gradient, once the realize computing that backward has run and nothing is
//     pending (the data goes when the script drops its own tensors): those nodes cannot be
//     differentiated again (a second backward raises, backward.cpp check_saved), their saved
//     tensors cannot be read (Tensor.grad_fn's _saved_<name> raises), and no value still to
//     compute reads through them, since every value a handle holds was computed and a value no
//     handle holds cannot be asked for.
#include <memory>
#include <vector>

#include "lazy_internal.h"

namespace glassgrad {
namespace lazy {

namespace {

// Nodes freed by backward() without retain_graph since the last release: released by the next
// outermost realize that leaves nothing pending.
thread_local std::vector<std::weak_ptr<TraceNode>> t_freed;

// A leaf a freed node reads that needs no gradient: the node keeps no more than its shape, dtype
// and device (next_functions shows None for it, as PyTorch's). A handle that still holds it keeps
// it alive, and so does any other node that reads it; the freed node alone no longer does.
bool releasable_leaf(const TraceValue& v) { return !v.producer && !v.requires_grad && v.realized(); }

// The same value without its data: what a freed node still shows of an input (its shape, dtype
// and device for Tensor.grad_fn) once the data is let go.
ValuePtr hollow(const TraceValue& v) {
  auto h = std::make_shared<TraceValue>();
  h->seq = v.seq;
  h->info = v.info;
  h->kind = v.kind;
  h->name = v.name;
  return h;
}

}  // namespace

void release_producers(const std::vector<ValuePtr>& computed) {
  for (const ValuePtr& v : computed) {
    // Only an op's plain result (kind Intermediate): it becomes the data input a plan saw it as
    // while it had a producer (export.cpp, leaf_kind), never a parameter or state a CUDA graph
    // would take as persistent.
    if (!v->producer || v->requires_grad || v->pins == 0 || !v->realized() || v->counter || v->kept ||
        !v->invalid.empty() || v->kind != ValueKind::Intermediate) {
      continue;
    }
    v->producer.reset();
    v->kind = ValueKind::Input;
  }
}

void note_freed(const std::vector<TraceNode*>& freed) {
  for (TraceNode* n : freed) t_freed.push_back(n->weak_from_this());
}

void release_freed_inputs() {
  // A zero bound proves nothing is pending in constant time; a nonzero one asks the list.
  if (t_freed.empty() || (pending_bound() != 0 && !pending_values().empty())) return;
  std::vector<std::weak_ptr<TraceNode>> freed;
  freed.swap(t_freed);
  for (const auto& w : freed) {
    std::shared_ptr<TraceNode> n = w.lock();
    if (!n || !n->freed || n->in_flight) continue;
    for (ValuePtr& in : n->inputs) {
      if (in && releasable_leaf(*in)) in = hollow(*in);
    }
  }
}

}  // namespace lazy
}  // namespace glassgrad
