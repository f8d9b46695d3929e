// Launchers of the reductions (kernels/cuda/reduction.cu): Sum, Mean, Max, Var over
// attrs.dims (empty or absent: every axis), ArgMax over attrs.dim. The input may be strided.
// Kept and reduced axes are collapsed separately; a few outputs over very many elements are
// split across blocks ("partial" + "finish"), a long reduction gets a block per output
// ("rows"), many short ones a thread per output ("cols").
#include <algorithm>

#include "fast_div.h"

#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kReductionFunctions({"gg_reduce_partial", "gg_reduce_finish", "gg_reduce_rows", "gg_reduce_cols",
                                         "gg_reduce_channels"},
                                        {DType::Float32, DType::Float64, DType::Int64});
const FunctionNames kReductionVectorFunctions({"gg_reduce_channels_vec"}, {DType::Float32});

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
  void* outp = is_arg ? nullptr : out.data_ptr();
  int64_t* iout = is_arg ? out.data<int64_t>() : nullptr;
  const int opc = op;
  CUstream st = stream_of(s, &c);
  const int64_t sms = s.info.multiprocessors;
  if (channel_sums(r, op)) {
    const int64_t C = r.n_out, I = r.red_size[1], M = r.n_red;
    const bool vec = float4_channels(x.dtype(), I, {x.data_ptr()});
    const GGFastDiv div = make_fast_div(vec ? I / 4 : I);
    launch(s, st, kname(vec ? "gg_reduce_channels_vec" : "gg_reduce_channels", x.dtype()).c_str(),
           Dim3{static_cast<unsigned>(std::min<int64_t>(C, 65535))}, Dim3{channel_block(vec ? M / 4 : M)}, site,
           static_cast<int>(C), static_cast<int>(I), static_cast<int>(M), div, opc, outp, x.data_ptr());
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
    const std::string partial = kname("gg_reduce_partial", x.dtype()), finish = kname("gg_reduce_finish", x.dtype());
    const double* no_mean = nullptr;
    double* no_mean_out = nullptr;
    if (op == GG_VAR) {  // exact mean first (two passes, as on the CPU)
      const Tensor mean = Tensor::empty({r.n_out}, DType::Float64, x.device(), "reduction means");
      const int sum = GG_SUM;
      launch(s, st, partial.c_str(), pgrid, pblock, site, r, sum, splits, no_mean, pv.data_ptr(), pi.data<int64_t>(),
             x.data_ptr());
      launch(s, st, finish.c_str(), fgrid, fblock, site, r.n_out, r.n_red, sum, splits, correction, pv.data_ptr(),
             pi.data<int64_t>(), outp, iout, mean.data<double>());
      launch(s, st, partial.c_str(), pgrid, pblock, site, r, opc, splits, static_cast<const double*>(mean.data<double>()),
             pv.data_ptr(), pi.data<int64_t>(), x.data_ptr());
    } else {
      launch(s, st, partial.c_str(), pgrid, pblock, site, r, opc, splits, no_mean, pv.data_ptr(), pi.data<int64_t>(),
             x.data_ptr());
    }
    launch(s, st, finish.c_str(), fgrid, fblock, site, r.n_out, r.n_red, opc, splits, correction, pv.data_ptr(),
           pi.data<int64_t>(), outp, iout, no_mean_out);
    return;
  }
  if (r.n_red >= 128 || r.n_out < sms * 64) {
    const unsigned threads = pow2_block(r.n_red, 32, 256);
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(r.n_out, int64_t(s.info.multiprocessors) * 32))};
    launch(s, st, kname("gg_reduce_rows", x.dtype()).c_str(), grid, Dim3{threads}, site, r, opc,
           correction, outp, iout, x.data_ptr());
  } else {
    launch(s, st, kname("gg_reduce_cols", x.dtype()).c_str(), Dim3{blocks_for(s, r.n_out, 256)},
           Dim3{256}, site, r, opc, correction, outp, iout, x.data_ptr());
  }
}

std::vector<bool> reduced_axes(const KernelContext& c, bool single_dim) {
  const int rank = c.inputs[0].rank();
  std::vector<bool> red(static_cast<size_t>(rank), false);
  std::vector<int64_t> dims;
  if (single_dim && c.attrs.has("dim")) {
    dims.push_back(c.attrs.i("dim"));
  } else if (c.attrs.has("dims")) {
    dims = c.attrs.ints("dims");
  }
  if (dims.empty()) std::fill(red.begin(), red.end(), true);
  for (int64_t d : dims) {
    const int a = normalize_axis(d, rank);
    if (a >= 0) red[static_cast<size_t>(a)] = true;
  }
  return red;
}

template <int OP>
void reduce(const KernelContext& c) {
  static const char* names[] = {"Sum", "Mean", "Max", "Var", "ArgMax"};
  const double correction = OP == GG_VAR ? c.attrs.f("correction", 1.0) : 0.0;
  run_reduce(c, names[OP], OP, reduced_axes(c, OP == GG_ARGMAX), correction);
}

}  // namespace

void add_reduction_kernels(std::vector<KernelDef>& k) {
  const std::vector<DType> num{DType::Float32, DType::Float64, DType::Int64};
  k.push_back({"Sum", reduce<GG_SUM>, num});
  k.push_back({"Mean", reduce<GG_MEAN>, float_dtypes()});
  k.push_back({"Max", reduce<GG_MAX>, num});
  k.push_back({"Var", reduce<GG_VAR>, float_dtypes()});
  k.push_back({"ArgMax", reduce<GG_ARGMAX>, num});
}

}  // namespace cuda
}  // namespace glassgrad
