// Collective ops: the nodes through which data-parallel training talks to the other ranks
// (DistributedDataParallel's gradient buckets, SyncBatchNorm's statistics). The engine only
// knows their shapes; the runtime's kernels hand the buffers to the communicator registered
// under the node's `group` (glassgrad/runtime/communicator.h: NCCL on CUDA, MPI on the CPU).
//
//   AllReduce(x){group, op = "sum" | "average", world_size, bucket = -1} -> out
//       out = sum over the W = world_size ranks of x_r   (op "average": divided by W)
//     With bucket >= 0 the reduction may still be in flight when the kernel returns (on CUDA it
//     runs on the communicator's own stream); AllReduceWait with the same group and bucket is
//     where the step waits for it, so backward work recorded in between overlaps it.
//   AllReduceWait(x){group, bucket} -> out
//       out = x, once bucket `bucket`'s all-reduce (which produced x) has finished.
//     Gradient: the map x_r -> y_s = c * sum_r x_r (c = 1 or 1/W) is linear with the same
//     coefficient from every rank to every rank, so its adjoint is itself:
//       dL/dx_r = sum_s c * dL/dy_s = AllReduce(dL/dy)  with the same op.
//     (This is what makes SyncBatchNorm's backward exact when it is built from primitives.)
//   BucketPack(g0, ..., g{k-1}) -> flat [sum numel(g_i)]
//       flat = concat(flatten(g_0), ..., flatten(g_{k-1}))  (one dtype, one device)
//     The bucket of a gradient all-reduce: one message instead of k. Its inverse is views:
//     Reshape(Slice(flat, off_i, off_i + numel(g_i)), shape(g_i)), no copy. It only appears in
//     backward graphs, so it has no gradient rule.
//
// All keep has_side_effects: every rank must issue the same collectives in the same order, so
// dead-code elimination may not drop one on some ranks (an unused all-reduce is still a
// rendezvous the other ranks wait for).
#include "glassgrad/autodiff/families/collective.h"

#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

CollectiveAttrs CollectiveAttrs::from(const Attrs& a) {
  CollectiveAttrs c;
  c.group = a.i("group", c.group);
  c.average = a.has("op") && a.s("op") == "average";
  c.world_size = a.i("world_size", c.world_size);
  c.bucket = a.i("bucket", c.bucket);
  return c;
}

namespace {

void all_reduce(OpSchema& s) {
  s.has_side_effects = true;
  s.infer = [](const ShapeContext& ctx) {
    const Attrs& a = ctx.attrs();
    const std::string& op = a.s("op");
    if (op != "sum" && op != "average") ops::bad_attr(ctx, "op", "\"sum\" or \"average\"", op);
    if (a.i("world_size") < 1) ops::bad_attr(ctx, "world_size", ">= 1", std::to_string(a.i("world_size")));
    if (a.i("group") < 0) ops::bad_attr(ctx, "group", ">= 0 (a registered communicator)", std::to_string(a.i("group")));
    if (!is_floating(ctx.in(0).dtype) && op == "average") {
      ops::bad_attr(ctx, "op", "\"sum\" for integer tensors", op, "all-reduce with op \"sum\" and divide afterwards");
    }
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    Attrs a = c.attrs();
    a.set("bucket", int64_t{-1});  // synchronous: the adjoint has no wait node
    c.set_grad(0, c.emit("AllReduce", {c.grad_output(0)}, a));
  };
}

void all_reduce_wait(OpSchema& s) {
  s.has_side_effects = true;
  s.stops_gradient = true;
  s.infer = [](const ShapeContext& ctx) {
    if (ctx.attrs().i("bucket") < 0) ops::bad_attr(ctx, "bucket", ">= 0", std::to_string(ctx.attrs().i("bucket")));
    ctx.attrs().i("group");
    return std::vector<TensorInfo>{ctx.in(0)};
  };
}

void bucket_pack(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    ops::expect_one_dtype_and_device(ctx, "a bucket is one message: its gradients share one dtype and one device",
                                     "plan buckets with plan_gradient_buckets, which splits at dtype and device changes");
    int64_t n = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) n += ctx.in(i).numel();
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), Shape{n})};
  };
}

}  // namespace

void register_collective_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/collective.def"
}

}  // namespace glassgrad
