// CPU kernels: Conv2D, Conv2DBackwardInput, Conv2DBackwardWeight; float32 and float64.
// Inputs dense NCHW (input, grad_out) and KCRS (weight); dilation 1; any stride and padding
// (implicit zeros: index ranges, never a padded copy); any channel counts.
//
// The seed's section 3.2 formulas, generalized to stride (sh, sw) and padding (pt, pl):
//   forward         y[n,k,i,j]  = b[k] + sum_{c,r,s} x[n, c, i*sh + r - pt, j*sw + s - pl] * w[k,c,r,s]
//   backward input  dx[n,c,h,v] = sum_{k,r,s} gy[n, k, (h + pt - r)/sh, (v + pl - s)/sw] * w[k,c,r,s]
//                                 (only terms whose output index is integral and in range)
//   backward weight dw[k,c,r,s] = sum_{n,i,j} gy[n,k,i,j] * x[n, c, i*sh + r - pt, j*sw + s - pl]
//
// As GEMMs over one image (col = im2col(x[n]) is [C*R*S, Ho*Wo], see conv_geometry.h):
//   forward         y[n]  [K, HoWo]   = w [K, CRS] x col                  (+ b broadcast along rows)
//   backward input  cols  [CRS, HoWo] = w^T [CRS, K] x gy[n] [K, HoWo];  dx[n] = col2im(cols)
//   backward weight dw    [K, CRS]   += gy[n] [K, HoWo] x col^T [HoWo, CRS]   summed over n
// The transposes are GEMM strides, not copies. A 1x1 stride-1 unpadded kernel skips im2col
// (col is the image itself). Small problems where the GEMM's tiles would mostly be padding
// go to the direct loops of conv_direct.h instead.
//
// Threads: images are spread over slots, each with its own im2col buffer, GEMM packing
// buffers and (backward weight) dw accumulator, all in the planned workspace. With fewer
// images than threads and GEMMs big enough to split, images run one by one on threaded GEMMs.
#include <algorithm>
#include <vector>

#include "cpu/conv_geometry.h"
#include "cpu/conv_pack.h"
#include "cpu/gemm/gemm.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

using cpu::ConvGeometry;

constexpr size_t kAlign = 64;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

enum class ConvOp { Forward, BackwardInput, BackwardWeight };

// The GEMM each op runs per image: C [m, n] (+)= A [m, k] x B [k, n].
struct GemmDims {
  int64_t m, n, k;
};

GemmDims image_gemm(ConvOp op, const ConvGeometry& g) {
  switch (op) {
    case ConvOp::Forward: return {g.k, g.hwo(), g.crs()};
    case ConvOp::BackwardInput: return {g.crs(), g.hwo(), g.k};
    case ConvOp::BackwardWeight: return {g.k, g.crs(), g.hwo()};
  }
  return {0, 0, 0};
}

// How the images of one call are spread over threads, and each slot's share of the workspace:
// [im2col buffer][dw accumulator][GEMM packing], each 64-byte aligned.
struct ConvPlan {
  int slots = 1;
  size_t col_bytes = 0, partial_bytes = 0, gemm_bytes = 0;
  size_t slot_bytes() const { return col_bytes + partial_bytes + gemm_bytes; }
  size_t total() const { return static_cast<size_t>(slots) * slot_bytes() + kAlign; }
};

ConvPlan plan_conv(ConvOp op, const ConvGeometry& g, DType dt, int threads) {
  ConvPlan p;
  const GemmDims d = image_gemm(op, g);
  const size_t el = dtype_size(dt);
  const bool worth_threads = g.n * d.m * d.n * d.k >= cpu::kGemmMinParallelWork;
  if (threads > 1 && g.n > 1 && worth_threads && (g.n >= threads || cpu::gemm_threads(d.m, d.n, d.k, dt) == 1)) {
    p.slots = static_cast<int>(std::min<int64_t>(threads, g.n));
  }
  // Forward and backward weight read the image through the GEMM's packing (conv_pack.h); only
  // backward input needs a column buffer, for col2im.
  if (op == ConvOp::BackwardInput && !g.pointwise()) p.col_bytes = align_up(static_cast<size_t>(g.crs() * g.hwo()) * el);
  if (op == ConvOp::BackwardWeight && p.slots > 1) p.partial_bytes = align_up(static_cast<size_t>(g.k * g.crs()) * el);
  p.gemm_bytes = align_up(cpu::gemm_workspace_bytes(d.m, d.n, d.k, dt, /*serial=*/p.slots > 1));
  return p;
}

