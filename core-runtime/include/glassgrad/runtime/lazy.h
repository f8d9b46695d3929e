// Lazy tracing: define-by-run recording of a static graph, realized on demand through a plan
// cache. This is what glassgrad.Tensor runs on.
//
//   record()   appends a node: the op's shape rule runs now (errors point at the user's line),
//              nothing is computed. Views of realized tensors that need no gradient are taken
//              eagerly (no graph).
//   backward() exports the graph reachable from the loss to the engine, calls build_backward,
//              and imports the gradient nodes back; gradients accumulate (+=) into each leaf's
//              `grad` until cleared.
//   realize()  computes every pinned value that is not computed yet (what Python still holds,
//              plus leaves' gradients): the pending graph is exported, its signature looked up in
//              the plan cache (compile on a miss), leaves bound, the plan executed.
//
// In-place updates (optimizer steps, running statistics) are nodes whose output reuses an
// input's buffer. After they run, the output becomes the new leaf (inheriting kind, name and
// gradient) and the old version is invalidated: reading it raises an error saying why.
//
// Not thread-safe: used from the Python thread, under the GIL.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glassgrad/autodiff/graph.h"
#include "glassgrad/autodiff/plan.h"
#include "glassgrad/runtime/settings.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
class Executor;
namespace lazy {

struct Node;

struct Value {
  uint64_t seq = 0;            // creation order: makes exports deterministic
  TensorInfo info;
  std::shared_ptr<Node> producer;  // null for leaves
  int output_index = 0;
  Tensor data;                 // defined once computed (always, for leaves)
  ValueKind kind = ValueKind::Intermediate;
  bool requires_grad = false;
  std::string name;
  int pins = 0;                // Python handles and gradient slots holding this value
  std::shared_ptr<Value> grad; // accumulated gradient of a leaf (pinned)
  std::string invalid;         // non-empty: overwritten in place; says by what
  bool realized() const { return data.defined(); }
};
using ValuePtr = std::shared_ptr<Value>;

struct Node : std::enable_shared_from_this<Node> {
  const OpSchema* schema = nullptr;
  Attrs attrs;
  NodeMeta meta;
  std::vector<ValuePtr> inputs;
  std::vector<std::weak_ptr<Value>> outputs;
  // > 0 while a realize is running the plan that computes this node. Its outputs are then not
  // pending for anyone else: a hook (or another thread) that needs them gets an error instead
  // of running the node again (an optimizer update applied twice, the step's hooks re-entered).
  int in_flight = 0;
};

// What a glassgrad.Tensor holds: a pin on a value. A pinned value that is not computed yet is
// computed at the next realize.
class Handle {
 public:
  explicit Handle(ValuePtr v);
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  const ValuePtr& value() const { return v_; }
  void reset(ValuePtr v);  // re-point, e.g. a parameter after an in-place update

