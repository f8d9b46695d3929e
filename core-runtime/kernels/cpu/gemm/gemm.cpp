// GEMM driver: picks the loop nest for the CPU's ISA, splits big problems across threads and
// hands each thread its share of the packing workspace. The arithmetic is in gemm_impl.h.
//
//   C[i, j] = alpha * sum_p A[i, p] * B[p, j] + beta * C[i, j]
//
// Thread split: the larger of M and N (in elements) is cut into contiguous ranges of whole
// micro-tiles, one per slot; every slot runs the full serial loop nest on its range with its
// own packing buffers. Cutting N makes each slot pack all of A (m*k extra work against
// m*k*n/slots multiply-adds), cutting M makes each pack all of B, so the cheaper duplicate is
// the one along the smaller dimension.
#include "gemm.h"

#include <algorithm>
#include <string>

#include "cpu/rounding.h"
#include "gemm_kernel.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/parallel.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
namespace cpu {

namespace {


template <typename T>
const GemmKernel<T>& kernel_for(CpuIsa isa);
template <>
const GemmKernel<float>& kernel_for<float>(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Avx512: return gemm_avx512::kernel_f32();
    case CpuIsa::Avx2: return gemm_avx2::kernel_f32();
    default: return gemm_generic::kernel_f32();
  }
}
template <>
const GemmKernel<double>& kernel_for<double>(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Avx512: return gemm_avx512::kernel_f64();
    case CpuIsa::Avx2: return gemm_avx2::kernel_f64();
    default: return gemm_generic::kernel_f64();
  }
}

void check_isa(CpuIsa isa) {
  if (static_cast<int>(isa) > static_cast<int>(cpu_isa())) {
    throw UnsupportedError(ErrorMessage(std::string("gemm: the ") + cpu_isa_name(isa) +
                                        " kernel was requested but this CPU (or GLASSGRAD_CPU_ISA) allows only " +
                                        cpu_isa_name(cpu_isa()))
                               .fix("call gemm without an ISA, or with cpu_isa()")
                               .str());
  }
}

// How one call is cut across slots (threads).
struct Split {
  int slots = 1;
  bool along_n = true;
  int64_t chunk = 0;       // elements of N (or M) per slot, a multiple of NR (or MR)
  size_t slot_bytes = 0;   // packing buffers of one slot, aligned
  size_t ap_bytes = 0;     // the packed-A part of them (packed B follows)
};

// Packing buffers of one slot working on an m x n x k share: packed A, then packed B.
template <typename T>
void set_slot_bytes(const GemmKernel<T>& kern, int64_t m, int64_t n, int64_t k, Split& s) {
  const GemmBlocking& b = kern.blocking;
  const int64_t kc = std::min(k, b.kc);
  const int64_t ap = ceil_div(std::min(m, b.mc), kern.mr) * kern.mr * kc;
  const int64_t bp = kc * ceil_div(std::min(n, b.nc), kern.nr) * kern.nr;
  s.ap_bytes = align_up(static_cast<size_t>(ap) * sizeof(T));
  s.slot_bytes = s.ap_bytes + align_up(static_cast<size_t>(bp) * sizeof(T));
}

template <typename T>
Split plan_split(const GemmKernel<T>& kern, int64_t m, int64_t n, int64_t k, int threads) {
  Split s;
  const int64_t m_tiles = ceil_div(m, kern.mr), n_tiles = ceil_div(n, kern.nr);
  if (threads > 1 && m * n * k >= kGemmMinParallelWork) {
    s.along_n = n >= m ? n_tiles >= 2 : m_tiles < 2;
    const int64_t tiles = s.along_n ? n_tiles : m_tiles;
    s.slots = static_cast<int>(std::min<int64_t>(threads, tiles));
  }
  if (s.slots <= 1) {
    s.slots = 1;
    s.along_n = true;
    s.chunk = n;
    set_slot_bytes(kern, m, n, k, s);
    return s;
  }
  if (s.along_n) {
    s.chunk = ceil_div(n_tiles, s.slots) * kern.nr;
    s.slots = static_cast<int>(ceil_div(n, s.chunk));
    set_slot_bytes(kern, m, s.chunk, k, s);
  } else {
    s.chunk = ceil_div(m_tiles, s.slots) * kern.mr;
    s.slots = static_cast<int>(ceil_div(m, s.chunk));
    set_slot_bytes(kern, s.chunk, n, k, s);
  }
  return s;
}

