// FusedElementwise: a chain of elementwise ops run as one kernel (made by fuse_elementwise,
// see fusion.h). Inputs broadcast to the output shape like any elementwise op.
#include "glassgrad/autodiff/family.h"
#include "glassgrad/autodiff/fusion.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

void fused_elementwise(OpSchema& s) {
  s.elementwise = true;
  s.strided_inputs = true;
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
}

}  // namespace

void register_fused_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/fused.def"
}

}  // namespace glassgrad
