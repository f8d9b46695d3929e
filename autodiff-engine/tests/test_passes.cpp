// Dead-code elimination and scheduling (passes.h): side-effecting nodes survive DCE, and the
// schedule runs every reader of a buffer before the node that overwrites it in place.
#include <gtest/gtest.h>

#include <algorithm>

#include "glassgrad/autodiff/autodiff.h"
#include "testing_ops.h"

using namespace glassgrad;
using testing_ops::f32;

namespace {

class Passes : public ::testing::Test {
 protected:
  void SetUp() override { testing_ops::register_all(); }
};

NodeId producer(const Graph& g, ValueId v) { return g.value(v).producer; }

size_t position(const std::vector<NodeId>& order, NodeId n) {
  auto it = std::find(order.begin(), order.end(), n);
  EXPECT_NE(it, order.end()) << "node " << n << " is not scheduled";
  return static_cast<size_t>(it - order.begin());
}

}  // namespace

TEST_F(Passes, DeadCodeEliminationDropsNodesTheRootsDoNotNeed) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4}), ValueKind::Input);
  ValueId a = g.add("TestUnary", {x});
  ValueId dead = g.add("TestUnary", {x});
  ValueId dead2 = g.add("TestUnary", {dead});
  ValueId b = g.add("TestUnary", {a});
  const std::vector<NodeId> live = live_nodes(g, {b});
  EXPECT_EQ(live, (std::vector<NodeId>{producer(g, a), producer(g, b)}));
  (void)dead2;
}

TEST_F(Passes, DeadCodeEliminationKeepsInPlaceUpdatesAndWhatTheyNeed) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4}), ValueKind::Input);
  ValueId w = g.add_leaf("w", f32({4}), ValueKind::State);
  ValueId loss = g.add("TestUnary", {x});
  ValueId step = g.add("TestUnary", {x});           // needed only by the update
  ValueId upd = g.add("TestInplace", {w, step});    // nobody reads the updated value
  ValueId unused = g.add("TestUnary", {upd});       // dead: reads the update but is not a root
  const std::vector<NodeId> live = live_nodes(g, {loss});
  EXPECT_EQ(live, (std::vector<NodeId>{producer(g, loss), producer(g, step), producer(g, upd)}));
  EXPECT_EQ(std::count(live.begin(), live.end(), producer(g, unused)), 0);
}

TEST_F(Passes, DeadCodeEliminationKeepsSideEffectNodesWithoutRoots) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4}), ValueKind::Input);
  ValueId a = g.add("TestUnary", {x});
  ValueId token = g.add("TestSideEffect", {a});
  g.add("TestUnary", {a});  // dead
  EXPECT_EQ(live_nodes(g, {}), (std::vector<NodeId>{producer(g, a), producer(g, token)}));
}

TEST_F(Passes, ScheduleKeepsRecordingOrderWhenNothingForcesAChange) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4}), ValueKind::Input);
  ValueId a = g.add("TestUnary", {x});
  ValueId b = g.add("TestUnary", {x});
  ValueId c = g.add("TestBinary", {a, b});
  const auto nodes = live_nodes(g, {c});
  EXPECT_EQ(schedule(g, nodes), nodes);
}

TEST_F(Passes, ScheduleRunsEveryReaderBeforeTheInPlaceWriter) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2, 3}), ValueKind::Input);
  ValueId w = g.add_leaf("w", f32({2, 3}), ValueKind::State);
  ValueId upd = g.add("TestInplace", {w, x});  // recorded first ...
  // ... but these read the old w (directly and through views), so they must run before it.
  ValueId r1 = g.add("TestUnary", {w});
  ValueId wt = g.add("Permute", {w}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  ValueId r2 = g.add("TestUnary", {wt});
  ValueId ws = g.add("Slice", {w}, Attrs{{"dim", int64_t{1}}, {"start", int64_t{0}}, {"stop", int64_t{3}}, {"step", int64_t{2}}});
  ValueId r3 = g.add("TestDense", {ws});
  // A reader of the *updated* value runs after the writer.
  ValueId r4 = g.add("TestUnary", {upd});
  const auto order = schedule(g, live_nodes(g, {r1, r2, r3, r4}));
  const size_t writer = position(order, producer(g, upd));
  for (ValueId r : {r1, wt, r2, ws, r3}) {
    EXPECT_LT(position(order, producer(g, r)), writer) << g.str();
  }
  EXPECT_GT(position(order, producer(g, r4)), writer);
}

