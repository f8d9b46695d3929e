// Conv2D and its two backward ops. NCHW input, KCRS weight, with stride, padding, dilation and
// groups as in PyTorch (the geometry: glassgrad/autodiff/conv_geometry.h).
//
//   Conv2D(x [N,C,H,W], w [K,C/G,R,S], b [K]?) -> y [N,K,Ho,Wo]
//     y[n,k,i,j] = b[k] + sum_{c',r,s} x[n, g*C/G + c', i*sh + r*dh - pt, j*sw + s*dw - pl] * w[k,c',r,s]
//     with g = k / (K/G) (x is zero outside [0,H) x [0,W): padding is implicit)
//     Ho = (H + pt + pb - dh*(R-1) - 1) / sh + 1,  Wo likewise   (floor division)
//   attrs: stride [sh, sw] (>= 1), padding [pt, pb, pl, pr] (>= 0), dilation [dh, dw] (>= 1),
//   groups G (>= 1, dividing C and K); the Python layer turns 'same' / 'valid' into numbers.
//   A grouped conv is G independent convs side by side (channel slices of x, w and y), so every
//   formula below holds per group with C, K replaced by C/G, K/G; a dilated one is the undilated
//   formula with taps r*dh, s*dw.
//
// y is bilinear in (x, w): y = B(x, w). Writing <u, v> for the sum of elementwise products,
//   Conv2DBackwardInput(gy, w)  = dx with <B(x, w), gy> = <x, dx> for all x   (input_shape attr)
//   Conv2DBackwardWeight(x, gy) = dw with <B(x, w), gy> = <w, dw> for all w   (weight_shape attr)
// docs/architecture.md's "Convolution formulas", generalized to stride, padding and dilation
// (ungrouped; per group as above):
//   dx[n,c,h,v] = sum_{k,r,s : i = (h + pt - r*dh)/sh, j = (v + pl - s*dw)/sw integral and in range}
//                 gy[n,k,i,j] * w[k,c,r,s]
//   dw[k,c,r,s] = sum_{n,i,j} gy[n,k,i,j] * x[n, c, i*sh + r*dh - pt, j*sw + s*dw - pl]
//
// Gradient rules. Conv2D: dx and dw as above (each only if needed), db = Sum(gy, dims [0,2,3]).
// The backward ops are linear in each input, so their own gradients follow from the same
// identity (cotangent g has the shape of their output):
//   BackwardInput:  L = <BI(gy, w), g> = <B(g, w), gy>
//                   dL/dgy = Conv2D(g, w),           dL/dw = Conv2DBackwardWeight(g, gy)
//   BackwardWeight: L = <BW(x, gy), g> = <B(x, g), gy>
//                   dL/dx = Conv2DBackwardInput(gy, g), dL/dgy = Conv2D(x, g)
// which makes double backward (e.g. gradient penalties) work.
//
// Transposed convolution (ConvTranspose2d, F.conv_transpose2d) IS Conv2DBackwardInput: the
// adjoint of the convolution of its output-to-be by its weight, so PyTorch's weight layout
// [in_channels, out_channels / groups, kh, kw] is Conv2D's [K, C/G, R, S] with K = its input's
// channels, and the rules above give its gradients (input: Conv2D, weight:
// Conv2DBackwardWeight). Python records it with attribute transposed=true, which words this op's
// checks for that layer (its input is "input", the weight [in, out/groups, kh, kw]);
// output_padding and output_size only choose input_shape (and the bottom/right padding that keeps
// the geometry consistent: docs/transposed-convolution.md).
#include <string>

#include "glassgrad/autodiff/conv_geometry.h"
#include "glassgrad/autodiff/family.h"
#include "glassgrad/autodiff/fusion.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

std::string ints_str(const std::vector<int64_t>& v) { return shape_str(v); }

