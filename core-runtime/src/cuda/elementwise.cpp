// Launchers of the elementwise kernels (kernels/cuda/elementwise.cu): broadcasting binaries,
// comparisons, unary and scalar ops, Where. Inputs may be strided (views, broadcasts); the
// output is dense. One kernel per dtype takes the op code as an argument.
#include "cuda/launch.h"
#include "cuda/registry.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kElementwiseFunctions({"gg_binary", "gg_compare", "gg_unary"},
                                          {DType::Float32, DType::Float64, DType::Int64, DType::UInt8});
const FunctionNames kWhereFunctions({"gg_where_w1", "gg_where_w4", "gg_where_w8"});

namespace {

Strides dense_strides(const Tensor& t) { return contiguous_strides(t.shape()); }

template <int OP>
void binary(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const int64_t n = out.numel();
  if (n == 0) return;
  DeviceState& s = state_of(c);
  static const char* names[] = {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "ReLUBackward",
                                "SigmoidBackward", "TanhBackward", "Equal", "NotEqual", "Less",
                                "LessEqual", "Greater", "GreaterEqual"};
  LaunchSite site{names[OP], &c};
  const GGIter it = make_iter(out.shape(), {dense_strides(out), broadcast_strides(a, out.shape()),
                                            broadcast_strides(b, out.shape())}, site);
  const char* base = OP >= GG_EQ ? "gg_compare" : "gg_binary";
  launch(s, stream_of(s, &c), kname(base, a.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, it,
         static_cast<int>(OP), out.data_ptr(), a.data_ptr(), b.data_ptr());
}

template <int OP>
void unary(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const Tensor& x = c.inputs[0];
  const int64_t n = out.numel();
  if (n == 0) return;
  double scalar = 0.0;
  if (OP == GG_POW_S) scalar = c.attrs.f("exponent");
  else if (OP >= GG_ADD_S) scalar = c.attrs.f("value");
  DeviceState& s = state_of(c);
  static const char* names[] = {"Neg", "Exp", "Log", "Sqrt", "Abs", "ReLU", "Sigmoid", "Tanh",
                                "AddScalar", "MulScalar", "PowScalar", "RDivScalar"};
  LaunchSite site{names[OP], &c};
  const GGIter it = make_iter(out.shape(), {dense_strides(out), broadcast_strides(x, out.shape())}, site);
  launch(s, stream_of(s, &c), kname("gg_unary", x.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site,
         n, it, static_cast<int>(OP), out.data_ptr(), x.data_ptr(), scalar);
}

void where(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const int64_t n = out.numel();
  if (n == 0) return;
  DeviceState& s = state_of(c);
  LaunchSite site{"Where", &c};
  const GGIter it = make_iter(out.shape(), {dense_strides(out), broadcast_strides(c.inputs[0], out.shape()),
                                            broadcast_strides(c.inputs[1], out.shape()),
                                            broadcast_strides(c.inputs[2], out.shape())}, site);
  const char* k = out.itemsize() == 1 ? "gg_where_w1" : out.itemsize() == 4 ? "gg_where_w4" : "gg_where_w8";
  launch(s, stream_of(s, &c), k, Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, it, out.data_ptr(),
         c.inputs[0].data_ptr(), c.inputs[1].data_ptr(), c.inputs[2].data_ptr());
}

}  // namespace

void add_elementwise_kernels(std::vector<KernelDef>& k) {
  const std::vector<DType> num{DType::Float32, DType::Float64, DType::Int64, DType::UInt8};
  const std::vector<DType> fl = float_dtypes();
  const std::vector<DType> any = all_dtypes();
  k.push_back({"Add", binary<GG_ADD>, num});
  k.push_back({"Sub", binary<GG_SUB>, num});
  k.push_back({"Mul", binary<GG_MUL>, num});
  k.push_back({"Div", binary<GG_DIV>, fl});
  k.push_back({"Maximum", binary<GG_MAXIMUM>, num});
  k.push_back({"Minimum", binary<GG_MINIMUM>, num});
  k.push_back({"ReLUBackward", binary<GG_RELU_BWD>, fl});
  k.push_back({"SigmoidBackward", binary<GG_SIGMOID_BWD>, fl});
  k.push_back({"TanhBackward", binary<GG_TANH_BWD>, fl});
  k.push_back({"Equal", binary<GG_EQ>, any});
  k.push_back({"NotEqual", binary<GG_NE>, any});
  k.push_back({"Less", binary<GG_LT>, any});
  k.push_back({"LessEqual", binary<GG_LE>, any});
  k.push_back({"Greater", binary<GG_GT>, any});
  k.push_back({"GreaterEqual", binary<GG_GE>, any});
  k.push_back({"Neg", unary<GG_NEG>, num});
  k.push_back({"Abs", unary<GG_ABS>, num});
  k.push_back({"ReLU", unary<GG_RELU>, num});
  k.push_back({"Exp", unary<GG_EXP>, fl});
  k.push_back({"Log", unary<GG_LOG>, fl});
  k.push_back({"Sqrt", unary<GG_SQRT>, fl});
  k.push_back({"Sigmoid", unary<GG_SIGMOID>, fl});
  k.push_back({"Tanh", unary<GG_TANH>, fl});
  k.push_back({"AddScalar", unary<GG_ADD_S>, num});
  k.push_back({"MulScalar", unary<GG_MUL_S>, num});
  k.push_back({"PowScalar", unary<GG_POW_S>, fl});
  k.push_back({"RDivScalar", unary<GG_RDIV_S>, fl});
  k.push_back({"Where", where, any});
}

}  // namespace cuda
}  // namespace glassgrad
