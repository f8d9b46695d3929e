// Creation and conversion ops (the rows of families/creation.def): Full, Cast, ToDevice.
#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

void full(OpSchema& s) {
  s.dispatch_input = -1;
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
}

void cast(OpSchema& s) {
  s.elementwise = true;
  s.strided_inputs = true;
  s.infer = [](const ShapeContext& ctx) {
    return std::vector<TensorInfo>{ops::with_dtype(ctx.in(0), ops::dtype_attr(ctx))};
  };
  s.gradient = [](GradContext& c) {
    const TensorInfo& x = c.info(c.input(0));
    if (!is_floating(x.dtype) || c.grad_output(0) == kNoValue) return;
    c.set_grad(0, c.emit("Cast", {c.grad_output(0)}, Attrs{{"dtype", std::string(dtype_name(x.dtype))}}));
  };
}

void to_device(OpSchema& s) {
  s.same_device = false;
  s.infer = [](const ShapeContext& ctx) {
    TensorInfo t = ctx.in(0);
    t.device = Device::parse(ctx.attrs().s("device"));
    return std::vector<TensorInfo>{t};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    c.set_grad(0, c.emit("ToDevice", {c.grad_output(0)}, Attrs{{"device", c.info(c.input(0)).device.str()}}));
  };
}

}  // namespace

void register_creation_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/creation.def"
}

}  // namespace glassgrad
