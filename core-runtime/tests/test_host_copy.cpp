// Early host reads' bookkeeping (glassgrad/runtime/host_copy.h), on the CPU: when an output is
// complete within a plan (Executor::output_ready_steps), which outputs are candidates, how the
// wish to copy an output moves from run to run, and that every write into a storage drops the
// copy it carries (a plan updating an input in place, copy_tensor, fill_tensor, an eager in-place op).
#include <gtest/gtest.h>

#include <memory>

#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/eager.h"
#include "glassgrad/runtime/executor.h"
#include "glassgrad/runtime/host_copy.h"
#include "runtime_test_util.h"

using namespace glassgrad;
using rt_test::values;

namespace {

class HostCopies : public ::testing::Test {
 protected:
  void SetUp() override { rt_test::register_ops(); }
};

TensorInfo f64(Shape s) { return {std::move(s), DType::Float64, Device::cpu()}; }

std::shared_ptr<const Plan> plan_of(const Graph& g, const std::vector<ValueId>& outputs) {
  CompileOptions opts;
  opts.outputs = outputs;
  opts.workspace = Executor::workspace_fn();
  opts.fuse = false;
  return std::make_shared<const Plan>(compile(g, opts));
}

// A HostCopy as the executor hangs it on an output's storage (the block stands for the copy).
void attach_copy(const Tensor& t) {
  auto c = std::make_shared<HostCopy>();
  c->block = Tensor::full({static_cast<int64_t>(t.nbytes())}, 0.0, DType::UInt8);
  c->data_bytes = t.nbytes();
  c->wish = std::make_shared<ReadWish>();
  t.storage()->set_host_copy(std::move(c));
}

}  // namespace

TEST_F(HostCopies, EachOutputIsCompleteAfterTheLastStepWritingIt) {
  Graph g;
  ValueId x = g.add_leaf("x", f64({4}), ValueKind::Input);
  ValueId a = g.add("RtAddOne", {x});  // step 0
  ValueId b = g.add("RtAddOne", {a});  // step 1
  ValueId c = g.add("RtAddOne", {b});  // step 2
  const auto plan = plan_of(g, {a, c, b});
  ASSERT_EQ(plan->steps.size(), 3u);
  const Executor ex(plan);
  EXPECT_EQ(ex.output_ready_steps(), (std::vector<int>{0, 2, 1}));
  // CPU plans run synchronously: no output is a candidate for an early read
  EXPECT_EQ(ex.early_read_states(), (std::vector<std::string>{"", "", ""}));
}

TEST_F(HostCopies, AnInPlaceOutputIsCompleteAfterItsUpdate) {
  Graph g;
  ValueId w = g.add_leaf("w", f64({4}), ValueKind::State);
  ValueId x = g.add_leaf("x", f64({4}), ValueKind::Input);
  ValueId before = g.add("RtAddOne", {w});
  ValueId upd = g.add("RtAccumulate", {w, x});  // w += x, after its reader
  const auto plan = plan_of(g, {before, upd});
  const Executor ex(plan);
  ASSERT_EQ(plan->steps.size(), 2u);
  EXPECT_EQ(ex.output_ready_steps(), (std::vector<int>{0, 1}));
}

TEST_F(HostCopies, AWishAsksForCopiesUntilACopyGoesUnread) {
  ReadWish w;
  EXPECT_FALSE(w.requested()) << "idle: no copies";
  w.state = ReadWish::kWanted;  // read without a copy
  EXPECT_TRUE(w.requested());
  w.state = ReadWish::kMade;    // the run copied it
  w.state = ReadWish::kRead;    // and the host read the copy
  EXPECT_TRUE(w.requested()) << "read: copied again";
  w.state = ReadWish::kMade;    // copied, never read
  EXPECT_FALSE(w.requested()) << "an unread copy stops the copies";
  EXPECT_EQ(w.state.load(), ReadWish::kIdle);
}

TEST_F(HostCopies, APlanWritingAnInputDropsItsCopyBeforeRunning) {
  Graph g;
  ValueId w = g.add_leaf("w", f64({4}), ValueKind::State);
  ValueId x = g.add_leaf("x", f64({4}), ValueKind::Input);
  ValueId upd = g.add("RtAccumulate", {w, x});
  const auto plan = plan_of(g, {upd});
  const Tensor wt = Tensor::full({4}, 1.0, DType::Float64);
  const Tensor xt = Tensor::full({4}, 2.0, DType::Float64);
  attach_copy(wt);
  attach_copy(xt);
  std::vector<Tensor> inputs(plan->input_values.size());
  for (size_t k = 0; k < inputs.size(); ++k) inputs[k] = plan->input_values[k] == w ? wt : xt;
  Executor(plan).run(inputs);
  EXPECT_EQ(values(wt), std::vector<double>(4, 3.0));
  EXPECT_EQ(wt.storage()->host_copy(), nullptr) << "the updated input's copy is stale: dropped";
  EXPECT_NE(xt.storage()->host_copy(), nullptr) << "an input only read keeps its copy";
}

TEST_F(HostCopies, CopiesFillsAndEagerInPlaceOpsDropTheCopy) {
  const Tensor a = Tensor::full({3}, 1.0, DType::Float64);
  const Tensor src = Tensor::full({3}, 5.0, DType::Float64);
  attach_copy(a);
  attach_copy(src);
  copy_tensor(a, src);
  EXPECT_EQ(a.storage()->host_copy(), nullptr);
  EXPECT_NE(src.storage()->host_copy(), nullptr) << "the source is only read";
  attach_copy(a);
  fill_tensor(a.slice(0, 0, 1), 2.0);  // a write through a view reaches the storage
  EXPECT_EQ(a.storage()->host_copy(), nullptr);
  const Tensor w = Tensor::full({3}, 1.0, DType::Float32);
  attach_copy(w);
  run_op("RtAccumulate", {w, Tensor::full({3}, 2.0, DType::Float32)});
  EXPECT_EQ(w.storage()->host_copy(), nullptr);
  EXPECT_EQ(values(w), std::vector<double>(3, 3.0));
}

TEST_F(HostCopies, AReadOfACpuTensorNeverUsesACopy) {
  const Tensor a = Tensor::full({2}, 4.0, DType::Float64);
  attach_copy(a);
  Tensor out;
  EXPECT_FALSE(read_host_copy(a, out));
  EXPECT_FALSE(out.defined());
  EXPECT_EQ(a.storage()->host_copy()->wish->state.load(), ReadWish::kIdle);
}