TEST_F(Passes, ScheduleOrdersReadersOfAnInPlaceUpdatedIntermediate) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({8}), ValueKind::Input);
  ValueId h = g.add("TestUnary", {x});
  ValueId upd = g.add("TestInplace", {h, x});
  ValueId late_reader = g.add("TestUnary", {h});
  ValueId after = g.add("TestBinary", {upd, x});
  const auto order = schedule(g, live_nodes(g, {late_reader, after}));
  EXPECT_LT(position(order, producer(g, late_reader)), position(order, producer(g, upd)));
  EXPECT_GT(position(order, producer(g, after)), position(order, producer(g, upd)));
}

TEST_F(Passes, ScheduleRejectsAReadOfTheOldValueAfterTheInPlaceWrite) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4}), ValueKind::Input);
  ValueId w = g.add_leaf("w", f32({4}), ValueKind::Parameter);
  NodeMeta opt;
  opt.scope = "sgd";
  opt.role = NodeRole::Optimizer;
  ValueId upd = g.add("TestInplace", {w, x}, {}, opt);
  NodeMeta meta;
  meta.scope = "fc2";
  // Needs both the updated w (so it runs after the write) and the old w: impossible.
  ValueId bad = g.add("TestBinary", {w, upd}, {}, meta);
  try {
    schedule(g, live_nodes(g, {bad}));
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("TestBinary 'fc2' reads %1:w after TestInplace 'sgd' overwrote it in place"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("clone()"), std::string::npos) << msg;
  }
}

TEST_F(Passes, ScheduleRejectsAReadThroughAViewAfterTheInPlaceWrite) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2, 2}), ValueKind::Input);
  ValueId w = g.add_leaf("w", f32({2, 2}), ValueKind::State);
  ValueId old_view = g.add("Reshape", {w}, Attrs{{"shape", std::vector<int64_t>{4}}});
  ValueId upd = g.add("TestInplace", {w, x});
  ValueId upd_flat = g.add("Reshape", {upd}, Attrs{{"shape", std::vector<int64_t>{4}}});
  ValueId bad = g.add("TestBinary", {old_view, upd_flat});
  EXPECT_THROW(schedule(g, live_nodes(g, {bad})), ValueError);
}

TEST_F(Passes, InsertContiguousCopiesFeedsDenseOpsFromStridedViewsOnly) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({3, 4}), ValueKind::Input);
  ValueId t = g.add("Permute", {x}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  ValueId dense_of_view = g.add("TestDense", {t});
  ValueId dense_of_leaf = g.add("TestDense", {x});
  ValueId strided_ok = g.add("TestUnary", {t});
  const int before = g.num_nodes();
  EXPECT_EQ(insert_contiguous_copies(g), 1);
  EXPECT_EQ(g.num_nodes(), before + 1);
  const Node& fed = g.node(producer(g, dense_of_view));
  EXPECT_EQ(g.node(producer(g, fed.inputs[0])).op(), "Contiguous");
  EXPECT_EQ(g.node(producer(g, dense_of_leaf)).inputs[0], x);
  EXPECT_EQ(g.node(producer(g, strided_ok)).inputs[0], t);
  // The copy is recorded after its reader; dead-code elimination must still keep it.
  const auto live = live_nodes(g, {dense_of_view});
  EXPECT_EQ(live, (std::vector<NodeId>{producer(g, t), producer(g, dense_of_view), g.num_nodes() - 1}));
  // The compiled plan runs the copy before its reader.
  const Plan p = compile(g, CompileOptions{{dense_of_view}});
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].op(), "Contiguous");
  EXPECT_EQ(p.steps[1].op(), "TestDense");
}

