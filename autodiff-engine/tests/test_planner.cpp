// The memory planner (build_plan via compile): arena buffers whose lifetimes overlap never
// overlap in memory, views take no memory and keep their base alive, workspaces live for one
// step, and the predicted peak covers what is live at every step. Checked on hand-made graphs
// and as a property over many random graphs (chains, branches, views, in-place updates).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>
#include <map>
#include <set>
#include <tuple>

#include "glassgrad/autodiff/autodiff.h"
#include "testing_ops.h"

using namespace glassgrad;
using testing_ops::f32;

namespace {

class Planner : public ::testing::Test {
 protected:
  void SetUp() override { testing_ops::register_all(); }
};

int root_slot(const Plan& p, int s) {
  while (p.slots[static_cast<size_t>(s)].kind == SlotKind::View) s = p.slots[static_cast<size_t>(s)].base;
  return s;
}

bool in_arena(const BufferSlot& s) { return s.kind == SlotKind::Arena || s.kind == SlotKind::Workspace; }

const BufferSlot& slot_of_value(const Plan& p, ValueId v) {
  for (const auto& s : p.slots) {
    if (s.value == v) return s;
  }
  throw std::runtime_error("no slot for value " + std::to_string(v));
}

// Every invariant the executor relies on, with lifetimes recomputed from the steps rather
// than trusted from the planner.
void check_plan_invariants(const Plan& p, const std::string& context) {
  SCOPED_TRACE(context);
  const int nsteps = static_cast<int>(p.steps.size());
  const size_t nslots = p.slots.size();
  std::vector<int> first(nslots, INT_MAX), last(nslots, -1), writes(nslots, 0);
  for (int i = 0; i < nsteps; ++i) {
    const PlanStep& st = p.steps[static_cast<size_t>(i)];
    for (int s : st.inputs) {
      const int r = root_slot(p, s);
      const BufferSlot& b = p.slots[static_cast<size_t>(r)];
      ASSERT_NE(b.kind, SlotKind::Workspace);
      if (b.kind == SlotKind::Arena || b.kind == SlotKind::Output) {
        ASSERT_LT(first[static_cast<size_t>(r)], i) << "step " << i << " (" << st.op() << ") reads $" << r
                                                    << " before any step wrote it";
      }
      last[static_cast<size_t>(r)] = std::max(last[static_cast<size_t>(r)], i);
    }
    for (int s : st.outputs) {
      const int r = root_slot(p, s);
      first[static_cast<size_t>(r)] = std::min(first[static_cast<size_t>(r)], i);
      last[static_cast<size_t>(r)] = std::max(last[static_cast<size_t>(r)], i);
      if (p.slots[static_cast<size_t>(s)].kind != SlotKind::View) ++writes[static_cast<size_t>(s)];
    }
    // An output written over an input's buffer (planner in-place reuse) is only safe when that
    // input is read with the very same layout: element k is read before element k is written.
    // A transposed or shifted view of the same buffer would be read after being overwritten.
    if (st.schema->inplace.empty()) {
      for (int o : st.outputs) {
        for (int s : st.inputs) {
          if (root_slot(p, o) != root_slot(p, s)) continue;
          const BufferSlot& os = p.slots[static_cast<size_t>(o)];
          const BufferSlot& is = p.slots[static_cast<size_t>(s)];
          auto layout = [&](const BufferSlot& b) {
            return b.kind == SlotKind::View ? std::make_tuple(b.info.shape, b.strides, b.view_offset)
                                            : std::make_tuple(b.info.shape, contiguous_strides(b.info.shape), int64_t{0});
          };
          // Resolve chains of views to (shape, strides, offset) over the root.
          auto flat = [&](int id) {
            auto l = layout(p.slots[static_cast<size_t>(id)]);
            const BufferSlot& b = p.slots[static_cast<size_t>(id)];
            if (b.kind == SlotKind::View && p.slots[static_cast<size_t>(b.base)].kind == SlotKind::View) {
              std::get<2>(l) += p.slots[static_cast<size_t>(b.base)].view_offset;
            }
            return l;
          };
          EXPECT_TRUE(flat(o) == flat(s))
              << "step " << i << " (" << st.op() << ") writes $" << os.id << " over $" << root_slot(p, o)
              << " while reading it as $" << is.id << " with another layout (strides " << shape_str(is.strides)
              << " +" << is.view_offset << " vs " << shape_str(os.strides) << " +" << os.view_offset << ")\n"
              << p.str();
        }
      }
    }
    if (st.workspace >= 0) {
      const BufferSlot& w = p.slots[static_cast<size_t>(st.workspace)];
      EXPECT_EQ(w.kind, SlotKind::Workspace);
      EXPECT_EQ(w.first_step, i) << "a workspace lives for its one step";
      EXPECT_EQ(w.last_step, i) << "a workspace lives for its one step";
      EXPECT_GT(w.bytes, 0u);
    }
  }
  for (const BufferSlot& s : p.slots) {
    const size_t id = static_cast<size_t>(s.id);
    switch (s.kind) {
      case SlotKind::View:
        EXPECT_EQ(s.bytes, 0u) << "view $" << s.id << " takes memory";
        EXPECT_GE(s.base, 0);
        EXPECT_LT(s.base, s.id);
        break;
      case SlotKind::Input:
        EXPECT_EQ(s.first_step, -1);
        EXPECT_EQ(s.last_step, nsteps);
        EXPECT_EQ(writes[id], 0) << "input $" << s.id << " is written by a step";
        break;
      case SlotKind::Output:
        EXPECT_EQ(s.last_step, nsteps);
        EXPECT_EQ(writes[id], 1);
        break;
      case SlotKind::Arena:
        EXPECT_EQ(writes[id], 1) << "arena $" << s.id << " must be written by exactly one step";
        // The planner's lifetime must cover every step that touches the buffer (directly or
        // through a view): first write .. last read.
        EXPECT_LE(s.first_step, first[id]) << "$" << s.id;
        EXPECT_GE(s.last_step, last[id]) << "$" << s.id << " is read after its lifetime ends";
        break;
      case SlotKind::Workspace:
        break;
    }
    if (in_arena(s)) {
      EXPECT_EQ(s.offset % s.alignment, 0u);
      EXPECT_GE(s.bytes, s.info.nbytes());
      EXPECT_LE(s.offset + s.bytes, p.arena_bytes.at(s.info.device)) << "$" << s.id << " lies outside the arena";
    }
  }
  // No two arena buffers alive at the same step share a byte.
  for (size_t a = 0; a < nslots; ++a) {
    const BufferSlot& x = p.slots[a];
    if (!in_arena(x)) continue;
    for (size_t b = a + 1; b < nslots; ++b) {
      const BufferSlot& y = p.slots[b];
      if (!in_arena(y) || x.info.device != y.info.device) continue;
      const bool live_together = !(x.last_step < y.first_step || y.last_step < x.first_step);
      const bool share_memory = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
      EXPECT_FALSE(live_together && share_memory)
          << "$" << x.id << " [" << x.offset << ", " << x.offset + x.bytes << ") live #" << x.first_step << "..#"
          << x.last_step << " overlaps $" << y.id << " [" << y.offset << ", " << y.offset + y.bytes << ") live #"
          << y.first_step << "..#" << y.last_step << "\n"
          << p.str();
    }
  }
  // The predicted peak covers what is live at every step.
  for (const auto& kv : p.arena_bytes) {
    const Device& d = kv.first;
    size_t max_live = 0;
    for (int i = 0; i < std::max(nsteps, 1); ++i) {
      size_t live = 0;
      for (const auto& s : p.slots) {
        if (in_arena(s) && s.info.device == d && s.first_step <= i && i <= s.last_step) live += s.bytes;
      }
      max_live = std::max(max_live, live);
      EXPECT_GE(p.predicted_peak_bytes(d), live + p.external_bytes.at(d)) << "step " << i;
    }
    EXPECT_EQ(p.peak_live_bytes.at(d), max_live);
    EXPECT_GE(kv.second, max_live) << "the arena is smaller than what is live at once";
    EXPECT_EQ(p.predicted_peak_bytes(d), kv.second + p.external_bytes.at(d));
  }
  // Outputs are reported in order and hold the requested values.
  ASSERT_EQ(p.output_slots.size(), p.output_values.size());
  for (size_t k = 0; k < p.output_slots.size(); ++k) {
    EXPECT_EQ(p.slots[static_cast<size_t>(p.output_slots[k])].value, p.output_values[k]);
  }
}

// A random program: leaves of random shapes and kinds, then a mix of elementwise ops, dense
// ops, size-changing ops, views (reshape/permute/slice/expand), copies, side effects and
// in-place updates. A node that would make scheduling impossible (a read of a buffer's old
// contents that must also come after the write) is taken back; the scheduler's own error for
// that case is tested in test_passes.cpp.
struct RandomProgram {
  Graph g;
  std::vector<ValueId> outputs;
  int rejected = 0;
};

RandomProgram random_program(uint32_t seed) {
  std::mt19937 rng(seed);
  auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  RandomProgram prog;
  Graph& g = prog.g;
  struct Alias {
    ValueId root;         // the buffer this value's elements live in (views share it)
    bool overwritten;     // an in-place write replaced this buffer's contents since
  };
  std::vector<Alias> alias;
  auto rand_shape = [&] {
    Shape s;
    const int64_t rank = uni(0, 3);
    for (int64_t i = 0; i < rank; ++i) s.push_back(uni(1, 7));
    return s;
  };
  const DType dtypes[] = {DType::Float32, DType::Float64, DType::UInt8};
  const ValueKind kinds[] = {ValueKind::Input, ValueKind::Parameter, ValueKind::State, ValueKind::Constant};
  const int64_t nleaves = uni(1, 3);
  for (int64_t i = 0; i < nleaves; ++i) {
    const TensorInfo t{rand_shape(), dtypes[uni(0, 2)], Device::cpu()};
    const ValueId v = g.add_leaf("leaf" + std::to_string(i), t, kinds[uni(0, 3)]);
    alias.push_back({v, false});
  }
  auto record = [&](const std::string& op, const std::vector<ValueId>& ins, const Attrs& attrs, bool is_view) {
    NodeMeta meta;
    meta.scope = "layer" + std::to_string(g.num_nodes());  // = the node id (see step_node below)
    const ValueId out = g.add(op, ins, attrs, meta);
    alias.push_back(is_view ? alias[static_cast<size_t>(ins[0])] : Alias{out, false});
    return out;
  };
  auto any_value = [&] { return static_cast<ValueId>(uni(0, g.num_values() - 1)); };

  const int64_t nnodes = uni(1, 40);
  for (int64_t k = 0; k < nnodes; ++k) {
    const Graph backup_graph = g;
    const std::vector<Alias> backup_alias = alias;
    const ValueId v = any_value();
    const Shape& s = g.value(v).info.shape;
    const int rank = static_cast<int>(s.size());
    switch (uni(0, 11)) {
      case 0:
      case 1:
        record("TestUnary", {v}, {}, false);
        break;
      case 2: {  // a branch joining: another value of the same shape, else v itself
        std::vector<ValueId> same;
        for (ValueId u = 0; u < g.num_values(); ++u) {
          if (g.value(u).info.shape == s) same.push_back(u);
        }
        record("TestBinary", {v, same[static_cast<size_t>(uni(0, static_cast<int64_t>(same.size()) - 1))]}, {}, false);
        break;
      }
      case 3:
        record("TestDense", {v}, {}, false);
        break;
      case 4:
        record("TestProject", {v}, Attrs{{"shape", rand_shape()}}, false);
        break;
      case 5: {
        const int64_t n = numel(s);
        const std::vector<Shape> options = {{-1}, {1, -1}, {n, 1}, s};
        record("Reshape", {v}, Attrs{{"shape", options[static_cast<size_t>(uni(0, 3))]}}, true);
        break;
      }
      case 6: {
        std::vector<int64_t> dims(static_cast<size_t>(rank));
        for (int i = 0; i < rank; ++i) dims[static_cast<size_t>(i)] = i;
        std::shuffle(dims.begin(), dims.end(), rng);
        record("Permute", {v}, Attrs{{"dims", dims}}, true);
        break;
      }
      case 7: {
        if (rank == 0) break;
        const int64_t dim = uni(0, rank - 1);
        const int64_t n = s[static_cast<size_t>(dim)];
        const int64_t start = uni(0, n - 1);
        const int64_t stop = uni(start + 1, n);
        record("Slice", {v}, Attrs{{"dim", dim}, {"start", start}, {"stop", stop}, {"step", uni(1, 3)}}, true);
        break;
      }
      case 8: {
        if (rank >= 4) break;
        Shape big = s;
        big.insert(big.begin(), uni(1, 3));
        record("Expand", {v}, Attrs{{"shape", big}}, true);
        break;
      }
      case 9:
        record(uni(0, 1) ? "Contiguous" : "TestSideEffect", {v}, {}, false);
        break;
      default: {  // an in-place update of a current buffer that is not a view
        const Alias t = alias[static_cast<size_t>(v)];
        if (t.root != v || t.overwritten) {
          record("TestUnary", {v}, {}, false);
          break;
        }
        const ValueId out = record("TestInplace", {v, any_value()}, {}, false);
        for (ValueId x = 0; x < out; ++x) {
          if (alias[static_cast<size_t>(x)].root == v) alias[static_cast<size_t>(x)].overwritten = true;
        }
        alias[static_cast<size_t>(out)] = {v, false};
        break;
      }
    }
    std::vector<NodeId> all(static_cast<size_t>(g.num_nodes()));
    for (NodeId n = 0; n < g.num_nodes(); ++n) all[static_cast<size_t>(n)] = n;
    try {
      schedule(g, all);
    } catch (const ValueError&) {  // no valid order: take the node back
      g = backup_graph;
      alias = backup_alias;
      ++prog.rejected;
    }
  }
  // Outputs: a few current (not overwritten) values, views included.
  const int64_t nout = uni(1, 3);
  for (int64_t k = 0; k < nout; ++k) {
    const ValueId v = any_value();
    if (!alias[static_cast<size_t>(v)].overwritten) prog.outputs.push_back(v);
  }
  return prog;
}

// The node a step came from: random_program names every node's scope "layer<id>".
NodeId step_node(const PlanStep& st) {
  return static_cast<NodeId>(std::stoi(st.meta.scope.substr(5)));
}

// In-place ordering, checked on the plan against the graph: every step that reads a version
// of a buffer runs after the write that made that version and before the next write to it.
void check_inplace_order(const Graph& g, const Plan& p, const std::string& context) {
  SCOPED_TRACE(context);
  const LayoutAnalysis la = analyze_layouts(g);
  // version(v): the in-place node whose output v (or the value v views) is; -1: not written in place.
  auto version = [&](ValueId v) -> NodeId {
    while (true) {
      const NodeId n = g.value(v).producer;
      if (n == kNoNode) return -1;
      const Node& node = g.node(n);
      if (!node.schema->inplace.empty()) return n;
      if (node.schema->view_of >= 0 && la.is_view[static_cast<size_t>(v)]) {
        v = node.inputs[static_cast<size_t>(node.schema->view_of)];
        continue;
      }
      return -1;
    }
  };
  std::map<NodeId, int> step_of_writer;
  std::map<std::pair<ValueId, NodeId>, NodeId> next_writer;  // (base, version) -> writer of the next version
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const PlanStep& st = p.steps[i];
    if (st.schema->inplace.empty()) continue;
    const NodeId w = step_node(st);
    step_of_writer[w] = static_cast<int>(i);
    const ValueId target = g.node(w).inputs[static_cast<size_t>(st.schema->inplace[0].second)];
    next_writer[{la.base[static_cast<size_t>(target)], version(target)}] = w;
  }
  for (size_t i = 0; i < p.steps.size(); ++i) {
    for (int s : p.steps[i].inputs) {
      const ValueId v = p.slots[static_cast<size_t>(s)].value;
      if (v == kNoValue || v >= g.num_values()) continue;  // a copy inserted by compile()
      const ValueId base = la.base[static_cast<size_t>(v)];
      const NodeId ver = version(v);
      if (ver != -1) {
        ASSERT_TRUE(step_of_writer.count(ver));
        EXPECT_GT(static_cast<int>(i), step_of_writer[ver]) << "step " << i << " reads " << g.value_str(v)
                                                            << " before the write that produced it\n" << p.str();
      }
      auto next = next_writer.find({base, ver});
      if (next == next_writer.end()) continue;
      const int w = step_of_writer[next->second];
      if (w == static_cast<int>(i)) continue;
      EXPECT_LT(static_cast<int>(i), w) << "step " << i << " (" << p.steps[i].op() << ") reads " << g.value_str(v)
                                        << " after step " << w << " overwrote it in place\n" << p.str();
    }
  }
}

