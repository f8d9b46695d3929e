// The executor runs compiled plans: results equal eager run_op evaluation on random graphs
// with freed buffers poisoned (so a liveness bug shows up as NaN), inputs are checked,
// outputs survive the next run, in-place steps write their target; and eager run_op itself:
// views, copies, casts over all dtypes, in-place, and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <random>

#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/arena.h"
#include "glassgrad/runtime/eager.h"
#include "glassgrad/runtime/executor.h"
#include "runtime_test_util.h"

using namespace glassgrad;
using rt_test::arange;
using rt_test::get;
using rt_test::values;

namespace {

class Executing : public ::testing::Test {
 protected:
  void SetUp() override { rt_test::register_ops(); }
};

TensorInfo f64(Shape s) { return {std::move(s), DType::Float64, Device::cpu()}; }

std::shared_ptr<const Plan> plan_of(const Graph& g, const std::vector<ValueId>& outputs) {
  CompileOptions opts;
  opts.outputs = outputs;
  opts.workspace = Executor::workspace_fn();
  return std::make_shared<const Plan>(compile(g, opts));
}

// Evaluates every node of g eagerly, in recording order, from the given leaf tensors.
std::vector<Tensor> eager_values(const Graph& g, const std::map<ValueId, Tensor>& leaves) {
  std::vector<Tensor> v(static_cast<size_t>(g.num_values()));
  for (const auto& kv : leaves) v[static_cast<size_t>(kv.first)] = kv.second;
  for (const Node& n : g.nodes()) {
    std::vector<Tensor> in;
    for (ValueId i : n.inputs) in.push_back(v[static_cast<size_t>(i)]);
    const std::vector<Tensor> out = run_op(n.op(), in, n.attrs, n.meta);
    for (size_t k = 0; k < out.size(); ++k) v[static_cast<size_t>(n.outputs[k])] = out[k];
  }
  return v;
}

struct Program {
  Graph g;
  std::vector<ValueId> outputs;
};

// Random float64 programs of views, copies, elementwise ops and a dense op with a workspace.
Program random_program(uint32_t seed) {
  std::mt19937 rng(seed);
  auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Program p;
  Graph& g = p.g;
  auto rand_shape = [&] {
    Shape s;
    for (int64_t i = 0, r = uni(1, 3); i < r; ++i) s.push_back(uni(1, 6));
    return s;
  };
  for (int64_t i = 0, n = uni(1, 3); i < n; ++i) {
    g.add_leaf("x" + std::to_string(i), f64(rand_shape()), i == 0 ? ValueKind::Input : ValueKind::Parameter);
  }
  auto any = [&] { return static_cast<ValueId>(uni(0, g.num_values() - 1)); };
  for (int64_t k = 0, n = uni(2, 30); k < n; ++k) {
    const ValueId v = any();
    const Shape s = g.value(v).info.shape;
    const int rank = static_cast<int>(s.size());
    NodeMeta meta;
    meta.scope = "n" + std::to_string(k);
    switch (uni(0, 8)) {
      case 0:
      case 1:
        g.add("RtAddOne", {v}, {}, meta);
        break;
      case 2: {
        std::vector<ValueId> same;
        for (ValueId u = 0; u < g.num_values(); ++u) if (g.value(u).info.shape == s) same.push_back(u);
        g.add("RtAdd", {v, same[static_cast<size_t>(uni(0, static_cast<int64_t>(same.size()) - 1))]}, {}, meta);
        break;
      }
      case 3:
        g.add("RtScratch", {v}, {}, meta);
        break;
      case 4: {
        std::vector<int64_t> dims(static_cast<size_t>(rank));
        for (int i = 0; i < rank; ++i) dims[static_cast<size_t>(i)] = i;
        std::shuffle(dims.begin(), dims.end(), rng);
        g.add("Permute", {v}, Attrs{{"dims", dims}}, meta);
        break;
      }
      case 5: {
        const int64_t dim = uni(0, rank - 1);
        const int64_t size = s[static_cast<size_t>(dim)];
        const int64_t start = uni(0, size - 1);
        g.add("Slice", {v}, Attrs{{"dim", dim}, {"start", start}, {"stop", uni(start + 1, size)}, {"step", uni(1, 2)}}, meta);
        break;
      }
      case 6: {
        const std::vector<Shape> options = {{-1}, {1, -1}, {numel(s), 1}};
        g.add("Reshape", {v}, Attrs{{"shape", options[static_cast<size_t>(uni(0, 2))]}}, meta);
        break;
      }
      case 7: {
        Shape big = s;
        big.insert(big.begin(), uni(2, 3));
        if (big.size() <= 4) g.add("Expand", {v}, Attrs{{"shape", big}}, meta);
        break;
      }
      default:
        g.add("Contiguous", {v}, {}, meta);
        break;
    }
  }
  for (int64_t k = 0, n = uni(1, 3); k < n; ++k) p.outputs.push_back(static_cast<ValueId>(uni(g.num_values() / 2, g.num_values() - 1)));
  return p;
}

}  // namespace