TEST_F(Passes, LayoutAnalysisResolvesChainsOfViewsToTheirBase) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4, 6}), ValueKind::Input);
  ValueId s = g.add("Slice", {x}, Attrs{{"dim", int64_t{1}}, {"start", int64_t{1}}, {"stop", int64_t{6}}, {"step", int64_t{2}}});
  ValueId t = g.add("Permute", {s}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  ValueId copy = g.add("Reshape", {t}, Attrs{{"shape", std::vector<int64_t>{12}}});  // not expressible: a copy
  const LayoutAnalysis a = analyze_layouts(g);
  EXPECT_EQ(a.base[static_cast<size_t>(t)], x);
  EXPECT_TRUE(a.is_view[static_cast<size_t>(t)]);
  EXPECT_EQ(a.layouts[static_cast<size_t>(t)].shape, (Shape{3, 4}));
  EXPECT_EQ(a.layouts[static_cast<size_t>(t)].strides, (Strides{2, 6}));
  EXPECT_EQ(a.layouts[static_cast<size_t>(t)].offset, 1);
  EXPECT_EQ(a.base[static_cast<size_t>(copy)], copy);
  EXPECT_FALSE(a.is_view[static_cast<size_t>(copy)]);
}

// Passes append nodes that older nodes read (rematerialize's recompute nodes): a view of such a
// view composes with the appended view's layout, so its base is the buffer under both.
TEST_F(Passes, LayoutAnalysisFollowsProducersNotRecordingOrder) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4, 6}), ValueKind::Input);
  ValueId t = g.add("Permute", {x}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  ValueId tt = g.add("Permute", {t}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  ValueId late = g.add("Permute", {x}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});  // recorded after tt
  g.replace_input(g.value(tt).producer, 0, late);
  const LayoutAnalysis a = analyze_layouts(g);
  EXPECT_EQ(a.base[static_cast<size_t>(tt)], x);
  EXPECT_EQ(a.layouts[static_cast<size_t>(tt)].shape, (Shape{4, 6}));
  EXPECT_EQ(a.layouts[static_cast<size_t>(tt)].strides, (Strides{6, 1}));
  EXPECT_EQ(a.base[static_cast<size_t>(late)], x);
  EXPECT_EQ(a.layouts[static_cast<size_t>(late)].strides, (Strides{1, 6}));
}

TEST_F(Passes, InsertContiguousCopiesRefusesToCopyATensorUpdatedInPlace) {
  Graph g;
  ValueId w = g.add_leaf("w", f32({4, 4}), ValueKind::State);
  ValueId x = g.add_leaf("x", f32({4, 4}), ValueKind::Input);
  ValueId wt = g.add("Permute", {w}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  NodeMeta meta;
  meta.scope = "bn1";
  g.add("TestInplaceDense", {wt, x}, {}, meta);
  try {
    insert_contiguous_copies(g);
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("TestInplaceDense 'bn1': the tensor it updates in place"), std::string::npos) << msg;
    EXPECT_NE(msg.find("strides [1, 4]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
  }
}

TEST_F(Passes, InsertContiguousCopiesCopiesTheValueInputOfADenseInPlaceOp) {
  Graph g;
  ValueId w = g.add_leaf("w", f32({4, 4}), ValueKind::State);
  ValueId x = g.add_leaf("x", f32({4, 4}), ValueKind::Input);
  ValueId xt = g.add("Permute", {x}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  ValueId upd = g.add("TestInplaceDense", {w, xt});
  EXPECT_EQ(insert_contiguous_copies(g), 1);
  EXPECT_EQ(g.node(g.value(upd).producer).inputs[0], w);
}

TEST_F(Passes, DeadCodeEliminationDropsASupersededInPlaceNodeAndRefusesToReadIt) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4}), ValueKind::Input);
  ValueId w = g.add_leaf("w", f32({4}), ValueKind::State);
  ValueId upd = g.add("TestInplace", {w, x});
  g.supersede(producer(g, upd));
  EXPECT_TRUE(live_nodes(g, {}).empty());
  EXPECT_THROW(live_nodes(g, {upd}), InternalError);
}

