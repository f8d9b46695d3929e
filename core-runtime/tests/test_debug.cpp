// The runtime's debugging aids without Python: step observers (composed, removable), the
// anomaly mode's NaN/Inf stop and its message, tensor statistics, buffer labels, and the
// memory check that refuses an over-limit plan before anything is allocated.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/debug.h"
#include "glassgrad/runtime/executor.h"
#include "runtime_test_util.h"

using namespace glassgrad;

namespace {

TensorInfo f32(Shape s) { return {std::move(s), DType::Float32, Device::cpu()}; }

// Unfused unless asked: these tests look at individual steps.
std::shared_ptr<const Plan> plan_of(const Graph& g, const std::vector<ValueId>& outputs, bool fuse = false) {
  CompileOptions opts;
  opts.outputs = outputs;
  opts.workspace = Executor::workspace_fn();
  opts.fuse = fuse;
  return std::make_shared<const Plan>(compile(g, opts));
}

Tensor values(const std::vector<float>& v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DType::Float32);
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// x -> Exp -> Log (named layer "head", recorded at "model.py:7") -> output "y".
struct LogPlan {
  Graph g;
  ValueId y;
  LogPlan() {
    const ValueId x = g.add_leaf("x", f32({3}), ValueKind::Input);
    NodeMeta exp_meta{"stem", "model.py:6", NodeRole::Forward};
    NodeMeta log_meta{"head", "model.py:7", NodeRole::Forward};
    const ValueId e = g.add("AddScalar", {x}, Attrs{{"value", -1.0}}, exp_meta);
    y = g.add("Log", {e}, {}, log_meta);
    g.set_name(y, "y");
  }
};

TEST(Debug, ObserversSeeEveryStepInOrderAndCanBeRemoved) {
  LogPlan lp;
  const auto plan = plan_of(lp.g, {lp.y});
  std::vector<std::string> a, b;
  const int ia = debug::add_step_observer([&](size_t i, const Plan&, const PlanStep& st, const std::vector<Tensor>& in,
                                              const std::vector<Tensor>& out) {
    a.push_back(std::to_string(i) + st.op() + std::to_string(in.size()) + std::to_string(out.size()));
  });
  const int ib = debug::add_step_observer([&](size_t, const Plan&, const PlanStep& st, const std::vector<Tensor>&,
                                              const std::vector<Tensor>& out) {
    b.push_back(st.meta.scope + "=" + std::to_string(out[0].data<float>()[0]));
  });
  Executor(plan).run({values({3.0f, 2.0f, 5.0f})});
  EXPECT_EQ(a, (std::vector<std::string>{"0AddScalar11", "1Log11"}));
  EXPECT_EQ(b, (std::vector<std::string>{"stem=2.000000", "head=" + std::to_string(std::log(2.0f))}));
  debug::remove_step_observer(ia);
  Executor(plan).run({values({3.0f, 2.0f, 5.0f})});
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(b.size(), 4u);
  debug::remove_step_observer(ib);
  Executor(plan).run({values({3.0f, 2.0f, 5.0f})});
  EXPECT_EQ(b.size(), 4u);
}

TEST(Debug, ObserversReadTheKernelCallTimeOfTheirStep) {
  LogPlan lp;
  const auto plan = plan_of(lp.g, {lp.y});
  std::vector<double> seen;
  const int id = debug::add_step_observer([&](size_t, const Plan&, const PlanStep&, const std::vector<Tensor>&,
                                              const std::vector<Tensor>&) {
    seen.push_back(debug::last_step_seconds());
    debug::set_last_step_seconds(-1.0);  // as a plan run inside an observer would: the next observer is not misled
  });
  const int second = debug::add_step_observer([&](size_t, const Plan&, const PlanStep&, const std::vector<Tensor>&,
                                                  const std::vector<Tensor>&) {
    seen.push_back(debug::last_step_seconds());
  });
  Executor(plan).run({values({3.0f, 2.0f, 5.0f})});
  debug::remove_step_observer(id);
  debug::remove_step_observer(second);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(seen[2], seen[3]);
  for (double s : seen) {
    EXPECT_GE(s, 0.0);
    EXPECT_LT(s, 60.0);
  }
}

TEST(Debug, AnomalyModeStopsAtTheStepThatProducedNaNAndSaysWhere) {
  LogPlan lp;
  const auto plan = plan_of(lp.g, {lp.y});
  debug::set_detect_anomaly(true);
  ASSERT_TRUE(debug::detect_anomaly());
  try {
    Executor(plan).run({values({3.0f, 1.0f, 0.0f})});  // log(2), log(0) = -inf, log(-1) = nan
    ADD_FAILURE() << "expected NonFiniteError";
  } catch (const NonFiniteError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("NaN/Inf detected: Log 'head' (forward) produced 1 NaN and 1 Inf in its output 'out' "
                        "[3] float32 cpu", 0), 0u) << msg;
    EXPECT_TRUE(contains(msg, "recorded at: model.py:7")) << msg;
    EXPECT_TRUE(contains(msg, "plan step: #1 of 2")) << msg;
    EXPECT_TRUE(contains(msg, "input 'x' [3] float32 cpu <- stem/AddScalar.out: min -1 max 2 mean 0.333333")) << msg;
    EXPECT_TRUE(contains(msg, "cause: Log(0) is -Inf")) << msg;
  }
  debug::set_detect_anomaly(false);
  EXPECT_FALSE(debug::detect_anomaly());
  const auto out = Executor(plan).run({values({3.0f, 1.0f, 0.0f})});
  EXPECT_TRUE(std::isnan(out[0].data<float>()[2])) << "without anomaly mode the run completes";
}

