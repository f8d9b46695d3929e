// Launchers of the 2-D convolutions (kernels/cuda/conv.cu): Conv2D, Conv2DBackwardInput,
// Conv2DBackwardWeight, each with a direct and an implicit-GEMM kernel.
//
// Choice per shape (set_conv_algo("auto")): the direct kernels where a GEMM tile would mostly
// hold zeros (forward: C*R*S <= 32; input gradient: C <= 4 or K*R*S <= 64, i.e. the first
// layers), implicit GEMM otherwise, and always for the weight gradient (whose long reduction
// the GEMM splits across blocks). On an H200 the input gradient of a 1-channel 28x28 layer took
// 0.03 ms direct against 0.22 ms as a GEMM with 1 of 64 rows used; the direct weight gradient
// of SimpleCNN's first layer took 31 us, one block per weight element.
// "direct" / "igemm" force one (direct only where its shared-memory tiles fit; otherwise
// implicit GEMM runs). Every valid shape runs on one of them. The GEMM's tile shape and k
// split are chosen by choose_gemm() below.
#include <algorithm>
#include <cstdlib>

#include "../../kernels/cuda/fast_div.h"
#include "cuda/conv_support.h"
#include "cuda/launch.h"
#include "cuda/registry.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h): every GEMM tile for float, 32x128 for double.
const FunctionNames kConvFunctions({"gg_conv_fwd_direct", "gg_conv_bwd_input_direct", "gg_conv_bwd_weight_direct",
                                    "gg_conv_fwd_reduce", "gg_conv_bwd_input_reduce", "gg_conv_bwd_weight_reduce",
                                    "gg_conv_fwd_gemm32x128", "gg_conv_bwd_input_gemm32x128",
                                    "gg_conv_bwd_weight_gemm32x128"},
                                   float_dtypes());
const FunctionNames kConvFloatTiles({"gg_conv_fwd_gemm64x128", "gg_conv_bwd_input_gemm64x128",
                                     "gg_conv_bwd_weight_gemm64x128", "gg_conv_fwd_gemm128x128",
                                     "gg_conv_bwd_input_gemm128x128", "gg_conv_bwd_weight_gemm128x128"},
                                    {DType::Float32});