namespace {

// A BatchNorm layer's training forward as nn.BatchNorm2D records it: the counter's increment,
// the normalization and the running statistics' update, all with the layer's name.
struct BatchNormLayer {
  ValueId y, rm, rv, counter;
};
BatchNormLayer record_batchnorm(Graph& g, ValueId x, const std::string& layer, const std::string& counter_layer) {
  const int64_t c = g.value(x).info.shape[1];
  NodeMeta meta;
  meta.layer = layer;
  NodeMeta counter_meta;
  counter_meta.layer = counter_layer;
  const ValueId gamma = g.add_leaf(layer + ".weight", f32({c}), ValueKind::Parameter);
  const ValueId beta = g.add_leaf(layer + ".bias", f32({c}), ValueKind::Parameter);
  const ValueId rm = g.add_leaf(layer + ".running_mean", f32({c}), ValueKind::State);
  const ValueId rv = g.add_leaf(layer + ".running_var", f32({c}), ValueKind::State);
  const ValueId n = g.add_leaf(layer + ".num_batches_tracked", TensorInfo{{}, DType::Int64, Device::cpu()}, ValueKind::State);
  const ValueId counted = g.add("AddScalarInPlace", {n}, Attrs{{"value", 1.0}}, counter_meta);
  const auto bn = g.add_node("BatchNorm2DTrain", {x, gamma, beta}, Attrs{{"eps", 1e-5}}, meta);
  const Shape& s = g.value(x).info.shape;
  const auto up = g.add_node("BatchNormUpdateStats", {rm, rv, bn[1], bn[2]},
                             Attrs{{"momentum", 0.1}, {"count", s[0] * s[2] * s[3]}}, meta);
  return {bn[0], up[0], up[1], counted};
}

int count_ops(const Graph& g, const std::vector<NodeId>& nodes, const std::string& op) {
  return static_cast<int>(std::count_if(nodes.begin(), nodes.end(), [&](NodeId n) { return g.node(n).op() == op; }));
}

}  // namespace

TEST_F(Passes, BatchNormStateUpdatesBecomeOneNodeWithTheLayersCounter) {
  Graph g;
  const ValueId x = g.add_leaf("x", f32({4, 3, 5, 5}), ValueKind::Input);
  const BatchNormLayer bn = record_batchnorm(g, x, "BatchNorm2D 'bn'", "BatchNorm2D 'bn'");
  std::vector<ValueId> keep{bn.y, bn.rm, bn.rv, bn.counter};
  EXPECT_EQ(fuse_all(g, keep), 1);
  const std::vector<NodeId> live = live_nodes(g, keep);
  EXPECT_EQ(live.size(), 1u);
  const Node& fused = g.node(live[0]);
  EXPECT_EQ(fused.op(), "BatchNorm2DTrainUpdate");
  EXPECT_EQ(fused.attrs.i("count"), 100);
  EXPECT_EQ(fused.attrs.i("counter_add"), 1);
  // The kept values are the fused node's: y, then the running statistics and the counter, each
  // written into its input's buffer.
  EXPECT_EQ(keep, (std::vector<ValueId>{fused.outputs[0], fused.outputs[3], fused.outputs[4], fused.outputs[5]}));
  EXPECT_EQ(g.value(fused.inputs[5]).name, "BatchNorm2D 'bn'.num_batches_tracked");
}

TEST_F(Passes, BatchNormStateUpdatesStaySeparateWithoutTheLayersOneCounter) {
  Graph g;
  const ValueId x = g.add_leaf("x", f32({4, 3, 5, 5}), ValueKind::Input);
  // Another layer's counter is not this BatchNorm's.
  const BatchNormLayer bn = record_batchnorm(g, x, "BatchNorm2D 'bn'", "Other 'counter'");
  std::vector<ValueId> keep{bn.y, bn.rm, bn.rv, bn.counter};
  EXPECT_EQ(fuse_batchnorm_update(g, keep), 0);
  const std::vector<NodeId> live = live_nodes(g, keep);
  EXPECT_EQ(count_ops(g, live, "BatchNormUpdateStats"), 1);
  EXPECT_EQ(count_ops(g, live, "AddScalarInPlace"), 1);
  EXPECT_EQ(count_ops(g, live, "BatchNorm2DTrainUpdate"), 0);
}
