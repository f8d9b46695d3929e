// CPU kernel: MatMul, float32 and float64.
//
//   out[..., i, j] = sum_k a[..., i, k] * b[..., k, j]
//
// Inputs: any strides (the schema sets strided_inputs): each matrix is handed to the GEMM with
// its own row and column strides, so a transposed or sliced view is never copied, and a batch
// axis that broadcasting stretched (stride 0, or a missing axis) reuses the same matrix.
// Output: dense row-major [batch..., M, N].
// Bias (optional third input, fuse_matmul_bias in fusion.h): bias[j] is added to every row once
// the product is written, so the sums round as the unfused product + Add's did.
//
// A batch of products that share b and whose a matrices follow each other at the row stride
// (x [B, T, C] @ weight.T) is one product of B*T rows: fold_rows().
//
// Threads: one product big enough to split runs the GEMM's own threads; a batch of at least as
// many products as threads, or of products too small to split, is spread over the batch
// instead, each slot with its own share of the workspace.
#include <algorithm>
#include <vector>

#include "cpu/gemm/gemm.h"
#include "cpu/registration.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

struct MatMulDims {
  int64_t m = 0, n = 0, k = 0, batch = 1;
};

// Element offsets of each batch entry's matrix in a tensor broadcast to the output's batch axes.
std::vector<int64_t> batch_offsets(const Shape& shape, const Strides& strides, const Shape& out_batch) {
  Shape t_batch(shape.begin(), shape.end() - 2);
  Strides t_strides(strides.begin(), strides.end() - 2);
  Strides s(out_batch.size(), 0);
  const size_t lead = out_batch.size() - t_batch.size();
  for (size_t i = 0; i < t_batch.size(); ++i) s[lead + i] = t_batch[i] == 1 ? 0 : t_strides[i];
  std::vector<int64_t> offs(static_cast<size_t>(numel(out_batch)), 0);
  for (size_t bi = 0; bi < offs.size(); ++bi) {
    int64_t rem = static_cast<int64_t>(bi), off = 0;
    for (size_t d = out_batch.size(); d-- > 0;) {
      off += (rem % out_batch[d]) * s[d];
      rem /= out_batch[d];
    }
    offs[bi] = off;
  }
  return offs;
}

// Whether the batch is one product of batch * m rows: every entry reads the same b, and a's
// matrices follow each other at its row stride (entry bi's row i is row bi * m + i of one matrix).
bool fold_rows(const MatMulDims& d, const std::vector<int64_t>& a_off, const std::vector<int64_t>& b_off,
               int64_t a_row_stride) {
  if (d.batch <= 1) return false;
  for (size_t bi = 0; bi < a_off.size(); ++bi) {
    if (b_off[bi] != b_off[0] || a_off[bi] != a_off[0] + static_cast<int64_t>(bi) * d.m * a_row_stride) return false;
  }
  return true;
}

MatMulDims dims_of(const Shape& a, const Shape& out) {
  const size_t r = out.size();
  MatMulDims d;
  d.m = out[r - 2];
  d.n = out[r - 1];
  d.k = a.back();
  for (size_t i = 0; i + 2 < r; ++i) d.batch *= out[i];
  return d;
}

// Slots working on separate products at once (1: products run one after another, each using
// the GEMM's threads).
int batch_slots(const MatMulDims& d, DType dt) {
  const int threads = get_num_threads();
  if (threads <= 1 || d.batch <= 1 || d.batch * d.m * d.n * d.k < cpu::kGemmMinParallelWork) return 1;
  if (d.batch < threads && cpu::gemm_threads(d.m, d.n, d.k, dt) > 1) return 1;
  return static_cast<int>(std::min<int64_t>(threads, d.batch));
}

// The planner knows shapes, not strides: when b is a plain matrix the batch may fold into the
// rows at run time, so the workspace covers both forms.
size_t matmul_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs&) {
  const MatMulDims d = dims_of(in[0].shape, out[0].shape);
  const DType dt = in[0].dtype;
  const int slots = batch_slots(d, dt);
  size_t bytes = slots == 1 ? cpu::gemm_workspace_bytes(d.m, d.n, d.k, dt)
                            : static_cast<size_t>(slots) * cpu::gemm_workspace_bytes(d.m, d.n, d.k, dt, /*serial=*/true);
  if (in[1].shape.size() == 2 && d.batch > 1) bytes = std::max(bytes, cpu::gemm_workspace_bytes(d.m * d.batch, d.n, d.k, dt));
  return bytes;
}

// A product with one row (x @ W.T for one token) or at most kDotMaxCols columns (W @ v) over
// k >= kDotMinK, whose operands are both contiguous along k: dot products read each operand once,
// where the packed GEMM would copy B into panels and pad its micro-tiles with mostly idle rows or
// columns (W [4096, 1152] @ v: 6-8 ms packed on a 2-core CPU, one pass over W by dots).
constexpr int64_t kDotMaxCols = 4, kDotMinK = 16;

bool dot_form(const MatMulDims& d, int64_t csa, int64_t rsb) {
  return (d.m == 1 || d.n <= kDotMaxCols) && csa == 1 && rsb == 1 && d.k >= kDotMinK;
}

