// User-facing engine errors carry the op and the layer name ("Slice 'encoder.crop'"), the
// shapes involved, and a fix line.
#include <gtest/gtest.h>

#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/autodiff/batchnorm_checks.h"
#include "testing_ops.h"

using namespace glassgrad;
using testing_ops::f32;

namespace {

NodeMeta layer(const std::string& scope) {
  NodeMeta m;
  m.scope = scope;
  return m;
}

template <typename E, typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

void expect_has(const std::string& msg, const std::string& part) {
  EXPECT_NE(msg.find(part), std::string::npos) << "missing '" << part << "' in:\n" << msg;
}

}  // namespace

TEST(Errors, ShapeRuleFailuresNameTheOpAndLayer) {
  testing_ops::register_all();
  Graph g;
  ValueId a = g.add_leaf("a", f32({2, 3}), ValueKind::Input);
  ValueId b = g.add_leaf("b", f32({3, 2}), ValueKind::Input);
  const std::string msg = message_of<ShapeError>([&] { g.add("TestBinary", {a, b}, {}, layer("encoder.mix")); });
  expect_has(msg, "TestBinary 'encoder.mix': shapes differ");
  expect_has(msg, "[2, 3] float32 cpu");
  expect_has(msg, "[3, 2] float32 cpu");
  expect_has(msg, "fix:");
}

TEST(Errors, WithoutALayerTheHeadlineNamesTheOpAlone) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2, 3}), ValueKind::Input);
  const std::string msg = message_of<ShapeError>([&] {
    g.add("Permute", {x}, Attrs{{"dims", std::vector<int64_t>{0, 0}}});
  });
  expect_has(msg, "Permute: dims must be a permutation of 0..1");
}

TEST(Errors, SliceOutOfRangeNamesLayerSizeAndBounds) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4, 5}), ValueKind::Input);
  const std::string msg = message_of<ShapeError>([&] {
    g.add("Slice", {x}, Attrs{{"dim", int64_t{1}}, {"start", int64_t{2}}, {"stop", int64_t{9}}}, layer("encoder.crop"));
  });
  expect_has(msg, "Slice 'encoder.crop'");
  expect_has(msg, "[0, 5]");
  expect_has(msg, "2:9");
}

TEST(Errors, ExpandThatCannotBroadcastNamesBothShapes) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({3, 2}), ValueKind::Input);
  const std::string msg = message_of<ShapeError>([&] {
    g.add("Expand", {x}, Attrs{{"shape", std::vector<int64_t>{3, 4}}}, layer("head"));
  });
  expect_has(msg, "Expand 'head': cannot expand [3, 2] to [3, 4]");
}

TEST(Errors, DevicesThatDifferNameLayerDevicesAndFix) {
  testing_ops::register_all();
  Graph g;
  ValueId a = g.add_leaf("a", f32({2}), ValueKind::Input);
  ValueId b = g.add_leaf("b", {{2}, DType::Float32, Device::cuda(0)}, ValueKind::Parameter);
  const std::string msg = message_of<DeviceError>([&] { g.add("TestBinary", {a, b}, {}, layer("fc1")); });
  expect_has(msg, "TestBinary 'fc1': inputs are on different devices");
  expect_has(msg, "a: [2] float32 on cpu");
  expect_has(msg, "b: [2] float32 on cuda:0");
  expect_has(msg, "fix:");
}

// The Python layer names itself in NodeMeta::layer; the rules of the ops it records with its
// parameters (layer_parameter) then speak of the layer's input and parameters.
TEST(Errors, ALayersInputOfAnotherDtypeOrDeviceIsWordedForTheLayer) {
  Graph g;
  ValueId x = g.add_leaf("x", {{2, 3, 8, 8}, DType::Float64, Device::cpu()}, ValueKind::Input);
  ValueId w = g.add_leaf("w", f32({4, 3, 3, 3}), ValueKind::Parameter);
  NodeMeta conv = layer("features.0");
  conv.layer = "Conv2D 'features.0'";
  std::string msg = message_of<DTypeError>([&] { g.add("Conv2D", {x, w}, {}, conv); });
  expect_has(msg, "Conv2D 'features.0': the input is float64 but the layer's parameters are float32");
  expect_has(msg, "weight: [4, 3, 3, 3] float32 cpu");
  expect_has(msg, "fix: x = x.float()   (or convert the model: model.double())");
  // Without a layer (a functional call), the op's own check speaks of its inputs.
  msg = message_of<DTypeError>([&] { g.add("Conv2D", {x, w}); });
  EXPECT_EQ(msg.find("the layer's parameters"), std::string::npos) << msg;

  ValueId img = g.add_leaf("img", f32({2, 4}), ValueKind::Input);
  ValueId wt = g.add_leaf("wt", {{4, 3}, DType::Float32, Device::cuda(0)}, ValueKind::Parameter);
  NodeMeta fc = layer("fc");
  fc.layer = "Linear 'fc'";
  msg = message_of<DeviceError>([&] { g.add("MatMul", {img, wt}, {}, fc); });
  expect_has(msg, "Linear 'fc': the input is on cpu but the layer's parameters are on cuda:0");
  expect_has(msg, "fix: x = x.to('cuda:0')");
}