// Scratch for some steps, as a kernel's WorkspaceSizeFn would ask.
size_t test_workspace(const Graph&, const Node& n) {
  if (n.op() == "TestDense" || n.op() == "TestProject") return 64 + static_cast<size_t>(n.id % 5) * 100;
  return 0;
}

}  // namespace

TEST_F(Planner, RandomProgramsNeverShareMemoryBetweenBuffersAliveAtOnce) {
  int steps_total = 0, inplace_total = 0, view_total = 0, rejected_total = 0;
  for (uint32_t seed = 0; seed < 400; ++seed) {
    RandomProgram prog = random_program(seed);
    if (prog.outputs.empty()) continue;
    CompileOptions opts;
    opts.outputs = prog.outputs;
    opts.workspace = test_workspace;
    opts.alignment = (seed % 2) ? 64 : 16;
    Plan p;
    try {
      p = compile(prog.g, opts);
    } catch (const std::exception& e) {
      FAIL() << "seed " << seed << ": " << e.what() << "\n" << prog.g.str();
    }
    check_plan_invariants(p, "seed " + std::to_string(seed) + "\n" + prog.g.str());
    check_inplace_order(prog.g, p, "seed " + std::to_string(seed) + "\n" + prog.g.str());
    if (HasFailure()) return;
    rejected_total += prog.rejected;
    steps_total += static_cast<int>(p.steps.size());
    for (const auto& st : p.steps) inplace_total += !st.schema->inplace.empty();
    for (const auto& s : p.slots) view_total += s.kind == SlotKind::View;
  }
  // The generator must actually exercise what the test is about.
  EXPECT_GT(steps_total, 2000);
  EXPECT_GT(inplace_total, 50);
  EXPECT_GT(view_total, 500);
  EXPECT_LT(rejected_total, inplace_total);
}