TEST_F(Executing, PlansWithPoisonedFreedBuffersMatchEagerEvaluationOnRandomGraphs) {
  int reused = 0;
  for (uint32_t seed = 0; seed < 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Program prog = random_program(seed);
    const auto plan = plan_of(prog.g, prog.outputs);
    std::map<ValueId, Tensor> leaves;
    std::vector<Tensor> inputs;
    for (ValueId v : plan->input_values) {
      Tensor t = arange(prog.g.value(v).info.shape, DType::Float64);
      leaves[v] = t;
      inputs.push_back(t);
    }
    for (ValueId v : prog.g.leaves()) {
      if (!leaves.count(v)) leaves[v] = arange(prog.g.value(v).info.shape, DType::Float64);
    }
    const std::vector<Tensor> want = eager_values(prog.g, leaves);
    ExecutorOptions opts;
    opts.poison_freed = true;
    Executor ex(plan, opts);
    for (int run = 0; run < 2; ++run) {  // the second run finds a dirty (poisoned) arena
      const std::vector<Tensor> got = ex.run(inputs);
      ASSERT_EQ(got.size(), prog.outputs.size());
      for (size_t k = 0; k < got.size(); ++k) {
        const Tensor& w = want[static_cast<size_t>(prog.outputs[k])];
        ASSERT_EQ(got[k].shape(), w.shape());
        const auto gv = values(got[k]), wv = values(w);
        for (size_t i = 0; i < gv.size(); ++i) {
          ASSERT_EQ(gv[i], wv[i]) << "output " << k << " element " << i << " (run " << run << ")\n"
                                  << prog.g.str() << plan->str();
        }
      }
    }
    // Count plans where the arena is smaller than the sum of its buffers (memory is reused).
    size_t sum = 0;
    for (const auto& s : plan->slots) if (s.kind == SlotKind::Arena || s.kind == SlotKind::Workspace) sum += s.bytes;
    reused += plan->arena_bytes.count(Device::cpu()) && plan->arena_bytes.at(Device::cpu()) < sum;
  }
  EXPECT_GT(reused, 30) << "the random graphs should exercise memory reuse";
}

TEST_F(Executing, AStepReadingItsDyingInputTransposedGetsTheOriginalValues) {
  // y[i, j] = 2 h[i, j] + h[j, i]. If y were written over h (in-place reuse of a dying input),
  // h[j, i] would be read after being overwritten for j < i.
  Graph g;
  ValueId x = g.add_leaf("x", f64({3, 3}), ValueKind::Input);
  ValueId h = g.add("RtAddOne", {x});
  ValueId y = g.add("RtAdd", {h, g.add("Permute", {h}, Attrs{{"dims", std::vector<int64_t>{1, 0}}})});
  ValueId out = g.add("RtAddOne", {y});
  const Tensor xs = arange({3, 3}, DType::Float64);
  const auto want = eager_values(g, {{x, xs}});
  const auto got = Executor(plan_of(g, {out})).run({xs});
  EXPECT_EQ(values(got[0]), values(want[static_cast<size_t>(out)])) << plan_of(g, {out})->str();
}

