// Launchers of the reductions (kernels/cuda/reduction.cu): Sum, Mean, Max, Var over
// attrs.dims (empty or absent: every axis), ArgMax over attrs.dim. The input may be strided.
// Kept and reduced axes are collapsed separately; a few outputs over very many elements are
// split across blocks ("partial" + "finish"), a long reduction gets a block per output
// ("rows"), many short ones a thread per output ("cols").
#include <algorithm>

#include "fast_div.h"

#include <type_traits>

#include "cuda/launch.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/families/reduction.h"
#include "reduction.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_REDUCTION_KERNELS)

namespace {

// Merges axes of one group (sizes, strides) that are contiguous with each other.
void collapse_group(const Shape& size, const Strides& stride, int64_t* out_size, int64_t* out_stride, int32_t& rank,
                    const LaunchSite& site) {
  const CollapsedAxes c = collapse_for_kernel(size, {stride}, site, "make the input contiguous first: x.contiguous()", 0);
  rank = static_cast<int32_t>(c.shape.size());
  for (size_t d = 0; d < c.shape.size(); ++d) {
    out_size[d] = c.shape[d];
    out_stride[d] = c.strides[0][d];
  }
}

// A Sum or Mean of a dense [N, C, I] over N and I (the kept axis in the middle: a conv bias
// gradient) of at most kChannelValues values a channel and 2^31 in all, at least 256 a
// channel: a block per channel (gg_reduce_channels) in one launch.
constexpr int64_t kChannelValues = 32768;
bool channel_sums(const GGReduce& r, int op) {
  if (op != GG_SUM && op != GG_MEAN) return false;
  if (r.out_rank != 1 || r.red_rank != 2 || r.red_stride[1] != 1) return false;
  const int64_t I = r.red_size[1];
  return r.out_stride[0] == I && r.red_stride[0] == r.n_out * I && r.n_red >= 256 && r.n_red <= kChannelValues &&
         r.n_out * r.n_red < (int64_t(1) << 31);
}

void run_reduce(const KernelContext& c, const char* opname, int op, const std::vector<bool>& reduced,
                double correction) {
  const Tensor& x = c.inputs[0];
  const Tensor& out = c.outputs[0];
  if (out.numel() == 0) return;
  LaunchSite site{opname, &c};
  Shape ks, rs;
  Strides kst, rst;
  for (int d = 0; d < x.rank(); ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      rs.push_back(x.shape()[d]);
      rst.push_back(x.strides()[d]);
    } else {
      ks.push_back(x.shape()[d]);
      kst.push_back(x.strides()[d]);
    }
  }
  GGReduce r{};
  collapse_group(ks, kst, r.out_size, r.out_stride, r.out_rank, site);
  collapse_group(rs, rst, r.red_size, r.red_stride, r.red_rank, site);
  r.n_out = numel(ks);
  r.n_red = numel(rs);
  DeviceState& s = state_of(c);
  const bool is_arg = op == GG_ARGMAX;
  int64_t* iout = is_arg ? out.data<int64_t>() : nullptr;
  const int opc = op;
  CUstream st = stream_of(s, &c);
  const int64_t sms = s.info.multiprocessors;
  dispatch_float_int64(x.dtype(), [&](auto t) {
    using T = decltype(t);
    T* outp = is_arg ? nullptr : ptr<T>(out);
    const T* xp = ptr<const T>(x);
    if (channel_sums(r, op)) {
      const int64_t C = r.n_out, I = r.red_size[1], M = r.n_red;
      const bool vec = float4_channels(x.dtype(), I, {x.data_ptr()});
      const GGFastDiv div = make_fast_div(vec ? I / 4 : I);
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(C, 65535))}, block{channel_block(vec ? M / 4 : M)};
      if constexpr (std::is_same<T, float>::value) {
        if (vec) {
          launch<kernels::gg_reduce_channels_vec<T>>(s, st, grid, block, site, static_cast<int>(C),
                                                     static_cast<int>(I), static_cast<int>(M), div, opc, outp, xp);
          return;
        }
      }
      launch<kernels::gg_reduce_channels<T>>(s, st, grid, block, site, static_cast<int>(C), static_cast<int>(I),
                                             static_cast<int>(M), div, opc, outp, xp);
      return;
    }
    if (r.n_out < sms * 4 && r.n_red >= 16384) {
      // Split each output's elements across blocks, then combine the splits in order.
      const int64_t splits = std::max<int64_t>(1, std::min<int64_t>((r.n_red + 2047) / 2048,
                                                                    std::max<int64_t>(1, sms * 8 / r.n_out)));
      const DType acc = x.dtype() == DType::Int64 ? DType::Int64 : DType::Float64;
      const Tensor pv = Tensor::empty({r.n_out * splits}, acc, x.device(), "reduction partials");
      const Tensor pi = Tensor::empty({r.n_out * splits}, DType::Int64, x.device(), "reduction partial indices");
      const Dim3 pgrid{static_cast<unsigned>(std::min<int64_t>(r.n_out * splits, sms * 32))}, pblock{256};
      const Dim3 fgrid{blocks_for(s, r.n_out, 256)}, fblock{256};
      using Partial = kernels::gg_reduce_partial<T>;
      using Finish = kernels::gg_reduce_finish<T>;
      const double* no_mean = nullptr;
      double* no_mean_out = nullptr;
      if (op == GG_VAR) {  // exact mean first (two passes, as on the CPU)
        const Tensor mean = Tensor::empty({r.n_out}, DType::Float64, x.device(), "reduction means");
        const int sum = GG_SUM;
        launch<Partial>(s, st, pgrid, pblock, site, r, sum, splits, no_mean, pv.data_ptr(), pi.data<int64_t>(), xp);
        launch<Finish>(s, st, fgrid, fblock, site, r.n_out, r.n_red, sum, splits, correction, pv.data_ptr(),
                       pi.data<int64_t>(), outp, iout, mean.data<double>());
        launch<Partial>(s, st, pgrid, pblock, site, r, opc, splits, ptr<const double>(mean), pv.data_ptr(),
                        pi.data<int64_t>(), xp);
      } else {
        launch<Partial>(s, st, pgrid, pblock, site, r, opc, splits, no_mean, pv.data_ptr(), pi.data<int64_t>(), xp);
      }
      launch<Finish>(s, st, fgrid, fblock, site, r.n_out, r.n_red, opc, splits, correction, pv.data_ptr(),
                     pi.data<int64_t>(), outp, iout, no_mean_out);
      return;
    }
    if (r.n_red >= 128 || r.n_out < sms * 64) {
      const unsigned threads = pow2_block(r.n_red, 32, 256);
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(r.n_out, int64_t(s.info.multiprocessors) * 32))};
      launch<kernels::gg_reduce_rows<T>>(s, st, grid, Dim3{threads}, site, r, opc, correction, outp, iout, xp);
    } else {
      launch<kernels::gg_reduce_cols<T>>(s, st, Dim3{blocks_for(s, r.n_out, 256)}, Dim3{256}, site, r, opc,
                                         correction, outp, iout, xp);
    }
  });
}

