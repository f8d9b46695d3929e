// Indexing ops: reading and writing elements named by int64 index tensors. With p a position of
// the index (or of the broadcast indices), p[dim <- i] that position with its dim-th coordinate
// replaced by i, and 0 <= index values < the size of the indexed axis (the kernels check it and
// name the bad value, its position and the axis):
//
//   Gather(x, index){dim}                  out[p] = x[p[dim <- index[p]]]             out: index's shape
//   Scatter(x, index, src){dim, reduce}    out = x; out[p[dim <- index[p]]] (=, +=, *=) src[p]
//                                          for every position p of index (reduce "none", "add",
//                                          "multiply"); src may be larger than index
//   IndexSelect(x, index){dim}             out[..., j, ...] = x[..., index[j], ...]   (index 1-d)
//   IndexAdd(x, index, src){dim}           out = x; out[..., index[j], ...] += src[..., j, ...]
//   Index(x, i_0..i_k-1){dims}             out = x[..., i_0, ..., i_k-1, ...]: NumPy's advanced
//                                          indexing at the ascending axes dims, the indices
//                                          broadcast together (indexing.h: where their axes go);
//                                          negative values count from the end
//   IndexPut(x, values, i_0..){dims, accumulate}
//                                          out = x; out[i_0, ...] = values (+= with accumulate),
//                                          values broadcast to the shape of x[i_0, ...]
//   SliceScatter(x, src){dim, start, stop, step}
//                                          out = x; out[..., start:stop:step, ...] = src
//
// Duplicate indices: a plain write keeps one of the values (which one is unspecified, as in
// PyTorch); an accumulating one adds every value (in index order on the CPU and in
// deterministic mode on CUDA; in any order with atomics otherwise).
//
// Gradients (g = d out), each the adjoint of a linear map in the differentiated input:
//   Gather       dx = Scatter(zeros, index, g){add}            (repeated indices accumulate)
//   Scatter      none:  dx = Scatter(g, index, 0){none}  (written elements get no gradient),
//                       dsrc = Gather(g, index)
//                add:   dx = g,  dsrc = Gather(g, index);  multiply: not differentiable
//   IndexSelect  dx = IndexAdd(zeros, index, g)
//   IndexAdd     dx = g,  dsrc = IndexSelect(g, index)
//   Index        dx = IndexPut(zeros, g, i...){accumulate}
//   IndexPut     dx = accumulate ? g : IndexPut(g, 0, i...),  dvalues = sum to values' shape of Index(g, i...)
//   SliceScatter dx = SliceScatter(g, zeros),  dsrc = Slice(g)
//
// The writing ops (Scatter, IndexAdd, IndexPut, SliceScatter) copy x into out and then write:
// their kernels skip the copy when out is x's buffer, so the memory planner may give out x's
// buffer when x dies there (OpSchema::overwrites_input): an in-place write then costs only
// the elements it writes.
#include <algorithm>

#include "glassgrad/autodiff/family.h"
#include "glassgrad/autodiff/indexing.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

// Index input i must be an int64 tensor on x's device.
void expect_index(const ShapeContext& ctx, int i, const char* name) {
  const TensorInfo& t = ctx.in(i);
  if (t.dtype == DType::Int64) return;
  ctx.fail(ErrorMessage(std::string(name) + " must be an int64 tensor, got " + t.str())
               .fix(std::string("convert it: ") + name + ".long()"),
           true);
}

int dim_attr(const ShapeContext& ctx, int rank) {
  return ctx.axis("dim", ctx.attrs().i("dim"), std::max(rank, 1));
}