 private:
  ValuePtr v_;
};

// Re-points handles[i] to values[i] for every i in one call: nothing runs in between, so an
// error or a KeyboardInterrupt cannot leave half of them moved (loading a state_dict, moving a
// model). Throws before moving any if the lists differ in length or a value is invalid.
void reset_all(const std::vector<Handle*>& handles, const std::vector<ValuePtr>& values);
// Points handles[i] back to old[i] wherever old[i] is still valid (not overwritten by an update
// that ran): what a failed optimizer step undoes. Returns how many handles moved back.
size_t revert_all(const std::vector<Handle*>& handles, const std::vector<ValuePtr>& old);
// Counts resets that gave a handle different stored data (a leaf of another buffer: load_state_dict,
// model.to(...)), as opposed to the pending results of an update. glassgrad.compile's replays
// hold the buffers they were traced with, so a change means trace again.
uint64_t rebind_generation();

struct CacheStats {
  uint64_t compiles = 0;   // plans compiled (cache misses)
  uint64_t hits = 0;       // realizes served by a cached plan
  uint64_t realizes = 0;   // realizes that ran a plan
  uint64_t plans = 0;      // plans in the cache now
  // Where realize's time went, in seconds: exporting the lazy graph (incl. its signature),
  // compiling plans on misses, and running them.
  double export_seconds = 0, compile_seconds = 0, run_seconds = 0;
};

ValuePtr make_leaf(const Tensor& data, ValueKind kind, bool requires_grad, const std::string& name = "");
std::vector<ValuePtr> record(const std::string& op, const std::vector<ValuePtr>& inputs, const Attrs& attrs,
                             const NodeMeta& meta);
// Computes `targets` and every other pinned pending value, in one plan.
void realize(const std::vector<ValuePtr>& targets);
// The value's data, realizing first if needed. Throws if the value was invalidated.
const Tensor& data(const ValuePtr& v);
// Accumulates d(loss)/d(leaf) into leaf->grad for every leaf with requires_grad that loss
// depends on. seed: d(output) (required unless loss has one element).
void backward(const ValuePtr& loss, const ValuePtr& seed = nullptr);
// Data parallelism (DistributedDataParallel): the gradients of `params` are averaged over the
// `world_size` ranks of communicator `group` by bucketed AllReduce nodes in the backward graph
// (autodiff gradient_buckets.h). A param's existing grad (accumulated under no_sync) joins the
// bucket before the all-reduce, and the reduced value replaces it. Params the loss does not
// read get a zero gradient, so every rank issues the same all-reduces.
struct GradientSync {
  std::vector<ValuePtr> params;
  int64_t group = 0;
  int64_t world_size = 1;
  int64_t bucket_cap_bytes = int64_t{25} << 20;
  std::string scope = "ddp";
};
void backward(const ValuePtr& loss, const ValuePtr& seed, const GradientSync* sync);
void set_grad(const ValuePtr& leaf, ValuePtr grad);  // nullptr clears

// Gradient mode (glassgrad.no_grad), per thread: a new thread starts with gradients enabled.
bool grad_enabled();
void set_grad_enabled(bool on);

// Memory budget for the plans realize compiles (bytes for arena + outputs on the device):
// an explicit one (glassgrad.compile(..., memory_limit=)), else what the device allocator's limit
// leaves beside the memory already held; 0 = none. Over budget, plans checkpoint (remat.h).
void set_memory_budget(size_t bytes);  // 0: derive from the allocator's limit
size_t memory_budget_for(const Device& d);

CacheStats cache_stats();
void reset_cache_stats();
void clear_cache();
// The plan run by the most recent realize (for printing / memory reports), or null.
std::shared_ptr<const Plan> last_plan();
// The not-yet-computed graph that computes `v` (what realize would export), as text.
std::string pending_graph_str(const ValuePtr& v);
// Exports the graph computing `roots` (stopping at computed values) and compiles it, without
// running anything: what memory_report() shows.
std::shared_ptr<const Plan> plan_for(const std::vector<ValuePtr>& roots);

// Plan-only mode (memory reports): realize compiles and records plans but runs no kernel;
// results get uninitialized memory of the right shape, in-place updates leave their buffers
// unchanged. Everything else (caching, settling in-place outputs) behaves as usual.
void set_plan_only(bool on);
bool plan_only();
std::vector<std::shared_ptr<const Plan>> take_plan_only_plans();
// Bytes currently held by the shared arena of a device (0 if none yet).
size_t arena_held_bytes(const Device& d);

// Capture, for glassgrad.compile: while capturing, every plan a realize runs is recorded with
// the exact tensors bound to its inputs and produced as outputs, so the whole step can be
// replayed later without tracing (binding new data to the same slots).
struct CapturedRun {
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<Executor> executor;
  std::vector<Tensor> inputs;
  std::vector<ValueKind> input_kinds;
  std::vector<uint64_t> input_seqs;   // creation order of the bound leaves
  std::vector<Tensor> outputs;
};
void capture_begin();
std::vector<CapturedRun> capture_end();
uint64_t current_seq();  // values created after this point have a larger seq

}  // namespace lazy
}  // namespace glassgrad