namespace {

constexpr int64_t kDirectInBytes = 16384, kDirectWBytes = 8192;  // as in conv.cu

// x [N,C,H,W], w [K,C,R,S], y [N,K,OH,OW]: the engine's geometry (conv_geometry.h) in the
// kernels' parameter block. Grouped and dilated convs are refused before this is used.
GGConv geometry(const Shape& x, const Shape& w, const Shape& y, const Attrs& a) {
  const Conv2DGeometry c = Conv2DGeometry::from(x, w, a);
  GGConv g{};
  g.N = c.n;
  g.C = c.c;
  g.H = c.h;
  g.W = c.w;
  g.K = c.k;
  g.R = c.r;
  g.S = c.s;
  g.OH = y[2];
  g.OW = y[3];
  g.sh = c.sh;
  g.sw = c.sw;
  g.pt = c.pt;
  g.pl = c.pl;
  return g;
}

int algo() {
  const std::string a = conv_algo();
  return a == "auto" ? 0 : a == "direct" ? 1 : 2;
}

bool want_direct(bool small) {
  const int a = algo();
  return a == 1 || (a == 0 && small);
}

// ---- implicit GEMM: tile shape and k partitions -------------------------------------------
// Both depend on the shapes and dtype only (never on the device), so the workspace the
// planner reserves always matches the launch, and every GPU sums in the same order.
struct GemmChoice {
  const char* tile;  // kernel name infix
  int64_t bm, bn, threads;
  int64_t splits;
};

// Threads the split aims for: ~2 blocks of 128 per SM on a 132-SM GPU. GLASSGRAD_CONV_TARGET_THREADS
// overrides it (read once, at the first convolution; for tuning with benchmarks/conv_vs_cudnn.py).
int64_t target_threads() {
  static const int64_t t = [] {
    const char* e = std::getenv("GLASSGRAD_CONV_TARGET_THREADS");
    const long long v = e ? std::atoll(e) : 0;
    return v > 0 ? static_cast<int64_t>(v) : int64_t(32768);
  }();
  return t;
}
constexpr int64_t kMinSplitLength = 64;        // each k partition keeps >= 8 steps of 8
constexpr int64_t kMaxSplits = 256;
// Partial sums live in the step's memory plan. On ResNet-18 at batch 32 (H200) the 19 MiB of
// layer 4's weight gradient sit on the peak (+17 MiB, 363 MiB), but capping them at 8 MiB
// cost 0.5 ms a step (7.8 -> 8.3 ms): time wins; a memory budget still bounds the total.
constexpr int64_t kMaxWorkspaceBytes = int64_t(64) << 20;

// `weight_grad`: the weight gradient's long reduction gains from twice the blocks (H200:
// 179 -> 148 us on [32,64,32,32]->64) where the forward and input gradient lose to the extra
// partial sums (106 -> 137 us).
GemmChoice choose_gemm(int64_t M, int64_t N, int64_t Kdim, DType dt, bool weight_grad = false) {
  const int64_t target = target_threads() * (weight_grad ? 2 : 1);
  GemmChoice c{"32x128", 32, 128, 128, 1};
  const auto tiles = [&](const GemmChoice& t) { return ((M + t.bm - 1) / t.bm) * ((N + t.bn - 1) / t.bn); };
  if (dt == DType::Float32) {
    if (M > 64) c = GemmChoice{"128x128", 128, 128, 256, 1};
    else if (M > 32) c = GemmChoice{"64x128", 64, 128, 128, 1};
    // Large tiles that leave most SMs idle: halve the rows and split k instead.
    if (c.bm == 128 && tiles(c) * c.threads < target) c = GemmChoice{"64x128", 64, 128, 128, 1};
  }
  const int64_t item = static_cast<int64_t>(dtype_size(dt));
  while (tiles(c) * c.splits * c.threads < target && Kdim / (2 * c.splits) >= kMinSplitLength &&
         c.splits * 2 <= kMaxSplits && 2 * c.splits * M * N * item <= kMaxWorkspaceBytes)
    c.splits *= 2;
  return c;
}

Dim3 gemm_grid(const GemmChoice& t, int64_t M, int64_t N) {
  return Dim3{static_cast<unsigned>(std::min<int64_t>((N + t.bn - 1) / t.bn, 1 << 30)), cap_yz((M + t.bm - 1) / t.bm),
              cap_yz(t.splits)};
}

size_t split_bytes(const GemmChoice& t, int64_t M, int64_t N, DType dt) {
  return t.splits > 1 ? static_cast<size_t>(t.splits * M * N) * dtype_size(dt) : 0;
}

GGConvGemm gemm_geometry(const GGConv& g) {
  GGConvGemm q{};
  q.N = static_cast<int32_t>(g.N);
  q.C = static_cast<int32_t>(g.C);
  q.H = static_cast<int32_t>(g.H);
  q.W = static_cast<int32_t>(g.W);
  q.K = static_cast<int32_t>(g.K);
  q.R = static_cast<int32_t>(g.R);
  q.S = static_cast<int32_t>(g.S);
  q.OH = static_cast<int32_t>(g.OH);
  q.OW = static_cast<int32_t>(g.OW);
  q.sh = static_cast<int32_t>(g.sh);
  q.sw = static_cast<int32_t>(g.sw);
  q.pt = static_cast<int32_t>(g.pt);
  q.pl = static_cast<int32_t>(g.pl);
  q.splits = 1;
  q.div_P = make_fast_div(std::max<int64_t>(1, g.OH * g.OW));
  q.div_OW = make_fast_div(std::max<int64_t>(1, g.OW));
  q.div_RS = make_fast_div(std::max<int64_t>(1, g.R * g.S));
  q.div_S = make_fast_div(std::max<int64_t>(1, g.S));
  q.div_HW = make_fast_div(std::max<int64_t>(1, g.H * g.W));
  q.div_W = make_fast_div(std::max<int64_t>(1, g.W));
  q.div_sh = make_fast_div(g.sh);
  q.div_sw = make_fast_div(g.sw);
  return q;
}

// The GEMM views of the three convolutions: rows M, columns N, reduction length.
struct GemmDims {
  int64_t M, N, Kdim;
};

enum class ConvOp { Forward, BackwardInput, BackwardWeight };
const char* kernel_infix(ConvOp op) {
  return op == ConvOp::Forward ? "fwd" : op == ConvOp::BackwardInput ? "bwd_input" : "bwd_weight";
}

// Backward-input phase (ph, pw) of the strides (see GGConvGemm in params.h): its sub-image of
// dx, the taps that reach it and where they read dy. Stride 1 has the single phase (0, 0).
void set_phase(GGConvGemm& q, const GGConv& g, int64_t ph, int64_t pw) {
  const auto one_axis = [](int64_t p, int64_t stride, int64_t pad, int64_t taps, int64_t size, int32_t& first,
                           int32_t& count, int32_t& shift, int32_t& extent) {
    first = static_cast<int32_t>((p + pad) % stride);
    count = static_cast<int32_t>(taps > first ? (taps - first + stride - 1) / stride : 0);
    shift = static_cast<int32_t>((p + pad - first) / stride);
    extent = static_cast<int32_t>(size > p ? (size - p + stride - 1) / stride : 0);
  };
  q.ph = static_cast<int32_t>(ph);
  q.pw = static_cast<int32_t>(pw);
  one_axis(ph, g.sh, g.pt, g.R, g.H, q.r0, q.Ra, q.dh, q.Hp);
  one_axis(pw, g.sw, g.pl, g.S, g.W, q.s0, q.Sa, q.dw, q.Wp);
  q.div_PP = make_fast_div(std::max<int64_t>(1, int64_t(q.Hp) * q.Wp));
  q.div_Wp = make_fast_div(std::max<int32_t>(1, q.Wp));
  q.div_RaSa = make_fast_div(std::max<int64_t>(1, int64_t(q.Ra) * q.Sa));
  q.div_Sa = make_fast_div(std::max<int32_t>(1, q.Sa));
}

// One implicit GEMM of an op: its dimensions and kernel parameters.
struct ConvGemm {
  GemmDims d;
  GGConvGemm q;
};

// The GEMMs an op runs, in launch order: one, or for the input gradient one per stride phase
// that has dx pixels. The workspace functions and the launchers both iterate this list, so
// the planned workspace always covers the launches.
std::vector<ConvGemm> conv_gemms(ConvOp op, const GGConv& g) {
  GGConvGemm q = gemm_geometry(g);
  switch (op) {
    case ConvOp::Forward: return {{{g.K, g.N * g.OH * g.OW, g.C * g.R * g.S}, q}};
    case ConvOp::BackwardWeight: return {{{g.K, g.C * g.R * g.S, g.N * g.OH * g.OW}, q}};
    case ConvOp::BackwardInput: break;
  }
  std::vector<ConvGemm> phases;
  for (int64_t ph = 0; ph < g.sh; ++ph)
    for (int64_t pw = 0; pw < g.sw; ++pw) {
      set_phase(q, g, ph, pw);
      const GemmDims d{g.C, g.N * q.Hp * q.Wp, g.K * q.Ra * q.Sa};
      if (d.N > 0) phases.push_back({d, q});  // H or W below the stride leaves a phase empty
    }
  return phases;
}

GemmChoice choose_gemm(ConvOp op, const GemmDims& d, DType dt) {
  return choose_gemm(d.M, d.N, d.Kdim, dt, op == ConvOp::BackwardWeight);
}

// Workspace of the split-k partial sums (0 when no GEMM splits). The GEMMs of one op run one
// after another on one stream and share it: the largest.
size_t gemm_workspace(ConvOp op, const GGConv& g, DType dt) {
  size_t most = 0;
  for (const ConvGemm& cg : conv_gemms(op, g)) most = std::max(most, split_bytes(choose_gemm(op, cg.d, dt), cg.d.M, cg.d.N, dt));
  return most;
}

// Runs an op's implicit GEMMs: each tiled kernel (partial sums into the workspace when it
// splits k and the plan provided one) and, when split, the reduction into `out`.
void run_gemms(const KernelContext& c, const LaunchSite& site, ConvOp op, const GGConv& g, void* out, void* a0,
               void* a1, void* bias, bool has_bias) {
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const DType dt = c.outputs[0].dtype();
  const std::string infix = std::string("gg_conv_") + kernel_infix(op);
  for (const ConvGemm& cg : conv_gemms(op, g)) {
    const GemmDims& d = cg.d;
    GemmChoice t = choose_gemm(op, d, dt);
    if (t.splits > 1 && (c.workspace == nullptr || c.workspace_bytes < split_bytes(t, d.M, d.N, dt))) t.splits = 1;
    GGConvGemm q = cg.q;
    q.splits = static_cast<int32_t>(t.splits);
    void* ws = t.splits > 1 ? c.workspace : nullptr;
    const std::string gemm = kname((infix + "_gemm" + t.tile).c_str(), dt);
    const Dim3 grid = gemm_grid(t, d.M, d.N), block{static_cast<unsigned>(t.threads)};
    if (has_bias)
      launch(s, st, gemm.c_str(), grid, block, site, q, out, a0, a1, bias, ws);
    else
      launch(s, st, gemm.c_str(), grid, block, site, q, out, a0, a1, ws);
    if (t.splits <= 1) continue;
    const std::string reduce = kname((infix + "_reduce").c_str(), dt);
    const Dim3 rgrid{blocks_for(s, d.M * d.N, 256)}, rblock{256};
    if (has_bias)
      launch(s, st, reduce.c_str(), rgrid, rblock, site, q, out, bias, static_cast<const void*>(ws));
    else
      launch(s, st, reduce.c_str(), rgrid, rblock, site, q, out, static_cast<const void*>(ws));
  }
}

size_t fwd_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  // inputs: x, w (, bias); output y
  return gemm_workspace(ConvOp::Forward, geometry(in.at(0).shape, in.at(1).shape, out.at(0).shape, a), out.at(0).dtype);
}

