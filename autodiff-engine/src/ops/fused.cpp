// FusedElementwise: a chain of elementwise ops run as one kernel (made by fuse_elementwise,
// see fusion.h). Inputs broadcast to the output shape like any elementwise op.
#include "glassgrad/autodiff/fusion.h"
#include "op_helpers.h"

namespace glassgrad {

void register_fused_ops(OpRegistry& r) {
  OpSchema s;
  s.name = "FusedElementwise";
  s.inputs = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"};
  s.min_inputs = 1;
  s.outputs = {"out"};
  s.elementwise = true;
  s.strided_inputs = true;
  s.formula = "out = program(x0, x1, ...): an elementwise register program (attrs 'program', 'scalars')";
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_float(0);
    Shape shape = ctx.in(0).shape;
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      ctx.expect_same_dtype(0, i);
      Shape b;
      if (!broadcast_shapes(shape, ctx.in(i).shape, b)) {
        ctx.fail(ErrorMessage("inputs cannot be broadcast together: " + shape_str(shape) + " and " + shape_str(ctx.in(i).shape)));
      }
      shape = b;
    }
    FusedProgram::from_attrs(ctx.attrs(), ctx.num_inputs());  // validates the program
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), shape)};
  };
  r.add(std::move(s));
}

}  // namespace glassgrad
