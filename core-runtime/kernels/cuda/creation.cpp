// CUDA creation and conversion kernels (families/creation.def): Full, Cast, ToDevice. Copies and fills go through the
// device hooks (copy.cpp), which take any strides.
#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/runtime/device_hooks.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kCreationFunctions({"gg_cast"});

namespace {

void full(const KernelContext& c) { fill_tensor(c.outputs[0], c.attrs.f("value")); }

// out (dense) = convert(x (strided)).
void cast(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const Tensor& x = c.inputs[0];
  if (out.numel() == 0) return;
  if (out.dtype() == x.dtype()) return copy_tensor(out, x);
  DeviceState& s = state_of(c);
  LaunchSite site{"Cast", &c};
  const GGIter it = make_iter(out.shape(), {out.strides(), x.strides()}, site);
  const int64_t n = out.numel();
  launch(s, stream_of(s, &c), "gg_cast", Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, it, out.data_ptr(),
         dtype_code(out.dtype()), x.data_ptr(), dtype_code(x.dtype()));
}

void to_device(const KernelContext& c) { copy_tensor(c.outputs[0], c.inputs[0]); }

}  // namespace

void add_creation_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/creation.def"
}

}  // namespace cuda
}  // namespace glassgrad
