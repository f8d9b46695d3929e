// The dropout family on CUDA (families/dropout.def; the rules: autodiff-engine/src/ops/dropout.cpp;
// the mask: kernels/dropout_rules.h), in one file: the kernels' rows, their device code and their
// launchers. nvcc and NVRTC read the rows and the device part; the C++ compiler reads the rows and
// the host part (GG_CUDA_HOST; docs/architecture.md, "One CUDA file per family").
//
//   Dropout:               y[i] = x[i] * (keep(i) ? scale : 0),   scale = 1 / (1 - p) (0 when p = 1)
//                          (+ r[i]: a residual Add fused in, fusion.h; the product rounded first,
//                          __fadd_rn / __dadd_rn, never contracted into a multiply-add)
//   AlphaDropout:          y[i] = x[i] * (keep(i) ? a : 0) + (keep(i) ? kept : dropped),
//                          a = 1/sqrt((alpha^2 p + 1)(1 - p)), kept = alpha*a*p,
//                          dropped = alpha*a*(p - 1), alpha = 1.7580993408473766 (all 0 when p = 1)
//   AlphaDropoutBackward:  the Dropout kernel with scale = a
//   keep(4g + q) = word q of Philox4x32-10 at counter g under the seed >= threshold
//
// A thread takes groups of four elements (one Philox evaluation each) in a grid-stride loop;
// with vec4 (x and y 16-byte aligned) a whole group is one 16-byte load and store in float32. The
// seed is read on the device, so a captured CUDA graph draws a new mask whenever the seed
// changes.
#include "kernel_interface.h"

#define GG_DROPOUT_KERNELS(K)                                                                           \
  K(gg_dropout, Float, GG_NO_BOUNDS,                                                                    \
    (int64_t n, uint64_t threshold, T scale, int vec4, T* y, const T* x, const int64_t* seed, const T* r), \
    gg_dropout::dropout<T>(n, threshold, scale, vec4, y, x, seed, r))                                  \
  K(gg_alpha_dropout, Float, GG_NO_BOUNDS,                                                              \
    (int64_t n, uint64_t threshold, T a, T kept, T dropped, T* y, const T* x, const int64_t* seed),     \
    gg_dropout::alpha<T>(n, threshold, a, kept, dropped, y, x, seed))

GG_DECLARE_KERNELS(GG_DROPOUT_KERNELS)

#ifndef GG_CUDA_HOST
// ---- device part -------------------------------------------------------------------------------
#include "../dropout_rules.h"
#include "common.cuh"

namespace gg_dropout {

template <typename T>
__device__ __forceinline__ T scaled(T v, bool keep, T scale) {
  return v * (keep ? scale : T(0));
}
// scaled(...) + r with both roundings of the unfused Dropout and Add.
__device__ __forceinline__ float plus(float v, float r) { return __fadd_rn(v, r); }
__device__ __forceinline__ double plus(double v, double r) { return __dadd_rn(v, r); }

// A whole group of four: one 16-byte load and store for float32 (the launcher's vec4 says they
// are aligned), four scalar ones for float64.
__device__ __forceinline__ void whole_group(float* y, const float* x, const bool (&keep)[4], float scale,
                                            const float* r) {
  const float4 v = *reinterpret_cast<const float4*>(x);
  float4 o = make_float4(scaled(v.x, keep[0], scale), scaled(v.y, keep[1], scale), scaled(v.z, keep[2], scale),
                         scaled(v.w, keep[3], scale));
  if (r) {
    const float4 a = *reinterpret_cast<const float4*>(r);
    o = make_float4(plus(o.x, a.x), plus(o.y, a.y), plus(o.z, a.z), plus(o.w, a.w));
  }
  *reinterpret_cast<float4*>(y) = o;
}
__device__ __forceinline__ void whole_group(double* y, const double* x, const bool (&keep)[4], double scale,
                                            const double* r) {
#pragma unroll
  for (int q = 0; q < 4; ++q) y[q] = r ? plus(scaled(x[q], keep[q], scale), r[q]) : scaled(x[q], keep[q], scale);
}

// Calls group(i0, keep) for every group of four elements i0 .. i0 + 3 of n, in a grid-stride loop,
// with the group's mask (one Philox evaluation).
template <typename G>
__device__ __forceinline__ void masked_groups(int64_t n, uint64_t threshold, const int64_t* seed_ptr, G group) {
  const uint64_t seed = (uint64_t)*seed_ptr;
  const int64_t groups = (n + 3) / 4;
  GG_FOR(g, groups) {
    bool keep[4];
    glassgrad::dropout_rule::keep4(seed, threshold, (uint64_t)g, keep);
    group(4 * g, keep);
  }
}

template <typename T>
__device__ void dropout(int64_t n, uint64_t threshold, T scale, int vec4, T* y, const T* x, const int64_t* seed_ptr,
                        const T* r) {
  masked_groups(n, threshold, seed_ptr, [&](int64_t i0, const bool (&keep)[4]) {
    if (vec4 && i0 + 3 < n) {
      whole_group(y + i0, x + i0, keep, scale, r ? r + i0 : nullptr);
    } else {
      for (int q = 0; q < 4 && i0 + q < n; ++q) {
        const T v = scaled(x[i0 + q], keep[q], scale);
        y[i0 + q] = r ? plus(v, r[i0 + q]) : v;
      }
    }
  });
}

// AlphaDropout, element by element (dropout's scalar path).
template <typename T>
__device__ void alpha(int64_t n, uint64_t threshold, T a, T kept, T dropped, T* y, const T* x,
                      const int64_t* seed_ptr) {
  masked_groups(n, threshold, seed_ptr, [&](int64_t i0, const bool (&keep)[4]) {
    for (int q = 0; q < 4 && i0 + q < n; ++q) y[i0 + q] = x[i0 + q] * (keep[q] ? a : T(0)) + (keep[q] ? kept : dropped);
  });
}

}  // namespace gg_dropout

