// Gradient buckets of data parallelism (gradient_buckets.h): the ready order of parameter
// gradients, how buckets fill, and where build_backward places each bucket's all-reduce. None of
// this needs a second process: the AllReduce nodes are only built here, never run.
#include <gtest/gtest.h>

#include <algorithm>

#include "glassgrad/autodiff/autodiff.h"

using namespace glassgrad;

namespace {

TensorInfo f32(Shape s) { return {std::move(s), DType::Float32, Device::cpu()}; }

NodeMeta scope(const std::string& name) {
  NodeMeta m;
  m.scope = name;
  return m;
}

// A 3-layer MLP: out = relu(relu(x w1 + b1) w2 + b2) w3, loss = sum(out).
// params (in this order): w1 [4,16], b1 [16], w2 [16,16], b2 [16], w3 [16,2].
struct Mlp {
  Graph g;
  std::vector<ValueId> params;
  ValueId loss = kNoValue;
  explicit Mlp(DType b2_dtype = DType::Float32) {
    const ValueId x = g.add_leaf("x", f32({8, 4}), ValueKind::Input);
    auto param = [&](const char* name, Shape s, DType dt = DType::Float32) {
      const ValueId v = g.add_leaf(name, TensorInfo{std::move(s), dt, Device::cpu()}, ValueKind::Parameter, true);
      params.push_back(v);
      return v;
    };
    const ValueId w1 = param("w1", {4, 16}), b1 = param("b1", {16}), w2 = param("w2", {16, 16});
    const ValueId b2 = param("b2", {16}, b2_dtype), w3 = param("w3", {16, 2});
    ValueId h = g.add("ReLU", {g.add("Add", {g.add("MatMul", {x, w1}, {}, scope("l1")), b1}, {}, scope("l1"))}, {}, scope("l1"));
    ValueId b2f = b2_dtype == DType::Float32 ? b2 : g.add("Cast", {b2}, Attrs{{"dtype", std::string("float32")}}, scope("l2"));
    h = g.add("ReLU", {g.add("Add", {g.add("MatMul", {h, w2}, {}, scope("l2")), b2f}, {}, scope("l2"))}, {}, scope("l2"));
    loss = g.add("Sum", {g.add("MatMul", {h, w3}, {}, scope("l3"))}, {}, scope("loss"));
  }
  NodeId last() const { return g.value(loss).producer; }
};

std::vector<std::vector<int>> members(const std::vector<GradientBucket>& buckets) {
  std::vector<std::vector<int>> m;
  for (const auto& b : buckets) m.push_back(b.members);
  return m;
}

std::vector<NodeId> nodes_of(const Graph& g, const std::string& op) {
  std::vector<NodeId> out;
  for (NodeId n = 0; n < g.num_nodes(); ++n) {
    if (g.node(n).op() == op) out.push_back(n);
  }
  return out;
}

}  // namespace

TEST(GradientBuckets, GradientsBecomeReadyInReverseOrderOfTheirFirstUse) {
  Mlp m;
  const std::vector<GradientBucket> one = plan_gradient_buckets(m.g, m.params, m.last(), int64_t{1} << 30);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].members, (std::vector<int>{4, 3, 2, 1, 0}));  // w3, b2, w2, b1, w1
  EXPECT_EQ(one[0].bytes, (64 + 16 + 256 + 16 + 32) * 4);
  // Complete once w1's gradient is: after the gradient rule of its only reader, the first MatMul.
  EXPECT_EQ(one[0].ready_after, m.g.consumers().at(static_cast<size_t>(m.params[0])).at(0));
}

TEST(GradientBuckets, BucketsFillUpToTheCapAndAnOversizedGradientGetsItsOwn) {
  Mlp m;
  // bytes: w3 128, b2 64, w2 1024, b1 64, w1 256
  const auto buckets = plan_gradient_buckets(m.g, m.params, m.last(), 256);
  EXPECT_EQ(members(buckets), (std::vector<std::vector<int>>{{4, 3}, {2}, {1}, {0}}));
  EXPECT_EQ(buckets[0].bytes, 192);
  EXPECT_EQ(buckets[1].bytes, 1024);
  for (size_t k = 1; k < buckets.size(); ++k) {
    EXPECT_LE(buckets[k].ready_after, buckets[k - 1].ready_after) << "bucket " << k << " is ready before bucket " << k - 1;
  }
}

TEST(GradientBuckets, ABucketHoldsOneDtype) {
  Mlp m(DType::Float64);  // b2 in float64 between float32 gradients
  // b2's Cast is recorded before w2's MatMul, so the ready order is w3, w2, b2, b1, w1.
  const auto buckets = plan_gradient_buckets(m.g, m.params, m.last(), int64_t{1} << 30);
  EXPECT_EQ(members(buckets), (std::vector<std::vector<int>>{{4, 2}, {3}, {1, 0}}));
}

TEST(GradientBuckets, AnUnreadParameterGoesLastAndItsBucketIsNeverReadyEarly) {
  Mlp m;
  const ValueId unused = m.g.add_leaf("unused", f32({3}), ValueKind::Parameter, true);
  std::vector<ValueId> params = m.params;
  params.insert(params.begin(), unused);
  const auto ready = gradient_ready_nodes(m.g, params, m.last());
  EXPECT_EQ(ready[0], kNoNode);
  const auto buckets = plan_gradient_buckets(m.g, params, m.last(), 200);
  EXPECT_EQ(buckets.back().members.back(), 0);
  EXPECT_EQ(buckets.back().ready_after, kNoNode);
}

