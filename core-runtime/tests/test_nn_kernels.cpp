// The nn kernels used from C++ alone (no Python): eager run_op on runtime tensors, typed errors,
// and in-place outputs that are the input tensors themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/eager.h"
#include "glassgrad/runtime/tensor.h"

using namespace glassgrad;

namespace {

Tensor vec(std::initializer_list<double> v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DType::Float64);
  double* p = t.data<double>();
  for (double x : v) *p++ = x;
  return t;
}

Tensor scalar(double v) { return Tensor::full({}, v, DType::Float64); }

}  // namespace

TEST(NNKernels, CrossEntropyMatchesHandComputedLoss) {
  Tensor logits = vec({0.0, std::log(3.0), 2.0, 2.0}).view({2, 2});
  Tensor labels = Tensor::empty({2}, DType::Int64);
  labels.data<int64_t>()[0] = 1;  // p = 3/4
  labels.data<int64_t>()[1] = 0;  // p = 1/2
  const Tensor loss = run_op("CrossEntropy", {logits, labels})[0];
  EXPECT_NEAR(*loss.data<double>(), (-std::log(0.75) - std::log(0.5)) / 2, 1e-14);
}

TEST(NNKernels, CrossEntropyLabelOutOfRangeThrowsIndexErrorWithTheLayer) {
  Tensor logits = Tensor::zeros({3, 4}, DType::Float32);
  Tensor labels = Tensor::zeros({3}, DType::Int64);
  labels.data<int64_t>()[2] = 4;
  NodeMeta meta;
  meta.scope = "classifier";
  try {
    run_op("CrossEntropy", {logits, labels}, {}, meta);
    FAIL() << "no error";
  } catch (const IndexError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("CrossEntropy 'classifier': label 4 at position 2 is out of range for 4 classes"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
  }
}

TEST(NNKernels, MaxPoolBackwardSendsTheGradientToTheFirstMaximum) {
  Tensor x = vec({2, 7, 7, 1}).view({1, 1, 2, 2});
  Tensor g = Tensor::full({1, 1, 1, 1}, 3.0, DType::Float64);
  const Tensor dx = run_op("MaxPool2DBackward", {g, x}, Attrs{{"kernel", std::vector<int64_t>{2, 2}}})[0];
  const double* d = dx.data<double>();
  EXPECT_EQ(d[0], 0.0);
  EXPECT_EQ(d[1], 3.0);
  EXPECT_EQ(d[2], 0.0);
  EXPECT_EQ(d[3], 0.0);
}

TEST(NNKernels, AdamUpdateWritesIntoParamStateAndStep) {
  Tensor p = vec({1.0, -1.0}), m = vec({0, 0}), v = vec({0, 0});
  Tensor step = Tensor::zeros({}, DType::Int64);
  const auto out = run_op("AdamUpdate", {p, vec({0.5, -2.0}), scalar(0.1), scalar(0.9), m, v, step}, {});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].data_ptr(), p.data_ptr());
  EXPECT_EQ(out[3].data_ptr(), step.data_ptr());
  EXPECT_EQ(*step.data<int64_t>(), 1);
  // First step: the bias corrections cancel, p -= lr * g / (|g| + eps).
  EXPECT_NEAR(p.data<double>()[0], 1.0 - 0.1, 1e-7);
  EXPECT_NEAR(p.data<double>()[1], -1.0 + 0.1, 1e-7);
  EXPECT_NEAR(m.data<double>()[1], -0.2, 1e-15);
}