// Gather/Scatter: index has x's rank (a 0-d x or index counts as 1-d) and, along every axis but
// dim, at most x's size (and at most src's size along every axis, for Scatter).
void expect_fits(const ShapeContext& ctx, int dim, bool with_src) {
  const Shape& x = ctx.in(0).shape;
  const Shape& index = ctx.in(1).shape;
  const int rx = std::max<int>(static_cast<int>(x.size()), 1), ri = std::max<int>(static_cast<int>(index.size()), 1);
  if (rx != ri) {
    ctx.fail(ErrorMessage("index has " + std::to_string(index.size()) + " dimensions but the input has " +
                          std::to_string(x.size()) + " " + shape_str(index) + " vs " + shape_str(x))
                 .cause("gather and scatter take an index with as many dimensions as the input")
                 .fix("reshape the index, e.g. index.unsqueeze(" + std::to_string(dim) + ")"));
  }
  for (size_t d = 0; d < index.size(); ++d) {
    const bool over_x = static_cast<int>(d) != dim && d < x.size() && index[d] > x[d];
    const bool over_src = with_src && (ctx.in(2).rank() != static_cast<int>(index.size()) || index[d] > ctx.in(2).shape[d]);
    if (!over_x && !over_src) continue;
    const Shape& other = over_x ? x : ctx.in(2).shape;
    ctx.fail(ErrorMessage("size does not match at dimension " + std::to_string(d) + ": expected index " +
                          shape_str(index) + " to be no larger than " + (over_x ? "the input " : "src ") +
                          shape_str(other) + (over_x ? " apart from dimension " + std::to_string(dim) : ""))
                 .fix("slice the index (or make src as large as the index)"));
  }
}

Attrs dim_only(const Attrs& a) { return Attrs{{"dim", a.i("dim")}}; }

// Index input 1 of IndexSelect/IndexAdd: an int64 tensor of at most one axis.
void expect_index_1d(const ShapeContext& ctx) {
  expect_index(ctx, 1, "index");
  if (ctx.in(1).rank() > 1) {
    ctx.fail(ErrorMessage("index must be 1-d (or 0-d), got " + shape_str(ctx.in(1).shape))
                 .fix("flatten it: index.reshape(-1)"));
  }
}

// Index/IndexPut: `dims` ascending and distinct, one per index input (from input `first` on),
// each an int64 tensor; the indices broadcast together. Returns the geometry.
AdvancedIndex advanced_geometry(const ShapeContext& ctx, int first) {
  const Shape& x = ctx.in(0).shape;
  const int k = ctx.num_inputs() - first;
  const std::vector<int64_t>& dims = ctx.attrs().ints("dims");
  if (static_cast<int>(dims.size()) != k) {
    ops::bad_attr(ctx, "dims", "one axis per index tensor (" + std::to_string(k) + ")", shape_str(dims));
  }
  for (size_t j = 0; j < dims.size(); ++j) {
    if (dims[j] < 0 || dims[j] >= static_cast<int64_t>(x.size()) || (j > 0 && dims[j] <= dims[j - 1])) {
      ops::bad_attr(ctx, "dims", "ascending distinct axes of the " + std::to_string(x.size()) + "-d input",
                    shape_str(dims));
    }
  }
  Shape b;
  for (int j = 0; j < k; ++j) {
    expect_index(ctx, first + j, ("index " + std::to_string(j)).c_str());
    Shape next;
    if (!broadcast_shapes(b, ctx.in(first + j).shape, next)) {
      ctx.fail(ErrorMessage("shape mismatch: the index tensors cannot be broadcast together")
                   .detail("index " + std::to_string(j) + ": " + shape_str(ctx.in(first + j).shape) +
                           ", the indices before it broadcast to " + shape_str(b))
                   .fix("give the index tensors shapes that broadcast, e.g. rows[:, None] and cols[None, :]"));
    }
    b = next;
  }
  return advanced_index(x, dims, b);
}

void gather(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    expect_index(ctx, 1, "index");
    const int dim = dim_attr(ctx, ctx.in(0).rank());
    expect_fits(ctx, dim, false);
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), ctx.in(1).shape)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    Attrs a = dim_only(c.attrs());
    a.set("reduce", std::string("add"));
    c.set_grad(0, c.emit("Scatter", {ops::zeros_like(c, c.input(0)), c.input(1), c.grad_output(0)}, a));
  };
}