size_t input_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  // inputs: grad_out dy, w; output dx
  return gemm_workspace(ConvOp::BackwardInput, geometry(out.at(0).shape, in.at(1).shape, in.at(0).shape, a),
                        out.at(0).dtype);
}

size_t weight_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  // inputs: input x, grad_out dy; output dw
  return gemm_workspace(ConvOp::BackwardWeight, geometry(in.at(0).shape, out.at(0).shape, in.at(1).shape, a),
                        out.at(0).dtype);
}

void conv2d(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const Tensor* bias = c.inputs.size() > 2 && c.inputs[2].defined() ? &c.inputs[2] : nullptr;
  const Tensor& y = c.outputs[0];
  if (y.numel() == 0) return;
  require_int32_sizes(c, "Conv2D");
  require_conv_support("Conv2D", c.meta.scope, Conv2DGeometry::from(x.shape(), w.shape(), c.attrs));
  LaunchSite site{"Conv2D", &c};
  const GGConv g = geometry(x.shape(), w.shape(), y.shape(), c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const DType dt = y.dtype();
  const int64_t item = static_cast<int64_t>(dtype_size(dt));
  const int64_t crs = g.C * g.R * g.S;
  const int64_t iht = 15 * g.sh + g.R, iwt = 15 * g.sw + g.S;
  const bool fits = 8 * crs * item <= kDirectWBytes && iht * iwt * item <= kDirectInBytes;
  void* b = bias ? bias->data_ptr() : nullptr;
  if (fits && want_direct(crs <= 32)) {
    const int64_t tiles = ((g.OH + 15) / 16) * ((g.OW + 15) / 16);
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(tiles, 1 << 30)), cap_yz((g.K + 7) / 8), cap_yz(g.N)};
    launch(s, st, kname("gg_conv_fwd_direct", dt).c_str(), grid, Dim3{256}, site, g, y.data_ptr(), x.data_ptr(),
           w.data_ptr(), b);
  } else {
    run_gemms(c, site, ConvOp::Forward, g, y.data_ptr(), x.data_ptr(), w.data_ptr(), b, true);
  }
  // Fused activation (attrs "activation" = "relu"): the elementwise ReLU kernel, in place on y
  // (each element read before it is written), so no separate buffer or plan step exists.
  if (c.attrs.has("activation") && c.attrs.s("activation") == "relu") {
    const std::vector<Tensor> io{y};
    const Attrs none;
    KernelContext relu{io, io, none, c.meta, nullptr, 0, c.stream, c.error_word};
    KernelRegistry::instance().at("ReLU", DeviceType::CUDA, dt, c.meta).fn(relu);
  }
}

