// Movement ops (the rows of families/movement.def): Detach, Reshape, Permute, Slice (+
// SliceBackward), Expand, Contiguous, Concat, Assign. Detach, Reshape, Permute, Slice and Expand are views
// of their input (no copy) whenever the layout allows; see views.h.
#include <algorithm>

#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

Shape resolve_shape(const ShapeContext& ctx, const Shape& req, int64_t n) {
  Shape out = req;
  int infer = -1;
  Shape known_sizes;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (out[i] < 0) {
      ops::bad_attr(ctx, "shape", "sizes >= 0 with at most one -1", shape_str(req));
    } else {
      known_sizes.push_back(out[i]);
    }
  }
  try {  // the message's context is spelled out only once the check has failed (graph.cpp, infer_node)
    check_shape(known_sizes, ctx.in(0).dtype, std::string());
  } catch (const ShapeError&) {
    check_shape(known_sizes, ctx.in(0).dtype, ctx.where() + ": the requested shape " + shape_str(req));
    throw;
  }
  const int64_t known = numel(known_sizes);
  if (infer >= 0 && known > 0 && n % known == 0) out[static_cast<size_t>(infer)] = n / known;
  if (infer >= 0 && out[static_cast<size_t>(infer)] < 0) out[static_cast<size_t>(infer)] = 0;
  if (numel(out) != n) {
    ctx.fail(ErrorMessage("cannot reshape " + shape_str(ctx.in(0).shape) + " (" + std::to_string(n) +
                          " elements) into " + shape_str(req))
                 .fix("the sizes must multiply to " + std::to_string(n) + "; use -1 for one size to infer it"));
  }
  return out;
}

// A view op x -> out: a no-copy view of x whose layout `view` gives (when it cannot, the op's
// kernel copies), reading any strides.
void view_op(OpSchema& s, ViewFn view) {
  s.view_of = 0;
  s.strided_inputs = true;
  s.view = std::move(view);
}

Shape slice_shape(const ShapeContext& ctx, const Shape& in) {
  const Attrs& a = ctx.attrs();
  const int64_t dim = a.i("dim"), start = a.i("start"), stop = a.i("stop"), step = a.i("step", 1);
  if (dim < 0 || dim >= static_cast<int64_t>(in.size())) {
    ops::bad_attr(ctx, "dim", "in [0, " + std::to_string(in.size()) + ")", std::to_string(dim));
  }
  const int64_t n = in[static_cast<size_t>(dim)];
  if (step < 1) ops::bad_attr(ctx, "step", ">= 1", std::to_string(step));
  if (start < 0 || start > stop || stop > n) {
    ops::bad_attr(ctx, "the slice", "within [0, " + std::to_string(n) + "] with start <= stop",
                  std::to_string(start) + ":" + std::to_string(stop));
  }
  Shape out = in;
  out[static_cast<size_t>(dim)] = slice_length(start, stop, step);
  return out;
}

void detach(OpSchema& s) {
  view_op(s, [](const Attrs&, const Layout& in, const Shape&, Layout& out) {
    out = in;
    return true;
  });
  s.stops_gradient = true;
  s.infer = [](const ShapeContext& ctx) { return std::vector<TensorInfo>{ctx.in(0)}; };
}

void reshape(OpSchema& s) {
  view_op(s, [](const Attrs& a, const Layout& in, const Shape& out_shape, Layout& out) {
    if (!reshape_view(in, out_shape, out)) return false;
    if (a.has("view_strides")) set_view_strides(a.ints("view_strides"), in, out);
    return true;
  });
  s.infer = [](const ShapeContext& ctx) {
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), resolve_shape(ctx, ctx.attrs().ints("shape"), ctx.in(0).numel()))};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    c.set_grad(0, c.emit("Reshape", {c.grad_output(0)}, Attrs{{"shape", c.shape(c.input(0))}}));
  };
}

void permute(OpSchema& s) {
  view_op(s, [](const Attrs& a, const Layout& in, const Shape&, Layout& out) {
    out = permute_view(in, a.ints("dims"));
    return true;
  });
  s.infer = [](const ShapeContext& ctx) {
    const auto& dims = ctx.attrs().ints("dims");
    const int rank = ctx.in(0).rank();
    std::vector<char> seen(static_cast<size_t>(rank), 0);
    bool ok = static_cast<int>(dims.size()) == rank;
    for (int64_t d : dims) {
      ok = ok && d >= 0 && d < rank && !seen[static_cast<size_t>(d)];
      if (ok) seen[static_cast<size_t>(d)] = 1;
    }
    if (!ok) ops::bad_attr(ctx, "dims", "a permutation of 0.." + std::to_string(rank - 1), shape_str(dims));
    Shape out;
    for (int64_t d : dims) out.push_back(ctx.in(0).shape[static_cast<size_t>(d)]);
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), out)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    const auto& dims = c.attrs().ints("dims");
    std::vector<int64_t> inv(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) inv[static_cast<size_t>(dims[i])] = static_cast<int64_t>(i);
    c.set_grad(0, c.emit("Permute", {c.grad_output(0)}, Attrs{{"dims", inv}}));
  };
}

void slice(OpSchema& s) {
  view_op(s, [](const Attrs& a, const Layout& in, const Shape&, Layout& out) {
    out = slice_view(in, static_cast<int>(a.i("dim")), a.i("start"), a.i("stop"), a.i("step", 1));
    return true;
  });
  s.infer = [](const ShapeContext& ctx) {
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), slice_shape(ctx, ctx.in(0).shape))};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    Attrs a = c.attrs();
    a.set("shape", c.shape(c.input(0)));
    c.set_grad(0, c.emit("SliceBackward", {c.grad_output(0)}, a));
  };
}

