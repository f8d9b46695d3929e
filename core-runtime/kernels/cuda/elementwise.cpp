// Launchers of the elementwise kernels (kernels/cuda/elementwise.cu): one per row of
// elementwise_ops.def, plus Where. Inputs may be strided (views, broadcasts); the output is
// dense. One kernel per dtype and kind takes the op code (the row's ElementwiseOp) as an argument.
#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/elementwise.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kElementwiseFunctions({"gg_binary", "gg_compare", "gg_unary"},
                                          {DType::Float32, DType::Float64, DType::Int64, DType::UInt8});
const FunctionNames kWhereFunctions({"gg_where_w1", "gg_where_w4", "gg_where_w8"});

namespace {

Strides dense_strides(const Tensor& t) { return contiguous_strides(t.shape()); }

// The launcher of row OP: one kernel per dtype and kind (elementwise.cu) given the op code.
template <ElementwiseOp OP>
void elementwise(const KernelContext& c) {
  const ElementwiseInfo& e = elementwise_info(OP);
  const Tensor& out = c.outputs[0];
  const Tensor& a = c.inputs[0];
  const int64_t n = out.numel();
  if (n == 0) return;
  const double scalar = e.has_scalar() ? c.attrs.f(e.scalar) : 0.0;
  DeviceState& s = state_of(c);
  LaunchSite site{e.name, &c};
  const int op = static_cast<int>(OP);
  const Dim3 grid{blocks_for(s, n, 256)};
  if (e.arity() == 1) {
    const GGIter it = make_iter(out.shape(), {dense_strides(out), broadcast_strides(a, out.shape())}, site);
    launch(s, stream_of(s, &c), kname("gg_unary", a.dtype()).c_str(), grid, Dim3{256}, site, n, it, op,
           out.data_ptr(), a.data_ptr(), scalar);
    return;
  }
  const Tensor& b = c.inputs[1];
  const GGIter it = make_iter(out.shape(), {dense_strides(out), broadcast_strides(a, out.shape()),
                                            broadcast_strides(b, out.shape())}, site);
  if (e.kind == ElementwiseKind::Compare) {
    launch(s, stream_of(s, &c), kname("gg_compare", a.dtype()).c_str(), grid, Dim3{256}, site, n, it, op,
           out.data_ptr(), a.data_ptr(), b.data_ptr());
  } else {
    launch(s, stream_of(s, &c), kname("gg_binary", a.dtype()).c_str(), grid, Dim3{256}, site, n, it, op,
           out.data_ptr(), a.data_ptr(), b.data_ptr(), scalar);
  }
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

const std::vector<DType>& dtypes_of(ElementwiseDTypes d) {
  static const std::vector<DType> numeric{DType::Float32, DType::Float64, DType::Int64, DType::UInt8};
  return d == ElementwiseDTypes::Float ? float_dtypes() : d == ElementwiseDTypes::Numeric ? numeric : all_dtypes();
}

// AddScalarInPlace (families/elementwise.def): AddScalar's kernel with the input's buffer as the
// output (the in-place output): same-index reads and writes.
constexpr KernelFn add_scalar_in_place = elementwise<ElementwiseOp::AddScalar>;

}  // namespace

void add_elementwise_kernels(std::vector<KernelDef>& k) {
#define GG_ELEMENTWISE(Name, Kind, DTypes, ...) \
  k.push_back({#Name, elementwise<ElementwiseOp::Name>, dtypes_of(ElementwiseDTypes::DTypes)});
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/elementwise.def"
}

}  // namespace cuda
}  // namespace glassgrad