TEST_F(Executing, PoisonFillsABufferWithNaNOnceItsLifetimeEnds) {
  Graph g;
  ValueId x = g.add_leaf("x", f64({8}), ValueKind::Input);
  ValueId a = g.add("RtAddOne", {x});
  ValueId b = g.add("RtAddOne", {a});
  const auto plan = plan_of(g, {b});
  ASSERT_EQ(plan->steps.size(), 2u);
  const BufferSlot* slot_a = nullptr;
  for (const auto& s : plan->slots) if (s.value == a) slot_a = &s;
  ASSERT_NE(slot_a, nullptr);
  ASSERT_EQ(slot_a->kind, SlotKind::Arena);
  ExecutorOptions opts;
  opts.poison_freed = true;
  const auto out = Executor(plan, opts).run({arange({8}, DType::Float64)});
  EXPECT_EQ(values(out[0]), (std::vector<double>{2, 3, 4, 5, 6, 7, 8, 9}));
  const Tensor arena = arena_for(Device::cpu(), 0, 0);
  const double* dead = reinterpret_cast<const double*>(static_cast<const char*>(arena.data_ptr()) + slot_a->offset);
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(std::isnan(dead[i])) << i;
}

TEST_F(Executing, OutputsAreFreshTensorsThatSurviveTheNextRun) {
  Graph g;
  ValueId x = g.add_leaf("x", f64({3}), ValueKind::Input);
  ValueId y = g.add("RtAddOne", {g.add("RtAddOne", {x})});
  g.set_name(y, "y");
  const auto plan = plan_of(g, {y});
  Executor ex(plan);
  const Tensor first = ex.run({Tensor::full({3}, 1.0, DType::Float64)})[0];
  const Tensor second = ex.run({Tensor::full({3}, 10.0, DType::Float64)})[0];
  EXPECT_EQ(values(first), (std::vector<double>{3, 3, 3}));
  EXPECT_EQ(values(second), (std::vector<double>{12, 12, 12}));
  EXPECT_NE(first.storage().get(), second.storage().get());
  EXPECT_EQ(first.storage()->name(), "y");
}

TEST_F(Executing, RepeatedRunsRebindEverySlotAndHoldNoMemoryAfterwards) {
  // A run binds into the slot tensors of the run before (Executor::bind_into): each run must see
  // its own inputs and the arena it got (here a new one after release_arenas), and after a run the
  // executor must hold neither the inputs nor the arena.
  Graph g;
  ValueId x = g.add_leaf("x", f64({2, 3}), ValueKind::Input);
  ValueId h = g.add("RtAddOne", {x});
  ValueId a = g.add("RtAddOne", {g.add("Permute", {h}, Attrs{{"dims", std::vector<int64_t>{1, 0}}})});
  ValueId b = g.add("RtAdd", {g.add("RtAddOne", {g.add("Permute", {x}, Attrs{{"dims", std::vector<int64_t>{1, 0}}})}), a});
  const auto plan = plan_of(g, {a, b});
  Executor ex(plan);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int run = 0; run < 4; ++run) {
    if (run == 2) release_arenas();
    Tensor xs = Tensor::empty({2, 3}, DType::Float64);
    for (int i = 0; i < 6; ++i) xs.data<double>()[i] = u(rng);
    std::vector<double> want_a, want_b;
    {
      const auto want = eager_values(g, {{x, xs}});  // holds xs: dropped before the check below
      want_a = values(want[static_cast<size_t>(a)]);
      want_b = values(want[static_cast<size_t>(b)]);
    }
    const std::weak_ptr<Storage> input = xs.storage();
    const auto got = ex.run({xs});
    EXPECT_EQ(values(got[0]), want_a) << run;
    EXPECT_EQ(values(got[1]), want_b) << run;
    xs = Tensor();
    EXPECT_TRUE(input.expired()) << "run " << run << ": the executor still holds its input";
  }
  const std::weak_ptr<Storage> arena = arena_for(Device::cpu(), 0, 0).storage();
  release_arenas();
  EXPECT_TRUE(arena.expired()) << "the executor still holds the arena";
}

