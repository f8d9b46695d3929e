// Cheap recomputation (remat.h, cheap_recomputes): a saved activation made by a unary
// elementwise op, a LayerNorm or a Reshape from values the backward pass keeps anyway is
// recomputed just before its backward readers instead of being kept, in every plan. Checked on
// a transformer MLP recorded with the engine's own ops: LayerNorm -> MatMul -> GELU -> MatMul.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/autodiff/remat.h"

using namespace glassgrad;

namespace {

TensorInfo f32(Shape s) { return TensorInfo{std::move(s), DType::Float32, Device::cpu()}; }

// x [rows, dim] -> LayerNorm -> @ w1 [dim, 4 dim] -> GELU -> @ w2 [4 dim, dim] -> Sum, with the
// gradients of the three parameters.
struct Mlp {
  Graph g;
  ValueId x, ln, hidden, act, loss;
  std::vector<ValueId> grads;
};

Mlp record_mlp(int64_t rows, int64_t dim) {
  Mlp m;
  Graph& g = m.g;
  m.x = g.add_leaf("x", f32({rows, dim}), ValueKind::Input);
  const ValueId gamma = g.add_leaf("ln.weight", f32({dim}), ValueKind::Parameter);
  const ValueId w1 = g.add_leaf("fc1.weight", f32({dim, 4 * dim}), ValueKind::Parameter);
  const ValueId w2 = g.add_leaf("fc2.weight", f32({4 * dim, dim}), ValueKind::Parameter);
  NodeMeta meta;
  meta.layer = "LayerNorm 'ln'";
  m.ln = g.add_node("LayerNorm", {m.x, gamma}, Attrs{{"normalized_shape", Shape{dim}}, {"eps", 1e-5}, {"weight", true},
                                                      {"bias", false}}, meta)[0];
  m.hidden = g.add("MatMul", {m.ln, w1});
  m.act = g.add("GELU", {m.hidden});
  const ValueId out = g.add("MatMul", {m.act, w2});
  m.loss = g.add("Sum", {out});
  m.grads = build_backward(g, m.loss, {gamma, w1, w2});
  return m;
}

std::vector<std::string> recomputed_ops(const Plan& p) {
  std::vector<std::string> ops;
  for (const auto& st : p.steps) {
    if (st.meta.role == NodeRole::Recompute) ops.push_back(st.op());
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

// Arena bytes live right after the plan's last forward step.
size_t live_after_forward(const Plan& p) {
  int boundary = -1;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    if (p.steps[i].meta.role == NodeRole::Forward) boundary = static_cast<int>(i);
  }
  size_t live = 0;
  for (const auto& s : p.slots) {
    if (s.kind == SlotKind::Arena && s.first_step <= boundary && s.last_step > boundary) live += s.bytes;
  }
  return live;
}

Plan compile_mlp(const Mlp& m, bool recompute_cheap) {
  CompileOptions opts;
  opts.outputs = m.grads;
  opts.fuse = false;  // the recomputed nodes as they are, unfused
  opts.recompute_cheap = recompute_cheap;
  return compile(m.g, opts);
}

}  // namespace

TEST(CheapRecompute, TheLayerNormAndGeluOutputsAreRecomputedTheMatMulOutputIsKept) {
  Mlp m = record_mlp(256, 64);
  const std::vector<ValueId> saved = saved_activations(m.g);
  // The backward reads all three: ln and act for the weight gradients, hidden for GELU's.
  for (ValueId v : {m.ln, m.hidden, m.act}) EXPECT_NE(std::find(saved.begin(), saved.end(), v), saved.end());
  std::vector<ValueId> cheap = cheap_recomputes(m.g, saved);
  std::sort(cheap.begin(), cheap.end());
  // ln's input x is a leaf, act's input hidden is saved; hidden is a MatMul's: kept.
  EXPECT_EQ(cheap, (std::vector<ValueId>{m.ln, m.act}));
}

TEST(CheapRecompute, SmallActivationsStaySaved) {
  Mlp m = record_mlp(8, 16);  // every activation under 64 KiB
  EXPECT_TRUE(cheap_recomputes(m.g, saved_activations(m.g)).empty());
  EXPECT_TRUE(recomputed_ops(compile_mlp(m, true)).empty());
}

TEST(CheapRecompute, ThePlanRecomputesInTheBackwardAndNeedsLessMemory) {
  Mlp m = record_mlp(256, 64);
  const Plan kept = compile_mlp(m, false);
  const Plan recomputed = compile_mlp(m, true);
  EXPECT_TRUE(recomputed_ops(kept).empty());
  EXPECT_EQ(recomputed_ops(recomputed), (std::vector<std::string>{"GELU", "LayerNorm"}));
  EXPECT_EQ(recomputed.recomputed_steps, 2);
  // Each recomputed step runs after the whole forward pass, in the backward.
  int last_forward = -1;
  for (size_t i = 0; i < recomputed.steps.size(); ++i) {
    if (recomputed.steps[i].meta.role == NodeRole::Forward) last_forward = static_cast<int>(i);
  }
  for (size_t i = 0; i < recomputed.steps.size(); ++i) {
    if (recomputed.steps[i].meta.role == NodeRole::Recompute) EXPECT_GT(static_cast<int>(i), last_forward);
  }
  // Across the forward-backward boundary (after the last forward step), GELU's [256, 256]
  // float32 output (256 KiB) and the LayerNorm's [256, 64] one (64 KiB) are no longer live. In
  // a model this small the peak itself falls in the backward, where the recomputed values live
  // for a few steps, so it falls less (a deep stack keeps one layer's instead of every layer's).
  EXPECT_GE(live_after_forward(kept) - live_after_forward(recomputed), size_t{320} * 1024);
  EXPECT_LT(plan_budget_bytes(recomputed), plan_budget_bytes(kept));
}

// A budget counts the outputs output_copies times (compile.h): a plan replayed as a CUDA graph
// holds its captured outputs beside the copies it hands out. A budget that the plain plan fits
// with its outputs counted once, but not twice, must give a checkpointed plan that fits twice.
// The model: six layers h = GELU(h @ w) on [1024, 32] activations (128 KiB each, so checkpointing
// has something to drop) with small [32, 32] weights, whose gradients are the outputs.
TEST(MemoryBudget, OutputsCountedTwiceCheckpointAPlanThatFitsThemOnce) {
  Graph g;
  ValueId h = g.add_leaf("x", f32({1024, 32}), ValueKind::Input);
  std::vector<ValueId> weights;
  for (int l = 0; l < 6; ++l) {
    weights.push_back(g.add_leaf("w" + std::to_string(l), f32({32, 32}), ValueKind::Parameter));
    h = g.add("GELU", {g.add("MatMul", {h, weights.back()})});
  }
  const std::vector<ValueId> grads = build_backward(g, g.add("Sum", {h}), weights);
  CompileOptions opts;
  opts.outputs = grads;
  opts.fuse = false;
  opts.recompute_cheap = false;
  const Plan plain = compile(g, opts);
  const size_t once = plan_budget_bytes(plain);
  size_t outputs = 0;
  for (const auto& s : plain.slots) outputs += s.kind == SlotKind::Output ? s.bytes : 0;
  ASSERT_GT(outputs, 0u);
  EXPECT_EQ(plan_budget_bytes(plain, 2), once + outputs);

  opts.memory_budget = once;
  EXPECT_EQ(compile(g, opts).recomputed_steps, 0);  // fits with the outputs once
  opts.output_copies = 2;
  const Plan fitted = compile(g, opts);
  EXPECT_GT(fitted.recomputed_steps, 0);
  EXPECT_LE(plan_budget_bytes(fitted, 2), once);
}