// Checks stride/padding/dilation/groups, that the groups divide both channel counts, and that
// the (dilated) kernel fits the padded input; returns the geometry.
// x: [N, C, H, W], w: [K, C/groups, R, S] (agreement of C with the weight is checked by the caller).
Conv2DGeometry conv_geometry(const ShapeContext& ctx, const Shape& x, const Shape& w) {
  const Attrs& a = ctx.attrs();
  if (a.has("stride")) {
    const auto& st = a.ints("stride");
    if (st.size() != 2 || st[0] < 1 || st[1] < 1) {
      ops::bad_attr(ctx, "stride", "two integers >= 1 [sh, sw]", ints_str(st), "stride=[1, 1] (or [2, 2] to halve H and W)");
    }
  }
  if (a.has("padding")) {
    const auto& p = a.ints("padding");
    if (p.size() != 4 || p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0) {
      ops::bad_attr(ctx, "padding", "four integers >= 0 [top, bottom, left, right]", ints_str(p),
                    "padding=[1, 1, 1, 1] keeps H and W for a 3x3 kernel at stride 1");
    }
  }
  if (a.has("dilation")) {
    const auto& d = a.ints("dilation");
    if (d.size() != 2 || d[0] < 1 || d[1] < 1) {
      ops::bad_attr(ctx, "dilation", "two integers >= 1 [dh, dw]", ints_str(d), "dilation=[1, 1] (an ordinary convolution)");
    }
  }
  if (a.has("groups")) {
    const int64_t groups = a.i("groups");  // >= 1: weight_channels() checked it
    if (w[0] % groups != 0) {
      ctx.fail(ErrorMessage("groups=" + std::to_string(groups) + " does not divide the " + std::to_string(w[0]) +
                            " output channels")
                   .detail("weight: " + shape_str(w) + "  (out_channels, in_channels / groups, kh, kw)")
                   .cause("a grouped convolution splits the output channels into `groups` equal slices")
                   .fix("choose out_channels as a multiple of " + std::to_string(groups) + ", or groups dividing " +
                        std::to_string(w[0])));
    }
  }
  if (w[2] < 1 || w[3] < 1) {  // a layer built with kernel_size 0 (PyTorch builds it; its call refuses)
    ctx.fail(ErrorMessage("kernel size should be greater than zero, but got kernel_height: " + std::to_string(w[2]) +
                          " kernel_width: " + std::to_string(w[3]))
                 .detail("weight: " + shape_str(w))
                 .cause("the weight's kernel has no taps (a layer built with kernel_size 0)")
                 .fix("kernel_size=3 (any size >= 1)"));
  }
  const Conv2DGeometry g = Conv2DGeometry::from(x, w, a);
  const int64_t hp = x[2] + g.pt + g.pb, wp = x[3] + g.pl + g.pr;
  if (g.extent_h() > hp || g.extent_w() > wp) {
    const std::string dil = g.dilated() ? " (dilation " + ints_str({g.dh, g.dw}) + " spans " + std::to_string(g.extent_h()) +
                                              "x" + std::to_string(g.extent_w()) + ")"
                                        : "";
    ctx.fail(ErrorMessage("the " + std::to_string(w[2]) + "x" + std::to_string(w[3]) + " kernel" + dil +
                          " is larger than the padded input (" + std::to_string(hp) + "x" + std::to_string(wp) + ")")
                 .detail("input:   " + shape_str(x) + " with padding [top, bottom, left, right] = " +
                         ints_str({g.pt, g.pb, g.pl, g.pr}))
                 .detail("weight:  " + shape_str(w))
                 .cause("the image shrank too much before this layer (pooling or stride in earlier layers), or the kernel is too large")
                 .fix("use padding 'same' (here [" + std::to_string((g.extent_h() - 1) / 2) + ", " +
                      std::to_string(g.extent_h() / 2) + ", " + std::to_string((g.extent_w() - 1) / 2) + ", " +
                      std::to_string(g.extent_w() / 2) + "]), a smaller kernel, or less downsampling before this layer"));
  }
  return g;
}