TEST_F(Planner, AChainReusesTheMemoryOfDeadBuffers) {
  Graph g;
  ValueId v = g.add_leaf("x", f32({256}), ValueKind::Input);
  for (int i = 0; i < 6; ++i) v = g.add("TestUnary", {v});
  const Plan p = compile(g, CompileOptions{{v}});
  check_plan_invariants(p, "chain");
  // Five intermediates of 1 KiB, at most two alive at once (the one read, the one written).
  EXPECT_EQ(p.peak_live_bytes.at(Device::cpu()), 2048u);
  EXPECT_EQ(p.arena_bytes.at(Device::cpu()), 2048u);
  EXPECT_EQ(p.external_bytes.at(Device::cpu()), 2048u);  // x and the output
  EXPECT_EQ(p.predicted_peak_bytes(), 4096u);
}

TEST_F(Planner, BranchesKeepTheSharedValueAliveUntilTheLastReader) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({64}), ValueKind::Input);
  ValueId shared = g.add("TestUnary", {x});
  ValueId a = g.add("TestUnary", {shared});
  ValueId b = g.add("TestUnary", {a});
  ValueId c = g.add("TestUnary", {b});
  ValueId out = g.add("TestBinary", {c, shared});
  const Plan p = compile(g, CompileOptions{{out}});
  check_plan_invariants(p, "branch");
  const BufferSlot& s = slot_of_value(p, shared);
  EXPECT_EQ(s.first_step, 0);
  EXPECT_EQ(s.last_step, 4);
}

