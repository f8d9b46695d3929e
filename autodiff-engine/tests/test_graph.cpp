#include <gtest/gtest.h>

#include "glassgrad/autodiff/autodiff.h"

using namespace glassgrad;

namespace {
TensorInfo f32(Shape s) { return {std::move(s), DType::Float32, Device::cpu()}; }
}  // namespace

TEST(Graph, ReshapeRecordsStaticShape) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2, 3, 4}), ValueKind::Input);
  ValueId y = g.add("Reshape", {x}, Attrs{{"shape", std::vector<int64_t>{6, -1}}});
  EXPECT_EQ(g.value(y).info.shape, (Shape{6, 4}));
}

TEST(Graph, ReshapeWithWrongSizeNamesShapesAndLayer) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2, 3}), ValueKind::Input);
  NodeMeta meta;
  meta.scope = "fc";
  try {
    g.add("Reshape", {x}, Attrs{{"shape", std::vector<int64_t>{4, 2}}}, meta);
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Reshape 'fc'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
  }
}

TEST(Graph, UnknownOpSuggestsNearestName) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2}), ValueKind::Input);
  try {
    g.add("Reshap", {x}, Attrs{{"shape", std::vector<int64_t>{2}}});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Reshape"), std::string::npos);
  }
}

TEST(Views, ReshapeOfTransposeIsNotAView) {
  Layout l = Layout::contiguous({2, 3});
  Layout t = permute_view(l, {1, 0});
  Layout out;
  EXPECT_FALSE(reshape_view(t, {6}, out));
  EXPECT_TRUE(reshape_view(t, {3, 1, 2}, out));
  EXPECT_EQ(out.strides[0], 1);  // the size-1 axis's stride never matters
  EXPECT_EQ(out.strides[2], 3);
}
