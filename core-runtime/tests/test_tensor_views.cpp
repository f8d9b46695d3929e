// Tensor views never copy: slicing on any axis (steps, negative indices, clamping), select,
// permute/transpose, flatten, expand, unsqueeze/squeeze all share storage and read the right
// elements; contiguous() copies only when needed; all five dtypes; range errors.
#include <gtest/gtest.h>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/tensor.h"
#include "runtime_test_util.h"

using namespace glassgrad;
using rt_test::arange;
using rt_test::get;
using rt_test::values;

namespace {

const DType kAllDTypes[] = {DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Bool};

bool shares(const Tensor& a, const Tensor& b) { return a.storage().get() == b.storage().get(); }

size_t allocs() { return allocator_for(Device::cpu()).stats().num_allocs; }

std::string message_of_index_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const IndexError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no IndexError";
  return "";
}

}  // namespace

TEST(TensorViews, SliceOnEveryAxisWithStepsReadsTheRightElementsWithoutCopying) {
  const Tensor x = arange({4, 5, 6});
  for (int dim = 0; dim < 3; ++dim) {
    for (int64_t step = 1; step <= 3; ++step) {
      const size_t before = allocs();
      const Tensor s = x.slice(dim, 1, x.shape()[static_cast<size_t>(dim)], step);
      EXPECT_EQ(allocs(), before) << "slice allocated";
      EXPECT_TRUE(shares(s, x));
      const int64_t n = x.shape()[static_cast<size_t>(dim)];
      EXPECT_EQ(s.shape()[static_cast<size_t>(dim)], (n - 1 + step - 1) / step);
      rt_test::for_each_index(s.shape(), [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> src = i;
        src[static_cast<size_t>(dim)] = 1 + i[static_cast<size_t>(dim)] * step;
        ASSERT_EQ(get(s, i), get(x, src)) << "dim " << dim << " step " << step;
      });
    }
  }
}

TEST(TensorViews, SliceOfASliceComposesOffsetsAndStrides) {
  const Tensor x = arange({20});
  const Tensor s = x.slice(0, 2, 20, 3).slice(0, 1, 5, 2);  // elements 5, 11
  EXPECT_EQ(s.shape(), (Shape{2}));
  EXPECT_EQ(s.strides(), (Strides{6}));
  EXPECT_EQ(s.offset(), 5);
  EXPECT_EQ(values(s), (std::vector<double>{5, 11}));
}

TEST(TensorViews, NegativeIndicesCountFromTheEndAndBoundsClamp) {
  const Tensor x = arange({10});
  EXPECT_EQ(values(x.slice(0, -3, 10)), (std::vector<double>{7, 8, 9}));
  EXPECT_EQ(values(x.slice(0, -4, -1)), (std::vector<double>{6, 7, 8}));
  EXPECT_EQ(values(x.slice(0, -100, 2)), (std::vector<double>{0, 1}));   // start clamps to 0
  EXPECT_EQ(values(x.slice(0, 8, 100)), (std::vector<double>{8, 9}));    // stop clamps to 10
  EXPECT_EQ(x.slice(0, 7, 3).numel(), 0);                                // empty, not an error
  EXPECT_EQ(x.slice(0, 50, 60).numel(), 0);
  EXPECT_EQ(values(x.slice(-1, 0, 10, 4)), (std::vector<double>{0, 4, 8}));  // negative dim
}