// The channel-mismatch message of the design: input C against the weight's C.
[[noreturn]] void channel_mismatch(const ShapeContext& ctx, const TensorInfo& x, const TensorInfo& w) {
  const int64_t groups = ctx.attrs().i("groups", 1);
  // Channels-last images (N, H, W, C: how NumPy, PIL and TensorFlow hold them) whose last axis is
  // the channel count the layer expects: the layer is right, the layout is not.
  if (x.rank() == 4 && x.shape[3] == w.shape[1] * groups && x.shape[1] != x.shape[3]) {
    ctx.fail(ErrorMessage("got input of shape " + shape_str(x.shape) + ", which looks channels-last (N, H, W, C): " +
                          "its last axis has the " + std::to_string(x.shape[3]) + " channels the weight expects")
                 .detail("input:  " + x.str() + "  read as (N, C, H, W): C = " + std::to_string(x.shape[1]))
                 .detail("weight: " + w.str() + "  (out_channels, in_channels" + (groups != 1 ? " / groups" : "") +
                         ", kh, kw)")
                 .cause("images stored as (N, H, W, C), as NumPy, PIL and TensorFlow keep them; glassgrad's Conv2D "
                        "reads NCHW")
                 .fix("x = x.permute(0, 3, 1, 2)   (or np.transpose(images, (0, 3, 1, 2)) before glassgrad.tensor)"));
  }
  if (groups != 1) {
    const int64_t c = x.shape[1], wc = w.shape[1];
    const std::string per = c % groups == 0 ? std::to_string(c / groups) : "C / groups";
    ctx.fail(ErrorMessage("got input of shape " + shape_str(x.shape) + " but with groups=" + std::to_string(groups) +
                          " its weight expects " + std::to_string(wc * groups) + " input channels (" + std::to_string(wc) +
                          " per group)")
                 .detail("input:  " + x.str() + "  (N, C, H, W): C = " + std::to_string(c))
                 .detail("weight: " + w.str() + "  (out_channels, in_channels / groups, kh, kw)")
                 .cause(c % groups != 0 ? "groups=" + std::to_string(groups) + " does not divide the " + std::to_string(c) +
                                              " input channels"
                                        : "the layer was built for a different number of input channels than the data has")
                 .fix("build the layer as Conv2D(" + std::to_string(c) + ", " + std::to_string(w.shape[0]) + ", ..., groups=" +
                      std::to_string(groups) + ") with a weight of " + per + " input channels per group, or give the input " +
                      std::to_string(wc * groups) + " channels"));
  }
  const int64_t c = x.shape[1], wc = w.shape[1];
  const std::string ksize = w.shape[2] == w.shape[3] ? std::to_string(w.shape[2])
                                                     : "(" + std::to_string(w.shape[2]) + ", " + std::to_string(w.shape[3]) + ")";
  const std::string convert = wc == 1 ? "convert the images to one channel"
                                      : "give the input " + std::to_string(wc) + " channels";
  ctx.fail(ErrorMessage("got input of shape " + shape_str(x.shape) + " but its weight expects " + std::to_string(wc) +
                        " input channel" + (wc == 1 ? "" : "s"))
               .detail("input:  " + x.str() + "  (N, C, H, W): C = " + std::to_string(c))
               .detail("weight: " + w.str() + "  (out_channels, in_channels, kh, kw)")
               .cause("the layer was built for a different number of input channels than the data has")
               .fix("build the layer as Conv2D(" + std::to_string(c) + ", " + std::to_string(w.shape[0]) + ", " + ksize +
                    "), or " + convert));
}

// Conv2DBackwardInput recorded as a transposed convolution's forward (attribute transposed).
bool transposed(const ShapeContext& ctx) { return ctx.attrs().b("transposed", false); }