// inputs: grad_out dy [N,K,OH,OW], weight w; output dx [N,C,H,W]
void conv2d_backward_input(const KernelContext& c) {
  const Tensor& dy = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const Tensor& dx = c.outputs[0];
  if (dx.numel() == 0) return;
  require_int32_sizes(c, "Conv2DBackwardInput");
  require_conv_support("Conv2DBackwardInput", c.meta.scope, Conv2DGeometry::from(dx.shape(), w.shape(), c.attrs));
  LaunchSite site{"Conv2DBackwardInput", &c};
  const GGConv g = geometry(dx.shape(), w.shape(), dy.shape(), c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const DType dt = dx.dtype();
  const int64_t krs = g.K * g.R * g.S;
  const bool fits = krs * static_cast<int64_t>(dtype_size(dt)) <= kDirectWBytes;
  if (fits && want_direct(g.C <= 4 || krs <= 64)) {
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>((g.H * g.W + 255) / 256, 4096)), cap_yz(g.C), cap_yz(g.N)};
    launch(s, st, kname("gg_conv_bwd_input_direct", dt).c_str(), grid, Dim3{256}, site, g, dx.data_ptr(),
           dy.data_ptr(), w.data_ptr());
  } else {
    run_gemms(c, site, ConvOp::BackwardInput, g, dx.data_ptr(), dy.data_ptr(), w.data_ptr(), nullptr, false);
  }
}