// One slot's buffers.
template <typename T>
struct Slot {
  int index = 0;
  T* col = nullptr;
  T* partial = nullptr;
  void* gemm_ws = nullptr;
  size_t gemm_bytes = 0;
};

// Runs fn(slot, n_begin, n_end) for each slot's range of images, in parallel when the plan has
// several slots. Uses the planned workspace; if it is short (the thread count changed since
// planning), fewer slots, or a temporary buffer from the CPU allocator.
template <typename T, typename F>
void for_each_slot(ConvOp op, const ConvGeometry& g, DType dt, void* workspace, size_t workspace_bytes, F&& fn) {
  const int threads = in_parallel_region() ? 1 : get_num_threads();
  ConvPlan p = plan_conv(op, g, dt, threads);
  for (int t = p.slots - 1; t >= 1 && p.total() > workspace_bytes; --t) p = plan_conv(op, g, dt, t);
  Tensor scratch;
  char* base = static_cast<char*>(workspace);
  if (p.total() > workspace_bytes || base == nullptr) {
    p = plan_conv(op, g, dt, threads);
    scratch = Tensor::empty({static_cast<int64_t>(p.total())}, DType::UInt8, Device::cpu(), "conv workspace");
    base = static_cast<char*>(scratch.data_ptr());
  }
  base = reinterpret_cast<char*>(align_up(reinterpret_cast<uintptr_t>(base)));
  auto run = [&](int64_t s) {
    char* sb = base + static_cast<size_t>(s) * p.slot_bytes();
    Slot<T> slot;
    slot.index = static_cast<int>(s);
    slot.col = p.col_bytes ? reinterpret_cast<T*>(sb) : nullptr;
    slot.partial = p.partial_bytes ? reinterpret_cast<T*>(sb + p.col_bytes) : nullptr;
    slot.gemm_ws = sb + p.col_bytes + p.partial_bytes;
    slot.gemm_bytes = p.gemm_bytes;
    fn(slot, g.n * s / p.slots, g.n * (s + 1) / p.slots);
  };
  if (p.slots == 1) {
    run(0);
    return;
  }
  parallel_for(p.slots, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) run(s);
  });
}

size_t workspace_for(ConvOp op, const ConvGeometry& g, DType dt) {
  return plan_conv(op, g, dt, get_num_threads()).total();
}

template <typename T>
void conv2d_forward(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const T* bias = c.inputs.size() > 2 ? c.inputs[2].data<T>() : nullptr;
  const ConvGeometry g = cpu::conv_geometry(x.shape(), w.shape(), c.attrs);
  const T* xp = x.data<T>();
  const T* wp = w.data<T>();
  T* yp = c.outputs[0].data<T>();
  if (g.n == 0 || g.k == 0 || g.hwo() == 0) return;
  const int64_t hwo = g.hwo(), crs = g.crs();
  for_each_slot<T>(ConvOp::Forward, g, x.dtype(), c.workspace, c.workspace_bytes,
                   [&](const Slot<T>& slot, int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      const T* xn = xp + n * g.c * g.hw();
      T* yn = yp + n * g.k * hwo;
      if (bias) {
        for (int64_t k = 0; k < g.k; ++k) std::fill(yn + k * hwo, yn + (k + 1) * hwo, bias[k]);
      }
      const T beta = bias ? T(1) : T(0);
      if (g.pointwise()) {  // col is the image itself
        cpu::gemm(g.k, hwo, crs, T(1), wp, crs, 1, xn, hwo, 1, beta, yn, hwo, slot.gemm_ws, slot.gemm_bytes);
      } else {
        const cpu::Im2colSource<T> src{&g, xn};
        cpu::gemm(g.k, hwo, crs, T(1), wp, crs, 1, cpu::GemmPackB<T>{&cpu::pack_im2col<T>, &src}, beta, yn, hwo,
                  slot.gemm_ws, slot.gemm_bytes);
      }
    }
  });
}

