// FusedElementwise on the CPU: out = program(x0, ..., xn-1), elementwise with broadcasting.
//
// The output is processed in blocks of kBlock elements (row-major order). For each block every
// input is gathered into a register array (a plain copy when it is dense and of the output's
// shape, a fill when it is a broadcast scalar, an odometer walk over its strides otherwise),
// then each instruction runs as one tight loop over the block, and the last register is stored.
// Each instruction runs its row's scalar function (elementwise_scalar.h), as the unfused
// kernels (elementwise.cpp) do: exactly the same arithmetic, in the same order.
#include <cstring>

#include "cpu/registration.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/fusion.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"
#include "loops.h"

namespace glassgrad {

namespace {

constexpr int64_t kBlock = 512;

// One instruction over a block of n values: d = f(a, b, s) with the row's scalar function.
template <ElementwiseOp OP, typename T>
void run_row(const T* a, const T* b, T s, T* d, int64_t n) {
  using E = Elementwise<OP>;
  if constexpr (E::kind == ElementwiseKind::Compare) {
    throw InternalError("FusedElementwise: a comparison in a fused program");  // from_attrs refuses them
  } else if constexpr (E::arity == 1) {
    for (int64_t k = 0; k < n; ++k) d[k] = E::f(a[k], T(0), s);
  } else {
    for (int64_t k = 0; k < n; ++k) d[k] = E::f(a[k], b[k], s);
  }
}

template <typename T>
void run_instruction(const FusedInstruction& ins, const T* a, const T* b, T* d, int64_t n) {
  const T s = static_cast<T>(ins.scalar);
  switch (ins.op) {
#define GG_ELEMENTWISE(Name, ...) \
  case ElementwiseOp::Name: return run_row<ElementwiseOp::Name, T>(a, b, s, d, n);
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
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
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/fused.def"
}

}  // namespace glassgrad
