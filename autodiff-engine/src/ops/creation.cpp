// Creation and conversion ops: Full, Cast, ToDevice.
#include "op_helpers.h"

namespace glassgrad {

void register_creation_ops(OpRegistry& r) {
  {
    OpSchema s;
    s.name = "Full";
    s.outputs = {"out"};
    s.dispatch_input = -1;
    s.formula = "out[...] = value";
    s.infer = [](const ShapeContext& ctx) {
      TensorInfo t;
      t.shape = ctx.attrs().ints("shape");
      for (int64_t d : t.shape) {
        if (d < 0) ops::bad_attr(ctx, "shape", "made of sizes >= 0", shape_str(t.shape));
      }
      t.dtype = ops::dtype_attr(ctx);
      t.device = Device::parse(ctx.attrs().s("device"));
      return std::vector<TensorInfo>{t};
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "Cast";
    s.inputs = {"x"};
    s.outputs = {"out"};
    s.elementwise = true;
    s.strided_inputs = true;
    s.formula = "out = dtype(x)";
    s.infer = [](const ShapeContext& ctx) {
      return std::vector<TensorInfo>{ops::with_dtype(ctx.in(0), ops::dtype_attr(ctx))};
    };
    s.gradient = [](GradContext& c) {
      const TensorInfo& x = c.info(c.input(0));
      if (!is_floating(x.dtype) || c.grad_output(0) == kNoValue) return;
      c.set_grad(0, c.emit("Cast", {c.grad_output(0)}, Attrs{{"dtype", std::string(dtype_name(x.dtype))}}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "ToDevice";
    s.inputs = {"x"};
    s.outputs = {"out"};
    s.same_device = false;
    s.formula = "out = x, copied to another device";
    s.infer = [](const ShapeContext& ctx) {
      TensorInfo t = ctx.in(0);
      t.device = Device::parse(ctx.attrs().s("device"));
      return std::vector<TensorInfo>{t};
    };
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      c.set_grad(0, c.emit("ToDevice", {c.grad_output(0)}, Attrs{{"device", c.info(c.input(0)).device.str()}}));
    };
    r.add(std::move(s));
  }
}

}  // namespace glassgrad
