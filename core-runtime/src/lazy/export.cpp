// Collecting a trace and exporting it to the engine's IR: what the roots need, in the order the
// program created it, so the same trace always collects to the same numbering and signature and
// exports to the same graph (docs/architecture.md, "One graph from the tracer to the planner").
#include <algorithm>

#include "glassgrad/autodiff/errors.h"
#include "lazy_internal.h"
#include "trace_pool.h"

namespace glassgrad {
namespace lazy {

namespace {
uint64_t info_hash(uint64_t h, const TensorInfo& info) {
  h = hash_combine(h, static_cast<uint64_t>(info.dtype));
  h = hash_combine(h, static_cast<uint64_t>(info.device.type) * 64 + static_cast<uint64_t>(info.device.index));
  h = hash_combine(h, info.shape.size());
  for (int64_t d : info.shape) h = hash_combine(h, static_cast<uint64_t>(d));
  return h;
}

// The kind a leaf is exported as: a computed value stands for data bound per run.
ValueKind leaf_kind(const TraceValue& v) { return v.producer ? ValueKind::Input : v.kind; }

// Output k's info of a node whose output k nobody holds any more: its shape rule, run again.
TensorInfo node_output_info(const TraceNode& node, int32_t k) {
  std::vector<TensorInfo> ins;
  ins.reserve(node.inputs.size());
  for (const auto& in : node.inputs) ins.push_back(in->info);
  return infer_node(*node.schema, ins, *node.attrs, *node.meta).at(static_cast<size_t>(k));
}

// collect()'s working lists, kept from call to call on each thread: a step's walks then allocate
// nothing once the lists have grown to the trace's size (a list regrown every walk cost more than
// the walk itself: docs/architecture.md, "What recording itself costs"). collect() calls no code
// that could collect again, so one set per thread suffices. The walk holds raw pointers: every
// value and node it reaches is kept alive by the roots' producers and their inputs meanwhile.
struct CollectScratch {
  std::vector<TraceValue*> stack;
  std::vector<std::pair<uint64_t, TraceNode*>> nodes;  // (creation order of the node, node)
};
// Not inlined: inlined, the compiler looked the thread-local up again at every use in collect's
// loops (__tls_get_addr, about 3000 calls a ResNet-18 step).
[[gnu::noinline]] CollectScratch& collect_scratch() {
  thread_local CollectScratch s;
  return s;
}

// The lists of the last Export that died on this thread, emptied with their capacity kept
// (Export::~Export): collect() takes them instead of allocating. Two Exports alive at once (a
// realize inside backward()) simply allocate for the second.
struct RecycledLists {
  std::vector<ValuePtr> by_id;
  std::vector<std::shared_ptr<TraceNode>> nodes;
  std::vector<std::pair<int32_t, int32_t>> made_by;
  std::vector<ValueId> outputs;
};
[[gnu::noinline]] RecycledLists& recycled_lists() {
  thread_local RecycledLists r;
  return r;
}
// Keeps `from`, emptied, in `bin` when it holds more room than what `bin` has.
template <class T>
void keep_larger(std::vector<T>& bin, std::vector<T>& from) {
  if (from.capacity() <= bin.capacity()) return;
  from.clear();  // releases the values and nodes now, as the Export's end always did
  bin.swap(from);
}
}  // namespace

Export::~Export() {
  // In reverse order of declaration, as the members' own destructors would release them.
  RecycledLists& r = recycled_lists();
  keep_larger(r.outputs, outputs);
  keep_larger(r.made_by, made_by);
  keep_larger(r.nodes, nodes);
  keep_larger(r.by_id, by_id);
}

uint64_t meta_hash(const NodeMeta& meta) {
  uint64_t h = hash_combine(hash_string(meta.scope), hash_string(meta.source));
  return hash_combine(hash_combine(h, hash_string(meta.layer)), static_cast<uint64_t>(meta.role));
}

uint64_t node_hash(const OpSchema& s, const Attrs& attrs, const std::vector<TensorInfo>& outputs) {
  return node_hash(s, attrs.hash(), outputs);
}

uint64_t node_hash(const OpSchema& s, uint64_t attrs_hash, const std::vector<TensorInfo>& outputs) {
  uint64_t h = hash_combine(hash_string(s.name), attrs_hash);
  for (const TensorInfo& o : outputs) h = info_hash(h, o);
  return h;
}

Export collect(const std::vector<ValuePtr>& roots, bool stop_at_computed) {
  // Phase 1: collect the leaves and nodes the roots need (iterative, so long chains cannot
  // overflow the stack).
  // Realize stops at computed values; backward at leaves, new versions of leaves written in
  // place included (TraceValue::leaf), and at computed values that need no gradient and hold
  // their data: no gradient flows through them, so what made them is not needed (an action
  // index computed from the parameters under no_grad stays usable after optimizer.step()
  // overwrote them, as in PyTorch).
  auto is_leaf = [&](const TraceValue* v) {
    if (!v->producer) return true;
    return stop_at_computed ? v->realized() : (v->leaf || !v->requires_grad);
  };
  // Each walk has its own number; a value or node carrying it was seen by this walk.
  static uint64_t walks = 0;
  const uint64_t walk = ++walks;
  size_t leaves_seen = 0, outputs_seen = 0;
  bool overwritten = false;
  CollectScratch& scratch = collect_scratch();
  std::vector<std::pair<uint64_t, TraceNode*>>& nodes = scratch.nodes;
  std::vector<TraceValue*>& stack = scratch.stack;
  nodes.clear();
  stack.clear();
  for (auto r = roots.rbegin(); r != roots.rend(); ++r) stack.push_back(r->get());
  while (!stack.empty()) {
    TraceValue* v = stack.back();
    stack.pop_back();
    if (v->visited_by == walk) continue;
    v->visited_by = walk;
    v->export_id = -1;
    if (is_leaf(v)) {
      ++leaves_seen;
      // Backward checks an overwritten leaf only where a gradient rule reads it (check_saved,
      // backward.cpp): a parameter an optimizer step updated is still differentiated for, as
      // PyTorch accumulates into it without reading it (docs/inplace-and-views.md).
      // A copy of its value before the update (copied_before_update) computes the values a graph
      // recorded before it still needs.
      if (!v->invalid.empty()) {
        if (stop_at_computed && !v->copied_before_update) throw_invalid(*v);
        overwritten = true;
      }
      continue;
    }
    TraceNode* node = v->producer.get();
    if (node->in_flight) throw_in_flight(*v);
    const uint64_t key = v->seq - static_cast<uint64_t>(v->output_index);
    if (node->visited_by == walk) {
      uint64_t& k = nodes[node->visit_index].first;
      k = std::min(k, key);
      continue;
    }
    node->visited_by = walk;
    node->visit_index = nodes.size();
    nodes.emplace_back(key, node);
    outputs_seen += node->outputs.size();
    for (const auto& in : node->inputs) stack.push_back(in.get());
  }
  // Phase 2: number in creation order, i.e. the program's own order (values are created after
  // their inputs, so this is topological). The scheduler follows it, so e.g. a weight
  // gradient runs right after the input gradient it was recorded with, not at the end.
  std::sort(nodes.begin(), nodes.end(),
            [](const std::pair<uint64_t, TraceNode*>& a, const std::pair<uint64_t, TraceNode*>& b) { return a.first < b.first; });
  Export ex;
  {
    RecycledLists& r = recycled_lists();
    ex.by_id.swap(r.by_id);
    ex.nodes.swap(r.nodes);
    ex.made_by.swap(r.made_by);
    ex.outputs.swap(r.outputs);
  }
  ex.overwritten_leaves = overwritten;
  // Numbers are kept on the values (TraceValue::export_id, written as ex.id was): realize reads
  // no map, and backward's callers, which may look values up later, build ex.id when they do (ids).
  // Every leaf the walk saw is numbered once, then every output of every node.
  ex.by_id.reserve(leaves_seen + outputs_seen);
  ex.made_by.reserve(outputs_seen);
  ex.outputs.reserve(roots.size());
  uint64_t h = 0xC0FFEE;
  // Leaves in order of first use, which depends only on the program's structure (not on when
  // each leaf was created), so every step of a loop exports the same signature.
  // A leaf's number, kind, requires_grad, dtype, device and rank go in as one word (each field
  // has its own bits), then its sizes: a step's two collects fold a few hundred leaves, and a
  // hash_combine per field was a fifth of collect's cost.
  auto add_leaf = [&](const ValuePtr& v) {
    if (v->export_id >= 0) return;
    v->export_id = static_cast<int32_t>(ex.by_id.size());
    const TensorInfo& info = v->info;
    // bits 63-32 number, 31-28 kind, 27 requires_grad, 26-20 dtype, 19-16 device type, 15-8
    // device index, 7-0 rank; an index or rank past its bits folds in on its own as well.
    const uint64_t index = static_cast<uint64_t>(info.device.index);
    const uint64_t fields = (static_cast<uint64_t>(ex.by_id.size()) << 32) |
                            (static_cast<uint64_t>(leaf_kind(*v)) & 0xF) << 28 |
                            (v->requires_grad ? uint64_t{1} << 27 : 0) |
                            (static_cast<uint64_t>(info.dtype) & 0x7F) << 20 |
                            (static_cast<uint64_t>(info.device.type) & 0xF) << 16 | (index & 0xFF) << 8 |
                            (info.shape.size() & 0xFF);
    h = fold(h, fields);
    if (index > 0xFF || info.shape.size() > 0xFF) h = fold(h, (index << 32) ^ info.shape.size());
    for (int64_t d : info.shape) h = fold(h, static_cast<uint64_t>(d));
    ex.by_id.push_back(v);
  };
  for (const auto& kn : nodes) {
    for (const auto& in : kn.second->inputs) {
      if (is_leaf(in.get())) add_leaf(in);
    }
  }
  for (const auto& r : roots) {
    if (is_leaf(r.get())) add_leaf(r);
  }
  ex.num_leaves = static_cast<int>(ex.by_id.size());
  ex.nodes.reserve(nodes.size());
  for (const auto& kn : nodes) {
    TraceNode* node = kn.second;
    h = fold(h, node->hash);
    for (const auto& in : node->inputs) h = fold(h, static_cast<uint64_t>(in->export_id));
    h = fold(h, 0xFFFF);
    const int32_t index = static_cast<int32_t>(ex.nodes.size());
    ex.nodes.push_back(node->shared_from_this());
    int32_t k = 0;
    for (const auto& out : node->outputs) {
      ex.made_by.emplace_back(index, k++);
      ValuePtr o = out.lock();
      if (o) {
        o->export_id = static_cast<int32_t>(ex.by_id.size());
      }
      ex.by_id.push_back(std::move(o));
    }
  }
  for (const auto& r : roots) {
    const ValueId id = r->export_id;
    if (id < 0) throw InternalError("lazy export: a root was not numbered");
    ex.outputs.push_back(id);
    h = fold(h, static_cast<uint64_t>(id));
  }
  ex.signature = h;
  ex.collected = ex.by_id.size();
  ex.collected_seq = next_seq();
  return ex;
}

std::unordered_map<const TraceValue*, ValueId>& ids(Export& ex) {
  if (ex.id_built) return ex.id;
  ex.id_built = true;
  ex.id.reserve(ex.collected);
  for (size_t i = 0; i < ex.collected && i < ex.by_id.size(); ++i) {
    const TraceValue* v = ex.by_id[i].get();
    if (v && v->seq < ex.collected_seq) ex.id.emplace(v, static_cast<ValueId>(i));
  }
  return ex.id;
}

void build_graph(Export& ex) {
  if (ex.built) return;
  Graph& g = ex.graph;
  for (int i = 0; i < ex.num_leaves; ++i) {
    const TraceValue& v = *ex.by_id[static_cast<size_t>(i)];
    g.add_leaf(v.name, v.info, leaf_kind(v), v.requires_grad);
  }
  // Inputs are numbered as collect() numbered them: by the values known when the node came, so a
  // computed value that is a leaf for the nodes before its producer's turn stays one for them.
  std::unordered_map<const TraceValue*, ValueId> current;
  for (int i = 0; i < ex.num_leaves; ++i) current[ex.by_id[static_cast<size_t>(i)].get()] = i;
  std::vector<ValueId> ins;
  for (const auto& node : ex.nodes) {
    ins.clear();
    for (const auto& in : node->inputs) ins.push_back(current.at(in.get()));
    const ValueId first = g.num_values();
    const std::vector<ValueId> made = g.add_node(node->schema->name, ins, *node->attrs, *node->meta);
    if (!made.empty() && made[0] != first) throw InternalError("lazy export: the graph's numbering drifted");
    for (size_t k = 0; k < made.size(); ++k) {
      const ValuePtr& o = ex.by_id[static_cast<size_t>(made[k])];
      if (!o) continue;
      current[o.get()] = made[k];
      if (!o->name.empty()) g.set_name(made[k], o->name);  // e.g. "conv1.weight.grad" in plans and logs
    }
  }
  for (ValueId id : ex.outputs) g.mark_output(id);
  ex.built = true;
}

Export export_graph(const std::vector<ValuePtr>& roots, bool stop_at_computed) {
  Export ex = collect(roots, stop_at_computed);
  build_graph(ex);
  return ex;
}

namespace {

// Whether an output of `node` that no value held any more, made again with `info`, requires a
// gradient: as the node's recorded outputs did (record tracks a node's floating outputs all
// alike), read from a live floating sibling, else from the node still counting its reads (it
// tracks a gradient). A gradient rule reads such outputs (BatchNorm2DTrain's mean and var, which
// only its rule keeps): made again without it, a second differentiation through the rule's node
// would take them for constants and drop their terms.
bool made_again_requires_grad(const TraceNode& node, const TensorInfo& info) {
  if (!is_floating(info.dtype)) return false;
  for (const auto& out : node.outputs) {
    const ValuePtr o = out.lock();
    if (o && is_floating(o->info.dtype)) return o->requires_grad;
  }
  return node.counts_reads;
}

}  // namespace

const ValuePtr& value_of(Export& ex, ValueId id) {
  ValuePtr& slot = ex.by_id.at(static_cast<size_t>(id));
  if (slot) return slot;
  const size_t made = static_cast<size_t>(id) - static_cast<size_t>(ex.num_leaves);
  if (id < ex.num_leaves || made >= ex.made_by.size()) {
    throw InternalError("lazy export: graph value %" + std::to_string(id) + " has no lazy counterpart");
  }
  TraceNode* node = ex.nodes[static_cast<size_t>(ex.made_by[made].first)].get();
  const int32_t k = ex.made_by[made].second;
  auto v = new_value();
  v->seq = next_seq();
  v->info = node_output_info(*node, k);
  v->producer = node->shared_from_this();
  v->output_index = k;
  v->requires_grad = made_again_requires_grad(*node, v->info);
  if (static_cast<size_t>(k) < node->kept.size() && node->kept[static_cast<size_t>(k)].defined()) {
    v->data = std::move(node->kept[static_cast<size_t>(k)]);
    node->kept[static_cast<size_t>(k)] = Tensor();
    v->kept = true;
  }
  node->outputs[static_cast<size_t>(k)] = v;
  slot = v;
  return slot;
}

std::string pending_graph_str(const ValuePtr& v) { return export_graph({v}, true).graph.str(); }

InspectedGraph inspect_graph(const std::vector<ValuePtr>& roots) {
  Export ex = export_graph(roots, true);
  InspectedGraph out;
  out.leaves.resize(static_cast<size_t>(ex.graph.num_values()));
  for (ValueId id = 0; id < ex.graph.num_values(); ++id) {
    if (ex.graph.value(id).producer == kNoNode) out.leaves[static_cast<size_t>(id)] = ex.by_id[static_cast<size_t>(id)];
  }
  out.outputs = ex.outputs;
  out.graph = std::move(ex.graph);
  return out;
}

}  // namespace lazy
}  // namespace glassgrad