TEST(GradientBuckets, BackwardPlacesEachAllReduceBeforeTheBackwardOfEarlierLayers) {
  Mlp m;
  GradientReduction r;
  r.params = m.params;
  r.bucket_cap_bytes = 256;
  r.group = 3;
  r.world_size = 4;
  const NodeId first_backward = m.g.num_nodes();
  const std::vector<ValueId> grads = build_backward(m.g, m.loss, m.params, kNoValue, &r);
  const std::vector<NodeId> all_reduce = nodes_of(m.g, "AllReduce");
  ASSERT_EQ(all_reduce.size(), 4u);
  // Bucket 0 (w3, b2) must go out before any backward node of layer l1 exists, i.e. while
  // layers l2 and l1 still have their backward to run.
  NodeId first_l1 = kNoNode;
  for (NodeId n = first_backward; n < m.g.num_nodes(); ++n) {
    if (m.g.node(n).meta.scope == "l1" && first_l1 == kNoNode) first_l1 = n;
  }
  ASSERT_NE(first_l1, kNoNode);
  EXPECT_LT(all_reduce[0], first_l1);
  EXPECT_EQ(m.g.node(all_reduce[0]).meta.scope, "ddp.bucket0");
  for (size_t k = 0; k < all_reduce.size(); ++k) {
    const NodeId n = all_reduce[k];
    const Attrs& a = m.g.node(n).attrs;
    EXPECT_EQ(a.i("group"), 3);
    EXPECT_EQ(a.i("world_size"), 4);
    EXPECT_EQ(a.s("op"), "average");
    EXPECT_EQ(a.i("bucket"), static_cast<int64_t>(k));
    EXPECT_EQ(m.g.node(n).meta.role, NodeRole::Backward);
  }
  // Each returned gradient is a view of its bucket's reduced buffer with the parameter's shape.
  for (size_t i = 0; i < grads.size(); ++i) {
    ASSERT_NE(grads[i], kNoValue);
    EXPECT_EQ(m.g.value(grads[i]).info, m.g.value(m.params[i]).info);
    const Node& reshape = m.g.node(m.g.value(grads[i]).producer);
    EXPECT_EQ(reshape.op(), "Reshape");
    const Node& slice = m.g.node(m.g.value(reshape.inputs[0]).producer);
    EXPECT_EQ(slice.op(), "Slice");
    const Node& wait = m.g.node(m.g.value(slice.inputs[0]).producer);
    EXPECT_EQ(wait.op(), "AllReduceWait");
    EXPECT_EQ(m.g.node(m.g.value(wait.inputs[0]).producer).op(), "AllReduce");
  }
  // Every wait comes after every all-reduce and after the last gradient rule: the reductions
  // are in flight while the rest of backward runs.
  const std::vector<NodeId> waits = nodes_of(m.g, "AllReduceWait");
  ASSERT_EQ(waits.size(), all_reduce.size());
  EXPECT_GT(waits.front(), all_reduce.back());
  EXPECT_GT(waits.front(), first_l1);
  for (size_t k = 0; k < waits.size(); ++k) EXPECT_EQ(m.g.node(waits[k]).attrs.i("bucket"), static_cast<int64_t>(k));
  EXPECT_EQ(m.g.value(m.g.node(all_reduce[1]).inputs[0]).name, "ddp.bucket1");
}

TEST(GradientBuckets, APriorGradientIsAddedBeforeTheAllReduce) {
  Mlp m;
  GradientReduction r;
  r.params = m.params;
  r.prior.assign(m.params.size(), kNoValue);
  r.prior[4] = m.g.add_leaf("w3.grad", f32({16, 2}), ValueKind::Input);
  build_backward(m.g, m.loss, m.params, kNoValue, &r);
  const std::vector<NodeId> packs = nodes_of(m.g, "BucketPack");
  ASSERT_EQ(packs.size(), 1u);
  const Node& pack = m.g.node(packs[0]);
  ASSERT_EQ(pack.inputs.size(), 5u);
  const Node& add = m.g.node(m.g.value(pack.inputs[0]).producer);  // w3 is ready first
  EXPECT_EQ(add.op(), "Add");
  EXPECT_EQ(add.inputs[0], r.prior[4]);
}

TEST(GradientBuckets, BucketPackRefusesMixedDtypesWithAFix) {
  Graph g;
  const ValueId a = g.add_leaf("a", f32({2}), ValueKind::Input);
  const ValueId b = g.add_leaf("b", TensorInfo{{2}, DType::Float64, Device::cpu()}, ValueKind::Input);
  try {
    g.add("BucketPack", {a, b});
    FAIL() << "mixed dtypes were accepted";
  } catch (const DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("plan_gradient_buckets"), std::string::npos) << e.what();
  }
}

TEST(GradientBuckets, AllReduceIsItsOwnAdjoint) {
  Graph g;
  const ValueId x = g.add_leaf("x", f32({5}), ValueKind::Parameter, true);
  const Attrs attrs{{"group", int64_t{0}}, {"op", std::string("average")}, {"world_size", int64_t{2}}};
  const ValueId y = g.add("AllReduce", {x}, attrs);
  const ValueId loss = g.add("Sum", {y});
  const ValueId dx = build_backward(g, loss, {x}).at(0);
  const Node& n = g.node(g.value(dx).producer);
  EXPECT_EQ(n.op(), "AllReduce");
  EXPECT_EQ(n.attrs.s("op"), "average");
  EXPECT_EQ(n.attrs.i("world_size"), 2);
  EXPECT_EQ(n.attrs.i("bucket"), -1);
}
