// Sizes are checked once, where shapes are made (types.h: kMaxSize = 2^60): element and byte
// counts that would overflow 64 bits are refused with a ShapeError instead of wrapping to a
// small number, whichever op makes the shape.
#include <gtest/gtest.h>

#include "glassgrad/autodiff/autodiff.h"
#include "testing_ops.h"

using namespace glassgrad;
using testing_ops::f32;

namespace {

// The message of the ShapeError f throws (another exception type fails the test by escaping).
std::string shape_error_of(const std::function<void()>& f) {
  try { f(); } catch (const ShapeError& e) { return e.what(); }
  ADD_FAILURE() << "no ShapeError";
  return "";
}

constexpr int64_t k2_31 = int64_t(1) << 31;

}  // namespace

TEST(Sizes, NumelOfShapesPastTheLimitThrowsInsteadOfWrapping) {
  EXPECT_EQ(numel({2, 3, 4}), 24);
  EXPECT_EQ(numel({}), 1);
  // 2^31 * 2^31 * 4 = 2^64 wraps to 0 in unchecked int64 arithmetic.
  EXPECT_NE(shape_error_of([] { numel({k2_31, k2_31, 4}); }).find("2^64 elements"), std::string::npos);
  EXPECT_NE(shape_error_of([] { numel({3, -1}); }).find("negative size"), std::string::npos);
  // A zero anywhere makes an empty tensor, however large the other sizes.
  EXPECT_EQ(numel({0, int64_t(1) << 40, int64_t(1) << 40}), 0);
}

TEST(Sizes, ByteCountsPastTheLimitThrow) {
  EXPECT_EQ(nbytes({int64_t(1) << 58}, DType::Float32), size_t(1) << 60);
  const std::string msg = shape_error_of([] { nbytes({int64_t(1) << 59}, DType::Float64); });
  EXPECT_NE(msg.find("2^62 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
}

TEST(Sizes, SizeArithmeticHelpersReportOverflow) {
  int64_t out = 0;
  EXPECT_TRUE(size_mul(kMaxSize, 1, out));
  EXPECT_EQ(out, kMaxSize);
  EXPECT_FALSE(size_mul(kMaxSize, 2, out));
  EXPECT_FALSE(size_mul(k2_31, k2_31, out));
  EXPECT_TRUE(size_mul(0, std::numeric_limits<int64_t>::max(), out));
  EXPECT_EQ(out, 0);
  EXPECT_FALSE(size_add(kMaxSize, 1, out));
  EXPECT_FALSE(size_mul(-1, 2, out));
}

TEST(Sizes, ExpandToAHugeShapeFailsWhereItIsRecorded) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({1, 1}), ValueKind::Input);
  const std::string msg = shape_error_of([&] {
    g.add("Expand", {x}, Attrs{{"shape", Shape{k2_31, k2_31}}});
  });
  EXPECT_NE(msg.find("Expand"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2147483648, 2147483648]"), std::string::npos) << msg;
  // Within the limit, the same op records fine (a view, nothing is allocated).
  EXPECT_NO_THROW(g.add("Expand", {x}, Attrs{{"shape", Shape{int64_t(1) << 20, int64_t(1) << 20}}}));
}

TEST(Sizes, ReshapeWithAnOverflowingRequestIsRefused) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2, 3}), ValueKind::Input);
  // The requested sizes multiply to 2^80 (wrapping to 0 unchecked); with a -1 to infer.
  const std::string msg = shape_error_of([&] {
    g.add("Reshape", {x}, Attrs{{"shape", Shape{int64_t(1) << 40, int64_t(1) << 40, -1}}});
  });
  EXPECT_NE(msg.find("Reshape"), std::string::npos) << msg;
}

TEST(Sizes, IntegerAttributesPastTheLimitAreRefused) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({1, 1, 4, 4}), ValueKind::Input);
  // padding 2^62 on both sides would overflow H + pad_top + pad_bottom in the shape rule.
  const int64_t p = int64_t(1) << 62;
  const std::string msg = shape_error_of([&] {
    g.add("MaxPool2D", {x}, Attrs{{"kernel", Shape{2, 2}}, {"stride", Shape{1, 1}}, {"padding", Shape{p, p}}});
  });
  EXPECT_NE(msg.find("attribute 'padding'"), std::string::npos) << msg;
}

TEST(Sizes, LeavesPastTheLimitAreRefused) {
  Graph g;
  const std::string msg = shape_error_of([&] { g.add_leaf("huge", f32({k2_31, k2_31}), ValueKind::Input); });
  EXPECT_NE(msg.find("leaf 'huge'"), std::string::npos) << msg;
}
