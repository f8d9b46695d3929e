// FusedElementwise on the CPU: out = program(x0, ..., xn-1), elementwise with broadcasting.
//
// The output is processed in blocks of kBlock elements (row-major order). For each block every
// input is gathered into a register array (a plain copy when it is dense and of the output's
// shape, a fill when it is a broadcast scalar, an odometer walk over its strides otherwise),
// then each instruction runs as one tight loop over the block, and the last register is stored.
// The arithmetic is exactly that of the unfused kernels (elementwise.cpp), in the same order.
#include <cmath>
#include <cstring>

#include "glassgrad/autodiff/fusion.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"
#include "loops.h"

namespace glassgrad {

namespace {

constexpr int64_t kBlock = 512;

template <typename T>
T sigmoid(T x) {
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

template <typename T>
T pow_scalar(T x, T p) {
  if (p == T(2)) return x * x;
  if (p == T(1)) return x;
  if (p == T(0.5)) return std::sqrt(x);
  if (p == T(-1)) return T(1) / x;
  return std::pow(x, p);
}

template <typename T>
void run_instruction(const FusedInstruction& ins, const T* a, const T* b, T* d, int64_t n) {
  const T s = static_cast<T>(ins.scalar);
  switch (ins.op) {
    case FusedOp::Add: for (int64_t k = 0; k < n; ++k) d[k] = a[k] + b[k]; break;
    case FusedOp::Sub: for (int64_t k = 0; k < n; ++k) d[k] = a[k] - b[k]; break;
    case FusedOp::Mul: for (int64_t k = 0; k < n; ++k) d[k] = a[k] * b[k]; break;
    case FusedOp::Div: for (int64_t k = 0; k < n; ++k) d[k] = a[k] / b[k]; break;
    case FusedOp::Maximum: for (int64_t k = 0; k < n; ++k) d[k] = (a[k] >= b[k] || a[k] != a[k]) ? a[k] : b[k]; break;
    case FusedOp::Minimum: for (int64_t k = 0; k < n; ++k) d[k] = (a[k] <= b[k] || a[k] != a[k]) ? a[k] : b[k]; break;
    case FusedOp::Neg: for (int64_t k = 0; k < n; ++k) d[k] = -a[k]; break;
    case FusedOp::Exp: for (int64_t k = 0; k < n; ++k) d[k] = std::exp(a[k]); break;
    case FusedOp::Log: for (int64_t k = 0; k < n; ++k) d[k] = std::log(a[k]); break;
    case FusedOp::Sqrt: for (int64_t k = 0; k < n; ++k) d[k] = std::sqrt(a[k]); break;
    case FusedOp::ReLU: for (int64_t k = 0; k < n; ++k) d[k] = a[k] > T(0) ? a[k] : T(0); break;
    case FusedOp::Sigmoid: for (int64_t k = 0; k < n; ++k) d[k] = sigmoid(a[k]); break;
    case FusedOp::Tanh: for (int64_t k = 0; k < n; ++k) d[k] = std::tanh(a[k]); break;
    case FusedOp::AddScalar: for (int64_t k = 0; k < n; ++k) d[k] = a[k] + s; break;
    case FusedOp::MulScalar: for (int64_t k = 0; k < n; ++k) d[k] = a[k] * s; break;
    case FusedOp::PowScalar: for (int64_t k = 0; k < n; ++k) d[k] = pow_scalar(a[k], s); break;
    case FusedOp::RDivScalar: for (int64_t k = 0; k < n; ++k) d[k] = s / a[k]; break;
    case FusedOp::ReLUBackward: for (int64_t k = 0; k < n; ++k) d[k] = b[k] > T(0) ? a[k] : T(0); break;
    case FusedOp::SigmoidBackward: for (int64_t k = 0; k < n; ++k) d[k] = a[k] * b[k] * (T(1) - b[k]); break;
    case FusedOp::TanhBackward: for (int64_t k = 0; k < n; ++k) d[k] = a[k] * (T(1) - b[k] * b[k]); break;
  }
}

// How to read one input for a block of output elements [start, start + n).
struct InputView {
  const char* base;
  Strides strides;   // broadcast to the output shape, in elements
  enum Kind { Dense, Scalar, Strided } kind;
};

template <typename T>
void gather(const InputView& in, const Shape& shape, int64_t start, int64_t n, T* dst) {
  const T* p = reinterpret_cast<const T*>(in.base);
  if (in.kind == InputView::Dense) {
    std::memcpy(dst, p + start, static_cast<size_t>(n) * sizeof(T));
    return;
  }
  if (in.kind == InputView::Scalar) {
    for (int64_t k = 0; k < n; ++k) dst[k] = p[0];
    return;
  }
  // Odometer over the output's multi-index, starting at `start`.
  const size_t rank = shape.size();
  std::vector<int64_t> idx(rank);
  int64_t rem = start, off = 0;
  for (size_t d = rank; d-- > 0;) {
    idx[d] = rem % shape[d];
    rem /= shape[d];
    off += idx[d] * in.strides[d];
  }
  for (int64_t k = 0; k < n; ++k) {
    dst[k] = p[off];
    for (size_t d = rank; d-- > 0;) {
      off += in.strides[d];
      if (++idx[d] < shape[d]) break;
      off -= idx[d] * in.strides[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
void fused_elementwise(const KernelContext& c) {
  const Tensor& out = c.outputs[0];
  const Shape& shape = out.shape();
  const int n_in = static_cast<int>(c.inputs.size());
  const FusedProgram prog = FusedProgram::from_attrs(c.attrs, n_in);
  std::vector<InputView> views;
  for (const Tensor& x : c.inputs) {
    InputView v{static_cast<const char*>(x.data_ptr()), cpu::broadcast_strides(x, shape), InputView::Strided};
    if (x.numel() == 1) v.kind = InputView::Scalar;
    else if (x.shape() == shape && x.is_contiguous()) v.kind = InputView::Dense;
    views.push_back(std::move(v));
  }
  const int n_regs = n_in + static_cast<int>(prog.code.size());
  const int64_t total = out.numel();
  const int64_t blocks = (total + kBlock - 1) / kBlock;
  T* dst = out.data<T>();
  parallel_for(blocks, 16, [&](int64_t b0, int64_t b1) {
    std::vector<T> regs(static_cast<size_t>(n_regs * kBlock));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t start = b * kBlock, n = std::min(kBlock, total - start);
      for (int i = 0; i < n_in; ++i) gather<T>(views[static_cast<size_t>(i)], shape, start, n, &regs[static_cast<size_t>(i * kBlock)]);
      for (size_t j = 0; j < prog.code.size(); ++j) {
        const FusedInstruction& ins = prog.code[j];
        const T* ra = &regs[static_cast<size_t>(ins.a * kBlock)];
        const T* rb = ins.b >= 0 ? &regs[static_cast<size_t>(ins.b * kBlock)] : nullptr;
        run_instruction<T>(ins, ra, rb, &regs[static_cast<size_t>((n_in + static_cast<int>(j)) * kBlock)], n);
      }
      std::memcpy(dst + start, &regs[static_cast<size_t>((n_regs - 1) * kBlock)], static_cast<size_t>(n) * sizeof(T));
    }
  });
}

}  // namespace

void register_cpu_fused_kernels(KernelRegistry& r) {
  r.add("FusedElementwise", DeviceType::CPU, DType::Float32, fused_elementwise<float>);
  r.add("FusedElementwise", DeviceType::CPU, DType::Float64, fused_elementwise<double>);
}

}  // namespace glassgrad