TEST(Errors, ALinearLayersFeatureMismatchSuggestsTheLayerThatFits) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2, 3, 4}), ValueKind::Input);
  ValueId wt = g.add_leaf("wt", f32({7, 3}), ValueKind::Parameter);  // weight.T of Linear(7, 3)
  NodeMeta fc = layer("1");
  fc.layer = "Linear '1'";
  const std::string msg = message_of<ShapeError>([&] { g.add("MatMul", {x, wt}, {}, fc); });
  expect_has(msg, "Linear '1' got input of shape [2, 3, 4] but expects 7 features in the last axis");
  expect_has(msg, "fix: build the layer as Linear(4, 3)");
}

// BatchNorm ops take (N, C, ...) input of 2 to 5 axes as it is and check every per-channel vector
// against its channels; a BatchNorm layer's input is said for the layer (batchnorm_checks.h).
TEST(Errors, ABatchNormLayersChannelMismatchSuggestsTheLayerThatFits) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4, 5}), ValueKind::Input);
  ValueId gamma = g.add_leaf("gamma", f32({3}), ValueKind::Parameter);
  ValueId beta = g.add_leaf("beta", f32({3}), ValueKind::Parameter);
  NodeMeta bn = layer("head.1");
  bn.layer = "BatchNorm1D 'head.1'";
  std::string msg = message_of<ShapeError>([&] { g.add_node("BatchNorm2DTrain", {x, gamma, beta}, {}, bn); });
  expect_has(msg, "BatchNorm1D 'head.1': the input has 5 channels (axis 1) but the layer normalizes 3");
  expect_has(msg, "input: [4, 5] float32 cpu");
  expect_has(msg, "fix: build the layer as BatchNorm1D(5)");
  // Another module calling batch_norm: its class is no fix, so the op's own check speaks.
  NodeMeta other = layer("net");
  other.layer = "Net 'net'";
  msg = message_of<ShapeError>([&] { g.add_node("BatchNorm2DTrain", {x, gamma, beta}, {}, other); });
  expect_has(msg, "BatchNorm2DTrain 'net': gamma has shape [3], expected [5] (one value per channel)");
  expect_has(msg, "fix: build the layer as BatchNorm1D(5), or give gamma (batch_norm's weight) shape [5]");
}

TEST(Errors, BatchNormChecksTheRunningStatisticsAgainstTheInputsChannels) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2, 3, 4, 4}), ValueKind::Input);
  ValueId c3 = g.add_leaf("c3", f32({3}), ValueKind::Input);
  ValueId c4 = g.add_leaf("c4", f32({4}), ValueKind::Input);
  // Evaluation: running_mean is an input of the op.
  std::string msg = message_of<ShapeError>([&] { g.add_node("BatchNorm2DInference", {x, c3, c3, c4, c3}); });
  expect_has(msg, "BatchNorm2DInference: running_mean has shape [4], expected [3] (one value per channel)");
  expect_has(msg, "fix: build the layer as BatchNorm2D(3), or give running_mean shape [3]");
  // Training: the update checks the running statistics against the batch's ([C] of x).
  const std::vector<ValueId> stats = g.add_node("BatchNorm2DTrain", {x, c3, c3});
  msg = message_of<ShapeError>([&] {
    g.add_node("BatchNormUpdateStats", {c3, c4, stats[1], stats[2]}, Attrs{{"count", int64_t{32}}});
  });
  expect_has(msg, "BatchNormUpdateStats: running_var has shape [4] but the batch mean has shape [3]");
  expect_has(msg, "fix: give running_var shape [3] (one value per channel of the input)");
  // The same check for the update composed from elementwise ops (a tensor momentum).
  msg = message_of<ShapeError>([&] {
    check_batchnorm_running_stats("batch_norm 'bn'", g.value(c4).info, g.value(c3).info, g.value(stats[1]).info,
                                  g.value(stats[2]).info);
  });
  expect_has(msg, "batch_norm 'bn': running_mean has shape [4] but the batch mean has shape [3]");
}

