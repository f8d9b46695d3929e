// Movement ops: Reshape, Permute, Slice (+ SliceBackward), Expand. All but SliceBackward are
// views of their input (no copy) whenever the layout allows; see views.h.
#include <algorithm>

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
  check_shape(known_sizes, ctx.in(0).dtype, ctx.where() + ": the requested shape " + shape_str(req));
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

// The schema of a view op x -> out: a no-copy view of x whose layout `view` gives (when it cannot,
// the op's kernel copies), reading any strides.
OpSchema view_schema(const char* name, const char* formula, ViewFn view) {
  OpSchema s;
  s.name = name;
  s.inputs = {"x"};
  s.outputs = {"out"};
  s.view_of = 0;
  s.strided_inputs = true;
  s.formula = formula;
  s.view = std::move(view);
  return s;
}

}  // namespace

void register_movement_ops(OpRegistry& r) {
  {
    OpSchema s = view_schema("Detach", "out = x, with no gradient flowing back",
                             [](const Attrs&, const Layout& in, const Shape&, Layout& out) {
      out = in;
      return true;
    });
    s.stops_gradient = true;
    s.infer = [](const ShapeContext& ctx) { return std::vector<TensorInfo>{ctx.in(0)}; };
    r.add(std::move(s));
  }
  {
    OpSchema s = view_schema("Reshape", "out = x with a new shape (same elements, row-major order)",
                             [](const Attrs&, const Layout& in, const Shape& out_shape, Layout& out) {
      return reshape_view(in, out_shape, out);
    });
    s.infer = [](const ShapeContext& ctx) {
      return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), resolve_shape(ctx, ctx.attrs().ints("shape"), ctx.in(0).numel()))};
    };
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      c.set_grad(0, c.emit("Reshape", {c.grad_output(0)}, Attrs{{"shape", c.shape(c.input(0))}}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = view_schema("Permute", "out[i_dims[0], ...] = x[i_0, ...]: axes reordered",
                             [](const Attrs& a, const Layout& in, const Shape&, Layout& out) {
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
    r.add(std::move(s));
  }
  auto slice_infer = [](const ShapeContext& ctx, const Shape& in) {
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
  };
  {
    OpSchema s = view_schema("Slice", "out = x[..., start:stop:step, ...] along dim",
                             [](const Attrs& a, const Layout& in, const Shape&, Layout& out) {
      out = slice_view(in, static_cast<int>(a.i("dim")), a.i("start"), a.i("stop"), a.i("step", 1));
      return true;
    });
    s.infer = [slice_infer](const ShapeContext& ctx) {
      return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), slice_infer(ctx, ctx.in(0).shape))};
    };
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      Attrs a = c.attrs();
      a.set("shape", c.shape(c.input(0)));
      c.set_grad(0, c.emit("SliceBackward", {c.grad_output(0)}, a));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "SliceBackward";
    s.inputs = {"grad"};
    s.outputs = {"dx"};
    s.strided_inputs = true;
    s.formula = "dx = zeros(shape); dx[..., start:stop:step, ...] = grad";
    s.infer = [slice_infer](const ShapeContext& ctx) {
      const Shape full = ctx.attrs().ints("shape");
      const Shape want = slice_infer(ctx, full);
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
    r.add(std::move(s));
  }
  {
    OpSchema s = view_schema("Expand", "out = x broadcast to shape (stretched axes read the same element)",
                             [](const Attrs&, const Layout& in, const Shape& out_shape, Layout& out) {
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
    r.add(std::move(s));
  }
}

}  // namespace glassgrad