template <typename T>
void scale_c(int64_t m, int64_t n, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    if (beta == T(0)) {
      std::fill(row, row + n, T(0));
    } else if (beta != T(1)) {
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
}

template <typename T>
void gemm_impl(CpuIsa isa, const GemmProblem<T>& p, void* workspace, size_t workspace_bytes) {
  if (p.m < 0 || p.n < 0 || p.k < 0) {
    throw InternalError("gemm: negative size m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
                        " k=" + std::to_string(p.k));
  }
  if (p.m == 0 || p.n == 0) return;
  if (p.k == 0 || p.alpha == T(0)) {
    scale_c(p.m, p.n, p.beta, p.c, p.ldc);
    return;
  }
  check_isa(isa);
  if (p.a_packed != nullptr && (p.a_row0 < 0 || p.a_row0 + p.m > p.a_packed_m)) {
    throw InternalError("gemm: rows " + std::to_string(p.a_row0) + ".." + std::to_string(p.a_row0 + p.m) +
                        " of a packed A with " + std::to_string(p.a_packed_m) + " rows");
  }
  const GemmKernel<T>& kern = kernel_for<T>(isa);
  const int threads = in_parallel_region() ? 1 : get_num_threads();
  Split s = plan_split(kern, p.m, p.n, p.k, threads);
  // Use as many slots as the given workspace holds; without room for one, borrow a buffer.
  char* base = static_cast<char*>(workspace);
  size_t usable = 0;
  if (base != nullptr) {
    const size_t pad = align_up(reinterpret_cast<uintptr_t>(base)) - reinterpret_cast<uintptr_t>(base);
    usable = workspace_bytes > pad ? workspace_bytes - pad : 0;
    base += pad;
  }
  auto fits = [&](const Split& x) { return static_cast<size_t>(x.slots) * x.slot_bytes <= usable; };
  for (int t = s.slots - 1; t >= 1 && !fits(s); --t) s = plan_split(kern, p.m, p.n, p.k, t);
  Tensor scratch;
  if (!fits(s)) {
    s = plan_split(kern, p.m, p.n, p.k, threads);
    const size_t bytes = static_cast<size_t>(s.slots) * s.slot_bytes + kAlign;
    scratch = Tensor::empty({static_cast<int64_t>(bytes)}, DType::UInt8, Device::cpu(), "gemm packing buffers");
    base = reinterpret_cast<char*>(align_up(reinterpret_cast<uintptr_t>(scratch.data_ptr())));
  }

  auto run_slot = [&](int64_t slot) {
    char* ws = base + static_cast<size_t>(slot) * s.slot_bytes;
    T* ap = reinterpret_cast<T*>(ws);
    T* bp = reinterpret_cast<T*>(ws + s.ap_bytes);
    GemmProblem<T> q = p;
    const int64_t begin = slot * s.chunk;
    if (s.along_n) {
      q.n = std::min(s.chunk, p.n - begin);
      if (p.b_rows == nullptr && p.b_cols == nullptr && p.b_fill == nullptr) q.b.data = p.b.data + begin * p.b.col_stride;
      if (p.b_packed != nullptr) q.b_packed = p.b_packed + begin * p.k;  // begin: whole slivers
      if (p.b_cols != nullptr) q.b_cols = p.b_cols + begin;
      q.b_col0 = p.b_col0 + begin;
      q.c = p.c + begin;
    } else {
      q.m = std::min(s.chunk, p.m - begin);
      q.a.data = p.a.data + begin * p.a.row_stride;
      q.a_row0 = p.a_row0 + begin;  // begin: whole slivers
      q.c = p.c + begin * p.ldc;
    }
    kern.run(q, kern.blocking, ap, bp);
  };
  if (s.slots == 1) {
    run_slot(0);
    return;
  }
  parallel_for(s.slots, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t slot = s0; slot < s1; ++slot) run_slot(slot);
  });
}

template <typename T>
size_t workspace_bytes_impl(CpuIsa isa, int64_t m, int64_t n, int64_t k, bool serial) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  const GemmKernel<T>& kern = kernel_for<T>(isa);
  const Split s = plan_split(kern, m, n, k, serial ? 1 : get_num_threads());
  return static_cast<size_t>(s.slots) * s.slot_bytes + kAlign;
}

}  // namespace

template <typename T>
void gemm(const GemmProblem<T>& p, GemmWorkspace workspace, CpuIsa isa) {
  gemm_impl<T>(isa, p, workspace.data, workspace.bytes);
}
template void gemm<float>(const GemmProblem<float>&, GemmWorkspace, CpuIsa);
template void gemm<double>(const GemmProblem<double>&, GemmWorkspace, CpuIsa);

