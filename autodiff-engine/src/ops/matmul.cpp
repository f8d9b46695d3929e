// MatMul: batched matrix product with NumPy matmul semantics for inputs of rank >= 2.
//
//   out[..., i, j] = sum_k a[..., i, k] * b[..., k, j]
//   a: [..., M, K]   b: [..., K, N]   out: [broadcast(a[..., :-2], b[..., :-2]), M, N]
//
// With the optional bias [N] (fuse_matmul_bias, fusion.h): out[..., i, j] += bias[j]; dbias is g
// summed over every axis but the last.
//
// Gradient (L = <out, g>):  da = g @ b^T,  db = a^T @ g,  each summed over the batch axes that
// broadcasting stretched (reduce_to). The transposes are Permute views, which the kernel reads
// through the GEMM's strides without copying (strided_inputs). When b is a plain matrix and a
// has batch axes (a Linear layer on [B, T, C] input), the batch sum of a^T @ g is one product
// over the batch folded into the rows: db = a'^T @ g' with a' = a as [B*T, K], g' = g as
// [B*T, N] (one GEMM with a long k instead of B products and a [B, K, N] intermediate that a
// Sum then reduces). When b is itself the transpose of a matrix w (Linear's x @ weight.T), the
// product is taken as db^T = g'^T @ a' and db is its Permute view: w's gradient, the Permute of
// that view, is then a dense [N, K] tensor, which the optimizer reads in order instead of
// through a transposed view.
#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

// "[4, 3]", or "[..., 4, 3]" when there are batch axes: the part MatMul multiplies.
std::string matrix_str(const Shape& s) {
  const size_t r = s.size();
  return std::string(r > 2 ? "[..., " : "[") + std::to_string(s[r - 2]) + ", " + std::to_string(s[r - 1]) + "]";
}

// Permute that swaps the last two axes of a value of rank r.
std::vector<int64_t> swap_last_two(size_t r) {
  std::vector<int64_t> d(r);
  for (size_t i = 0; i < r; ++i) d[i] = static_cast<int64_t>(i);
  std::swap(d[r - 1], d[r - 2]);
  return d;
}

std::vector<TensorInfo> matmul_infer(const ShapeContext& ctx) {
  const TensorInfo& a = ctx.in(0);
  const TensorInfo& b = ctx.in(1);
  for (int i = 0; i < 2; ++i) {
    const TensorInfo& t = ctx.in(i);
    if (t.rank() >= 2) continue;
    const char* name = i == 0 ? "a" : "b";
    ErrorMessage m(std::string("needs matrices (rank >= 2), but ") + name + " has shape " + shape_str(t.shape));
    m.detail("a: " + a.str()).detail("b: " + b.str());
    if (t.rank() == 1) {
      m.cause(std::string(name) + " is a vector; MatMul does not guess whether it is a row or a column");
      m.fix(i == 0 ? "a.reshape(1, -1) for a row vector [1, K]" : "b.reshape(-1, 1) for a column vector [K, 1]");
    } else {
      m.fix("multiply a scalar with * instead of MatMul");
    }
    ctx.fail(m);
  }
  ctx.expect_float(0);
  ctx.expect_float(1);
  ctx.expect_same_dtype(0, 1);
  const int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back();
  const int64_t kb = b.shape[b.shape.size() - 2], n = b.shape.back();
  const std::string& layer = ctx.meta().layer;
  if (k != kb && (layer == "Linear" || layer.rfind("Linear '", 0) == 0)) {
    // A Linear layer's product x @ weight.T: b is the transposed weight [in_features, out_features].
    throw ShapeError(ctx.layer_where() + " " +
                     ErrorMessage("got input of shape " + shape_str(a.shape) + " but expects " + std::to_string(kb) +
                                  " features in the last axis")
                         .detail("weight: " + shape_str({n, kb}) + "   input: " + shape_str(a.shape))
                         .fix("build the layer as Linear(" + std::to_string(k) + ", " + std::to_string(n) +
                              "), or flatten the input first: glassgrad.flatten(x)")
                         .str());
  }
  if (k != kb) {
    ErrorMessage msg("inner sizes differ: a is " + matrix_str(a.shape) + " and b is " + matrix_str(b.shape));
    msg.detail("a: " + a.str()).detail("b: " + b.str());
    msg.detail("a @ b needs a's last size (" + std::to_string(k) + ") to equal b's second-to-last size (" +
               std::to_string(kb) + ")");
    if (n == k) {
      msg.fix("did you mean b.T? a @ b.T multiplies [" + std::to_string(m) + ", " + std::to_string(k) + "] by [" +
              std::to_string(n) + ", " + std::to_string(kb) + "]");
    } else if (m == kb) {
      msg.fix("did you mean a.T? a.T @ b multiplies [" + std::to_string(k) + ", " + std::to_string(m) + "] by [" +
              std::to_string(kb) + ", " + std::to_string(n) + "]");
    } else {
      msg.fix("reshape or transpose one side so that a is [..., M, K] and b is [..., K, N]");
    }
    ctx.fail(msg);
  }
  Shape batch;
  if (!broadcast_shapes(batch_of(a.shape), batch_of(b.shape), batch)) {
    ctx.fail(ErrorMessage("batch axes " + shape_str(batch_of(a.shape)) + " and " + shape_str(batch_of(b.shape)) +
                          " cannot be broadcast together")
                 .detail("a: " + a.str())
                 .detail("b: " + b.str())
                 .detail("MatMul multiplies the last two axes and broadcasts the ones before, like numpy.matmul")
                 .fix("give both the same leading axes, or size 1 where one side should be reused"));
  }
  if (ctx.num_inputs() > 2) {
    ctx.expect_same_dtype(0, 2);
    const TensorInfo& bias = ctx.in(2);
    if (bias.shape != Shape{n}) {
      ctx.fail(ErrorMessage("the bias must have shape [" + std::to_string(n) + "] (one value per output column), got " +
                            shape_str(bias.shape))
                   .detail("b: " + b.str())
                   .detail("bias: " + bias.str())
                   .fix("add a bias of another shape with a separate Add: (a @ b) + bias"));
    }
  }
  Shape out = batch;
  out.push_back(m);
  out.push_back(n);
  return {ops::with_shape(a, out)};
}