TEST_F(Executing, RebindChecksTheViewAgainstTheNewStorage) {
  Tensor t = Tensor::zeros({4, 4}, DType::Float32).slice(0, 1, 3);  // [2, 4] at offset 4
  t.release();
  EXPECT_FALSE(t.defined());
  t.rebind(Tensor::zeros({12}, DType::Float32).storage(), 4);
  EXPECT_EQ(t.shape(), (Shape{2, 4}));
  EXPECT_EQ(t.offset(), 4);
  EXPECT_THROW(t.rebind(Tensor::zeros({11}, DType::Float32).storage(), 4), IndexError);
}

TEST_F(Executing, AViewOutputKeepsItsBaseAndReadsThroughIt) {
  Graph g;
  ValueId x = g.add_leaf("x", f64({2, 3}), ValueKind::Input);
  ValueId h = g.add("RtAddOne", {x});
  ValueId t = g.add("Permute", {h}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  const auto out = Executor(plan_of(g, {t})).run({arange({2, 3}, DType::Float64)});
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST_F(Executing, StridedInputsAreBoundAsContiguousCopies) {
  Graph g;
  ValueId x = g.add_leaf("x", f64({2, 3}), ValueKind::Input);
  ValueId y = g.add("RtScratch", {x});
  const Tensor xt = arange({3, 2}, DType::Float64).transpose(0, 1);  // [2, 3], strided
  const auto out = Executor(plan_of(g, {y})).run({xt});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 6, 12, 3, 9, 15}));
}

TEST_F(Executing, InPlaceStepsUpdateTheBoundStateAfterItsReaders) {
  Graph g;
  ValueId w = g.add_leaf("w", f64({4}), ValueKind::State);
  ValueId x = g.add_leaf("x", f64({4}), ValueKind::Input);
  ValueId upd = g.add("RtAccumulate", {w, x});  // w += x, recorded first
  ValueId before = g.add("RtAddOne", {w});      // reads the old w: scheduled before the update
  ValueId after = g.add("RtAddOne", {upd});
  const auto plan = plan_of(g, {before, after});
  const Tensor wt = Tensor::full({4}, 1.0, DType::Float64);
  std::vector<Tensor> inputs(plan->input_values.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    inputs[k] = plan->input_values[k] == w ? wt : Tensor::full({4}, 10.0, DType::Float64);
  }
  const auto out = Executor(plan).run(inputs);
  EXPECT_EQ(values(out[0]), std::vector<double>(4, 2.0));   // 1 + 1
  EXPECT_EQ(values(out[1]), std::vector<double>(4, 12.0));  // (1 + 10) + 1
  EXPECT_EQ(values(wt), std::vector<double>(4, 11.0)) << "the state tensor itself is updated";
}

namespace {

// RtBatchedAccumulate: RtAccumulate with a KernelEntry::batch that records the size of each run
// it gets (the multi-tensor optimizer updates' mechanism).
std::vector<size_t>& batch_sizes() {
  static std::vector<size_t> sizes;
  return sizes;
}
void batched_accumulate(const std::vector<const KernelContext*>& steps) {
  batch_sizes().push_back(steps.size());
  for (const KernelContext* c : steps) rt_test::kernels::accumulate(*c);
}
void register_batched_accumulate() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpSchema s = OpRegistry::instance().at("RtAccumulate");  // the same op, under a name of its own
    s.name = "RtBatchedAccumulate";
    OpRegistry::instance().add(std::move(s));
    KernelRegistry::instance().add("RtBatchedAccumulate", DeviceType::CPU, DType::Float64, rt_test::kernels::accumulate,
                                   nullptr, batched_accumulate);
  });
}

}  // namespace