TEST_F(Planner, ViewsTakeNoMemoryAndKeepTheirBaseAlive) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({4, 8}), ValueKind::Input);
  ValueId h = g.add("TestUnary", {x});                                               // step 0
  ValueId t = g.add("Permute", {h}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});     // view
  ValueId s = g.add("Slice", {t}, Attrs{{"dim", int64_t{0}}, {"start", int64_t{2}}, {"stop", int64_t{8}}, {"step", int64_t{3}}});
  ValueId y = x;
  for (int i = 0; i < 3; ++i) y = g.add("TestUnary", {y});                            // steps 1..3
  ValueId late = g.add("TestUnary", {s});                                             // step 4 reads h via 2 views
  ValueId out = g.add("TestBinary", {g.add("Reshape", {late}, Attrs{{"shape", std::vector<int64_t>{-1}}}),
                                     g.add("Reshape", {g.add("Slice", {y}, Attrs{{"dim", int64_t{1}}, {"start", int64_t{0}}, {"stop", int64_t{2}}})}, Attrs{{"shape", std::vector<int64_t>{-1}}})});
  const Plan p = compile(g, CompileOptions{{out}});
  check_plan_invariants(p, "views");
  const BufferSlot& hs = slot_of_value(p, h);
  const BufferSlot& ts = slot_of_value(p, t);
  const BufferSlot& ss = slot_of_value(p, s);
  EXPECT_EQ(hs.kind, SlotKind::Arena);
  EXPECT_EQ(ts.kind, SlotKind::View);
  EXPECT_EQ(ss.kind, SlotKind::View);
  EXPECT_EQ(ts.base, hs.id);
  EXPECT_EQ(ss.base, hs.id);  // views of views point at the buffer, with composed strides
  EXPECT_EQ(ss.strides, (Strides{3, 8}));
  EXPECT_EQ(ss.view_offset, 2);
  EXPECT_EQ(ts.bytes + ss.bytes, 0u);
  EXPECT_EQ(hs.last_step, 4) << p.str();
  for (const auto& st : p.steps) {
    EXPECT_NE(st.op(), "Permute");
    EXPECT_NE(st.op(), "Slice");
  }
}

