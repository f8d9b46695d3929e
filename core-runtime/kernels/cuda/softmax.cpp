// Launchers of softmax, log-softmax, their backwards and cross-entropy
// (kernels/cuda/softmax.cu). A label outside [0, C) is found on the device (the first bad row
// is recorded in a flag word) and raised here after the kernel, naming the row and the label.
#include <algorithm>
#include <limits>

#include "cuda/launch.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kSoftmaxFunctions({"gg_softmax_rows", "gg_softmax_cols", "gg_softmax_bwd_rows",
                                       "gg_softmax_bwd_cols", "gg_ce_rows", "gg_ce_backward", "gg_sum_all",
                                       "gg_ce_total_weight", "gg_ce_reduced"},
                                      float_dtypes());

namespace {

struct Axis {
  int64_t outer = 1, D = 1, inner = 1;
};
Axis split(const Tensor& x, int64_t dim) {
  const int d = normalize_axis(dim, x.rank());
  Axis a;
  for (int i = 0; i < x.rank(); ++i) {
    if (i < d) a.outer *= x.shape()[i];
    else if (i == d) a.D = x.shape()[i];
    else a.inner *= x.shape()[i];
  }
  return a;
}

// mode 0: softmax, 1: log-softmax
template <int MODE>
void forward(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  if (y.numel() == 0) return;
  const Axis a = split(x, c.attrs.i("dim", -1));
  DeviceState& s = state_of(c);
  LaunchSite site{MODE == 0 ? "Softmax" : "LogSoftmax", &c};
  const int mode = MODE;
  if (a.inner == 1) {
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(a.outer, int64_t(s.info.multiprocessors) * 32))};
    launch(s, stream_of(s, &c), kname("gg_softmax_rows", x.dtype()).c_str(), grid, Dim3{pow2_block(a.D, 32, 256)},
           site, a.outer, a.D, mode, y.data_ptr(), x.data_ptr());
  } else {
    launch(s, stream_of(s, &c), kname("gg_softmax_cols", x.dtype()).c_str(),
           Dim3{blocks_for(s, a.outer * a.inner, 256)}, Dim3{256}, site, a.outer, a.D, a.inner, mode, y.data_ptr(),
           x.data_ptr());
  }
}

// inputs grad, y (the forward output)
template <int MODE>
void backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& y = c.inputs[1];
  const Tensor& dx = c.outputs[0];
  if (dx.numel() == 0) return;
  const Axis a = split(y, c.attrs.i("dim", -1));
  DeviceState& s = state_of(c);
  LaunchSite site{MODE == 0 ? "SoftmaxBackward" : "LogSoftmaxBackward", &c};
  const int mode = MODE;
  if (a.inner == 1) {
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(a.outer, int64_t(s.info.multiprocessors) * 32))};
    launch(s, stream_of(s, &c), kname("gg_softmax_bwd_rows", y.dtype()).c_str(), grid, Dim3{pow2_block(a.D, 32, 256)},
           site, a.outer, a.D, mode, dx.data_ptr(), g.data_ptr(), y.data_ptr());
  } else {
    launch(s, stream_of(s, &c), kname("gg_softmax_bwd_cols", y.dtype()).c_str(),
           Dim3{blocks_for(s, a.outer * a.inner, 256)}, Dim3{256}, site, a.outer, a.D, a.inner, mode, dx.data_ptr(),
           g.data_ptr(), y.data_ptr());
  }
}

int reduction_code(const KernelContext& c) {
  const std::string r = c.attrs.has("reduction") ? c.attrs.s("reduction") : "mean";
  return r == "none" ? 0 : r == "sum" ? 1 : 2;
}

// A one-word device flag, all bits set until a kernel records a bad row (atomicMin keeps the
// first).
Tensor make_flag(const Device& d) {
  Tensor f = Tensor::empty({1}, DType::Int64, d, "label check");
  fill_tensor(f, -1.0);  // all bits set
  return f;
}