TEST(TensorViews, SliceRejectsNonPositiveStepsAndBadDimensions) {
  const Tensor x = arange({3, 4});
  std::string msg = message_of_index_error([&] { x.slice(1, 0, 4, 0); });
  EXPECT_NE(msg.find("step must be >= 1, got 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
  msg = message_of_index_error([&] { x.slice(2, 0, 1); });
  EXPECT_NE(msg.find("dimension 2 is out of range for a 2-d tensor [3, 4]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[-2, 1]"), std::string::npos) << msg;
}

TEST(TensorViews, SelectDropsTheAxisAndAcceptsNegativeIndices) {
  const Tensor x = arange({3, 4, 5});
  const Tensor a = x.select(1, -1);  // x[:, 3, :]
  EXPECT_TRUE(shares(a, x));
  EXPECT_EQ(a.shape(), (Shape{3, 5}));
  EXPECT_EQ(get(a, {2, 4}), get(x, {2, 3, 4}));
  EXPECT_EQ(get(x.select(0, 2).select(0, 1), {0}), get(x, {2, 1, 0}));
  const std::string msg = message_of_index_error([&] { x.select(2, 5); });
  EXPECT_NE(msg.find("index 5 is out of range for dimension 2 of size 5 (shape [3, 4, 5])"), std::string::npos) << msg;
  EXPECT_NE(msg.find("use an index in [-5, 4]"), std::string::npos) << msg;
  EXPECT_THROW(x.select(0, -4), IndexError);
}

TEST(TensorViews, PermuteAndTransposeShareStorageAndSwapStrides) {
  const Tensor x = arange({2, 3, 4});
  const size_t before = allocs();
  const Tensor p = x.permute({2, 0, 1});
  const Tensor t = x.transpose(0, -1);
  EXPECT_EQ(allocs(), before);
  EXPECT_TRUE(shares(p, x) && shares(t, x));
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.strides(), (Strides{1, 12, 4}));
  EXPECT_FALSE(p.is_contiguous());
  EXPECT_EQ(get(p, {3, 1, 2}), get(x, {1, 2, 3}));
  EXPECT_EQ(get(t, {3, 2, 1}), get(x, {1, 2, 3}));
  EXPECT_THROW(x.permute({0, 1}), ShapeError);
  EXPECT_THROW(x.permute({0, 0, 1}), ShapeError);
}

TEST(TensorViews, FlattenIsAViewOfContiguousDataAndACopyOfTransposedData) {
  const Tensor x = arange({2, 3, 4});
  const Tensor f = x.flatten(1);
  EXPECT_TRUE(shares(f, x));
  EXPECT_EQ(f.shape(), (Shape{2, 12}));
  EXPECT_EQ(x.flatten().shape(), (Shape{24}));
  EXPECT_EQ(x.flatten(0, 1).shape(), (Shape{6, 4}));
  const Tensor t = x.transpose(1, 2);  // [2, 4, 3]
  const Tensor tf = t.flatten(1);
  EXPECT_FALSE(shares(tf, x));
  EXPECT_EQ(tf.shape(), (Shape{2, 12}));
  EXPECT_EQ(get(tf, {1, 4}), get(t, {1, 1, 1}));
  EXPECT_EQ(t.flatten(0, 0).shape(), t.shape());      // a single axis: still a view
  EXPECT_TRUE(shares(t.flatten(0, 0), x));
}

TEST(TensorViews, ViewOfANonContiguousTensorExplainsReshape) {
  const Tensor t = arange({3, 4}).transpose(0, 1);
  try {
    t.view({12});
    FAIL();
  } catch (const ShapeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("[4, 3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find(".reshape"), std::string::npos) << msg;
  }
  EXPECT_TRUE(shares(t.view({2, 2, 3}), t));  // splitting an axis works over any strides
}

TEST(TensorViews, ReshapeInfersOneSizeAndRejectsImpossibleShapes) {
  const Tensor x = arange({4, 6});
  EXPECT_EQ(x.reshape({-1, 3}).shape(), (Shape{8, 3}));
  EXPECT_TRUE(shares(x.reshape({-1, 3}), x));
  EXPECT_THROW(x.reshape({-1, -1}), ShapeError);
  EXPECT_THROW(x.reshape({5, -1}), ShapeError);
  EXPECT_THROW(x.reshape({5, 5}), ShapeError);
}

TEST(TensorViews, ExpandGivesStretchedAxesStrideZero) {
  const Tensor x = arange({3, 1});
  const Tensor e = x.expand({2, 3, 4});
  EXPECT_TRUE(shares(e, x));
  EXPECT_EQ(e.strides(), (Strides{0, 1, 0}));
  EXPECT_EQ(get(e, {1, 2, 3}), get(x, {2, 0}));
  EXPECT_THROW(x.expand({3, 4, 2}), ShapeError);  // size 3 cannot become 4
  EXPECT_THROW(x.expand({4}), ShapeError);        // fewer axes
  const Tensor c = e.contiguous();
  EXPECT_FALSE(shares(c, x));
  EXPECT_EQ(values(c), values(e));
}

TEST(TensorViews, UnsqueezeAndSqueezeOnlyChangeShapeAndStrides) {
  const Tensor x = arange({3, 4});
  EXPECT_EQ(x.unsqueeze(0).shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(x.unsqueeze(1).shape(), (Shape{3, 1, 4}));
  EXPECT_EQ(x.unsqueeze(-1).shape(), (Shape{3, 4, 1}));
  EXPECT_TRUE(x.unsqueeze(1).is_contiguous());
  EXPECT_TRUE(shares(x.unsqueeze(2), x));
  EXPECT_EQ(x.unsqueeze(1).squeeze(1).shape(), x.shape());
  EXPECT_EQ(x.squeeze(0).shape(), x.shape());  // size 3: left alone
  const Tensor t = x.transpose(0, 1).unsqueeze(1);  // [4, 1, 3]
  EXPECT_EQ(get(t, {2, 0, 1}), get(x, {1, 2}));
  EXPECT_THROW(x.unsqueeze(3), IndexError);
}

TEST(TensorViews, ContiguousCopiesOnlyWhenNeeded) {
  const Tensor x = arange({4, 5});
  size_t before = allocs();
  const Tensor same = x.contiguous();
  EXPECT_EQ(allocs(), before);
  EXPECT_EQ(same.data_ptr(), x.data_ptr());
  const Tensor rows = x.slice(0, 1, 3);  // whole rows: still dense
  EXPECT_TRUE(rows.is_contiguous());
  EXPECT_EQ(rows.contiguous().data_ptr(), rows.data_ptr());
  const Tensor cols = x.slice(1, 0, 5, 2);
  EXPECT_FALSE(cols.is_contiguous());
  before = allocs();
  const Tensor c = cols.contiguous();
  EXPECT_EQ(allocs(), before + 1);
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(shares(c, x));
  EXPECT_EQ(values(c), values(cols));
}

TEST(TensorViews, WritesThroughAViewAreSeenByTheBase) {
  const Tensor x = Tensor::zeros({3, 4}, DType::Float64);
  x.slice(1, 1, 4, 2).fill(7.0);  // columns 1 and 3
  EXPECT_EQ(values(x.select(0, 2)), (std::vector<double>{0, 7, 0, 7}));
  x.transpose(0, 1).select(0, 0).copy_from(arange({3}, DType::Float64));  // column 0
  EXPECT_EQ(values(x.select(1, 0)), (std::vector<double>{0, 1, 2}));
}

TEST(TensorViews, EveryDTypeSupportsFullViewsAndCopies) {
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor f = Tensor::full({2, 3}, 1.0, dt);
    EXPECT_EQ(f.itemsize(), dtype_size(dt));
    EXPECT_EQ(f.nbytes(), 6 * dtype_size(dt));
    EXPECT_EQ(values(f), std::vector<double>(6, 1.0));
    const Tensor x = arange({3, 4}, dt);
    const Tensor t = x.transpose(0, 1);
    const Tensor c = t.contiguous();
    EXPECT_EQ(c.dtype(), dt);
    EXPECT_EQ(values(c), values(t));
    const Tensor cl = x.clone();
    EXPECT_FALSE(shares(cl, x));
    EXPECT_EQ(values(cl), values(x));
    EXPECT_EQ(Tensor::zeros({5}, dt).str(), std::string("Tensor([5], ") + dtype_name(dt) + ", cpu)");
  }
  EXPECT_EQ(get(Tensor::full({1}, 2.0, DType::Bool), {0}), 1.0);  // bool stores 0 or 1
  EXPECT_EQ(get(Tensor::full({1}, 3.9, DType::Int64), {0}), 3.0);
}

TEST(TensorViews, AsStridedRefusesToReachOutsideItsStorage) {
  const Tensor x = arange({10});
  EXPECT_NO_THROW(x.as_strided({5}, {2}, 1));
  EXPECT_THROW(x.as_strided({5}, {2}, 2), IndexError);   // last element at 10
  EXPECT_THROW(x.as_strided({2}, {-1}, 0), IndexError);  // first step goes below 0
}

TEST(TensorViews, NegativeSizesAreAShapeError) {
  EXPECT_THROW(Tensor::empty({2, -3}, DType::Float32), ShapeError);
}

TEST(TensorViews, SizeAcceptsNegativeDimsAndChecksRange) {
  const Tensor x = arange({2, 3});
  EXPECT_EQ(x.size(-1), 3);
  EXPECT_EQ(x.size(0), 2);
  EXPECT_THROW(x.size(2), IndexError);
}

TEST(TensorViews, StorageLivesAsLongAsAnyView) {
  Allocator& a = allocator_for(Device::cpu());
  const size_t before = a.stats().current;
  Tensor view;
  {
    const Tensor x = Tensor::empty({256}, DType::Float32);
    view = x.slice(0, 10, 20);
  }
  EXPECT_EQ(a.stats().current, before + 1024) << "the view must keep its storage alive";
  view = Tensor();
  EXPECT_EQ(a.stats().current, before);
}