TEST_F(Planner, AViewReturnedAsOutputMakesItsBaseAnOutput) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({3, 4}), ValueKind::Input);
  ValueId h = g.add("TestUnary", {x});
  ValueId t = g.add("Permute", {h}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  const Plan p = compile(g, CompileOptions{{t}});
  check_plan_invariants(p, "view output");
  EXPECT_EQ(slot_of_value(p, h).kind, SlotKind::Output);
  EXPECT_EQ(p.arena_bytes.at(Device::cpu()), 0u);
  EXPECT_EQ(p.slots[static_cast<size_t>(p.output_slots[0])].kind, SlotKind::View);
}

TEST_F(Planner, WorkspacesLiveForOneStepAndAreReusedAcrossSteps) {
  Graph g;
  ValueId v = g.add_leaf("x", f32({16}), ValueKind::Input);
  for (int i = 0; i < 4; ++i) v = g.add("TestDense", {v});
  CompileOptions opts;
  opts.outputs = {v};
  opts.workspace = [](const Graph&, const Node&) -> size_t { return 1000; };
  const Plan p = compile(g, opts);
  check_plan_invariants(p, "workspace");
  int n = 0;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const int w = p.steps[i].workspace;
    ASSERT_GE(w, 0);
    const BufferSlot& s = p.slots[static_cast<size_t>(w)];
    EXPECT_EQ(s.first_step, static_cast<int>(i));
    EXPECT_EQ(s.last_step, static_cast<int>(i));
    EXPECT_EQ(s.bytes, 1024u);  // rounded up to the alignment
    EXPECT_EQ(s.name, "workspace of TestDense");
    ++n;
  }
  EXPECT_EQ(n, 4);
  // One workspace and at most two 64-byte activations at a time.
  EXPECT_EQ(p.peak_live_bytes.at(Device::cpu()), 1024u + 128u);
  EXPECT_LE(p.arena_bytes.at(Device::cpu()), 1024u + 128u + 64u);
}

