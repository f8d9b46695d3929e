// Scans and sorts along one axis `dim`, the rows of families/scan.def (normalized by the rules below; the kernels view the input
// as [outer, n, inner], n its size along dim):
//
//   CumSum(x){dim, reverse}:  out_j = sum_{i <= j} x_i        (reverse: sum_{i >= j} x_i)
//   CumProd(x){dim}:          out_j = prod_{i <= j} x_i
//   CumProdBackward(grad, x, y){dim}, y = CumProd(x):
//       dx_i = sum_{j >= i} grad_j * prod_{k <= j, k != i} x_k
//     exact with zeros among the factors: with z the first k where x_k = 0,
//       dx_i = (sum_{i <= j < z} grad_j y_j) / x_i         (i < z)
//       dx_z = sum_{j >= z} grad_j * y_{z-1} * prod_{z < k <= j} x_k   (y_{-1} = 1)
//       dx_i = 0                                               (i > z)
//   Sort(x){dim, descending}: (values, indices) along dim, ascending (descending), NaN the
//       largest value, equal values in their input order (stable); indices int64
//   TopK(x){dim, k, largest}: the first k of Sort(x){descending = largest}
//   Flip(x){dim}:             out_j = x_{n-1-j}: the line reversed (any dtype)
//
// Gradients: Flip's is Flip of the incoming gradient; CumSum's is CumSum of it in the other
// direction; CumProd's is
// CumProdBackward (no gradient of its own: a double backward raises naming it). Sort and TopK
// pass none: the Python functions select the values from x by the indices when x needs a
// gradient (glassgrad/_scans.py), so the gradient reaches the elements the values came from.
// dtypes: float32, float64, int64 (Python converts bool and uint8 first, as PyTorch's cumsum
// promotes them to int64).
#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

int scan_dim(const ShapeContext& ctx) {
  const int rank = ctx.in(0).rank();
  if (rank == 0) ctx.fail(ErrorMessage("needs at least one dim, got a 0-d input").fix("x.reshape(1)"));
  return ctx.axis("dim", ctx.attrs().i("dim"), rank);
}

void expect_sortable(const ShapeContext& ctx, int i) {
  const DType dt = ctx.in(i).dtype;
  if (dt != DType::Float32 && dt != DType::Float64 && dt != DType::Int64) {
    ctx.fail(ErrorMessage(std::string("takes float32, float64 or int64, got ") + dtype_name(dt) + " " +
                          shape_str(ctx.in(i).shape))
                 .fix("x.long() or x.float() first"),
             true);
  }
}

// The attributes with dim normalized, for the nodes a gradient emits.
Attrs dim_attrs(const GradContext& c) {
  const int rank = static_cast<int>(c.shape(c.input(0)).size());
  return Attrs{{"dim", static_cast<int64_t>(normalize_axis(c.attrs().i("dim"), rank))}};
}

// The rule of a scan: out has x's shape and dtype.
std::vector<TensorInfo> scan_infer(const ShapeContext& ctx) {
  scan_dim(ctx);
  expect_sortable(ctx, 0);
  return std::vector<TensorInfo>{ctx.in(0)};
}

}  // namespace

void cumsum(OpSchema& s) {
  s.infer = scan_infer;
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    Attrs a = dim_attrs(c);
    a.set("reverse", !c.attrs().b("reverse", false));
    c.set_grad(0, c.emit("CumSum", {c.grad_output(0)}, a));
  };
}

void cumprod(OpSchema& s) {
  s.infer = scan_infer;
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    c.set_grad(0, c.emit("CumProdBackward", {c.grad_output(0), c.input(0), c.output(0)}, dim_attrs(c)));
  };
}

void cumprod_backward(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    scan_dim(ctx);
    ctx.expect_float(0);
    ctx.expect_same_dtype(0, 1);
    ctx.expect_same_dtype(0, 2);
    ops::expect_same_shape(ctx, 0, 1, "grad", "x");
    ops::expect_same_shape(ctx, 0, 2, "grad", "y");
    return std::vector<TensorInfo>{ctx.in(0)};
  };
}

void flip(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    scan_dim(ctx);
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("Flip", {c.grad_output(0)}, dim_attrs(c)));
  };
}

void sort(OpSchema& s) {
  s.stops_gradient = true;
  s.infer = [](const ShapeContext& ctx) {
    scan_dim(ctx);
    expect_sortable(ctx, 0);
    return std::vector<TensorInfo>{ctx.in(0), ops::with_dtype(ctx.in(0), DType::Int64)};
  };
}

void topk(OpSchema& s) {
  s.stops_gradient = true;
  s.infer = [](const ShapeContext& ctx) {
    const int d = scan_dim(ctx);
    expect_sortable(ctx, 0);
    const int64_t n = ctx.in(0).shape[static_cast<size_t>(d)];
    const int64_t k = ctx.attrs().i("k");
    if (k < 0 || k > n) {
      ops::bad_attr(ctx, "k", "in [0, " + std::to_string(n) + "] (the size of dim " + std::to_string(d) + ")",
                    std::to_string(k));
    }
    Shape out = ctx.in(0).shape;
    out[static_cast<size_t>(d)] = k;
    const TensorInfo values = ops::with_shape(ctx.in(0), out);
    return std::vector<TensorInfo>{values, ops::with_dtype(values, DType::Int64)};
  };
}

void register_scan_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/scan.def"
}

}  // namespace glassgrad