// The reduced axes (the family's attributes, glassgrad/autodiff/families/reduction.h) as a mask.
std::vector<bool> reduced_axes(const ReductionAttrs& a, int rank) {
  std::vector<bool> red(static_cast<size_t>(rank), false);
  for (int d = 0; d < rank; ++d) red[static_cast<size_t>(d)] = a.reduces(d);
  return red;
}

template <int OP>
void reduce(const KernelContext& c) {
  static const char* names[] = {"Sum", "Mean", "Max", "Var", "ArgMax"};
  const int rank = c.inputs[0].rank();
  const ReductionAttrs a = ReductionAttrs::from(c.attrs, rank, OP == GG_ARGMAX);
  const double correction = OP == GG_VAR ? static_cast<double>(a.correction) : 0.0;
  run_reduce(c, names[OP], OP, reduced_axes(a, rank), correction);
}

// The row symbols of families/reduction.def.
constexpr KernelFn sum = reduce<GG_SUM>;
constexpr KernelFn mean = reduce<GG_MEAN>;
constexpr KernelFn max = reduce<GG_MAX>;
constexpr KernelFn var = reduce<GG_VAR>;
constexpr KernelFn argmax = reduce<GG_ARGMAX>;

}  // namespace

void add_reduction_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/reduction.def"
}

}  // namespace cuda
}  // namespace glassgrad
