#include <gtest/gtest.h>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/tensor.h"

using namespace glassgrad;

TEST(Tensor, SliceIsAViewSharingStorage) {
  Tensor x = Tensor::zeros({10, 3}, DType::Float32);
  Tensor s = x.slice(0, 2, 6);
  EXPECT_EQ(s.shape(), (Shape{4, 3}));
  EXPECT_EQ(s.storage().get(), x.storage().get());
  EXPECT_EQ(s.offset(), 6);
  EXPECT_TRUE(s.is_contiguous());
}

TEST(Tensor, ContiguousCopiesTransposedData) {
  Tensor x = Tensor::empty({2, 3}, DType::Float32);
  float* p = x.data<float>();
  for (int i = 0; i < 6; ++i) p[i] = static_cast<float>(i);
  Tensor t = x.transpose(0, 1);
  EXPECT_FALSE(t.is_contiguous());
  Tensor c = t.contiguous();
  const float* q = c.data<float>();
  const float want[6] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(q[i], want[i]);
}

TEST(Allocator, TracksCurrentAndPeak) {
  Allocator& a = allocator_for(Device::cpu());
  const size_t before = a.stats().current;
  a.reset_peak();
  {
    Tensor x = Tensor::empty({1024}, DType::Float64);
    EXPECT_EQ(a.stats().current, before + 8192);
  }
  EXPECT_EQ(a.stats().current, before);
  EXPECT_GE(a.stats().peak, before + 8192);
}

TEST(Allocator, LimitRaisesOutOfMemoryNamingRequest) {
  Allocator& a = allocator_for(Device::cpu());
  a.set_limit(a.stats().current + 1000);
  EXPECT_THROW(Tensor::empty({1000}, DType::Float32, Device::cpu(), "big"), OutOfMemoryError);
  try {
    Tensor::empty({1000}, DType::Float32, Device::cpu(), "big");
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("'big'"), std::string::npos);
  }
  a.set_limit(0);
}

// Sizes whose element or byte count overflows 64 bits are refused where the tensor is made
// (types.h: kMaxSize), never wrapped to a small allocation that kernels then overrun.
TEST(TensorSizes, HugeShapesAreRefusedBeforeAllocating) {
  const int64_t big = int64_t(1) << 31;
  Allocator& a = allocator_for(Device::cpu());
  const size_t before = a.stats().num_allocs;
  EXPECT_THROW(Tensor::empty({big, big}, DType::Float32), ShapeError);  // 2^64 bytes wraps to 0
  EXPECT_THROW(Tensor::zeros({big, big, big}, DType::UInt8), ShapeError);
  EXPECT_EQ(a.stats().num_allocs, before);
}

TEST(TensorSizes, ViewsWhoseStridesOverflowAreRefused) {
  Tensor x = Tensor::zeros({4}, DType::Float32);
  // A stride of 2^62 times 3 steps would wrap around to land inside the storage.
  EXPECT_THROW(x.as_strided({4}, {int64_t(1) << 62}, 0), IndexError);
  EXPECT_THROW(x.as_strided({2, 2}, {int64_t(1) << 61, -(int64_t(1) << 61)}, 0), IndexError);
  EXPECT_NO_THROW(x.as_strided({2, 2}, {2, 1}, 0));
}

TEST(TensorSizes, ExpandToAHugeShapeIsRefused) {
  Tensor x = Tensor::zeros({1, 1}, DType::Float32);
  const int64_t big = int64_t(1) << 31;
  EXPECT_THROW(x.expand({big, big}), ShapeError);
  EXPECT_THROW(x.reshape({int64_t(1) << 40, int64_t(1) << 40, -1}), ShapeError);
}