void expect_weight_rank(const ShapeContext& ctx, int i) {
  const TensorInfo& w = ctx.in(i);
  if (w.rank() == 4) return;
  const bool t = transposed(ctx);
  ctx.fail(ErrorMessage("the weight must be 4-d " + std::string(t ? "[in_channels, out_channels / groups, kh, kw]"
                                                                   : "[out_channels, in_channels, kh, kw]") +
                        ", got " + std::to_string(w.rank()) + "-d " + shape_str(w.shape))
               .fix(t ? "reshape it to [C_in, C_out, kh, kw], e.g. w.reshape(C_in, C_out, 4, 4)"
                      : "reshape it to [K, C, kh, kw], e.g. w.reshape(K, C, 3, 3)"));
}

// A transposed convolution's input [N, C_in, H, W] against its weight [C_in, C_out / groups, kh, kw]
// (the channels, and groups dividing C_in), worded for the layer; the rest of its geometry is the
// convolution's, checked by the caller.
void check_transposed_input(const ShapeContext& ctx) {
  const TensorInfo& x = ctx.in(0);
  const TensorInfo& w = ctx.in(1);
  const int64_t groups = ctx.attrs().i("groups", 1);
  const std::string layout = "  (in_channels, out_channels" + std::string(groups != 1 ? " / groups" : "") + ", kh, kw)";
  if (x.shape[1] != w.shape[0]) {
    const int64_t out = w.shape[1] * groups;
    ctx.fail(ErrorMessage("got input of shape " + shape_str(x.shape) + " but its weight expects " +
                          std::to_string(w.shape[0]) + " input channels")
                 .detail("input:  " + x.str() + "  (N, C, H, W): C = " + std::to_string(x.shape[1]))
                 .detail("weight: " + w.str() + layout)
                 .cause("the layer was built for a different number of input channels than the data has (a "
                        "transposed convolution's weight holds its input channels first)")
                 .fix("build the layer as ConvTranspose2d(" + std::to_string(x.shape[1]) + ", " + std::to_string(out) +
                      ", ...), or give the input " + std::to_string(w.shape[0]) + " channels"));
  }
  if (w.shape[0] % groups != 0) {
    ctx.fail(ErrorMessage("groups=" + std::to_string(groups) + " does not divide the " + std::to_string(w.shape[0]) +
                          " input channels")
                 .detail("weight: " + w.str() + layout)
                 .cause("a grouped transposed convolution splits the input channels into `groups` equal slices")
                 .fix("choose in_channels as a multiple of " + std::to_string(groups) + ", or groups dividing " +
                      std::to_string(w.shape[0])));
  }
}

Shape int_shape_attr(const ShapeContext& ctx, const char* key) {
  const Shape s = ctx.attrs().ints(key);
  bool ok = s.size() == 4;
  for (int64_t v : s) ok = ok && v >= 1;
  if (!ok) ops::bad_attr(ctx, key, "four sizes >= 1", shape_str(s));
  return s;
}

// The geometry attributes a backward op inherits from its forward (anything else, e.g. a fused
// activation, stays behind).
Attrs conv_attrs(const Attrs& a) {
  Attrs out;
  for (const char* key : {"stride", "padding", "dilation", "groups"}) {
    if (const AttrValue* v = a.find(key)) out.set(key, *v);
  }
  return out;
}

// Input channels the weight [K, C/groups, R, S] expects (checks groups >= 1 first: the channel
// check runs before the rest of the geometry's).
int64_t weight_channels(const ShapeContext& ctx, const Shape& w) {
  const int64_t groups = ctx.attrs().i("groups", 1);
  if (groups < 1) ops::bad_attr(ctx, "groups", "an integer >= 1", std::to_string(groups), "groups=1 (an ordinary convolution)");
  return w[1] * groups;
}

Attrs with_shape_attr(const Attrs& a, const char* key, const Shape& s) {
  Attrs out = conv_attrs(a);
  out.set(key, s);
  return out;
}