void scatter(OpSchema& s) {
  s.overwrites_input = 0;
  s.infer = [](const ShapeContext& ctx) {
    expect_index(ctx, 1, "index");
    ctx.expect_same_dtype(0, 2);
    const int dim = dim_attr(ctx, ctx.in(0).rank());
    const std::string reduce = ctx.attrs().has("reduce") ? ctx.attrs().s("reduce") : "none";
    if (reduce != "none" && reduce != "add" && reduce != "multiply") {
      ops::bad_attr(ctx, "reduce", "'none', 'add' or 'multiply'", "'" + reduce + "'");
    }
    if (reduce != "none" && ctx.in(0).dtype == DType::Bool) {
      ctx.fail(ErrorMessage("reduce='" + reduce + "' is not defined for bool tensors").fix("convert first: x.long()"),
               true);
    }
    expect_fits(ctx, dim, true);
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  s.gradient = [](GradContext& c) {
    const ValueId g = c.grad_output(0);
    if (g == kNoValue) return;
    const std::string reduce = c.attrs().has("reduce") ? c.attrs().s("reduce") : "none";
    if (reduce == "multiply") {
      throw UnsupportedError(ErrorMessage(node_where("Scatter", c.node().meta.scope) +
                                          ": scatter with reduce='multiply' has no gradient")
                                 .fix("compute the product out of place, e.g. with exp(scatter_add(log(...)))")
                                 .str());
    }
    if (c.needs_grad(0)) {
      if (reduce == "add") {
        c.set_grad(0, g);
      } else {
        const ValueId zero = c.scalar(0.0, g);
        const ValueId zeros = c.emit("Expand", {zero}, Attrs{{"shape", c.shape(c.input(1))}});
        Attrs a = dim_only(c.attrs());
        c.set_grad(0, c.emit("Scatter", {g, c.input(1), zeros}, a));
      }
    }
    if (c.needs_grad(2)) {
      if (c.shape(c.input(2)) != c.shape(c.input(1))) {
        throw UnsupportedError(ErrorMessage(node_where("Scatter", c.node().meta.scope) +
                                            ": the gradient of src needs src " + shape_str(c.shape(c.input(2))) +
                                            " to have the index's shape " + shape_str(c.shape(c.input(1))))
                                   .fix("pass src cut to the index's shape")
                                   .str());
      }
      c.set_grad(2, c.emit("Gather", {g, c.input(1)}, dim_only(c.attrs())));
    }
  };
}

void index_select(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    expect_index_1d(ctx);
    const int dim = dim_attr(ctx, ctx.in(0).rank());
    Shape out = ctx.in(0).shape;
    if (!out.empty()) out[static_cast<size_t>(dim)] = ctx.in(1).numel();
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), out)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    c.set_grad(0, c.emit("IndexAdd", {ops::zeros_like(c, c.input(0)), c.input(1), c.grad_output(0)}, dim_only(c.attrs())));
  };
}

void index_add(OpSchema& s) {
  s.overwrites_input = 0;
  s.infer = [](const ShapeContext& ctx) {
    expect_index_1d(ctx);
    ctx.expect_same_dtype(0, 2);
    if (ctx.in(0).dtype == DType::Bool) {
      ctx.fail(ErrorMessage("index_add is not defined for bool tensors").fix("convert first: x.long()"), true);
    }
    const int dim = dim_attr(ctx, ctx.in(0).rank());
    Shape want = ctx.in(0).shape;
    if (!want.empty()) want[static_cast<size_t>(dim)] = ctx.in(1).numel();
    if (ctx.in(2).shape != want && !(want.empty() && ctx.in(2).numel() == 1)) {
      ctx.fail(ErrorMessage("src has shape " + shape_str(ctx.in(2).shape) + " but adding " +
                            std::to_string(ctx.in(1).numel()) + " slices along dim " + std::to_string(dim) +
                            " of " + shape_str(ctx.in(0).shape) + " needs " + shape_str(want))
                   .fix("give src the input's shape with len(index) along dim"));
    }
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  s.gradient = [](GradContext& c) {
    const ValueId g = c.grad_output(0);
    if (g == kNoValue) return;
    if (c.needs_grad(0)) c.set_grad(0, g);
    if (c.needs_grad(2)) {
      ValueId d = c.emit("IndexSelect", {g, c.input(1)}, dim_only(c.attrs()));
      if (c.shape(d) != c.shape(c.input(2))) d = c.emit("Reshape", {d}, Attrs{{"shape", c.shape(c.input(2))}});
      c.set_grad(2, d);
    }
  };
}

void index(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), advanced_geometry(ctx, 1).result)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    std::vector<ValueId> ins{ops::zeros_like(c, c.input(0)), c.grad_output(0)};
    for (int j = 1; j < c.num_inputs(); ++j) ins.push_back(c.input(j));
    c.set_grad(0, c.emit("IndexPut", ins, Attrs{{"dims", c.attrs().ints("dims")}, {"accumulate", true}}));
  };
}

