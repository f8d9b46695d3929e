#include "cuda/launch.h"

#include <algorithm>
#include <sstream>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

unsigned blocks_for(const DeviceState& s, int64_t n, unsigned threads) {
  const int64_t want = (n + threads - 1) / threads;
  const int64_t cap = std::max<int64_t>(1, static_cast<int64_t>(s.info.multiprocessors) * 32);
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(want, cap)));
}

unsigned cap_yz(int64_t n) { return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(n, 65535))); }

unsigned pow2_block(int64_t n, unsigned lo, unsigned hi) {
  unsigned b = lo;
  while (b < hi && static_cast<int64_t>(b) < n) b <<= 1;
  return b;
}

unsigned channel_block(int64_t units) { return pow2_block((units + 7) / 8, 64, 1024); }

bool float4_channels(DType dt, int64_t I, std::initializer_list<const void*> ptrs) {
  if (dt != DType::Float32 || I % 4 != 0) return false;
  for (const void* q : ptrs)
    if (reinterpret_cast<uintptr_t>(q) % 16 != 0) return false;
  return true;
}

DeviceState& state_of(const Tensor& t) { return state(t.device().index); }

DeviceState& state_of(const KernelContext& c) {
  const Tensor& t = !c.outputs.empty() ? c.outputs[0] : c.inputs.at(0);
  return state_of(t);
}

CUstream stream_of(DeviceState& s, const KernelContext* c) {
  return (c && c->stream) ? static_cast<CUstream>(c->stream) : s.stream;
}

OpLaunch::OpLaunch(const KernelContext& c, const char* op, int64_t n, unsigned threads)
    : s(state_of(c)), stream(stream_of(s, &c)), site{op, &c}, grid{blocks_for(s, n, threads)}, block{threads} {}

namespace {

std::string dims(Dim3 d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

ErrorMessage describe(ErrorMessage m, const LaunchSite& site, DeviceState& s, const char* kernel, Dim3 grid,
                      Dim3 block) {
  std::string op = site.op ? site.op : "";
  if (site.ctx && !site.ctx->meta.scope.empty()) op += " '" + site.ctx->meta.scope + "'";
  if (!op.empty()) m.detail("op:     " + op);
  m.detail("kernel: " + std::string(kernel) + "  grid " + dims(grid) + "  block " + dims(block) + "  on cuda:" +
           std::to_string(s.index) + " (" + s.info.name + ")");
  if (site.ctx) {
    for (size_t i = 0; i < site.ctx->inputs.size(); ++i)
      m.detail("input " + std::to_string(i) + ":  " + site.ctx->inputs[i].info().str() + " strides " +
               shape_str(site.ctx->inputs[i].strides()));
    for (size_t i = 0; i < site.ctx->outputs.size(); ++i)
      m.detail("output " + std::to_string(i) + ": " + site.ctx->outputs[i].info().str());
    if (!site.ctx->attrs.empty()) m.detail("attrs:  " + site.ctx->attrs.str());
  }
  if (site.tensors) {
    for (size_t i = 0; i < site.tensors->size(); ++i)
      m.detail("tensor " + std::to_string(i) + ": " + (*site.tensors)[i].info().str() + " strides " +
               shape_str((*site.tensors)[i].strides()));
  }
  return m;
}

}  // namespace

void launch_raw(DeviceState& s, CUstream stream, const char* kernel, Dim3 grid, Dim3 block, void** params,
                const LaunchSite& site) {
  const DeviceInfo& d = s.info;
  const unsigned threads = block.x * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 ||
      static_cast<int64_t>(grid.x) > d.max_grid[0] || static_cast<int64_t>(grid.y) > d.max_grid[1] ||
      static_cast<int64_t>(grid.z) > d.max_grid[2] || static_cast<int>(threads) > d.max_threads_per_block) {
    ErrorMessage m("CUDA kernel " + std::string(kernel) + " would have an invalid launch configuration");
    m.detail("device limits: grid (" + std::to_string(d.max_grid[0]) + ", " + std::to_string(d.max_grid[1]) +
             ", " + std::to_string(d.max_grid[2]) + "), " + std::to_string(d.max_threads_per_block) +
             " threads per block");
    m.cause("a glassgrad launcher computed this grid; it should never exceed the limits");
    m.fix("please report this with the shapes above; meanwhile run this op on the CPU: x.to('cpu')");
    throw CudaError(describe(m, site, s, kernel, grid, block).str());
  }
  CUfunction f = function(s, kernel);
  make_current(s);
  const DriverApi& a = api();
  CUresult r = a.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, stream, params, nullptr);
  const bool blocking = launch_blocking();
  const char* when = "launching";
  if (r == CUDA_SUCCESS && blocking) {
    r = a.cuStreamSynchronize(stream);
    when = "running";
  }
  if (r != CUDA_SUCCESS) {
    int regs = 0, maxt = 0;
    a.cuFuncGetAttribute(&maxt, 0 /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */, f);
    a.cuFuncGetAttribute(&regs, 4 /* CU_FUNC_ATTRIBUTE_NUM_REGS */, f);
    ErrorMessage m("CUDA kernel " + std::string(kernel) + " failed while " + when + ": " + result_string(r));
    m.detail("kernel resources: " + std::to_string(regs) + " registers per thread, at most " +
             std::to_string(maxt) + " threads per block");
    if (!blocking) {
      m.cause("CUDA reports errors of earlier asynchronous kernels at the next launch, so the failing kernel "
              "may be an earlier one");
      m.fix("rerun with GLASSGRAD_CUDA_LAUNCH_BLOCKING=1 to stop at the kernel that fails, and please report it");
    } else {
      m.fix("please report this error with the shapes above; meanwhile run this op on the CPU: x.to('cpu')");
    }
    throw CudaError(describe(m, site, s, kernel, grid, block).str());
  }
}