TEST(Debug, AnomalyModeNamesTheOpsOfAFusedStep) {
  LogPlan lp;
  const auto plan = plan_of(lp.g, {lp.y}, /*fuse=*/true);
  ASSERT_EQ(plan->steps.size(), 1u);
  debug::set_detect_anomaly(true);
  try {
    Executor(plan).run({values({3.0f, 1.0f, 0.0f})});
    ADD_FAILURE() << "expected NonFiniteError";
  } catch (const NonFiniteError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("NaN/Inf detected: FusedElementwise 'head' (forward) produced 1 NaN and 1 Inf", 0), 0u) << msg;
    EXPECT_TRUE(contains(msg, "fused ops: AddScalar+Log (glassgrad.set_fusion(False) runs them one by one")) << msg;
    EXPECT_TRUE(contains(msg, "<- plan input 'x': min 0 max 3")) << msg;
    EXPECT_TRUE(contains(msg, "cause: Log(0) is -Inf")) << msg;  // the fused op that can make -Inf
  }
  debug::set_detect_anomaly(false);
}

TEST(Debug, ObserversSeeInputsAsTheStepReadThemWhenItWritesOverThem) {
  Graph g;
  const ValueId x = g.add_leaf("x", f32({3}), ValueKind::Input);
  const ValueId a = g.add("AddScalar", {x}, Attrs{{"value", -2.0}});
  const ValueId y = g.add("Sum", {g.add("ReLU", {a})}, Attrs{{"dims", std::vector<int64_t>{}}, {"keepdim", false}});
  const auto plan = plan_of(g, {y});
  ASSERT_EQ(plan->steps[1].op(), "ReLU");
  ASSERT_EQ(plan->slots[static_cast<size_t>(plan->steps[1].outputs[0])].kind, SlotKind::View)
      << "the planner writes ReLU's output over its dying input";
  std::vector<float> seen_in, seen_out;
  const int id = debug::add_step_observer([&](size_t i, const Plan&, const PlanStep&, const std::vector<Tensor>& in,
                                              const std::vector<Tensor>& out) {
    if (i != 1) return;
    for (int k = 0; k < 3; ++k) seen_in.push_back(in[0].data<float>()[k]);
    for (int k = 0; k < 3; ++k) seen_out.push_back(out[0].data<float>()[k]);
  });
  Executor(plan).run({values({1.0f, 2.0f, 3.0f})});
  debug::remove_step_observer(id);
  EXPECT_EQ(seen_in, (std::vector<float>{-1.0f, 0.0f, 1.0f}));
  EXPECT_EQ(seen_out, (std::vector<float>{0.0f, 0.0f, 1.0f}));
}