// grad_out must be [N, K, Ho, Wo] for this input shape and weight shape.
void check_grad_out(const ShapeContext& ctx, int gi, const Shape& x, const Shape& w, const Conv2DGeometry& g) {
  const Shape want = {x[0], w[0], g.ho, g.wo};
  if (ctx.in(gi).shape == want) return;
  ctx.fail(ErrorMessage("grad_out has shape " + shape_str(ctx.in(gi).shape) + " but the convolution of " + shape_str(x) +
                        " by " + shape_str(w) + " gives " + shape_str(want))
               .detail("stride " + ints_str({g.sh, g.sw}) + ", padding " + ints_str({g.pt, g.pb, g.pl, g.pr}) + ", dilation " +
                       ints_str({g.dh, g.dw}) + ", groups " + std::to_string(g.groups))
               .cause("the input_shape / weight_shape attribute or the stride/padding/dilation/groups differ from the forward Conv2D")
               .fix("pass the forward Conv2D's stride, padding, dilation, groups and input/weight shapes unchanged"));
}

// A layer's input with no channels, rows or columns (an empty batch is fine): said before the
// channel and kernel checks, which would blame the layer's configuration.
void expect_nonempty_image(const ShapeContext& ctx, const TensorInfo& x, const TensorInfo& w) {
  if (ctx.meta().layer.empty() || (x.shape[1] != 0 && x.shape[2] != 0 && x.shape[3] != 0)) return;
  const Attrs& a = ctx.attrs();
  throw ShapeError(ctx.layer_where() + ": " +
                   ErrorMessage("the input " + shape_str(x.shape) + " is empty along C, H or W (N, C, H, W)")
                       .detail("weight: " + shape_str(w.shape) + "  stride " + shape_str(a.has("stride") ? a.ints("stride") : Shape{1, 1}) +
                               "  padding " + shape_str(a.has("padding") ? a.ints("padding") : Shape{0, 0, 0, 0}))
                       .cause("a slice that selected nothing, or earlier layers shrank the image away")
                       .fix("give the layer [N, " + std::to_string(w.shape[1] * a.i("groups", 1)) +
                            ", H, W] input with H >= " + std::to_string(w.shape[2]) + " and W >= " +
                            std::to_string(w.shape[3]) + " (or padding='same')")
                       .str());
}

std::vector<TensorInfo> conv2d_infer(const ShapeContext& ctx) {
  ctx.expect_rank(0, 4, "NCHW");
  expect_weight_rank(ctx, 1);
  expect_nonempty_image(ctx, ctx.in(0), ctx.in(1));
  ctx.expect_float(0);
  ctx.expect_same_dtype(0, 1);
  const TensorInfo& x = ctx.in(0);
  const TensorInfo& w = ctx.in(1);
  if (x.shape[1] != weight_channels(ctx, w.shape)) channel_mismatch(ctx, x, w);
  if (ctx.num_inputs() > 2) {
    ctx.expect_same_dtype(0, 2);
    const TensorInfo& b = ctx.in(2);
    if (b.shape != Shape{w.shape[0]}) {
      ctx.fail(ErrorMessage("the bias must have shape [" + std::to_string(w.shape[0]) + "] (one value per output channel), got " +
                            shape_str(b.shape))
                   .detail("weight: " + w.str())
                   .detail("bias:   " + b.str())
                   .fix("create the bias with shape [" + std::to_string(w.shape[0]) + "], or reshape it: b.reshape(-1)"));
    }
  }
  const Conv2DGeometry g = conv_geometry(ctx, x.shape, w.shape);
  // attrs "activation": "none" (default) or "relu" (out = relu(conv)), set by the fusion pass.
  ops::check_activation_attr(ctx);
  return {ops::with_shape(x, {x.shape[0], w.shape[0], g.ho, g.wo})};
}