CollapsedAxes collapse_for_kernel(const Shape& shape, const std::vector<Strides>& strides, const LaunchSite& site,
                                  const char* fix, size_t min_rank) {
  CollapsedAxes c = collapse_axes(shape, strides, min_rank);
  if (c.shape.size() > GG_MAX_DIMS) {
    throw UnsupportedError(ErrorMessage(std::string(site.op) + ": the CUDA kernels handle at most " +
                                        std::to_string(GG_MAX_DIMS) + " non-mergeable axes, this layout has " +
                                        std::to_string(c.shape.size()))
                               .detail("shape " + shape_str(shape))
                               .fix(fix)
                               .str());
  }
  return c;
}

GGIter make_iter(const Shape& shape, const std::vector<Strides>& strides, const LaunchSite& site) {
  const CollapsedAxes c = collapse_for_kernel(shape, strides, site);
  GGIter it{};
  it.rank = static_cast<int32_t>(c.shape.size());
  int64_t n = 1;
  bool small = true;
  for (size_t d = 0; d < c.shape.size(); ++d) {
    it.size[d] = c.shape[d];
    n *= c.shape[d];
    small = small && c.shape[d] < (int64_t(1) << 31);
    for (size_t k = 0; k < strides.size() && k < GG_MAX_OPS; ++k) it.stride[k][d] = c.strides[k][d];
  }
  it.small = (small && n < (int64_t(1) << 31)) ? 1 : 0;
  return it;
}

void require_int32_sizes(const KernelContext& c, const char* op) {
  auto check_one = [&](const Tensor& t, const char* role, size_t i) {
    if (t.numel() >= (int64_t(1) << 31)) {
      throw UnsupportedError(ErrorMessage(std::string(op) + (c.meta.scope.empty() ? "" : " '" + c.meta.scope + "'") +
                                          ": " + role + " " + std::to_string(i) + " has " +
                                          std::to_string(t.numel()) + " elements, more than the CUDA kernel's 32-bit indexing allows (2^31 - 1)")
                                 .detail(std::string(role) + ": " + t.info().str())
                                 .fix("split the batch into smaller pieces")
                                 .str());
    }
  };
  for (size_t i = 0; i < c.inputs.size(); ++i) check_one(c.inputs[i], "input", i);
  for (size_t i = 0; i < c.outputs.size(); ++i) check_one(c.outputs[i], "output", i);
}

const char* dtype_suffix(DType d) {
  switch (d) {
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
    case DType::Int64: return "i64";
    case DType::UInt8: return "u8";
    case DType::Bool: return "u8";
    default: return "f32";  // the storage types reach kernels only through Cast and copies
  }
}

std::string kname(const char* base, DType d) { return std::string(base) + "_" + dtype_suffix(d); }

}  // namespace cuda
}  // namespace glassgrad