TEST(NNKernels, AdamUpdateCountsAFloatStepInItsDtype) {
  // PyTorch keeps optimizer.state[p]["step"] as a float32 0-d tensor (float64 under a float64
  // default dtype); the update counts it in that dtype. Step 2 -> 3: bias corrections of t = 3.
  for (DType dt : {DType::Float32, DType::Float64}) {
    Tensor p = vec({1.0}), m = vec({0.0}), v = vec({0.0});
    Tensor step = Tensor::full({}, 2.0, dt);
    run_op("AdamUpdate", {p, vec({2.0}), scalar(0.1), scalar(0.9), m, v, step}, {});
    const double t = dt == DType::Float32 ? *step.data<float>() : *step.data<double>();
    EXPECT_EQ(t, 3.0);
    // m = 0.2, v = 0.004: p -= 0.1 * (0.2 / (1 - 0.9^3)) / (sqrt(0.004 / (1 - 0.999^3)) + 1e-8)
    const double expected = 1.0 - 0.1 * (0.2 / (1 - 0.729)) / (std::sqrt(0.004 / (1 - std::pow(0.999, 3))) + 1e-8);
    EXPECT_NEAR(p.data<double>()[0], expected, 1e-12);
  }
}

TEST(NNKernels, AdamWShrinksTheParameterBeforeTheUpdateAndAMSGradKeepsTheLargestV) {
  // AdamW, one step with g = 0: m = v = 0, so only the decoupled decay acts: p *= 1 - lr * wd.
  Tensor p = vec({2.0, -4.0}), m = vec({0, 0}), v = vec({0, 0});
  Tensor step = Tensor::zeros({}, DType::Int64);
  run_op("AdamUpdate", {p, vec({0.0, 0.0}), scalar(0.1), scalar(0.9), m, v, step},
         Attrs{{"weight_decay", 0.5}, {"decoupled_weight_decay", true}});
  EXPECT_NEAR(p.data<double>()[0], 2.0 * 0.95, 1e-15);
  EXPECT_NEAR(p.data<double>()[1], -4.0 * 0.95, 1e-15);
  // AMSGrad: v_max only grows, and the old v_max (9) beats the new v (0.001 * 1).
  Tensor q = vec({1.0}), m2 = vec({0}), v2 = vec({0}), v_max = vec({9.0});
  Tensor step2 = Tensor::zeros({}, DType::Int64);
  const auto out = run_op("AdamAMSGradUpdate", {q, vec({1.0}), scalar(0.1), scalar(0.9), m2, v2, v_max, step2}, {});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[3].data_ptr(), v_max.data_ptr());
  EXPECT_EQ(v_max.data<double>()[0], 9.0);
  EXPECT_NEAR(v2.data<double>()[0], 0.001, 1e-15);
  // p -= lr * (m / 0.1) / (sqrt(9 / 0.001) + eps), m = 0.1
  EXPECT_NEAR(q.data<double>()[0], 1.0 - 0.1 / (std::sqrt(9.0 / 0.001) + 1e-8), 1e-12);
  EXPECT_EQ(*step2.data<int64_t>(), 1);
}

TEST(NNKernels, BatchNormTrainingRefusesOneValuePerChannel) {
  Tensor x = Tensor::zeros({1, 2, 1, 1}, DType::Float32);
  Tensor gamma = Tensor::full({2}, 1.0, DType::Float32), beta = Tensor::zeros({2}, DType::Float32);
  EXPECT_THROW(run_op("BatchNorm2DTrain", {x, gamma, beta}), ShapeError);
}

// An empty gradient (a parameter of size 0) has no storage: its data pointer is null, and the
// packing copies must skip it (memcpy from null is undefined even for 0 bytes; the sanitizer
// stage of tools/run_tests.sh aborts on it).
TEST(NNKernels, BucketPackAndAllReduceWaitCopyEmptyGradientsAsNothing) {
  const Tensor empty = Tensor::empty({0, 3}, DType::Float64);
  const Tensor flat = run_op("BucketPack", {vec({1.0, 2.0}), empty, vec({3.0})})[0];
  ASSERT_EQ(flat.shape(), Shape({3}));
  EXPECT_EQ(flat.data<double>()[0], 1.0);
  EXPECT_EQ(flat.data<double>()[1], 2.0);
  EXPECT_EQ(flat.data<double>()[2], 3.0);
  EXPECT_EQ(run_op("BucketPack", {empty, empty})[0].numel(), 0);
  EXPECT_EQ(run_op("AllReduceWait", {empty}, Attrs{{"bucket", int64_t{0}}, {"group", int64_t{0}}})[0].numel(), 0);
}