TEST_F(Planner, InPlaceOutputsAreViewsOfTheUpdatedBuffer) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({8}), ValueKind::Input);
  ValueId w = g.add_leaf("w", f32({8}), ValueKind::State);
  ValueId grad = g.add("TestUnary", {x});
  ValueId upd = g.add("TestInplace", {w, grad});
  const Plan p = compile(g, CompileOptions{{upd}});
  check_plan_invariants(p, "inplace");
  const BufferSlot& u = slot_of_value(p, upd);
  EXPECT_EQ(u.kind, SlotKind::View);
  EXPECT_EQ(p.slots[static_cast<size_t>(u.base)].value, w);
  EXPECT_EQ(p.slots[static_cast<size_t>(u.base)].kind, SlotKind::Input);
}

TEST_F(Planner, TwoDevicesGetSeparateArenas) {
  Graph g;
  const TensorInfo gpu{{32}, DType::Float32, Device::cuda(0)};
  ValueId x = g.add_leaf("x", f32({32}), ValueKind::Input);
  ValueId a = g.add("TestUnary", {g.add("TestUnary", {x})});
  ValueId xg = g.add_leaf("xg", gpu, ValueKind::Input);
  ValueId b = g.add("TestUnary", {g.add("TestUnary", {xg})});
  const Plan p = compile(g, CompileOptions{{a, b}});
  check_plan_invariants(p, "two devices");
  EXPECT_EQ(p.arena_bytes.size(), 2u);
  EXPECT_EQ(p.arena_bytes.at(Device::cuda(0)), 128u);
  EXPECT_EQ(p.arena_bytes.at(Device::cpu()), 128u);
  const std::string text = p.str();
  EXPECT_NE(text.find("cuda:0: arena 128 B"), std::string::npos) << text;
}