TEST(Errors, BatchNormTakesTwoToFiveAxesAndRefusesOthers) {
  Graph g;
  ValueId c3 = g.add_leaf("c3", f32({3}), ValueKind::Input);
  for (const Shape& shape : {Shape{4, 3}, Shape{2, 3, 5}, Shape{2, 3, 2, 2}, Shape{2, 3, 2, 2, 2}}) {
    ValueId x = g.add_leaf("x", f32(shape), ValueKind::Input);
    const std::vector<ValueId> out = g.add_node("BatchNorm2DTrain", {x, c3, c3});
    EXPECT_EQ(g.value(out[0]).info.shape, shape);
    EXPECT_EQ(g.value(out[1]).info.shape, Shape{3});
  }
  ValueId v = g.add_leaf("v", f32({3}), ValueKind::Input);
  const std::string msg = message_of<ShapeError>([&] { g.add_node("BatchNorm2DTrain", {v, c3, c3}); });
  expect_has(msg, "BatchNorm2DTrain: expected a 2-d to 5-d input (N, C, ...), got 1-d [3]");
  // (N, C) input: the statistics are over N alone, so one sample is refused in training.
  ValueId one = g.add_leaf("one", f32({1, 3}), ValueKind::Input);
  expect_has(message_of<ShapeError>([&] { g.add_node("BatchNorm2DTrain", {one, c3, c3}); }),
             "training needs more than 1 value per channel, got input [1, 3]");
}

TEST(Errors, WrongNumberOfInputsNamesLayerAndInputNames) {
  testing_ops::register_all();
  Graph g;
  ValueId a = g.add_leaf("a", f32({2}), ValueKind::Input);
  const std::string msg = message_of<ValueError>([&] { g.add("TestBinary", {a}, {}, layer("fc1")); });
  expect_has(msg, "TestBinary 'fc1': got 1 inputs, expected 2");
  expect_has(msg, "inputs: a, b");
}

TEST(Errors, MissingAttributeNamesTheKey) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({2}), ValueKind::Input);
  const std::string msg = message_of<ValueError>([&] { g.add("Reshape", {x}, Attrs{}, layer("flatten")); });
  expect_has(msg, "shape");
}

TEST(Errors, NegativeLeafSizeNamesTheLeaf) {
  Graph g;
  const std::string msg = message_of<ShapeError>([&] { g.add_leaf("images", f32({-1, 28}), ValueKind::Input); });
  expect_has(msg, "leaf 'images'");
  expect_has(msg, "[-1, 28]");
}

TEST(Errors, BackwardOfANonScalarLossWithoutSeedIsRefused) {
  testing_ops::register_all();
  Graph g;
  ValueId w = g.add_leaf("w", f32({3}), ValueKind::Parameter, true);
  ValueId y = g.add("TestUnary", {w});
  EXPECT_THROW(build_backward(g, y, {w}), ValueError);
}

TEST(Errors, BackwardThroughAnOpWithoutGradientNamesTheOpAndLayer) {
  testing_ops::register_all();
  Graph g;
  ValueId w = g.add_leaf("w", f32({}), ValueKind::Parameter, true);
  ValueId u = g.add("TestUnary", {w});
  ValueId d = g.add("TestDense", {u}, {}, layer("mystery"));  // no gradient rule
  ValueId loss = g.add("TestUnary", {d});
  const std::string msg = message_of<UnsupportedError>([&] { build_backward(g, loss, {w}); });
  expect_has(msg, "TestDense 'mystery': this op has no gradient rule");
  expect_has(msg, "fix:");
}

TEST(Errors, ConcatRefusesPiecesOfAnotherDtypeOrDevice) {
  Graph g;
  const ValueId a = g.add_leaf("a", f32({2, 3}), ValueKind::Input);
  const ValueId b = g.add_leaf("b", {{4, 3}, DType::Float64, Device::cpu()}, ValueKind::Input);
  const ValueId c = g.add_leaf("c", {{1, 3}, DType::Float32, Device::cuda(0)}, ValueKind::Input);
  const Attrs dim0{{"dim", int64_t{0}}};
  std::string msg = message_of<DTypeError>([&] { g.add("Concat", {a, a, b}, dim0); });
  expect_has(msg, "input 2 is [4, 3] float64 cpu but input 0 is [2, 3] float32 cpu");
  expect_has(msg, "glassgrad.cat promotes dtypes itself");
  // Devices are compared for every op before its own rule runs (graph.cpp): the same refusal.
  msg = message_of<DeviceError>([&] { g.add("Concat", {a, c}, dim0); });
  expect_has(msg, "Concat: inputs are on different devices");
  EXPECT_EQ(g.value(g.add("Concat", {a, a}, dim0)).info.shape, (Shape{4, 3}));
}