// Whether v is a Permute that swaps the two axes of a matrix (weight.T).
bool is_transpose(const Graph& g, ValueId v) {
  const NodeId p = g.value(v).producer;
  if (p == kNoNode) return false;
  const Node& n = g.node(p);
  return n.op() == "Permute" && n.attrs.has("dims") && n.attrs.ints("dims") == swap_last_two(2);
}

void matmul_gradient(GradContext& c) {
  const ValueId g = c.grad_output(0);
  if (g == kNoValue) return;
  const ValueId a = c.input(0), b = c.input(1);
  if (c.needs_grad(0)) {
    const ValueId bt = c.emit("Permute", {b}, Attrs{{"dims", swap_last_two(c.shape(b).size())}});
    c.set_grad(0, c.reduce_to(c.emit("MatMul", {g, bt}), c.shape(a)));
  }
  if (c.needs_grad(1) && c.shape(b).size() == 2 && c.shape(a).size() > 2) {
    const Shape sa = c.shape(a), sg = c.shape(g);
    const int64_t rows = numel(Shape(sa.begin(), sa.end() - 1));  // batch axes times M
    const ValueId a2 = c.emit("Reshape", {a}, Attrs{{"shape", Shape{rows, sa.back()}}});
    const ValueId g2 = c.emit("Reshape", {g}, Attrs{{"shape", Shape{rows, sg.back()}}});
    if (is_transpose(c.graph(), b)) {
      const ValueId gt = c.emit("Permute", {g2}, Attrs{{"dims", swap_last_two(2)}});
      const ValueId dbt = c.emit("MatMul", {gt, a2});  // [N, K]: w's gradient, dense
      c.set_grad(1, c.emit("Permute", {dbt}, Attrs{{"dims", swap_last_two(2)}}));
    } else {
      const ValueId at = c.emit("Permute", {a2}, Attrs{{"dims", swap_last_two(2)}});
      c.set_grad(1, c.emit("MatMul", {at, g2}));
    }
  } else if (c.needs_grad(1)) {
    const ValueId at = c.emit("Permute", {a}, Attrs{{"dims", swap_last_two(c.shape(a).size())}});
    c.set_grad(1, c.reduce_to(c.emit("MatMul", {at, g}), c.shape(b)));
  }
  if (c.num_inputs() > 2 && c.needs_grad(2)) c.set_grad(2, c.reduce_to(g, c.shape(c.input(2))));
}

void matmul(OpSchema& s) {
  s.layer_parameter = "weight.T";  // Linear records x @ weight.T
  s.strided_inputs = true;
  s.infer = matmul_infer;
  s.gradient = matmul_gradient;
}

}  // namespace

void register_matmul_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/matmul.def"
}

}  // namespace glassgrad