TEST(Debug, StatsCountNaNAndInfAndDescribeTheFiniteRest) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const Tensor t = values({1.0f, nan, 3.0f, -inf, 5.0f, inf, inf});
  const debug::TensorStats s = debug::stats_of(t);
  EXPECT_EQ(s.count, 7);
  EXPECT_EQ(s.nan, 1);
  EXPECT_EQ(s.pos_inf, 2);
  EXPECT_EQ(s.neg_inf, 1);
  EXPECT_EQ(s.finite, 3);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 5.0);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(8.0 / 3.0));
  EXPECT_EQ(s.str(), "min 1 max 5 mean 3 std 1.63299  nan 1 inf 3 (+inf 2, -inf 1)");
  // Through strides: every other element of [0, 1, ..., 9] as int64.
  Tensor r = Tensor::empty({10}, DType::Int64);
  for (int64_t i = 0; i < 10; ++i) r.data<int64_t>()[i] = i;
  const debug::TensorStats e = debug::stats_of(r.slice(0, 1, 10, 2));
  EXPECT_EQ(e.count, 5);
  EXPECT_DOUBLE_EQ(e.mean, 5.0);
  EXPECT_DOUBLE_EQ(e.max, 9.0);
}

TEST(Debug, BufferLabelsNameValuesByNameOrByLayerOpAndOutput) {
  LogPlan lp;
  const auto plan = plan_of(lp.g, {lp.y});
  const std::vector<std::string> labels = debug::buffer_labels(*plan);
  std::vector<std::string> by_kind;
  for (const BufferSlot& s : plan->slots) by_kind.push_back(std::string(slot_kind_name(s.kind)) + ":" + labels[s.id]);
  EXPECT_EQ(by_kind, (std::vector<std::string>{"input:x", "arena:stem/AddScalar.out", "output:y"}));
}

TEST(Debug, AnOverLimitPlanIsRefusedBeforeAnythingIsAllocated) {
  release_arenas();
  Graph g;
  const ValueId x = g.add_leaf("x", f32({4096}), ValueKind::Input);
  NodeMeta m1{"conv1", "net.py:3", NodeRole::Forward};
  NodeMeta m2{"fc", "net.py:4", NodeRole::Forward};
  const ValueId y = g.add("Exp", {g.add("AddScalar", {x}, Attrs{{"value", 1.0}}, m1)}, {}, m2);
  const auto plan = plan_of(g, {y});
  const Tensor in = Tensor::zeros({4096}, DType::Float32);
  Allocator& a = allocator_for(Device::cpu());
  const size_t current = a.stats().current;
  a.set_limit(current + 1024);
  a.take_log();
  a.set_logging(true);
  try {
    Executor(plan).run({in});
    ADD_FAILURE() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "this step needs " + format_bytes(debug::predicted_need(*plan, Device::cpu())) +
                                  " on cpu but the memory limit is " + format_bytes(current + 1024))) << msg;
    EXPECT_TRUE(contains(msg, "16.00 KiB  conv1/AddScalar.out  [4096] float32  <- arena from AddScalar 'conv1' "
                              "(forward), live #0..#1")) << msg;
    EXPECT_TRUE(contains(msg, "micro-batches")) << msg;
    EXPECT_TRUE(contains(msg, "fix: halve the batch size, or raise the limit: glassgrad.set_memory_limit(\"")) << msg;
  }
  a.set_logging(false);
  EXPECT_TRUE(a.take_log().empty()) << "nothing was allocated";
  a.set_limit(0);
  EXPECT_EQ(debug::predicted_need(*plan, Device::cpu()),
            a.stats().current + plan->arena_bytes.at(Device::cpu()) + 4096 * 4);
}

}  // namespace