void index_put(OpSchema& s) {
  s.overwrites_input = 0;
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_same_dtype(0, 1);
    const AdvancedIndex a = advanced_geometry(ctx, 2);
    Shape b;
    if (!broadcast_shapes(ctx.in(1).shape, a.result, b) || b != a.result) {
      ctx.fail(ErrorMessage("shape mismatch: values of shape " + shape_str(ctx.in(1).shape) +
                            " cannot be broadcast to the indexing result of shape " + shape_str(a.result))
                   .fix("give values the shape of x[indices] (or one that broadcasts to it)"));
    }
    if (ctx.attrs().b("accumulate", false) && ctx.in(0).dtype == DType::Bool) {
      ctx.fail(ErrorMessage("accumulate=True is not defined for bool tensors").fix("convert first: x.long()"), true);
    }
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  s.gradient = [](GradContext& c) {
    const ValueId g = c.grad_output(0);
    if (g == kNoValue) return;
    std::vector<ValueId> idx;
    for (int j = 2; j < c.num_inputs(); ++j) idx.push_back(c.input(j));
    const std::vector<int64_t> dims = c.attrs().ints("dims");
    if (c.needs_grad(0)) {
      if (c.attrs().b("accumulate", false)) {
        c.set_grad(0, g);
      } else {
        std::vector<ValueId> ins{g, c.scalar(0.0, g)};
        ins.insert(ins.end(), idx.begin(), idx.end());
        c.set_grad(0, c.emit("IndexPut", ins, Attrs{{"dims", dims}}));
      }
    }
    if (c.needs_grad(1)) {
      std::vector<ValueId> ins{g};
      ins.insert(ins.end(), idx.begin(), idx.end());
      c.set_grad(1, c.reduce_to(c.emit("Index", ins, Attrs{{"dims", dims}}), c.shape(c.input(1))));
    }
  };
}

void slice_scatter(OpSchema& s) {
  s.overwrites_input = 0;
  s.strided_inputs = true;
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_same_dtype(0, 1);
    const Attrs& a = ctx.attrs();
    const Shape& x = ctx.in(0).shape;
    const int64_t dim = a.i("dim"), start = a.i("start"), stop = a.i("stop"), step = a.i("step", 1);
    if (dim < 0 || dim >= static_cast<int64_t>(x.size())) {
      ops::bad_attr(ctx, "dim", "in [0, " + std::to_string(x.size()) + ")", std::to_string(dim));
    }
    if (step < 1) ops::bad_attr(ctx, "step", ">= 1", std::to_string(step));
    const int64_t n = x[static_cast<size_t>(dim)];
    if (start < 0 || start > stop || stop > n) {
      ops::bad_attr(ctx, "the slice", "within [0, " + std::to_string(n) + "] with start <= stop",
                    std::to_string(start) + ":" + std::to_string(stop));
    }
    Shape want = x;
    want[static_cast<size_t>(dim)] = slice_length(start, stop, step);
    if (ctx.in(1).shape != want) {
      ctx.fail(ErrorMessage("src has shape " + shape_str(ctx.in(1).shape) + ", the slice has shape " + shape_str(want)));
    }
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  s.gradient = [](GradContext& c) {
    const ValueId g = c.grad_output(0);
    if (g == kNoValue) return;
    const Attrs& a = c.attrs();
    const Attrs slice{{"dim", a.i("dim")}, {"start", a.i("start")}, {"stop", a.i("stop")}, {"step", a.i("step", 1)}};
    if (c.needs_grad(0)) c.set_grad(0, c.emit("SliceScatter", {g, ops::zeros_like(c, c.input(1))}, slice));
    if (c.needs_grad(1)) c.set_grad(1, c.emit("Slice", {g}, slice));
  };
}

}  // namespace

void register_indexing_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/indexing.def"
}

}  // namespace glassgrad
