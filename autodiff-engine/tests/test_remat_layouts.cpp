// Rematerialization and view layouts (remat.h): a forward view of an activation that the
// backward pass reads (tanh(w).T, a weight transformed in the forward as weight normalization
// does) is a saved activation, so rematerialize clones it as a recompute node appended after its
// backward readers. A backward view of that clone (tanh(w).T.T, read by the input-gradient
// MatMul) must still resolve to the recomputed tanh(w)'s own dense layout: the layout analysis
// follows producers, not node ids. A view of a leaf (a Linear's w.T) holds no memory and is
// kept, not recomputed.
#include <gtest/gtest.h>

#include <vector>

#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/autodiff/remat.h"

using namespace glassgrad;

namespace {

TensorInfo f32(Shape s) { return TensorInfo{std::move(s), DType::Float32, Device::cpu()}; }

// x [8, 5] -> MatMul with tanh(w).T, or w.T (w [3, 5]) -> Tanh -> Sum, with the gradients of x and w.
struct LinearTanh {
  Graph g;
  ValueId x, w;
  std::vector<ValueId> grads;
};

LinearTanh record_linear_tanh(bool transformed_weight = true) {
  LinearTanh m;
  Graph& g = m.g;
  m.x = g.add_leaf("x", f32({8, 5}), ValueKind::Parameter);
  m.w = g.add_leaf("w", f32({3, 5}), ValueKind::Parameter);
  const ValueId w_used = transformed_weight ? g.add("Tanh", {m.w}) : m.w;
  const ValueId wt = g.add("Permute", {w_used}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  const ValueId h = g.add("MatMul", {m.x, wt});
  const ValueId loss = g.add("Sum", {g.add("Tanh", {h})});
  m.grads = build_backward(g, loss, {m.x, m.w});
  return m;
}

// Backward views whose input a recompute node makes.
std::vector<ValueId> backward_views_of_recomputed(const Graph& g) {
  std::vector<ValueId> out;
  for (const Node& n : g.nodes()) {
    if (n.meta.role != NodeRole::Backward || n.schema->view_of < 0) continue;
    const NodeId p = g.value(n.inputs[static_cast<size_t>(n.schema->view_of)]).producer;
    if (p != kNoNode && g.node(p).meta.role == NodeRole::Recompute && g.node(p).op() == "Permute") {
      out.push_back(n.outputs[0]);
    }
  }
  return out;
}

}  // namespace

TEST(RematLayouts, ATransposeOfARecomputedTransposeIsTheWeightsOwnLayout) {
  LinearTanh m = record_linear_tanh();
  const int before = m.g.num_nodes();
  ASSERT_GT(rematerialize(m.g, {}), 0);  // no checkpoints: every saved activation is recomputed
  const std::vector<ValueId> views = backward_views_of_recomputed(m.g);
  ASSERT_EQ(views.size(), 1u);
  const NodeId reader = m.g.value(views[0]).producer;
  ASSERT_LT(reader, before) << "the backward reader was recorded before the recomputed view it reads";

  const LayoutAnalysis a = analyze_layouts(m.g);
  const size_t v = static_cast<size_t>(views[0]);
  const ValueId recomputed_permute = m.g.node(reader).inputs[0];
  const ValueId recomputed_tanh = m.g.node(m.g.value(recomputed_permute).producer).inputs[0];
  ASSERT_EQ(m.g.node(m.g.value(recomputed_tanh).producer).meta.role, NodeRole::Recompute);
  EXPECT_EQ(a.base[v], recomputed_tanh);
  EXPECT_TRUE(a.is_view[v]);
  EXPECT_EQ(a.layouts[v].shape, (Shape{3, 5}));
  EXPECT_EQ(a.layouts[v].strides, (Strides{5, 1}));  // w itself, not w.T's strides [1, 5]
  EXPECT_EQ(a.layouts[v].offset, 0);
}

TEST(RematLayouts, ThePlannedInputGradientReadsTheWeightDense) {
  LinearTanh m = record_linear_tanh();
  rematerialize(m.g, {});
  const ValueId w_tt = backward_views_of_recomputed(m.g).at(0);
  CompileOptions opts;
  opts.outputs = m.grads;
  opts.fuse = false;
  const Plan p = compile(m.g, opts);
  bool found = false;
  for (const BufferSlot& s : p.slots) {
    if (s.value != w_tt) continue;
    found = true;
    ASSERT_EQ(s.kind, SlotKind::View);
    const BufferSlot& root = p.slots[static_cast<size_t>(p.root_slot(s.id))];
    const ValueId base = root.value;
    ASSERT_NE(m.g.value(base).producer, kNoNode);
    EXPECT_EQ(m.g.node(m.g.value(base).producer).op(), "Tanh");  // the recomputed tanh(w)
    EXPECT_EQ(s.strides, (Strides{5, 1}));
    EXPECT_EQ(s.view_offset, 0);
  }
  EXPECT_TRUE(found);
}

TEST(RematLayouts, AViewOfALeafIsKeptNotRecomputed) {
  LinearTanh m = record_linear_tanh(/*transformed_weight=*/false);
  for (ValueId v : saved_activations(m.g)) {
    EXPECT_FALSE(view_of_leaf(m.g, v)) << "%" << v << " (a view of a leaf) counted as a saved activation";
  }
  const int before = m.g.num_nodes();
  ASSERT_GT(rematerialize(m.g, {}), 0);  // no checkpoints: the MatMul and Tanh are recomputed
  bool matmul_reads_wt = false;
  for (NodeId n = before; n < m.g.num_nodes(); ++n) {
    const Node& node = m.g.node(n);
    EXPECT_NE(node.op(), "Permute") << "w.T was recomputed: it holds no memory to save";
    if (node.op() != "MatMul") continue;
    const NodeId wt_producer = m.g.value(node.inputs[1]).producer;
    ASSERT_NE(wt_producer, kNoNode);
    EXPECT_EQ(m.g.node(wt_producer).meta.role, NodeRole::Forward);  // the recorded w.T itself
    matmul_reads_wt = view_of_leaf(m.g, node.inputs[1]);
  }
  EXPECT_TRUE(matmul_reads_wt);
}