TEST_F(Executing, ConsecutiveIndependentStepsOfABatchKernelRunAsOneBatch) {
  register_batched_accumulate();
  Graph g;
  std::vector<ValueId> w, upd;
  for (int i = 0; i < 3; ++i) w.push_back(g.add_leaf("w" + std::to_string(i), f64({4}), ValueKind::State));
  ValueId x = g.add_leaf("x", f64({4}), ValueKind::Input);
  for (int i = 0; i < 3; ++i) upd.push_back(g.add("RtBatchedAccumulate", {w[static_cast<size_t>(i)], x}));
  // Reads what the first update wrote: it cannot join the run, and runs alone (no batch call).
  ValueId again = g.add("RtBatchedAccumulate", {upd[0], upd[1]});
  const auto plan = plan_of(g, {again, upd[1], upd[2]});
  std::vector<Tensor> inputs(plan->input_values.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ValueId v = plan->input_values[k];
    inputs[k] = Tensor::full({4}, v == x ? 10.0 : static_cast<double>(v + 1), DType::Float64);
  }
  auto input_of = [&](ValueId v) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (plan->input_values[k] == v) return inputs[k];
    }
    return Tensor();
  };
  const double w0 = values(input_of(w[0]))[0], w1 = values(input_of(w[1]))[0], w2 = values(input_of(w[2]))[0];
  batch_sizes().clear();
  Executor(plan).run(inputs);
  EXPECT_EQ(batch_sizes(), std::vector<size_t>{3});
  EXPECT_EQ(values(input_of(w[0]))[0], (w0 + 10) + (w1 + 10));
  EXPECT_EQ(values(input_of(w[1]))[0], w1 + 10);
  EXPECT_EQ(values(input_of(w[2]))[0], w2 + 10);
  // With a step observer, every step runs (and is seen) alone.
  size_t seen = 0;
  set_step_observer([&](size_t, const Plan&, const PlanStep&, const std::vector<Tensor>&,
                        const std::vector<Tensor>&) { ++seen; });
  batch_sizes().clear();
  Executor(plan).run(inputs);
  set_step_observer(nullptr);
  EXPECT_TRUE(batch_sizes().empty());
  EXPECT_EQ(seen, plan->steps.size());
  EXPECT_EQ(values(input_of(w[2]))[0], w2 + 20);
}

TEST_F(Executing, ADryRunTakesNoArenaRunsNothingAndViewsTheInputsForInPlaceOutputs) {
  release_arenas();
  Graph g;
  ValueId w = g.add_leaf("w", f64({4}), ValueKind::State);
  ValueId x = g.add_leaf("x", f64({4}), ValueKind::Input);
  ValueId upd = g.add("RtAccumulate", {w, x});
  ValueId y = g.add("RtAddOne", {g.add("RtAddOne", {x})});  // an intermediate in the arena
  const auto plan = plan_of(g, {upd, y});
  ASSERT_GT(plan->arena_bytes.at(Device::cpu()), 0u);
  const Tensor wt = Tensor::full({4}, 1.0, DType::Float64);
  std::vector<Tensor> inputs(plan->input_values.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    inputs[k] = plan->input_values[k] == w ? wt : Tensor::full({4}, 10.0, DType::Float64);
  }
  const auto out = Executor(plan).dry_run(inputs);
  EXPECT_EQ(arena_bytes(Device::cpu()), 0u) << "a dry run takes no arena";
  EXPECT_EQ(values(wt), std::vector<double>(4, 1.0)) << "nothing ran";
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].storage().get(), wt.storage().get()) << "the in-place output is a view of its input";
  EXPECT_EQ(out[1].shape(), (Shape{4}));
  EXPECT_NE(out[1].storage().get(), wt.storage().get());
}

TEST_F(Executing, RunChecksInputsAgainstThePlan) {
  Graph g;
  ValueId x = g.add_leaf("images", f64({2, 3}), ValueKind::Input);
  const auto plan = plan_of(g, {g.add("RtAddOne", {x})});
  Executor ex(plan);
  try {
    ex.run({Tensor::zeros({3, 2}, DType::Float64)});
    FAIL();
  } catch (const ValueError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("plan input 0 'images' was planned as [2, 3] float64 cpu but got [3, 2] float64 cpu"),
              std::string::npos) << msg;
  }
  EXPECT_THROW(ex.run({}), InternalError);
}