void slice_backward(OpSchema& s) {
  s.strided_inputs = true;
  s.infer = [](const ShapeContext& ctx) {
    const Shape full = ctx.attrs().ints("shape");
    const Shape want = slice_shape(ctx, full);
    if (want != ctx.in(0).shape) {
      ctx.fail(ErrorMessage("grad has shape " + shape_str(ctx.in(0).shape) + ", the slice of " +
                            shape_str(full) + " has shape " + shape_str(want)));
    }
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), full)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    Attrs a = c.attrs();
    c.set_grad(0, c.emit("Slice", {c.grad_output(0)},
                         Attrs{{"dim", a.i("dim")}, {"start", a.i("start")}, {"stop", a.i("stop")}, {"step", a.i("step", 1)}}));
  };
}

void expand(OpSchema& s) {
  view_op(s, [](const Attrs&, const Layout& in, const Shape& out_shape, Layout& out) {
    out = expand_view(in, out_shape);
    return true;
  });
  s.infer = [](const ShapeContext& ctx) {
    const Shape want = ctx.attrs().ints("shape");
    Shape b;
    if (want.size() < ctx.in(0).shape.size() || !broadcast_shapes(ctx.in(0).shape, want, b) || b != want) {
      ctx.fail(ErrorMessage("cannot expand " + shape_str(ctx.in(0).shape) + " to " + shape_str(want))
                   .cause("only size-1 axes can be stretched, and new axes go in front"));
    }
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), want)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    c.set_grad(0, c.reduce_to(c.grad_output(0), c.shape(c.input(0))));
  };
}

void contiguous(OpSchema& s) {
  s.strided_inputs = true;
  s.infer = [](const ShapeContext& ctx) { return std::vector<TensorInfo>{ctx.in(0)}; };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) != kNoValue) c.set_grad(0, c.grad_output(0));
  };
}

// Concat(x0, x1, ...): the inputs joined along `dim` (0 <= dim < rank, the Python side resolves
// negative dims), each written once into its own range of the output; its gradient is a Slice of
// the output's gradient per input (a view: nothing is copied). torch.cat and torch.stack record one
// node for any number of pieces up to the row's 256 (a longer list is joined in groups), where a
// sum of placed pieces was O(pieces x output) work.
void concat(OpSchema& s) {
  s.strided_inputs = true;
  s.infer = [](const ShapeContext& ctx) {
    const TensorInfo& first = ctx.in(0);
    const int64_t dim = ctx.attrs().i("dim");
    const int rank = first.rank();
    if (rank == 0) {
      ctx.fail(ErrorMessage("zero-dimensional tensor 0 cannot be concatenated")
                   .fix("join 0-d tensors with stack, or reshape them to [1] first"));
    }
    if (dim < 0 || dim >= rank) ops::bad_attr(ctx, "dim", "in [0, " + std::to_string(rank) + ")", std::to_string(dim));
    ops::expect_one_dtype_and_device(
        ctx, "the pieces of one Concat share one dtype and one device",
        "convert the pieces first (x.to(dtype) / x.to(device)); glassgrad.cat promotes dtypes itself");
    Shape out = first.shape;
    out[static_cast<size_t>(dim)] = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const TensorInfo& t = ctx.in(i);
      bool same = t.rank() == rank;
      for (int k = 0; same && k < rank; ++k) {
        same = k == dim || t.shape[static_cast<size_t>(k)] == first.shape[static_cast<size_t>(k)];
      }
      if (!same) {
        ctx.fail(ErrorMessage("input " + std::to_string(i) + " has shape " + shape_str(t.shape) + ", input 0 has " +
                              shape_str(first.shape) + "; they may differ along dim " + std::to_string(dim) + " only")
                     .fix("make the other sizes equal (reshape or pad the pieces)"));
      }
      out[static_cast<size_t>(dim)] += t.shape[static_cast<size_t>(dim)];
    }
    return std::vector<TensorInfo>{ops::with_shape(first, out)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    const int64_t dim = c.attrs().i("dim");
    int64_t start = 0;
    for (int i = 0; i < c.num_inputs(); ++i) {
      const int64_t n = c.shape(c.input(i))[static_cast<size_t>(dim)];
      if (c.needs_grad(i)) {
        c.set_grad(i, c.emit("Slice", {c.grad_output(0)},
                             Attrs{{"dim", dim}, {"start", start}, {"stop", start + n}, {"step", int64_t{1}}}));
      }
      start += n;
    }
  };
}

// Assign(target, value): value's elements written into the target's buffer (same shape and dtype;
// value may be strided and must not overlap target other than exactly): the in-place updates of
// stored tensors (docs/architecture.md, "Tensors are functionalized") and of optimizer state
// without an update op of its own (RMSprop; BatchNorm's num_batches_tracked).
void assign(OpSchema& s) {
  s.strided_inputs = true;  // value may be a view; target is the in-place output (dense)
  s.inplace = {{0, 0}};
  s.stops_gradient = true;
  s.infer = [](const ShapeContext& ctx) {
    const TensorInfo& t = ctx.in(0);
    const TensorInfo& v = ctx.in(1);
    if (t.shape != v.shape) {
      ctx.fail(ErrorMessage("value has shape " + shape_str(v.shape) + " but the target has shape " +
                            shape_str(t.shape))
                   .detail("target: " + t.str())
                   .detail("value: " + v.str())
                   .fix("compute the new value with the target's shape"));
    }
    ctx.expect_same_dtype(0, 1);
    return std::vector<TensorInfo>{t};
  };
}

}  // namespace

void register_movement_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/movement.def"
}

}  // namespace glassgrad
