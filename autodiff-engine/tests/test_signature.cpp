// Graph::signature is the plan-cache key: equal for graphs of equal structure (names and
// layers do not matter) and different when anything a plan depends on changes.
#include <gtest/gtest.h>

#include <functional>

#include "glassgrad/autodiff/autodiff.h"
#include "testing_ops.h"

using namespace glassgrad;
using testing_ops::f32;

namespace {

struct Spec {
  Shape x_shape{4, 6};
  DType dtype = DType::Float32;
  Device device = Device::cpu();
  ValueKind w_kind = ValueKind::Parameter;
  bool w_requires_grad = true;
  int64_t slice_step = 2;
  std::string unary = "TestUnary";
  bool swap_binary_inputs = false;
  bool mark_second_output = false;
  std::string names = "a";
};

Graph build(const Spec& s) {
  testing_ops::register_all();
  Graph g;
  ValueId x = g.add_leaf("x" + s.names, {s.x_shape, s.dtype, s.device}, ValueKind::Input);
  ValueId w = g.add_leaf("w" + s.names, {s.x_shape, s.dtype, s.device}, s.w_kind, s.w_requires_grad);
  NodeMeta meta;
  meta.scope = "block_" + s.names;
  ValueId a = g.add(s.unary, {x}, {}, meta);
  ValueId b = s.swap_binary_inputs ? g.add("TestBinary", {w, a}, {}, meta) : g.add("TestBinary", {a, w}, {}, meta);
  ValueId c = g.add("Slice", {b}, Attrs{{"dim", int64_t{1}}, {"start", int64_t{0}}, {"stop", int64_t{6}}, {"step", s.slice_step}}, meta);
  g.mark_output(c);
  if (s.mark_second_output) g.mark_output(a);
  return g;
}

}  // namespace

TEST(Signature, EqualForEqualStructureWhateverTheNames) {
  Spec a, b;
  b.names = "other";
  EXPECT_EQ(build(a).signature(), build(b).signature());
  EXPECT_EQ(build(a).signature(), build(a).signature());
}

TEST(Signature, ChangesWithEveryPropertyAPlanDependsOn) {
  const uint64_t base = build(Spec{}).signature();
  const std::vector<std::pair<std::string, std::function<void(Spec&)>>> changes = {
      {"leaf shape", [](Spec& s) { s.x_shape = {4, 7}; }},
      {"leaf rank", [](Spec& s) { s.x_shape = {4, 6, 1}; }},
      {"dtype", [](Spec& s) { s.dtype = DType::Float64; }},
      {"device", [](Spec& s) { s.device = Device::cuda(0); }},
      {"device index", [](Spec& s) { s.device = Device::cuda(1); }},
      {"leaf kind", [](Spec& s) { s.w_kind = ValueKind::State; }},
      {"requires_grad", [](Spec& s) { s.w_requires_grad = false; }},
      {"attribute value", [](Spec& s) { s.slice_step = 3; }},
      {"op", [](Spec& s) { s.unary = "TestDense"; }},
      {"input order", [](Spec& s) { s.swap_binary_inputs = true; }},
      {"outputs", [](Spec& s) { s.mark_second_output = true; }},
  };
  for (const auto& c : changes) {
    Spec s;
    c.second(s);
    EXPECT_NE(build(s).signature(), base) << "changing the " << c.first << " kept the signature";
  }
}

TEST(Signature, CompiledPlansOfEqualGraphsShareTheirSignature) {
  Spec other;
  other.names = "b";
  const Plan p1 = compile(build(Spec{}));
  const Plan p2 = compile(build(other));
  EXPECT_EQ(p1.signature, p2.signature);
  Spec changed;
  changed.slice_step = 1;
  EXPECT_NE(compile(build(changed)).signature, p1.signature);
}

TEST(Signature, AttributeOrderDoesNotMatterButValuesDo) {
  Attrs a{{"dim", int64_t{1}}, {"start", int64_t{0}}};
  Attrs b{{"start", int64_t{0}}, {"dim", int64_t{1}}};
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_TRUE(a == b);
  Attrs c{{"dim", int64_t{1}}, {"start", int64_t{1}}};
  EXPECT_NE(a.hash(), c.hash());
  Attrs d{{"dim", 1.0}, {"start", int64_t{0}}};  // same number, different type
  EXPECT_NE(a.hash(), d.hash());
}