TEST_F(Executing, AMissingKernelIsReportedWhenThePlanIsLoaded) {
  Graph g;
  ValueId x = g.add_leaf("x", {{4}, DType::Int64, Device::cpu()}, ValueKind::Input);
  NodeMeta meta;
  meta.scope = "counter";
  const auto plan = plan_of(g, {g.add("RtAddOne", {x}, {}, meta)});
  try {
    Executor ex(plan);
    FAIL();
  } catch (const UnsupportedError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("RtAddOne 'counter': no cpu kernel for dtype int64"), std::string::npos) << msg;
    EXPECT_NE(msg.find("kernels exist for: float32, float64"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
  }
}

TEST_F(Executing, TheArenaIsAllocatedThroughTheAllocatorUnderItsName) {
  release_arenas();
  Graph g;
  ValueId x = g.add_leaf("x", f64({64}), ValueKind::Input);
  ValueId y = g.add("RtAddOne", {g.add("RtAddOne", {g.add("RtAddOne", {x})})});
  g.set_name(y, "result");
  const auto plan = plan_of(g, {y});
  Allocator& a = allocator_for(Device::cpu());
  const Tensor in = arange({64}, DType::Float64);
  a.take_log();
  a.set_logging(true);
  Executor(plan).run({in});
  a.set_logging(false);
  const auto log = a.take_log();
  std::vector<std::string> allocated;
  for (const auto& r : log) if (r.is_alloc) allocated.push_back(r.name + ":" + std::to_string(r.bytes));
  EXPECT_EQ(allocated, (std::vector<std::string>{"arena:" + std::to_string(plan->arena_bytes.at(Device::cpu())),
                                                 "result:512"}));
}

TEST_F(Executing, APlanOverTheMemoryLimitFailsNamingTheArena) {
  release_arenas();
  Graph g;
  ValueId x = g.add_leaf("x", f64({1024}), ValueKind::Input);
  ValueId y = g.add("RtAddOne", {g.add("RtAddOne", {g.add("RtAddOne", {x})})});
  const auto plan = plan_of(g, {y});
  const Tensor in = arange({1024}, DType::Float64);
  Allocator& a = allocator_for(Device::cpu());
  a.set_limit(a.stats().current + 4096);
  try {
    Executor(plan).run({in});
    ADD_FAILURE() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("'arena'"), std::string::npos) << e.what();
  }
  a.set_limit(0);
}

TEST_F(Executing, EagerViewOpsReturnViewsAndCopyOnlyWhenTheyMust) {
  const Tensor x = arange({4, 6}, DType::Float32);
  const Tensor s = run_op("Slice", {x}, Attrs{{"dim", int64_t{1}}, {"start", int64_t{1}}, {"stop", int64_t{6}}, {"step", int64_t{2}}})[0];
  EXPECT_EQ(s.storage().get(), x.storage().get());
  EXPECT_EQ(s.shape(), (Shape{4, 3}));
  const Tensor t = run_op("Permute", {x}, Attrs{{"dims", std::vector<int64_t>{1, 0}}})[0];
  EXPECT_EQ(t.storage().get(), x.storage().get());
  const Tensor flat = run_op("Reshape", {t}, Attrs{{"shape", std::vector<int64_t>{-1}}})[0];  // must copy
  EXPECT_NE(flat.storage().get(), x.storage().get());
  EXPECT_EQ(values(flat), values(t));
  const Tensor c = run_op("Contiguous", {s})[0];
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(values(c), values(s));
}

TEST_F(Executing, EagerCastConvertsBetweenAllDTypes) {
  const Tensor x = Tensor::empty({4}, DType::Float64);
  rt_test::set(x, {0}, 0.0);
  rt_test::set(x, {1}, 2.7);
  rt_test::set(x, {2}, 255.0);
  rt_test::set(x, {3}, 1.0);
  const std::map<DType, std::vector<double>> want = {
      {DType::Float32, {0.0, static_cast<double>(2.7f), 255.0, 1.0}},
      {DType::Float64, {0.0, 2.7, 255.0, 1.0}},
      {DType::Int64, {0, 2, 255, 1}},
      {DType::UInt8, {0, 2, 255, 1}},
      {DType::Bool, {0, 1, 1, 1}},
  };
  for (const auto& kv : want) {
    SCOPED_TRACE(dtype_name(kv.first));
    const Tensor y = run_op("Cast", {x}, Attrs{{"dtype", std::string(dtype_name(kv.first))}})[0];
    EXPECT_EQ(y.dtype(), kv.first);
    EXPECT_EQ(values(y), kv.second);
    // And back to float64 from every dtype.
    const Tensor z = run_op("Cast", {y}, Attrs{{"dtype", std::string("float64")}})[0];
    EXPECT_EQ(values(z), kv.second);
  }
}