GG_DEFINE_KERNELS(GG_DROPOUT_KERNELS)
#endif  // !GG_CUDA_HOST

#ifdef GG_CUDA_HOST
// ---- host part: the launchers ------------------------------------------------------------------
#include <cstdint>

#include "../dropout_rules.h"
#include "cuda/launch.h"
#include "glassgrad/autodiff/families/dropout.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_DROPOUT_KERNELS)

namespace {

// Blocks of 256 threads, a thread per group of four elements.
struct MaskedLaunch {
  explicit MaskedLaunch(const KernelContext& c, const char* op)
      : n(c.outputs[0].numel()), s(state_of(c)), grid{blocks_for(s, (n + 3) / 4, 256)}, site{op, &c} {}
  int64_t n;
  DeviceState& s;
  Dim3 grid;
  LaunchSite site;
};

// inputs x (or grad_y), seed and Dropout's optional dense residual; output y (or dx):
// y = x * (keep ? scale : 0) (+ residual).
template <typename T>
void masked_scale(const KernelContext& c, const char* op, double p, double scale) {
  const MaskedLaunch L(c, op);
  if (L.n == 0) return;
  const T* x = static_cast<const T*>(c.inputs[0].data_ptr());
  T* out = static_cast<T*>(c.outputs[0].data_ptr());
  const T* r = c.inputs.size() > 2 ? static_cast<const T*>(c.inputs[2].data_ptr()) : nullptr;
  const int vec4 = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0 &&
                           reinterpret_cast<uintptr_t>(r) % 16 == 0
                       ? 1
                       : 0;
  const int64_t* seed = static_cast<const int64_t*>(c.inputs[1].data_ptr());
  launch<kernels::gg_dropout<T>>(L.s, stream_of(L.s, &c), L.grid, Dim3{256}, L.site, L.n, philox::keep_threshold(p),
                                 static_cast<T>(scale), vec4, out, x, seed, r);
}

template <typename T>
void alpha_launch(const KernelContext& c, double p) {
  const MaskedLaunch L(c, "AlphaDropout");
  if (L.n == 0) return;
  const dropout_rule::AlphaCoefficients k(p);
  launch<kernels::gg_alpha_dropout<T>>(L.s, stream_of(L.s, &c), L.grid, Dim3{256}, L.site, L.n,
                                       philox::keep_threshold(p), static_cast<T>(k.a), static_cast<T>(k.kept),
                                       static_cast<T>(k.dropped), static_cast<T*>(c.outputs[0].data_ptr()),
                                       static_cast<const T*>(c.inputs[0].data_ptr()),
                                       static_cast<const int64_t*>(c.inputs[1].data_ptr()));
}

bool is_f32(const KernelContext& c) { return c.outputs[0].dtype() == DType::Float32; }

void dropout(const KernelContext& c) {
  const double p = DropoutAttrs::from(c.attrs).p;
  const double scale = p >= 1.0 ? 0.0 : 1.0 / (1.0 - p);
  is_f32(c) ? masked_scale<float>(c, "Dropout", p, scale) : masked_scale<double>(c, "Dropout", p, scale);
}

void alpha_dropout(const KernelContext& c) {
  const double p = DropoutAttrs::from(c.attrs).p;
  is_f32(c) ? alpha_launch<float>(c, p) : alpha_launch<double>(c, p);
}

void alpha_dropout_backward(const KernelContext& c) {
  const double p = DropoutAttrs::from(c.attrs).p, a = dropout_rule::AlphaCoefficients(p).a;
  is_f32(c) ? masked_scale<float>(c, "AlphaDropoutBackward", p, a)
            : masked_scale<double>(c, "AlphaDropoutBackward", p, a);
}

}  // namespace

// --8<-- [start:register]
void add_dropout_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/dropout.def"
}
// --8<-- [end:register]

}  // namespace cuda
}  // namespace glassgrad
#endif  // GG_CUDA_HOST