void check_labels(const KernelContext& c, const char* op, const Tensor& flag, const Tensor& logits,
                  const Tensor& labels, int64_t C, int64_t ignore_index) {
  const Tensor host = flag.to(Device::cpu());  // synchronizes the stream
  const int64_t row = host.data<int64_t>()[0];
  if (row == -1) return;
  const int64_t label = labels.select(0, row).to(Device::cpu()).data<int64_t>()[0];
  const std::string where = node_where(op, c.meta.scope);
  const int64_t n = labels.numel();
  ErrorMessage m(where + ": label " + std::to_string(label) + " at position " + std::to_string(row) +
                 " is out of range for " + std::to_string(C) + " classes");
  m.detail("labels must be in [0, " + std::to_string(C) + "); labels " + labels.info().str() + " (" +
           std::to_string(n) + " values), logits " + logits.info().str());
  if (label == C) m.cause("labels counted from 1 instead of 0, or a classifier with one output too few");
  else if (label < 0)
    m.cause("a negative label (e.g. -1 used to mark unlabeled samples; ignore_index=" + std::to_string(ignore_index) +
            " marks the labels to skip)");
  else m.cause("the classifier has fewer outputs than the data set has classes");
  m.fix("give the last layer max(label) + 1 outputs, or shift the labels to start at 0 (y - y.min())");
  throw IndexError(m.str());
}

// The cross-entropy options: class weights (input wi, or null), ignore_index, label_smoothing.
struct CEArgs {
  const void* weight;
  int64_t ignore_index;
  double smoothing;
};
CEArgs ce_args(const KernelContext& c, size_t wi) {
  return CEArgs{c.inputs.size() > wi ? c.inputs[wi].data_ptr() : nullptr, c.attrs.i("ignore_index", -100),
                c.attrs.f("label_smoothing", 0.0)};
}

// inputs logits [N, C], labels [N] int64, weight [C]?; output loss ([] or [N])
void cross_entropy(const KernelContext& c) {
  const Tensor& z = c.inputs[0];
  const Tensor& labels = c.inputs[1];
  const Tensor& out = c.outputs[0];
  const int64_t N = z.shape()[0], C = z.rank() > 1 ? z.shape()[1] : 1;
  const int red = reduction_code(c);
  const CEArgs o = ce_args(c, 2);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"CrossEntropy", &c};
  if (N == 0) {
    if (red != 0) fill_tensor(out, red == 2 ? std::numeric_limits<double>::quiet_NaN() : 0.0);
    return;
  }
  // While a CUDA graph is captured, the executor's error word (checked at synchronization)
  // replaces the per-call flag that a host read would check now.
  const bool deferred = capturing() && c.error_word != nullptr;
  const Tensor flag = deferred ? Tensor() : make_flag(z.device());
  void* flag_ptr = deferred ? c.error_word : flag.data_ptr();
  const DType dt = z.dtype();
  if (red != 0 && N <= kCEReducedRows && C <= 32) {  // one block, a warp a row: one launch, not two
    const unsigned threads = static_cast<unsigned>(std::min<int64_t>(1024, N * 32));
    const std::string k = kname("gg_ce_reduced", dt);
    if (dt == DType::Float32) {
      launch(s, st, k.c_str(), Dim3{1}, Dim3{threads}, site, N, C, 1.0f, red == 2 ? 1 : 0, out.data_ptr(), z.data_ptr(),
             labels.data_ptr(), o.weight, o.ignore_index, static_cast<float>(o.smoothing), flag_ptr);
    } else {
      launch(s, st, k.c_str(), Dim3{1}, Dim3{threads}, site, N, C, 1.0, red == 2 ? 1 : 0, out.data_ptr(), z.data_ptr(),
             labels.data_ptr(), o.weight, o.ignore_index, o.smoothing, flag_ptr);
    }
    if (!deferred) check_labels(c, "CrossEntropy", flag, z, labels, C, o.ignore_index);
    return;
  }
  const Tensor rows = red == 0 ? out : Tensor::empty({N}, z.dtype(), z.device(), "cross-entropy rows");
  const Tensor wrows = red == 2 ? Tensor::empty({N}, z.dtype(), z.device(), "cross-entropy row weights") : Tensor();
  void* wrow_ptr = red == 2 ? wrows.data_ptr() : nullptr;
  const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(N, int64_t(s.info.multiprocessors) * 32))};
  const Dim3 block{pow2_block(C, 32, 256)};
  const std::string rows_k = kname("gg_ce_rows", dt);
  if (dt == DType::Float32) {
    launch(s, st, rows_k.c_str(), grid, block, site, N, C, rows.data_ptr(), wrow_ptr, z.data_ptr(), labels.data_ptr(),
           o.weight, o.ignore_index, static_cast<float>(o.smoothing), flag_ptr);
  } else {
    launch(s, st, rows_k.c_str(), grid, block, site, N, C, rows.data_ptr(), wrow_ptr, z.data_ptr(), labels.data_ptr(),
           o.weight, o.ignore_index, o.smoothing, flag_ptr);
  }
  if (red != 0) {  // sum, or sum / sum of the rows' weights (mean)
    const std::string k = kname("gg_sum_all", dt);
    const void* w = red == 2 ? wrows.data_ptr() : nullptr;
    if (dt == DType::Float32) {
      launch(s, st, k.c_str(), Dim3{1}, Dim3{1024}, site, N, 1.0f, out.data_ptr(), rows.data_ptr(), w);
    } else {
      launch(s, st, k.c_str(), Dim3{1}, Dim3{1024}, site, N, 1.0, out.data_ptr(), rows.data_ptr(), w);
    }
  }
  if (!deferred) check_labels(c, "CrossEntropy", flag, z, labels, C, o.ignore_index);
}

