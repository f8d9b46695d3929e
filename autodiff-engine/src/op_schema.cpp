#include "glassgrad/autodiff/op_schema.h"

#include <algorithm>
#include <mutex>

namespace glassgrad {

namespace {
const char* const kRoleNames[] = {"forward", "backward", "optimizer", "recompute", "update"};
}  // namespace

const char* role_name(NodeRole role) { return kRoleNames[static_cast<int>(role)]; }

NodeRole role_from_name(const std::string& name) {
  for (int i = 0; i < 5; ++i) {
    if (name == kRoleNames[i]) return static_cast<NodeRole>(i);
  }
  throw ValueError("unknown node role '" + name + "': one of forward, backward, optimizer, recompute, update");
}

std::string node_where(const std::string& op, const std::string& scope) {
  return scope.empty() ? op : op + " '" + scope + "'";
}

std::string ShapeContext::where() const { return node_where(op_, meta_.scope); }

void ShapeContext::fail(const ErrorMessage& msg, bool dtype) const {
  const std::string text = where() + ": " + msg.str();
  if (dtype) throw DTypeError(text);
  throw ShapeError(text);
}

int ShapeContext::axis(const char* attr, int64_t axis, int rank, int input, const std::string& fix) const {
  const int d = normalize_axis(axis, rank);
  if (d >= 0) return d;
  const std::string range = rank == 0 ? std::string("none: the input has no axes")
                                      : "[" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]";
  throw IndexError(where() + ": " +
                   ErrorMessage(std::string(attr) + " " + std::to_string(axis) + " is out of range for a " +
                                std::to_string(in(input).rank()) + "-d input " + shape_str(in(input).shape))
                       .detail("valid: " + range)
                       .fix(fix.empty() ? (rank == 0 ? std::string("reshape the input to have axes first")
                                                     : "use " + std::string(attr) + " in " + range +
                                                           " (negative values count from the end)")
                                        : fix)
                       .str());
}

void ShapeContext::expect_rank(int input, int rank, const char* layout) const {
  const TensorInfo& t = in(input);
  if (t.rank() == rank) return;
  ErrorMessage m("expected a " + std::to_string(rank) + "-d " +
                 (layout ? std::string(layout) + " " : std::string()) + "tensor, got " +
                 std::to_string(t.rank()) + "-d " + shape_str(t.shape));
  if (layout && std::string(layout) == "NCHW" && t.rank() == 3) {
    m.cause("a single image [C, H, W] without the batch axis")
        .fix("x.reshape(1, *x.shape) to make a batch of one");
  } else if (layout && std::string(layout) == "NCHW" && t.rank() == 2) {
    m.cause("flattened images [N, H*W] or [N, features]")
        .fix("x.reshape(N, 1, H, W) for one-channel images");
  }
  fail(m);
}

void ShapeContext::expect_float(int input) const {
  const TensorInfo& t = in(input);
  if (is_floating(t.dtype)) return;
  fail(ErrorMessage(std::string("expected a float32 or float64 tensor, got ") +
                    dtype_name(t.dtype) + " " + shape_str(t.shape))
           .fix("convert with x.float() (or np.asarray(x, dtype=np.float32) before glassgrad.tensor)"),
       true);
}

void ShapeContext::expect_dtype(int input, DType dt) const {
  const TensorInfo& t = in(input);
  if (t.dtype == dt) return;
  fail(ErrorMessage(std::string("expected ") + dtype_name(dt) + ", got " + dtype_name(t.dtype) +
                    " " + shape_str(t.shape)),
       true);
}

void ShapeContext::expect_same_dtype(int a, int b) const {
  const TensorInfo& x = in(a);
  const TensorInfo& y = in(b);
  if (x.dtype == y.dtype) return;
  std::string fix = is_floating(x.dtype) ? (x.dtype == DType::Float32 ? ".float()" : ".double()")
                                         : std::string(".astype(") + dtype_name(x.dtype) + ")";
  fail(ErrorMessage(std::string("inputs have different dtypes: ") + dtype_name(x.dtype) +
                    " and " + dtype_name(y.dtype))
           .detail("first:  " + x.str())
           .detail("second: " + y.str())
           .cause("glassgrad never converts dtypes silently")
           .fix("convert one side, e.g. other" + fix),
       true);
}

OpRegistry& OpRegistry::instance() {
  static OpRegistry* reg = [] {
    auto* r = new OpRegistry();
#define GG_FAMILY(family) register_##family##_ops(*r);
#include "glassgrad/autodiff/families/families.def"
    return r;
  }();
  return *reg;
}

void OpRegistry::add(OpSchema schema) {
  if (ops_.count(schema.name)) throw ValueError("op '" + schema.name + "' is registered twice");
  if (!schema.infer) throw ValueError("op '" + schema.name + "' has no shape rule");
  const std::string name = schema.name;
  ops_.emplace(name, std::make_unique<OpSchema>(std::move(schema)));
}

const OpSchema* OpRegistry::find(const std::string& name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(a[i - 1]) == std::tolower(b[j - 1]);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

const OpSchema& OpRegistry::at(const std::string& name) const {
  if (const OpSchema* s = find(name)) return *s;
  std::string best;
  size_t best_d = 4;
  for (const auto& kv : ops_) {
    const size_t d = edit_distance(name, kv.first);
    if (d < best_d) best_d = d, best = kv.first;
  }
  ErrorMessage m("unknown op '" + name + "'");
  if (!best.empty()) m.fix("did you mean '" + best + "'?");
  else m.fix("glassgrad.ops() lists the ops that exist");
  throw ValueError(m.str());
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> n;
  for (const auto& kv : ops_) n.push_back(kv.first);
  return n;
}

}  // namespace glassgrad