TEST_F(Executing, EagerFullMakesEveryDType) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Bool}) {
    const Tensor t = run_op("Full", {}, Attrs{{"shape", std::vector<int64_t>{2, 2}}, {"value", 1.0},
                                              {"dtype", std::string(dtype_name(dt))}, {"device", std::string("cpu")}})[0];
    EXPECT_EQ(t.dtype(), dt);
    EXPECT_EQ(values(t), std::vector<double>(4, 1.0));
  }
}

TEST_F(Executing, EagerInPlaceReturnsTheTargetTensorItself) {
  const Tensor w = Tensor::full({3}, 1.0, DType::Float32);
  const Tensor out = run_op("RtAccumulate", {w, Tensor::full({3}, 2.0, DType::Float32)})[0];
  EXPECT_EQ(out.data_ptr(), w.data_ptr());
  EXPECT_EQ(values(w), std::vector<double>(3, 3.0));
}

TEST_F(Executing, EagerInPlaceOnAStridedTargetIsRefusedWithAFix) {
  const Tensor w = Tensor::zeros({3, 4}, DType::Float32).transpose(0, 1);
  try {
    run_op("RtAccumulate", {w, Tensor::zeros({4, 3}, DType::Float32)});
    FAIL();
  } catch (const ValueError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("must be contiguous"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
  }
}

TEST_F(Executing, EagerErrorsNameTheOpAndLayer) {
  NodeMeta meta;
  meta.scope = "blocks.2";
  try {
    run_op("RtAdd", {Tensor::zeros({2}, DType::Float32), Tensor::zeros({2}, DType::Float64)}, {}, meta);
    FAIL();
  } catch (const DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("RtAdd 'blocks.2'"), std::string::npos) << e.what();
  }
  try {
    run_op("RtAdOne", {Tensor::zeros({2}, DType::Float32)});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("RtAddOne"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_op("RtAddOne", {Tensor()}), ValueError);
}

// Under a memory limit a plan smaller than the held arena keeps it while the limit has room for
// the arena's excess besides the run's other allocations (arena.h): two plans of one step then
// share one address (a CUDA graph of each stays valid). With little room left the arena shrinks.
TEST(ArenaUnderALimit, ASmallerPlanKeepsTheHeldArenaWhileTheLimitHasRoomAndShrinksWhenItHasNot) {
  constexpr size_t MiB = size_t(1) << 20;
  const Device cpu = Device::cpu();
  Allocator& a = allocator_for(cpu);
  const size_t limit_before = a.limit();
  release_arenas();
  a.set_limit(a.stats().current + 64 * MiB, "test");
  const void* big = arena_for(cpu, 8 * MiB, 0).data_ptr();
  EXPECT_EQ(arena_growth(cpu, 4 * MiB, MiB), 0u);
  const Tensor kept = arena_for(cpu, 4 * MiB, MiB);
  EXPECT_EQ(kept.data_ptr(), big);
  EXPECT_EQ(kept.nbytes(), 8 * MiB);
  // The run's other allocations leave 2 MiB under the limit, less than the 4 MiB the arena holds
  // beyond the plan's need: a new arena of the plan's size (the old one freed first).
  const size_t tight = a.limit() - a.stats().current - 2 * MiB;
  EXPECT_EQ(arena_growth(cpu, 4 * MiB, tight), 4 * MiB);
  EXPECT_EQ(arena_for(cpu, 4 * MiB, tight).nbytes(), 4 * MiB);
  // Without a limit the held arena serves every plan it fits.
  a.set_limit(0, "");
  EXPECT_EQ(arena_growth(cpu, MiB, 0), 0u);
  release_arenas();
  a.set_limit(limit_before, limit_before ? "restored" : "");
}
