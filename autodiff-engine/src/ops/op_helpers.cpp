#include "op_helpers.h"

#include <algorithm>

namespace glassgrad {
namespace ops {

void check_activation_attr(const ShapeContext& ctx) {
  if (!ctx.attrs().has("activation")) return;
  const std::string& a = ctx.attrs().s("activation");
  if (a != "none" && a != "relu") bad_attr(ctx, "activation", "'none' or 'relu'", "'" + a + "'");
}

void expect_same_shape(const ShapeContext& ctx, int a, int b, const char* an, const char* bn) {
  if (ctx.in(a).shape == ctx.in(b).shape) return;
  ctx.fail(ErrorMessage(std::string(an) + " has shape " + shape_str(ctx.in(a).shape) + ", " + bn + " has shape " +
                        shape_str(ctx.in(b).shape))
               .cause("they must have the same shape"));
}

void expect_one_dtype_and_device(const ShapeContext& ctx, const char* cause, const char* fix) {
  const TensorInfo& first = ctx.in(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const TensorInfo& t = ctx.in(i);
    if (t.dtype == first.dtype && t.device == first.device) continue;
    ctx.fail(ErrorMessage("input " + std::to_string(i) + " is " + t.str() + " but input 0 is " + first.str())
                 .cause(cause)
                 .fix(fix),
             t.dtype != first.dtype);
  }
}

namespace {

// PyTorch's sentence for two shapes that do not broadcast ("The size of tensor a (2) must match the
// size of tensor b (3) at non-singleton dimension 1": the rightmost mismatch, the dimension counted in
// the broadcast result), the first line of the error (docs/porting.md, the row on shapes that do not
// broadcast).
std::string broadcast_mismatch(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  for (size_t k = 0; k < rank; ++k) {  // from the right, as PyTorch's infer_size reports the last mismatch
    const size_t dim = rank - 1 - k;
    const int64_t sa = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t sb = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      return "The size of tensor a (" + std::to_string(sa) + ") must match the size of tensor b (" +
             std::to_string(sb) + ") at non-singleton dimension " + std::to_string(dim);
    }
  }
  return "shapes " + shape_str(a) + " and " + shape_str(b) + " cannot be broadcast together";
}

}  // namespace

Shape broadcast_or_fail(const ShapeContext& ctx, int a, int b) { return broadcast_inputs_or_fail(ctx, {a, b}); }

Shape broadcast_inputs_or_fail(const ShapeContext& ctx, std::initializer_list<int> inputs) {
  Shape so_far, next;
  bool first = true;
  for (int i : inputs) {
    if (first || broadcast_shapes(so_far, ctx.in(i).shape, next)) {
      so_far = first ? ctx.in(i).shape : next;
      first = false;
      continue;
    }
    std::string shapes;  // "[2] and [3]", "[2], [3] and [3]"
    size_t k = 0;
    for (int j : inputs) {
      shapes += (k == 0 ? "" : k + 1 == inputs.size() ? " and " : ", ") + shape_str(ctx.in(j).shape);
      ++k;
    }
    ctx.fail(ErrorMessage(broadcast_mismatch(so_far, ctx.in(i).shape))
                 .detail("shapes " + shapes +
                         " cannot be broadcast together: broadcasting aligns shapes from the right; each pair "
                         "of sizes must be equal or one of them 1")
                 .fix("reshape one side so the sizes line up, e.g. b.reshape(1, -1)"));
  }
  return so_far;
}

std::vector<int64_t> axes_attr(const ShapeContext& ctx, const char* key, int rank) {
  std::vector<int64_t> axes;
  if (!ctx.attrs().has(key) || ctx.attrs().ints(key).empty()) {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
    return axes;
  }
  for (int64_t a : ctx.attrs().ints(key)) axes.push_back(ctx.axis("dim", a, rank));
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

Shape reduced_shape(const Shape& in, const std::vector<int64_t>& axes, bool keepdim) {
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (!reduced) out.push_back(in[i]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

void bad_attr(const ShapeContext& ctx, const std::string& name, const std::string& what,
              const std::string& got, const std::string& fix) {
  ErrorMessage m(name + " must be " + what + ", got " + got);
  if (!fix.empty()) m.fix(fix);
  ctx.fail(m);
}

DType dtype_attr(const ShapeContext& ctx, const char* key) {
  return dtype_from_name(ctx.attrs().s(key));
}

ValueId zeros_like(GradContext& c, ValueId like) {
  const TensorInfo t = c.info(like);
  return c.emit("Full", {}, Attrs{{"shape", t.shape}, {"value", 0.0}, {"dtype", std::string(dtype_name(t.dtype))},
                                  {"device", t.device.str()}});
}

}  // namespace ops
}  // namespace glassgrad
