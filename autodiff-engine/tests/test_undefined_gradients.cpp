// Undefined gradients (gradients.h): PyTorch's None, the absence of a contribution, not zeros.
#include <gtest/gtest.h>

#include "glassgrad/autodiff/autodiff.h"
#include "testing_ops.h"

using namespace glassgrad;
using testing_ops::f32;

namespace {

int count_ops(const Graph& g, const std::string& op) {
  int n = 0;
  for (NodeId i = 0; i < g.num_nodes(); ++i) n += g.node(i).op() == op;
  return n;
}

}  // namespace

TEST(UndefinedGradients, NodeWithUndefinedGradientPassesNothingOn) {
  testing_ops::register_all();
  Graph g;
  const ValueId w = g.add_leaf("w", f32({}), ValueKind::Parameter, true);
  const ValueId u = g.add("TestUnary", {w}, Attrs{{"undefined_gradient", true}});
  const ValueId loss = g.add("TestUnary", {u});
  EXPECT_TRUE(g.value(u).requires_grad);  // the result still joins the graph
  const std::vector<ValueId> grads = build_backward(g, loss, {w, u});
  EXPECT_EQ(grads[0], kNoValue);  // w's only path goes through the undefined node
  EXPECT_NE(grads[1], kNoValue);  // u itself has its gradient
  EXPECT_EQ(count_ops(g, "Full"), 1);  // the seed: no zeros are made for w
}

TEST(UndefinedGradients, OtherPathsStillContribute) {
  testing_ops::register_all();
  Graph g;
  const ValueId w = g.add_leaf("w", f32({}), ValueKind::Parameter, true);
  const ValueId u = g.add("TestUnary", {w}, Attrs{{"undefined_gradient", true}});
  const ValueId loss = g.add("TestBinary", {u, w});
  const std::vector<ValueId> grads = build_backward(g, loss, {w});
  ASSERT_NE(grads[0], kNoValue);
  // w's gradient is the other path's alone: no Add joins an undefined contribution
  EXPECT_EQ(count_ops(g, "Add"), 0);
  EXPECT_EQ(g.node(g.value(grads[0]).producer).op(), "TestUnary");
}

TEST(UndefinedGradients, HookReturningNoValueMakesTheGradientUndefined) {
  testing_ops::register_all();
  for (const bool undefine : {true, false}) {
    Graph g;
    const ValueId w = g.add_leaf("w", f32({}), ValueKind::Parameter, true);
    const ValueId u = g.add("TestUnary", {w});
    const ValueId loss = g.add("TestUnary", {u});
    int calls = 0;
    GradientHooks hooks;
    hooks.values = {u};
    hooks.apply = [&](ValueId value, ValueId grad) -> ValueId {
      EXPECT_EQ(value, u);
      ++calls;
      return undefine ? kNoValue : grad;
    };
    const std::vector<ValueId> grads = build_backward(g, loss, {w}, kNoValue, nullptr, &hooks);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(grads[0] == kNoValue, undefine);
  }
}