// out[m, n] (ldc n) = A [m, k] (rows rsa apart) x B [k, n] (columns csb apart), by dots over k,
// split over threads along the longer of the two output axes. With one row and more columns,
// B's columns are the dot problem's rows, so its row tiles run along n.
template <typename T>
void dot_product(const MatMulDims& d, const T* a, int64_t rsa, const T* b, int64_t csb, T* out) {
  const bool by_cols = d.m == 1 && d.n > kDotMaxCols;
  const int64_t rows = by_cols ? d.n : d.m;
  std::vector<const T*> others(static_cast<size_t>(by_cols ? 1 : d.n));
  if (by_cols) {
    others[0] = a;
  } else {
    for (int64_t j = 0; j < d.n; ++j) others[static_cast<size_t>(j)] = b + j * csb;
  }
  auto run = [&](int64_t r0, int64_t r1) {
    cpu::GemmDotProblem<T> dp(r1 - r0, by_cols ? 1 : d.n, d.k);
    dp.a = by_cols ? b + r0 * csb : a + r0 * rsa;
    dp.lda = by_cols ? csb : rsa;
    dp.b_rows = others.data();
    dp.c = by_cols ? out + r0 : out + r0 * d.n;
    dp.ldc = by_cols ? 1 : d.n;
    cpu::gemm_dot(dp);
  };
  const int threads = in_parallel_region() ? 1 : get_num_threads();
  if (threads <= 1 || d.m * d.n * d.k < cpu::kGemmMinParallelWork) {
    run(0, rows);
    return;
  }
  parallel_for(threads, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) run(rows * t / threads, rows * (t + 1) / threads);
  });
}

template <typename T>
void matmul_only(const KernelContext& c) {
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const Tensor& out = c.outputs[0];
  if (out.numel() == 0) return;
  MatMulDims d = dims_of(a.shape(), out.shape());
  const Shape out_batch(out.shape().begin(), out.shape().end() - 2);
  std::vector<int64_t> a_off = batch_offsets(a.shape(), a.strides(), out_batch);
  std::vector<int64_t> b_off = batch_offsets(b.shape(), b.strides(), out_batch);
  const int64_t rsa = a.strides()[a.rank() - 2], csa = a.strides()[a.rank() - 1];
  if (fold_rows(d, a_off, b_off, rsa)) {
    d.m *= d.batch;
    d.batch = 1;
    a_off.resize(1);
    b_off.resize(1);
  }
  const int64_t rsb = b.strides()[b.rank() - 2], csb = b.strides()[b.rank() - 1];
  const T* ap = a.data<T>();
  const T* bp = b.data<T>();
  T* op = out.data<T>();
  if (dot_form(d, csa, rsb)) {
    for (int64_t bi = 0; bi < d.batch; ++bi)
      dot_product<T>(d, ap + a_off[static_cast<size_t>(bi)], rsa, bp + b_off[static_cast<size_t>(bi)], csb,
                     op + bi * d.m * d.n);
    return;
  }
  auto product = [&](int64_t bi, void* ws, size_t ws_bytes) {
    cpu::GemmProblem<T> p(d.m, d.n, d.k);
    p.a = cpu::strided(ap + a_off[static_cast<size_t>(bi)], rsa, csa);
    p.b = cpu::strided(bp + b_off[static_cast<size_t>(bi)], rsb, csb);
    p.c = op + bi * d.m * d.n;
    p.ldc = d.n;
    cpu::gemm(p, {ws, ws_bytes});
  };
  const int slots = batch_slots(d, a.dtype());
  if (slots == 1) {
    for (int64_t bi = 0; bi < d.batch; ++bi) product(bi, c.workspace, c.workspace_bytes);
    return;
  }
  const size_t per_slot = c.workspace_bytes / static_cast<size_t>(slots);
  parallel_for(slots, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      void* ws = c.workspace ? static_cast<char*>(c.workspace) + static_cast<size_t>(s) * per_slot : nullptr;
      for (int64_t bi = d.batch * s / slots; bi < d.batch * (s + 1) / slots; ++bi) product(bi, ws, per_slot);
    }
  });
}

// out[r, j] += bias[j * sb] for every row r of the dense output, rows split over threads.
template <typename T>
void add_bias_rows(T* out, int64_t rows, int64_t n, const T* bias, int64_t sb) {
  auto run = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      T* o = out + r * n;
      if (sb == 1) {
        for (int64_t j = 0; j < n; ++j) o[j] += bias[j];
      } else {
        for (int64_t j = 0; j < n; ++j) o[j] += bias[j * sb];
      }
    }
  };
  const int threads = in_parallel_region() ? 1 : get_num_threads();
  if (threads <= 1 || rows * n < cpu::kGemmMinParallelWork) return run(0, rows);
  parallel_for(rows, std::max<int64_t>(1, cpu::kGemmMinParallelWork / std::max<int64_t>(1, n)), run);
}

template <typename T>
void matmul_product(const KernelContext& c) {
  matmul_only<T>(c);
  if (c.inputs.size() > 2 && c.outputs[0].numel() > 0) {
    const Tensor& out = c.outputs[0];
    const int64_t n = out.shape().back();
    const Tensor& bias = c.inputs[2];
    add_bias_rows<T>(out.data<T>(), out.numel() / n, n, bias.data<T>(), bias.strides()[0]);
  }
}

// MatMul's kernel entry: the product and its workspace.
template <typename T>
constexpr KernelEntry matmul{matmul_product<T>, matmul_workspace, nullptr};

}  // namespace

void register_cpu_matmul_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/matmul.def"
}

}  // namespace glassgrad
