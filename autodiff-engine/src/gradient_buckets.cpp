#include "glassgrad/autodiff/gradient_buckets.h"

#include <algorithm>
#include <numeric>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

namespace {
constexpr size_t kMaxBucketMembers = 256;  // BucketPack's input count (families/collective.def)
}

std::vector<NodeId> gradient_ready_nodes(const Graph& g, const std::vector<ValueId>& params, NodeId last) {
  std::vector<NodeId> first_use(static_cast<size_t>(g.num_values()), kNoNode);
  for (NodeId n = 0; n <= last && n != kNoNode && n < g.num_nodes(); ++n) {
    for (ValueId in : g.node(n).inputs) {
      NodeId& f = first_use[static_cast<size_t>(in)];
      if (f == kNoNode) f = n;
    }
  }
  std::vector<NodeId> ready;
  ready.reserve(params.size());
  for (ValueId p : params) ready.push_back(first_use.at(static_cast<size_t>(p)));
  return ready;
}

std::vector<GradientBucket> plan_gradient_buckets(const Graph& g, const std::vector<ValueId>& params,
                                                  NodeId last, int64_t cap_bytes) {
  if (cap_bytes < 1) throw ValueError("bucket_cap_mb must be positive, got " + std::to_string(cap_bytes) + " bytes");
  const std::vector<NodeId> ready = gradient_ready_nodes(g, params, last);
  // Ready order: the backward walk visits nodes from `last` down, so a later earliest consumer
  // means an earlier-ready gradient; unread parameters (kNoNode) go last. Ties keep the
  // parameter order (stable), so every rank plans the same buckets.
  std::vector<int> order(params.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int i) { return ready[static_cast<size_t>(i)] == kNoNode ? NodeId{-1} : ready[static_cast<size_t>(i)]; };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) > key(b); });

  std::vector<GradientBucket> buckets;
  for (int i : order) {
    const TensorInfo& t = g.value(params[static_cast<size_t>(i)]).info;
    const int64_t bytes = t.numel() * static_cast<int64_t>(dtype_size(t.dtype));
    bool fits = !buckets.empty();
    if (fits) {
      const GradientBucket& b = buckets.back();
      const TensorInfo& head = g.value(params[static_cast<size_t>(b.members[0])]).info;
      fits = head.dtype == t.dtype && head.device == t.device && b.bytes + bytes <= cap_bytes &&
             b.members.size() < kMaxBucketMembers;
    }
    if (!fits) buckets.emplace_back();
    GradientBucket& b = buckets.back();
    b.members.push_back(i);
    b.bytes += bytes;
  }
  // A bucket is complete once its last-ready member is: the smallest earliest-consumer id of
  // its members, or never (kNoNode) when a member is not read at all.
  for (GradientBucket& b : buckets) {
    b.ready_after = ready[static_cast<size_t>(b.members[0])];
    for (int i : b.members) {
      const NodeId r = ready[static_cast<size_t>(i)];
      b.ready_after = (r == kNoNode || b.ready_after == kNoNode) ? kNoNode : std::min(b.ready_after, r);
    }
  }
  return buckets;
}

std::vector<ValueId> emit_bucket_all_reduce(Graph& g, const GradientReduction& r, const GradientBucket& b,
                                            int index, const std::vector<ValueId>& grads) {
  NodeMeta meta;
  meta.role = NodeRole::Backward;
  meta.scope = r.scope + ".bucket" + std::to_string(index);
  std::vector<ValueId> parts;
  for (size_t k = 0; k < b.members.size(); ++k) {
    const size_t m = static_cast<size_t>(b.members[k]);
    const TensorInfo t = g.value(r.params[m]).info;
    ValueId gk = grads[k];
    if (gk == kNoValue) {  // not read before the loss: its gradient is zero on this rank
      gk = g.add("Full", {},
                 Attrs{{"shape", t.shape}, {"value", 0.0}, {"dtype", std::string(dtype_name(t.dtype))},
                       {"device", t.device.str()}},
                 meta);
    }
    if (m < r.prior.size() && r.prior[m] != kNoValue) gk = g.add("Add", {r.prior[m], gk}, {}, meta);
    parts.push_back(gk);
  }
  const ValueId flat = g.add("BucketPack", parts, {}, meta);
  const ValueId reduced = g.add("AllReduce", {flat},
                                Attrs{{"group", r.group}, {"op", std::string("average")}, {"world_size", r.world_size},
                                      {"bucket", int64_t{index}}},
                                meta);
  g.set_name(flat, meta.scope);
  g.set_name(reduced, meta.scope + ".reduced");
  return {reduced};
}

std::vector<ValueId> emit_bucket_wait(Graph& g, const GradientReduction& r, const GradientBucket& b, int index,
                                      ValueId reduced) {
  NodeMeta meta;
  meta.role = NodeRole::Backward;
  meta.scope = r.scope + ".bucket" + std::to_string(index);
  const ValueId done = g.add("AllReduceWait", {reduced}, Attrs{{"group", r.group}, {"bucket", int64_t{index}}}, meta);
  g.set_name(done, meta.scope + ".grads");
  std::vector<ValueId> out;
  int64_t off = 0;
  for (size_t k = 0; k < b.members.size(); ++k) {
    const TensorInfo t = g.value(r.params[static_cast<size_t>(b.members[k])]).info;
    const int64_t n = t.numel();
    ValueId v = g.add("Slice", {done}, Attrs{{"dim", int64_t{0}}, {"start", off}, {"stop", off + n}, {"step", int64_t{1}}}, meta);
    v = g.add("Reshape", {v}, Attrs{{"shape", t.shape}}, meta);
    out.push_back(v);
    off += n;
  }
  return out;
}

}  // namespace glassgrad