TEST_F(Planner, InPlaceReuseNeverOverwritesABufferTheStepAlsoReadsTransposed) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({3, 3}), ValueKind::Input);
  ValueId h = g.add("TestUnary", {x});
  ValueId ht = g.add("Permute", {h}, Attrs{{"dims", std::vector<int64_t>{1, 0}}});
  ValueId y = g.add("TestBinary", {h, ht});  // y[i, j] = f(h[i, j], h[j, i]): h dies here
  ValueId out = g.add("TestUnary", {y});
  const Plan p = compile(g, CompileOptions{{out}});
  check_plan_invariants(p, "transposed self-read");
}

TEST_F(Planner, InPlaceReuseLetsAnElementwiseStepWriteOverItsDyingInput) {
  Graph g;
  ValueId x = g.add_leaf("x", f32({256}), ValueKind::Input);
  ValueId a = g.add("TestUnary", {x});
  ValueId b = g.add("TestUnary", {a});  // a dies here: b may take a's buffer
  ValueId out = g.add("TestUnary", {b});
  const Plan p = compile(g, CompileOptions{{out}});
  check_plan_invariants(p, "reuse");
  const BufferSlot& sb = slot_of_value(p, b);
  EXPECT_EQ(sb.kind, SlotKind::View);
  EXPECT_EQ(p.slots[static_cast<size_t>(sb.base)].value, a);
  EXPECT_EQ(p.arena_bytes.at(Device::cpu()), 1024u);
}