// inputs g, logits, labels, weight?; output dlogits. The labels were checked by the forward op
// (one host synchronization per step is enough); a bad label here only loses its one-hot term,
// so the kernel records none (no flag to fill: one launch fewer a step). A batch of at most
// kBlockTotalRows rows has each block sum the "mean" divisor itself: one launch fewer again.
constexpr int64_t kBlockTotalRows = 256;
void cross_entropy_backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& z = c.inputs[1];
  const Tensor& labels = c.inputs[2];
  const Tensor& dz = c.outputs[0];
  if (dz.numel() == 0) return;
  const int64_t N = z.shape()[0], C = z.rank() > 1 ? z.shape()[1] : 1;
  const int red = reduction_code(c);
  const CEArgs o = ce_args(c, 3);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"CrossEntropyBackward", &c};
  const DType dt = z.dtype();
  void* const no_flag = nullptr;
  // "mean" divides by sum_n w_y over the rows not ignored, computed on the device first.
  const bool separate_total = red == 2 && N > kBlockTotalRows;
  const Tensor total = separate_total ? Tensor::empty({1}, dt, z.device(), "cross-entropy total weight") : Tensor();
  const void* total_ptr = separate_total ? total.data_ptr() : nullptr;
  if (separate_total) {
    launch(s, st, kname("gg_ce_total_weight", dt).c_str(), Dim3{1}, Dim3{1024}, site, N, C, total.data_ptr(),
           labels.data_ptr(), o.weight, o.ignore_index);
  }
  const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(N, int64_t(s.info.multiprocessors) * 32))};
  const Dim3 block{pow2_block(C, 32, 256)};
  const std::string k = kname("gg_ce_backward", dt);
  if (dt == DType::Float32) {
    launch(s, st, k.c_str(), grid, block, site, N, C, red, dz.data_ptr(), g.data_ptr(), z.data_ptr(),
           labels.data_ptr(), o.weight, o.ignore_index, static_cast<float>(o.smoothing), total_ptr, no_flag);
  } else {
    launch(s, st, k.c_str(), grid, block, site, N, C, red, dz.data_ptr(), g.data_ptr(), z.data_ptr(),
           labels.data_ptr(), o.weight, o.ignore_index, o.smoothing, total_ptr, no_flag);
  }
}

}  // namespace

void add_softmax_kernels(std::vector<KernelDef>& k) {
  k.push_back({"Softmax", forward<0>, float_dtypes()});
  k.push_back({"LogSoftmax", forward<1>, float_dtypes()});
  k.push_back({"SoftmaxBackward", backward<0>, float_dtypes()});
  k.push_back({"LogSoftmaxBackward", backward<1>, float_dtypes()});
  k.push_back({"CrossEntropy", cross_entropy, float_dtypes()});
  k.push_back({"CrossEntropyBackward", cross_entropy_backward, float_dtypes()});
}

}  // namespace cuda
}  // namespace glassgrad