void conv2d_gradient(GradContext& c) {
  ValueId gy = c.grad_output(0);
  if (gy == kNoValue) return;
  if (fused_relu(c.attrs())) {
    gy = c.emit("ReLUBackward", {gy, c.output(0)});  // relu(z) > 0 exactly where z > 0
  }
  const ValueId x = c.input(0), w = c.input(1);
  if (c.needs_grad(0)) {
    c.set_grad(0, c.emit("Conv2DBackwardInput", {gy, w}, with_shape_attr(c.attrs(), "input_shape", c.shape(x))));
  }
  if (c.needs_grad(1)) {
    c.set_grad(1, c.emit("Conv2DBackwardWeight", {x, gy}, with_shape_attr(c.attrs(), "weight_shape", c.shape(w))));
  }
  if (c.num_inputs() > 2 && c.needs_grad(2)) {
    c.set_grad(2, c.emit("Sum", {gy}, Attrs{{"dims", std::vector<int64_t>{0, 2, 3}}, {"keepdim", false}}));
  }
}

std::vector<TensorInfo> backward_input_infer(const ShapeContext& ctx) {
  ctx.expect_rank(0, 4, "NCHW");
  expect_weight_rank(ctx, 1);
  ctx.expect_float(0);
  ctx.expect_same_dtype(0, 1);
  if (transposed(ctx)) check_transposed_input(ctx);
  const Shape x = int_shape_attr(ctx, "input_shape");
  const Shape& w = ctx.in(1).shape;
  if (x[1] != weight_channels(ctx, w)) channel_mismatch(ctx, ops::with_shape(ctx.in(0), x), ctx.in(1));
  const Conv2DGeometry g = conv_geometry(ctx, x, w);
  check_grad_out(ctx, 0, x, w, g);
  return {ops::with_shape(ctx.in(0), x)};
}

void backward_input_gradient(GradContext& c) {
  const ValueId g = c.grad_output(0);
  if (g == kNoValue) return;
  const ValueId gy = c.input(0), w = c.input(1);
  if (c.needs_grad(0)) c.set_grad(0, c.emit("Conv2D", {g, w}, conv_attrs(c.attrs())));
  if (c.needs_grad(1)) {
    c.set_grad(1, c.emit("Conv2DBackwardWeight", {g, gy}, with_shape_attr(c.attrs(), "weight_shape", c.shape(w))));
  }
}

std::vector<TensorInfo> backward_weight_infer(const ShapeContext& ctx) {
  ctx.expect_rank(0, 4, "NCHW");
  ctx.expect_rank(1, 4, "NCHW");
  ctx.expect_float(0);
  ctx.expect_same_dtype(0, 1);
  const Shape& x = ctx.in(0).shape;
  const Shape w = int_shape_attr(ctx, "weight_shape");
  if (x[1] != weight_channels(ctx, w)) channel_mismatch(ctx, ctx.in(0), ops::with_shape(ctx.in(0), w));
  const Conv2DGeometry g = conv_geometry(ctx, x, w);
  check_grad_out(ctx, 1, x, w, g);
  return {ops::with_shape(ctx.in(0), w)};
}

void backward_weight_gradient(GradContext& c) {
  const ValueId g = c.grad_output(0);
  if (g == kNoValue) return;
  const ValueId x = c.input(0), gy = c.input(1);
  if (c.needs_grad(0)) {
    c.set_grad(0, c.emit("Conv2DBackwardInput", {gy, g}, with_shape_attr(c.attrs(), "input_shape", c.shape(x))));
  }
  if (c.needs_grad(1)) c.set_grad(1, c.emit("Conv2D", {x, g}, conv_attrs(c.attrs())));
}

}  // namespace

void conv2d(OpSchema& s) {
  s.layer_parameter = "weight";
  s.infer = conv2d_infer;
  s.gradient = conv2d_gradient;
}

void conv2d_backward_input(OpSchema& s) {
  s.layer_parameter = "weight";  // a ConvTranspose2d layer's input and weight (role forward only)
  s.infer = backward_input_infer;
  s.gradient = backward_input_gradient;
}

void conv2d_backward_weight(OpSchema& s) {
  s.infer = backward_weight_infer;
  s.gradient = backward_weight_gradient;
}

void register_conv_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/conv.def"
}

}  // namespace glassgrad