template <typename T>
void conv2d_backward_input(const KernelContext& c) {
  const Tensor& gy = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const ConvGeometry g = cpu::conv_geometry(c.attrs.ints("input_shape"), w.shape(), c.attrs);
  const T* gyp = gy.data<T>();
  const T* wp = w.data<T>();
  T* dxp = c.outputs[0].data<T>();
  if (g.n == 0 || g.c == 0) return;
  const int64_t hwo = g.hwo(), crs = g.crs();
  for_each_slot<T>(ConvOp::BackwardInput, g, gy.dtype(), c.workspace, c.workspace_bytes,
                   [&](const Slot<T>& slot, int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      const T* gyn = gyp + n * g.k * hwo;
      T* dxn = dxp + n * g.c * g.hw();
      // A[crs, k] = w[k, crs]: w read transposed through its strides.
      T* cols = g.pointwise() ? dxn : slot.col;
      cpu::gemm(crs, hwo, g.k, T(1), wp, 1, crs, gyn, hwo, 1, T(0), cols, hwo, slot.gemm_ws, slot.gemm_bytes);
      if (!g.pointwise()) cpu::col2im(g, cols, dxn);
    }
  });
}

template <typename T>
void conv2d_backward_weight(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& gy = c.inputs[1];
  const ConvGeometry g = cpu::conv_geometry(x.shape(), c.attrs.ints("weight_shape"), c.attrs);
  const T* xp = x.data<T>();
  const T* gyp = gy.data<T>();
  T* dwp = c.outputs[0].data<T>();
  const int64_t hwo = g.hwo(), crs = g.crs(), dw_size = g.k * crs;
  if (g.n == 0 || hwo == 0) {
    std::fill(dwp, dwp + dw_size, T(0));
    return;
  }
  // Accumulators of slots other than the first (a slot never outnumbers the threads).
  std::vector<const T*> partials(static_cast<size_t>(std::max(get_num_threads(), 1)), nullptr);
  for_each_slot<T>(ConvOp::BackwardWeight, g, x.dtype(), c.workspace, c.workspace_bytes,
                   [&](const Slot<T>& slot, int64_t n0, int64_t n1) {
    // Slot 0 accumulates straight into dw; the others into their own buffer, summed below.
    T* acc = slot.index == 0 ? dwp : slot.partial;
    if (slot.index > 0) partials[static_cast<size_t>(slot.index)] = acc;
    if (n0 == n1) std::fill(acc, acc + dw_size, T(0));
    for (int64_t n = n0; n < n1; ++n) {
      const T* xn = xp + n * g.c * g.hw();
      const T* gyn = gyp + n * g.k * hwo;
      const T beta = n == n0 ? T(0) : T(1);
      if (g.pointwise()) {  // B[p, c] = x[n, c, p]: the image read transposed through its strides
        cpu::gemm(g.k, crs, hwo, T(1), gyn, hwo, 1, xn, 1, hwo, beta, acc, crs, slot.gemm_ws, slot.gemm_bytes);
      } else {
        const cpu::Im2colSource<T> src{&g, xn};
        cpu::gemm(g.k, crs, hwo, T(1), gyn, hwo, 1, cpu::GemmPackB<T>{&cpu::pack_im2col_t<T>, &src}, beta, acc, crs,
                  slot.gemm_ws, slot.gemm_bytes);
      }
    }
  });
  for (const T* part : partials) {
    if (part == nullptr) continue;
    for (int64_t i = 0; i < dw_size; ++i) dwp[i] += part[i];
  }
}

size_t forward_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  return workspace_for(ConvOp::Forward, cpu::conv_geometry(in[0].shape, in[1].shape, a), in[0].dtype);
}

size_t backward_input_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  return workspace_for(ConvOp::BackwardInput, cpu::conv_geometry(a.ints("input_shape"), in[1].shape, a), in[0].dtype);
}

size_t backward_weight_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  return workspace_for(ConvOp::BackwardWeight, cpu::conv_geometry(in[0].shape, a.ints("weight_shape"), a), in[0].dtype);
}

}  // namespace

void register_cpu_conv_kernels(KernelRegistry& r) {
  r.add("Conv2D", DeviceType::CPU, DType::Float32, conv2d_forward<float>, forward_workspace);
  r.add("Conv2D", DeviceType::CPU, DType::Float64, conv2d_forward<double>, forward_workspace);
  r.add("Conv2DBackwardInput", DeviceType::CPU, DType::Float32, conv2d_backward_input<float>, backward_input_workspace);
  r.add("Conv2DBackwardInput", DeviceType::CPU, DType::Float64, conv2d_backward_input<double>, backward_input_workspace);
  r.add("Conv2DBackwardWeight", DeviceType::CPU, DType::Float32, conv2d_backward_weight<float>, backward_weight_workspace);
  r.add("Conv2DBackwardWeight", DeviceType::CPU, DType::Float64, conv2d_backward_weight<double>, backward_weight_workspace);
}

}  // namespace glassgrad
