// Launchers of softmax, log-softmax, their backwards and cross-entropy
// (kernels/cuda/softmax.cu). A label outside [0, C) is found on the device (the first bad row
// is recorded in a flag word) and raised here after the kernel, naming the row and the label.
#include <algorithm>
#include <limits>

#include "cuda/launch.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/families/softmax.h"
#include "glassgrad/runtime/device_hooks.h"
#include "registry.h"
#include "softmax.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_SOFTMAX_KERNELS)

namespace {

// mode 0: softmax, 1: log-softmax
template <int MODE>
void forward(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  if (y.numel() == 0) return;
  const SoftmaxAxis a = SoftmaxAxis::from(x.shape(), c.attrs);
  DeviceState& s = state_of(c);
  LaunchSite site{MODE == 0 ? "Softmax" : "LogSoftmax", &c};
  const int mode = MODE;
  dispatch_float(x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.inner == 1) {
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(a.outer, int64_t(s.info.multiprocessors) * 32))};
      launch<kernels::gg_softmax_rows<T>>(s, stream_of(s, &c), grid, Dim3{pow2_block(a.d, 32, 256)}, site, a.outer,
                                          a.d, mode, ptr<T>(y), ptr<const T>(x));
    } else {
      launch<kernels::gg_softmax_cols<T>>(s, stream_of(s, &c), Dim3{blocks_for(s, a.outer * a.inner, 256)},
                                          Dim3{256}, site, a.outer, a.d, a.inner, mode, ptr<T>(y), ptr<const T>(x));
    }
  });
}

// inputs grad, y (the forward output)
template <int MODE>
void backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& y = c.inputs[1];
  const Tensor& dx = c.outputs[0];
  if (dx.numel() == 0) return;
  const SoftmaxAxis a = SoftmaxAxis::from(y.shape(), c.attrs);
  DeviceState& s = state_of(c);
  LaunchSite site{MODE == 0 ? "SoftmaxBackward" : "LogSoftmaxBackward", &c};
  const int mode = MODE;
  dispatch_float(y.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.inner == 1) {
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(a.outer, int64_t(s.info.multiprocessors) * 32))};
      launch<kernels::gg_softmax_bwd_rows<T>>(s, stream_of(s, &c), grid, Dim3{pow2_block(a.d, 32, 256)}, site,
                                              a.outer, a.d, mode, ptr<T>(dx), ptr<const T>(g), ptr<const T>(y));
    } else {
      launch<kernels::gg_softmax_bwd_cols<T>>(s, stream_of(s, &c), Dim3{blocks_for(s, a.outer * a.inner, 256)},
                                              Dim3{256}, site, a.outer, a.d, a.inner, mode, ptr<T>(dx),
                                              ptr<const T>(g), ptr<const T>(y));
    }
  });
}

int reduction_code(const KernelContext& c) { return static_cast<int>(SoftmaxAttrs::from(c.attrs).reduction); }

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
  const SoftmaxAttrs a = SoftmaxAttrs::from(c.attrs);
  return CEArgs{c.inputs.size() > wi ? c.inputs[wi].data_ptr() : nullptr, a.ignore_index, a.label_smoothing};
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
  unsigned long long* bad = static_cast<unsigned long long*>(flag_ptr);
  dispatch_float(z.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* weight = static_cast<const T*>(o.weight);
    const T smoothing = static_cast<T>(o.smoothing);
    if (red != 0 && N <= kCEReducedRows && C <= 32) {  // one block, a warp a row: one launch, not two
      const unsigned threads = static_cast<unsigned>(std::min<int64_t>(1024, N * 32));
      launch<kernels::gg_ce_reduced<T>>(s, st, Dim3{1}, Dim3{threads}, site, N, C, T(1), red == 2 ? 1 : 0, ptr<T>(out),
                                        ptr<const T>(z), ptr<const int64_t>(labels), weight, o.ignore_index, smoothing,
                                        bad);
      return;
    }
    const Tensor rows = red == 0 ? out : Tensor::empty({N}, z.dtype(), z.device(), "cross-entropy rows");
    const Tensor wrows = red == 2 ? Tensor::empty({N}, z.dtype(), z.device(), "cross-entropy row weights") : Tensor();
    T* wrow_ptr = red == 2 ? ptr<T>(wrows) : nullptr;
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(N, int64_t(s.info.multiprocessors) * 32))};
    const Dim3 block{pow2_block(C, 32, 256)};
    launch<kernels::gg_ce_rows<T>>(s, st, grid, block, site, N, C, ptr<T>(rows), wrow_ptr, ptr<const T>(z),
                                   ptr<const int64_t>(labels), weight, o.ignore_index, smoothing, bad);
    if (red != 0) {  // sum, or sum / sum of the rows' weights (mean)
      const T* w = red == 2 ? ptr<const T>(wrows) : nullptr;
      launch<kernels::gg_sum_all<T>>(s, st, Dim3{1}, Dim3{1024}, site, N, T(1), ptr<T>(out), ptr<const T>(rows), w);
    }
  });
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
  unsigned long long* const no_flag = nullptr;
  // "mean" divides by sum_n w_y over the rows not ignored, computed on the device first.
  const bool separate_total = red == 2 && N > kBlockTotalRows;
  const Tensor total = separate_total ? Tensor::empty({1}, z.dtype(), z.device(), "cross-entropy total weight") : Tensor();
  dispatch_float(z.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* weight = static_cast<const T*>(o.weight);
    const T* total_ptr = separate_total ? ptr<const T>(total) : nullptr;
    if (separate_total) {
      launch<kernels::gg_ce_total_weight<T>>(s, st, Dim3{1}, Dim3{1024}, site, N, C, ptr<T>(total),
                                             ptr<const int64_t>(labels), weight, o.ignore_index);
    }
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(N, int64_t(s.info.multiprocessors) * 32))};
    const Dim3 block{pow2_block(C, 32, 256)};
    launch<kernels::gg_ce_backward<T>>(s, st, grid, block, site, N, C, red, ptr<T>(dz), ptr<const T>(g),
                                       ptr<const T>(z), ptr<const int64_t>(labels), weight, o.ignore_index,
                                       static_cast<T>(o.smoothing), total_ptr, no_flag);
  });
}

// The row symbols of families/softmax.def.
constexpr KernelFn softmax = forward<0>;
constexpr KernelFn log_softmax = forward<1>;
constexpr KernelFn softmax_backward = backward<0>;
constexpr KernelFn log_softmax_backward = backward<1>;

}  // namespace

void add_softmax_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/softmax.def"
}

}  // namespace cuda
}  // namespace glassgrad