template <typename T>
void gemm_pack_b(const GemmProblem<T>& p, T* dst, CpuIsa isa) {
  if (p.n <= 0 || p.k <= 0) return;
  check_isa(isa);
  kernel_for<T>(isa).pack_b(p, dst);
}
template void gemm_pack_b<float>(const GemmProblem<float>&, float*, CpuIsa);
template void gemm_pack_b<double>(const GemmProblem<double>&, double*, CpuIsa);

template <typename T>
void gemm_pack_a(const GemmProblem<T>& p, T* dst, CpuIsa isa) {
  gemm_pack_a_rows(p, 0, p.m, dst, isa);
}
template void gemm_pack_a<float>(const GemmProblem<float>&, float*, CpuIsa);
template void gemm_pack_a<double>(const GemmProblem<double>&, double*, CpuIsa);

template <typename T>
void gemm_pack_a_rows(const GemmProblem<T>& p, int64_t row0, int64_t rows, T* dst, CpuIsa isa) {
  if (p.m <= 0 || p.k <= 0 || rows <= 0) return;
  check_isa(isa);
  const GemmKernel<T>& kern = kernel_for<T>(isa);
  if (row0 < 0 || row0 % kern.mr != 0 || row0 + rows > p.m || (rows % kern.mr != 0 && row0 + rows != p.m)) {
    throw InternalError("gemm_pack_a_rows: rows " + std::to_string(row0) + ".." + std::to_string(row0 + rows) +
                        " of an A with " + std::to_string(p.m) + " rows (both ends multiples of " +
                        std::to_string(kern.mr) + ", or the last row)");
  }
  kern.pack_a(p, row0, rows, dst);
}
template void gemm_pack_a_rows<float>(const GemmProblem<float>&, int64_t, int64_t, float*, CpuIsa);
template void gemm_pack_a_rows<double>(const GemmProblem<double>&, int64_t, int64_t, double*, CpuIsa);

int64_t gemm_packed_a_elems(int64_t m, int64_t k, DType dtype, CpuIsa isa) {
  const int64_t mr = dtype == DType::Float64 ? kernel_for<double>(isa).mr : kernel_for<float>(isa).mr;
  return ceil_div(m, mr) * mr * k;
}

int64_t gemm_packed_b_elems(int64_t k, int64_t n, DType dtype, CpuIsa isa) {
  const int64_t nr = dtype == DType::Float64 ? kernel_for<double>(isa).nr : kernel_for<float>(isa).nr;
  return k * ceil_div(n, nr) * nr;
}

template <typename T>
void gemm_dot(const GemmDotProblem<T>& p, CpuIsa isa) {
  if (p.m <= 0 || p.n <= 0) return;
  check_isa(isa);
  kernel_for<T>(isa).run_dot(p);
}
template void gemm_dot<float>(const GemmDotProblem<float>&, CpuIsa);
template void gemm_dot<double>(const GemmDotProblem<double>&, CpuIsa);

size_t gemm_workspace_bytes(int64_t m, int64_t n, int64_t k, DType dtype, bool serial, CpuIsa isa) {
  if (dtype == DType::Float64) return workspace_bytes_impl<double>(isa, m, n, k, serial);
  return workspace_bytes_impl<float>(isa, m, n, k, serial);
}

int gemm_threads(int64_t m, int64_t n, int64_t k, DType dtype) {
  if (m <= 0 || n <= 0 || k <= 0) return 1;
  const CpuIsa isa = cpu_isa();
  return dtype == DType::Float64 ? plan_split(kernel_for<double>(isa), m, n, k, get_num_threads()).slots
                                 : plan_split(kernel_for<float>(isa), m, n, k, get_num_threads()).slots;
}

int gemm_mr(DType dtype, CpuIsa isa) {
  return dtype == DType::Float64 ? kernel_for<double>(isa).mr : kernel_for<float>(isa).mr;
}

int64_t gemm_kc(DType dtype, CpuIsa isa) {
  return dtype == DType::Float64 ? kernel_for<double>(isa).blocking.kc : kernel_for<float>(isa).blocking.kc;
}

int gemm_nr(DType dtype, CpuIsa isa) {
  return dtype == DType::Float64 ? kernel_for<double>(isa).nr : kernel_for<float>(isa).nr;
}

const char* gemm_kernel_name(CpuIsa isa, DType dtype) {
  return dtype == DType::Float64 ? kernel_for<double>(isa).name : kernel_for<float>(isa).name;
}

}  // namespace cpu
}  // namespace glassgrad