// inputs: input x [N,C,H,W], grad_out dy [N,K,OH,OW]; output dw [K,C,R,S]
void conv2d_backward_weight(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& dy = c.inputs[1];
  const Tensor& dw = c.outputs[0];
  if (dw.numel() == 0) return;
  require_int32_sizes(c, "Conv2DBackwardWeight");
  require_conv_support("Conv2DBackwardWeight", c.meta.scope, Conv2DGeometry::from(x.shape(), dw.shape(), c.attrs));
  LaunchSite site{"Conv2DBackwardWeight", &c};
  GGConv g = geometry(x.shape(), dw.shape(), dy.shape(), c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const DType dt = dw.dtype();
  const int64_t crs = g.C * g.R * g.S, np = g.N * g.OH * g.OW;
  if (np == 0) return fill_tensor(dw, 0.0);
  if (want_direct(false)) {
    const int64_t n = g.K * crs;
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(n, int64_t(s.info.multiprocessors) * 32))};
    launch(s, st, kname("gg_conv_bwd_weight_direct", dt).c_str(), grid, Dim3{pow2_block(np, 32, 256)}, site, g,
           dw.data_ptr(), dy.data_ptr(), x.data_ptr());
    return;
  }
  run_gemms(c, site, ConvOp::BackwardWeight, g, dw.data_ptr(), dy.data_ptr(), x.data_ptr(), nullptr, false);
}

}  // namespace

void require_conv_support(const char* op, const std::string& scope, const Conv2DGeometry& g) {
  if (!g.grouped() && !g.dilated()) return;
  std::string what;
  if (g.grouped()) what = "groups=" + std::to_string(g.groups);
  if (g.dilated()) {
    what += std::string(what.empty() ? "" : " and ") + "dilation=[" + std::to_string(g.dh) + ", " + std::to_string(g.dw) + "]";
  }
  throw UnsupportedError(ErrorMessage(std::string(op) + (scope.empty() ? "" : " '" + scope + "'") + ": " + what +
                                      " has no CUDA kernel yet (grouped and dilated convolutions run on the CPU only)")
                             .detail("input [N, C, H, W] = [" + std::to_string(g.n) + ", " + std::to_string(g.c) + ", " +
                                     std::to_string(g.h) + ", " + std::to_string(g.w) + "], weight [K, C/groups, R, S] = [" +
                                     std::to_string(g.k) + ", " + std::to_string(g.cg()) + ", " + std::to_string(g.r) + ", " +
                                     std::to_string(g.s) + "]")
                             .fix("run this model on the CPU (model.to('cpu') and x.to('cpu')), or build the layer with "
                                  "groups=1 and dilation=1")
                             .str());
}

void add_conv_kernels(std::vector<KernelDef>& k) {
  k.push_back({"Conv2D", conv2d, float_dtypes(), fwd_workspace});
  k.push_back({"Conv2DBackwardInput", conv2d_backward_input, float_dtypes(), input_workspace});
  k.push_back({"Conv2DBackwardWeight", conv2d_backward_weight, float_dtypes(), weight_workspace});
}

}  // namespace cuda
}  // namespace glassgrad
