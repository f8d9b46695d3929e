// Launchers of the 2-D convolutions (kernels/cuda/conv.cu, winograd.cu): Conv2D,
// Conv2DBackwardInput, Conv2DBackwardWeight, each with its algorithms (conv.h) and their
// parameters; conv_tuner.cpp picks one per shape and device.
//
// Heuristics (what runs without timing, and the first candidate the tuner times):
//  * direct kernels where a GEMM tile would mostly hold zeros (forward: C*R*S <= 32; input
//    gradient: C <= 4 or K*R*S <= 64, i.e. the first layers). On an H200 the input gradient of
//    a 1-channel 28x28 layer took 0.03 ms direct against 0.22 ms as a GEMM with 1 of 64 rows
//    used; the direct weight gradient of SimpleCNN's first layer took 31 us, one block per
//    weight element, so weight gradients always use a GEMM. Input gradients of 3x3 stride-1
//    layers with at most 4 channels take the few-channel kernel: on 8 SMs of an H200 it took
//    72 us for ResNet-18's first layer (the other direct kernel 333 us, Winograd 253 us, cuDNN
//    185 us) and 12.6 us for SimpleCNN's (direct 37.7 us).
//  * implicit GEMM otherwise; tile shape and k split from the shapes and the multiprocessor
//    count (choose_gemm below).
//  * Winograd only when forced (set_conv_algo) or timed faster: its gain depends on the
//    channel counts, image size and GPU in ways the tuner measures better than a rule.
// set_conv_algo("direct" | "igemm" | "winograd2" | "winograd4") forces one where it applies
// (direct where its shared-memory tiles fit, Winograd for 3x3 stride-1 float32 layers);
// otherwise the implicit GEMM runs. Grouped (depthwise included) and dilated convolutions run on
// the generic kernels whatever is forced. Every valid shape runs on one of them.
#include "conv_algorithms.h"
#include "conv_phase.h"

#include <algorithm>
#include <cstdlib>

#include "fast_div.h"
#include "registry.h"
#include "glassgrad/autodiff/conv_geometry.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/fusion.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/settings.h"

namespace glassgrad {
namespace cuda {
namespace conv {

// The CUDA functions launched here (functions.h): every GEMM tile for float, 32x128 for double.
const FunctionNames kConvFunctions({"gg_conv_fwd_direct", "gg_conv_bwd_input_direct", "gg_conv_bwd_weight_direct",
                                    "gg_conv_fwd_reduce", "gg_conv_bwd_input_reduce", "gg_conv_bwd_weight_reduce",
                                    "gg_conv_fwd_gemm32x128", "gg_conv_bwd_input_gemm32x128",
                                    "gg_conv_bwd_weight_gemm32x128", "gg_conv_fwd_generic",
                                    "gg_conv_bwd_input_generic", "gg_conv_bwd_weight_generic", "gg_conv_zero"},
                                   float_dtypes());
const FunctionNames kConvFloatTiles({"gg_conv_fwd_gemm64x128", "gg_conv_bwd_input_gemm64x128",
                                     "gg_conv_bwd_weight_gemm64x128", "gg_conv_fwd_gemm128x128",
                                     "gg_conv_bwd_input_gemm128x128", "gg_conv_bwd_weight_gemm128x128",
                                     "gg_conv_fwd_gemm128x128k16", "gg_conv_bwd_input_gemm128x128k16",
                                     "gg_conv_bwd_weight_gemm128x128k16", "gg_conv_bwd_weight_gemm32x32k16",
                                     "gg_conv_bwd_weight_gemm64x32", "gg_conv_fwd_gemm32x64",
                                     "gg_conv_bwd_input_gemm32x64", "gg_conv_fwd_gemm128x64",
                                     "gg_conv_bwd_input_gemm128x64", "gg_conv_bwd_weight_gemm128x64",
                                     "gg_conv_bwd_input_fewc1", "gg_conv_bwd_input_fewc2", "gg_conv_bwd_input_fewc3",
                                     "gg_conv_bwd_input_fewc4", "gg_conv_fwd_gemm128x128w",
                                     "gg_conv_bwd_input_gemm128x128w", "gg_conv_bwd_weight_gemm128x128w",
                                     "gg_conv_fwd_gemm128x64k16", "gg_conv_bwd_input_gemm128x64k16"},
                                    {DType::Float32});
const FunctionNames kWinogradFunctions(
    {"gg_wino2_filter", "gg_wino2_input", "gg_wino2_output", "gg_wino2_grad_output", "gg_wino2_grad_filter",
     "gg_wino4_filter", "gg_wino4_input", "gg_wino4_output", "gg_wino4_grad_output", "gg_wino4_grad_filter",
     "gg_wino_gemm128x128", "gg_wino_gemm64x128", "gg_wino_gemm32x128", "gg_wino_wgrad_gemm128x128",
     "gg_wino_wgrad_gemm64x128", "gg_wino_wgrad_gemm64x64", "gg_wino_gemm128x128k16", "gg_wino_gemm64x128k16",
     "gg_wino_wgrad_gemm128x128k16", "gg_wino_wgrad_gemm64x128k16", "gg_wino_wgrad_gemm64x64k16",
     "gg_wino_wgrad_gemm32x32k16", "gg_wino_gemm128x128w", "gg_wino_gemm64x128w", "gg_wino_wgrad_gemm128x128w",
     "gg_wino_wgrad_gemm64x128w"},
    {DType::Float32});

namespace {

constexpr int64_t kDirectInBytes = 16384, kDirectWBytes = 8192;  // as in conv.cu

// ---- implicit GEMM: tile shape and k partitions -------------------------------------------
struct GemmChoice {
  const char* tile;  // kernel name infix
  int64_t bm, bn, threads;
  int64_t splits;
};

constexpr int64_t kMinSplitLength = 64;  // each k partition keeps >= 8 steps of 8
constexpr int64_t kMaxSplits = 256;
// Partial sums live in the step's memory plan. On ResNet-18 at batch 32 (H200) the 19 MiB of
// layer 4's weight gradient sit on the peak (+17 MiB, 363 MiB), but capping them at 8 MiB
// cost 0.5 ms a step (7.8 -> 8.3 ms): time wins; a memory budget still bounds the total.
constexpr int64_t kMaxWorkspaceBytes = int64_t(64) << 20;
// Winograd's transformed tiles: passes are cut so the workspace stays under this (ResNet-18's
// stage-1 layers at batch 32 take one F(4x4) pass).
constexpr int64_t kMaxWinogradBytes = int64_t(48) << 20;

// Tile shape and k split for a product of M x N over Kdim aiming at `target` threads: large
// tiles unless they leave most multiprocessors idle, then k split until the target is met.
// `tile` (float32: kTiles' index) overrides the tile shape. The narrow tiles (4..6) have
// kernels for some directions only (tile_has_kernel) and are tuner candidates where a side of
// the product is small (narrow_tile_applies); their k partitions may be as short as 32 (a
// small output's only parallelism on a large GPU). 128 x 64 (7) and 128 x 128 with 8 x 4
// micro-tiles a warp (8, "128x128w": k steps of 16, a third less shared-memory traffic than 3)
// are candidates everywhere, 128 x 64 in k steps of 16 (9) for forwards and input gradients.
constexpr int kGemmTiles = 10;
const GemmChoice kTiles[kGemmTiles] = {{"128x128", 128, 128, 256, 1},  {"64x128", 64, 128, 128, 1},
                                       {"32x128", 32, 128, 128, 1},    {"128x128k16", 128, 128, 256, 1},
                                       {"32x32k16", 32, 32, 64, 1},    {"64x32", 64, 32, 128, 1},
                                       {"32x64", 32, 64, 128, 1},      {"128x64", 128, 64, 128, 1},
                                       {"128x128w", 128, 128, 256, 1}, {"128x64k16", 128, 64, 128, 1}};

bool narrow(int tile) { return tile >= 4 && tile <= 6; }

bool tile_has_kernel(Op op, int tile) {
  if (tile == 9) return op != Op::BackwardWeight;
  if (!narrow(tile)) return true;
  return op == Op::BackwardWeight ? (tile == 4 || tile == 5) : tile == 6;
}

GemmChoice choose_gemm(int64_t M, int64_t N, int64_t Kdim, DType dt, int64_t target, int tile = -1) {
  GemmChoice c = kTiles[2];
  const auto tiles = [&](const GemmChoice& t) { return ((M + t.bm - 1) / t.bm) * ((N + t.bn - 1) / t.bn); };
  if (dt == DType::Float32 && tile >= 0 && tile < kGemmTiles) {
    c = kTiles[tile];
  } else if (dt == DType::Float32) {
    if (M > 64) c = kTiles[0];
    else if (M > 32) c = kTiles[1];
    // Large tiles that leave most SMs idle: halve the rows and split k instead.
    if (c.bm == 128 && tiles(c) * c.threads < target) c = kTiles[1];
  }
  const int64_t item = static_cast<int64_t>(dtype_size(dt));
  const int64_t min_split = dt == DType::Float32 && narrow(tile) ? kMinSplitLength / 2 : kMinSplitLength;
  while (tiles(c) * c.splits * c.threads < target && Kdim / (2 * c.splits) >= min_split &&
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

const char* kernel_infix(Op op) {
  return op == Op::Forward ? "fwd" : op == Op::BackwardInput ? "bwd_input" : "bwd_weight";
}

// One implicit GEMM of an op: its dimensions and kernel parameters; zero_first: the output is
// zeroed before it (a strided input gradient whose other phases have no taps).
struct ConvGemm {
  GemmDims d;
  GGConvGemm q;
  bool zero_first = false;
};

// The GEMMs an op runs, in launch order: one, or for the input gradient one per stride phase
// that has dx pixels. The workspace functions and the launchers both iterate this list, so
// the planned workspace always covers the launches.
std::vector<ConvGemm> conv_gemms(Op op, const GGConv& g) {
  GGConvGemm q = gemm_geometry(g);
  switch (op) {
    case Op::Forward: return {{{g.K, g.N * g.OH * g.OW, g.C * g.R * g.S}, q}};
    case Op::BackwardWeight: return {{{g.K, g.C * g.R * g.S, g.N * g.OH * g.OW}, q}};
    case Op::BackwardInput: break;
  }
  std::vector<ConvGemm> phases;
  for (int64_t ph = 0; ph < g.sh; ++ph)
    for (int64_t pw = 0; pw < g.sw; ++pw) {
      set_phase(q, g, ph, pw);
      const GemmDims d{g.C, g.N * q.Hp * q.Wp, g.K * q.Ra * q.Sa};
      if (d.N > 0) phases.push_back({d, q, false});  // H or W below the stride leaves a phase empty
    }
  // Only phase (0, 0) has taps (a 1x1 stride-2 shortcut): dx is zeroed with 16-byte stores,
  // then that phase's GEMM runs, instead of one GEMM launch per empty phase writing its zeros
  // with scattered 4-byte stores (the 1x1 stride-2 input gradient of [32, 64, 32, 32] took
  // 262 us on 8 SMs that way, cuDNN 176).
  if (phases.size() > 1 && phases[0].d.Kdim > 0) {
    bool rest_empty = true;
    for (size_t i = 1; i < phases.size(); ++i) rest_empty = rest_empty && phases[i].d.Kdim == 0;
    if (rest_empty) {
      phases.resize(1);
      phases[0].zero_first = true;
    }
  }
  return phases;
}

// Split-k partial sums of the GEMMs (0 when none splits). The GEMMs of one op run one after
// another on one stream and share it: the largest.
size_t gemm_workspace(const Problem& p, int64_t target, int tile) {
  size_t most = 0;
  for (const ConvGemm& cg : conv_gemms(p.op, p.g))
    most = std::max(most,
                    split_bytes(choose_gemm(cg.d.M, cg.d.N, cg.d.Kdim, p.dt, target, tile), cg.d.M, cg.d.N, p.dt));
  return most;
}

// Runs an op's implicit GEMMs: each tiled kernel (partial sums into the workspace when it
// splits k and the workspace holds them) and, when split, the reduction into `out`.
void run_gemms(DeviceState& s, CUstream st, const LaunchSite& site, const Problem& p, int64_t target, int tile,
               const Buffers& b) {
  const std::string infix = std::string("gg_conv_") + kernel_infix(p.op);
  void* out = b.out;
  // kernel operand order: (x, w), (dy, w), (dy, x)
  void* a0 = const_cast<void*>(p.op == Op::BackwardWeight ? b.a1 : b.a0);
  void* a1 = const_cast<void*>(p.op == Op::BackwardWeight ? b.a0 : b.a1);
  void* bias = const_cast<void*>(b.bias);
  for (const ConvGemm& cg : conv_gemms(p.op, p.g)) {
    const GemmDims& d = cg.d;
    if (cg.zero_first) {
      const int64_t n = p.g.N * p.g.C * p.g.H * p.g.W;
      launch(s, st, kname("gg_conv_zero", p.dt).c_str(), Dim3{blocks_for(s, (n + 3) / 4, 256)}, Dim3{256}, site, out,
             n);
    }
    GemmChoice t = choose_gemm(d.M, d.N, d.Kdim, p.dt, target, tile);
    if (t.splits > 1 && (b.ws == nullptr || b.ws_bytes < split_bytes(t, d.M, d.N, p.dt))) t.splits = 1;
    GGConvGemm q = cg.q;
    q.splits = static_cast<int32_t>(t.splits);
    void* ws = t.splits > 1 ? b.ws : nullptr;
    const std::string gemm = kname((infix + "_gemm" + t.tile).c_str(), p.dt);
    const Dim3 grid = gemm_grid(t, d.M, d.N), block{static_cast<unsigned>(t.threads)};
    if (p.op == Op::Forward)
      launch(s, st, gemm.c_str(), grid, block, site, q, out, a0, a1, bias, ws);
    else
      launch(s, st, gemm.c_str(), grid, block, site, q, out, a0, a1, ws);
    if (t.splits <= 1) continue;
    const std::string reduce = kname((infix + "_reduce").c_str(), p.dt);
    // split_reduce: a thread per element, or from 8 splits on 32 elements a block
    const Dim3 rgrid{blocks_for(s, d.M * d.N * (t.splits >= 8 ? 8 : 1), 256)}, rblock{256};
    if (p.op == Op::Forward)
      launch(s, st, reduce.c_str(), rgrid, rblock, site, q, out, bias, static_cast<const void*>(ws));
    else
      launch(s, st, reduce.c_str(), rgrid, rblock, site, q, out, static_cast<const void*>(ws));
  }
}

// ---- direct kernels ---------------------------------------------------------------------------
bool direct_fits(const Problem& p) {
  const GGConv& g = p.g;
  if (grouped_or_dilated(p)) return false;
  const int64_t item = static_cast<int64_t>(dtype_size(p.dt));
  switch (p.op) {
    case Op::Forward: {
      const int64_t iht = 15 * g.sh + g.R, iwt = 15 * g.sw + g.S;
      return 8 * g.C * g.R * g.S * item <= kDirectWBytes && iht * iwt * item <= kDirectInBytes;
    }
    case Op::BackwardInput: return g.K * g.R * g.S * item <= kDirectWBytes;
    case Op::BackwardWeight: return true;
  }
  return false;
}

// Small enough for the direct kernels to be worth timing against the GEMM.
bool direct_candidate(const Problem& p) {
  const GGConv& g = p.g;
  return direct_fits(p) && (p.op == Op::BackwardInput ? g.C <= 8 || g.K * g.R * g.S <= 128 : g.C * g.R * g.S <= 64);
}

bool direct_preferred(const Problem& p) {
  const GGConv& g = p.g;
  switch (p.op) {
    case Op::Forward: return g.C * g.R * g.S <= 32;
    case Op::BackwardInput: return g.C <= 4 || g.K * g.R * g.S <= 64;
    case Op::BackwardWeight: return false;
  }
  return false;
}

// The few-channel input gradient (conv.cu's bwd_input_fewc): 3x3, stride 1, at most 4 input
// channels, float32, no groups or dilation (any padding).
// The direct input-gradient kernels (direct, few channels) sum each input pixel's K*R*S terms in
// one running float32 sum: 3.5-5x cuDNN's float32 error on the first layers (docs/numerics.md,
// benchmarks/conv_precision.py), over the default's bound. By default they run only when forced;
// conv_fast_winograd() (which lifts the bound) offers them again.
bool direct_within_bound(const Problem& p) {
  return p.op != Op::BackwardInput || p.dt != DType::Float32 || conv_fast_winograd();
}

bool fewc_applies(const Problem& p) {
  const GGConv& g = p.g;
  return p.op == Op::BackwardInput && p.dt == DType::Float32 && !grouped_or_dilated(p) && g.C >= 1 && g.C <= 4 &&
         g.R == 3 && g.S == 3 && g.sh == 1 && g.sw == 1;
}

void run_fewc(DeviceState& s, CUstream st, const LaunchSite& site, const Problem& p, const Buffers& b) {
  const GGConv& g = p.g;
  const int64_t tiles = ((g.H + 31) / 32) * ((g.W + 31) / 32);  // 32 x 32 tiles of dx, 128 threads each
  const std::string name = "gg_conv_bwd_input_fewc" + std::to_string(g.C) + "_f32";
  launch(s, st, name.c_str(), Dim3{static_cast<unsigned>(std::min<int64_t>(tiles, 1 << 30)), cap_yz(g.N)}, Dim3{128},
         site, g, b.out, const_cast<void*>(b.a0), const_cast<void*>(b.a1));
}

void run_direct(DeviceState& s, CUstream st, const LaunchSite& site, const Problem& p, const Buffers& b) {
  const GGConv& g = p.g;
  void* out = b.out;
  void* a0 = const_cast<void*>(b.a0);
  void* a1 = const_cast<void*>(b.a1);
  switch (p.op) {
    case Op::Forward: {
      const int64_t tiles = ((g.OH + 15) / 16) * ((g.OW + 15) / 16);
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(tiles, 1 << 30)), cap_yz((g.K + 7) / 8), cap_yz(g.N)};
      launch(s, st, kname("gg_conv_fwd_direct", p.dt).c_str(), grid, Dim3{256}, site, g, out, a0, a1,
             const_cast<void*>(b.bias));
      return;
    }
    case Op::BackwardInput: {
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>((g.H * g.W + 255) / 256, 4096)), cap_yz(g.C),
                      cap_yz(g.N)};
      launch(s, st, kname("gg_conv_bwd_input_direct", p.dt).c_str(), grid, Dim3{256}, site, g, out, a0, a1);
      return;
    }
    case Op::BackwardWeight: {
      const int64_t n = g.K * g.C * g.R * g.S, np = g.N * g.OH * g.OW;
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(n, int64_t(s.info.multiprocessors) * 32))};
      launch(s, st, kname("gg_conv_bwd_weight_direct", p.dt).c_str(), grid, Dim3{pow2_block(np, 32, 256)}, site, g,
             out, a1, a0);  // kernel order: dw, dy, x
      return;
    }
  }
}

// ---- grouped and dilated: the generic kernels ----------------------------------------------------
void run_generic(DeviceState& s, CUstream st, const LaunchSite& site, const Problem& p, const Buffers& b) {
  const GGConv& g = p.g;
  void* out = b.out;
  void* a0 = const_cast<void*>(b.a0);
  void* a1 = const_cast<void*>(b.a1);
  switch (p.op) {
    case Op::Forward:
      launch(s, st, kname("gg_conv_fwd_generic", p.dt).c_str(), Dim3{blocks_for(s, g.N * g.K * g.OH * g.OW, 256)},
             Dim3{256}, site, g, out, a0, a1, const_cast<void*>(b.bias));
      return;
    case Op::BackwardInput:
      launch(s, st, kname("gg_conv_bwd_input_generic", p.dt).c_str(), Dim3{blocks_for(s, g.N * g.C * g.H * g.W, 256)},
             Dim3{256}, site, g, out, a0, a1);
      return;
    case Op::BackwardWeight: {
      const int64_t n = g.K * (g.C / g.G) * g.R * g.S;
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(n, int64_t(s.info.multiprocessors) * 32))};
      launch(s, st, kname("gg_conv_bwd_weight_generic", p.dt).c_str(), grid,
             Dim3{pow2_block(g.N * g.OH * g.OW, 32, 256)}, site, g, out, a1, a0);  // kernel order: dw, dy, x
      return;
    }
  }
}

// ---- Winograd ---------------------------------------------------------------------------------
winograd::Conv wino_conv(const GGConv& g) { return {g.N, g.C, g.H, g.W, g.K, g.OH, g.OW, g.pt, g.pl}; }

winograd::Dir wino_dir(Op op) {
  return op == Op::Forward ? winograd::Dir::Forward
                           : op == Op::BackwardInput ? winograd::Dir::BackwardInput : winograd::Dir::BackwardWeight;
}

Choice wino_choice(const Problem& p, int m, int tile, int64_t target) {
  Choice c;
  c.algo = Algo::Winograd;
  c.wino = winograd::choose(wino_dir(p.op), wino_conv(p.g), m, tile, target, kMaxWinogradBytes, 4);
  return c;
}

// Multiprocessors' worth of threads the products aim at (GLASSGRAD_CONV_TARGET_THREADS
// overrides it, read once; for tuning the heuristics with benchmarks/conv_vs_cudnn.py).
int64_t base_target(int64_t sms) {
  static const int64_t fixed = [] {
    const char* e = std::getenv("GLASSGRAD_CONV_TARGET_THREADS");
    const long long v = e ? std::atoll(e) : 0;
    return v > 0 ? static_cast<int64_t>(v) : int64_t(0);
  }();
  return fixed > 0 ? fixed : std::max<int64_t>(1, sms) * 256;
}

int forced_algo() {  // set_conv_algo: 0 auto, 1 direct, 2 igemm, 3 winograd2, 4 winograd4
  const std::string full = conv_algo();
  const std::string a = full.substr(0, full.find(':'));
  return a == "auto" ? 0 : a == "direct" ? 1 : a == "igemm" ? 2 : a == "winograd2" ? 3 : 4;
}

// The product tile named after ':' in set_conv_algo ("igemm:32x32k16", "winograd4:64x64"):
// its index among the implicit GEMM's (kTiles) or Winograd's tiles, else -1.
int forced_tile(bool winograd) {
  const std::string full = conv_algo();
  const size_t colon = full.find(':');
  if (colon == std::string::npos) return -1;
  const std::string name = full.substr(colon + 1);
  if (winograd) {
    for (int t = 0; t < winograd::kTileCount; ++t)
      if (name == winograd::tile(t).name) return t;
    return -1;
  }
  for (int t = 0; t < kGemmTiles; ++t)
    if (name == kTiles[t].tile) return t;
  return -1;
}

// The variant named after "direct:" ("fewc"), else "".
std::string forced_direct_variant() {
  const std::string full = conv_algo();
  const size_t colon = full.find(':');
  return colon == std::string::npos ? std::string() : full.substr(colon + 1);
}

// Whether a narrow implicit-GEMM tile is worth timing: a side of every GEMM of the op at most
// the tile's (plus half: 144 columns still waste less in 32-wide tiles than in 128-wide ones).
bool narrow_tile_applies(const Problem& p, int tile) {
  if (p.dt != DType::Float32 || !tile_has_kernel(p.op, tile)) return false;
  for (const ConvGemm& cg : conv_gemms(p.op, p.g)) {
    const GemmChoice& t = kTiles[tile];
    const bool small = tile == 6 ? cg.d.M <= 32 : (cg.d.M <= 2 * t.bm || cg.d.N <= 5 * t.bn);
    if (!small) return false;
  }
  return true;
}

}  // namespace

bool grouped_or_dilated(const Problem& p) { return p.g.G != 1 || p.g.dh != 1 || p.g.dw != 1; }

// The implicit GEMM's gathers test a tap against 32-bit masks of the filter rows and columns
// inside the image (conv.cu, span_mask): wider filters take the generic kernels too.
bool generic_only(const Problem& p) { return grouped_or_dilated(p) || p.g.R > 32 || p.g.S > 32; }

bool winograd_applies(const Problem& p) {
  const GGConv& g = p.g;
  return !grouped_or_dilated(p) && p.dt == DType::Float32 && g.R == 3 && g.S == 3 && g.sh == 1 && g.sw == 1 && g.OH > 0 && g.OW > 0 &&
         g.N > 0 && g.C > 0 && g.K > 0;
}

std::vector<std::string> forcible_specs() {
  std::vector<std::string> out = {"direct", "direct:fewc", "igemm"};
  for (int t = 0; t < kGemmTiles; ++t) out.push_back(std::string("igemm:") + kTiles[t].tile);
  for (const char* algo : {"winograd2", "winograd4"}) {
    out.push_back(algo);
    for (int t = 0; t < winograd::kTileCount; ++t) out.push_back(std::string(algo) + ":" + winograd::tile(t).name);
  }
  return out;
}

bool known_tile(const std::string& algo, const std::string& name) {
  if (algo == "igemm") {
    for (int t = 0; t < kGemmTiles; ++t)
      if (name == kTiles[t].tile) return true;
  } else if (algo == "direct") {
    return name == "fewc";  // the few-channel input gradient
  } else if (algo == "winograd2" || algo == "winograd4") {
    for (int t = 0; t < winograd::kTileCount; ++t)
      if (name == winograd::tile(t).name) return true;
  }
  return false;
}

std::string Choice::describe() const {
  switch (algo) {
    case Algo::Direct: return "direct";
    case Algo::FewChannels: return "direct (few channels, 32 x 32 tiles)";
    case Algo::Generic: return "generic (grouped, dilated, or a filter wider than 32)";
    case Algo::Gemm:
      return std::string("implicit GEMM") + (gemm_tile >= 0 ? std::string(" tile ") + kTiles[gemm_tile].tile : "") +
             " (target " + std::to_string(target) + " threads)";
    case Algo::Winograd:
      return "winograd F(" + std::to_string(wino.m) + "x" + std::to_string(wino.m) + ") tile " +
             winograd::tile(wino.tile).name + ", " + std::to_string(wino.pc) + " tiles a pass" +
             (wino.splits > 1 ? ", " + std::to_string(wino.splits) + " splits" : "");
  }
  return "?";
}

Choice heuristic(const Problem& p, int64_t sms) {
  const int f = forced_algo();
  Choice c;
  if (generic_only(p)) {  // whatever set_conv_algo says: nothing else computes them
    c.algo = Algo::Generic;
    return c;
  }
  c.target = base_target(sms) * (p.op == Op::BackwardWeight ? 2 : 1);
  if ((f == 3 || f == 4) && winograd_applies(p)) return wino_choice(p, f == 3 ? 2 : 4, forced_tile(true), base_target(sms));
  if (direct_fits(p) && (f == 1 || (f == 0 && direct_preferred(p) && direct_within_bound(p)))) c.algo = Algo::Direct;
  if (fewc_applies(p) && ((f == 1 && forced_direct_variant() == "fewc") || (f == 0 && c.algo == Algo::Direct)))
    c.algo = Algo::FewChannels;
  if (f == 2 && p.dt == DType::Float32) {  // "igemm:<tile>": that tile where this direction has it
    const int t = forced_tile(false);
    if (t >= 0 && tile_has_kernel(p.op, t)) c.gemm_tile = t;
  }
  return c;
}

std::vector<Choice> candidates(const Problem& p, int64_t sms) {
  std::vector<Choice> out{heuristic(p, sms)};
  if (forced_algo() != 0 || out[0].algo == Algo::Generic) return out;
  const auto same = [&](const Choice& a, const Choice& b) {
    if (a.algo != b.algo) return false;
    if (a.algo == Algo::Winograd)
      return a.wino.m == b.wino.m && a.wino.tile == b.wino.tile && a.wino.splits == b.wino.splits &&
             a.wino.pc == b.wino.pc;
    if (a.algo == Algo::Gemm) {  // the same tiles and splits for every GEMM of the op
      for (const ConvGemm& cg : conv_gemms(p.op, p.g)) {
        const GemmChoice x = choose_gemm(cg.d.M, cg.d.N, cg.d.Kdim, p.dt, a.target, a.gemm_tile);
        const GemmChoice y = choose_gemm(cg.d.M, cg.d.N, cg.d.Kdim, p.dt, b.target, b.gemm_tile);
        if (std::string(x.tile) != y.tile || x.splits != y.splits) return false;
      }
    }
    return true;
  };
  const auto add = [&](const Choice& c) {
    for (const Choice& o : out)
      if (same(o, c)) return;
    out.push_back(c);
  };
  if (direct_candidate(p) && direct_within_bound(p)) {
    Choice d;
    d.algo = Algo::Direct;
    add(d);
  }
  if (fewc_applies(p) && direct_within_bound(p)) {
    Choice d;
    d.algo = Algo::FewChannels;
    add(d);
  }
  const int64_t base = base_target(sms);
  // A weight gradient's GEMM sums over N*OH*OW; unsplit, one block walks all of it, which at
  // 8192 or more (a first layer's 21632 or 32768) ran 10 to 140 times the best candidate and
  // took most of the tuning time, so it is not offered there.
  const bool long_weight_sum = p.op == Op::BackwardWeight && p.g.N * p.g.OH * p.g.OW >= 8192;
  for (int64_t target : {int64_t(1), base / 2, base, base * 2, base * 4}) {  // no split, fewer or more k partitions
    if (target == 1 && long_weight_sum) continue;
    Choice c;
    c.target = target;
    add(c);
  }
  if (p.dt == DType::Float32)
    for (int t : {0, 1, 2, 3, 7, 8, 9}) {  // every general tile shape, at the heuristic's target
      if (!tile_has_kernel(p.op, t)) continue;
      Choice c;
      c.target = base * (p.op == Op::BackwardWeight ? 2 : 1);
      c.gemm_tile = t;
      add(c);
    }
  // Narrow tiles where a side is small; for the weight gradient also with more k partitions
  // (a 32 x 32 tile covers a first layer's whole dW, so the partitions are its only parallelism).
  for (int t = 4; t <= 6; ++t)
    if (narrow_tile_applies(p, t))
      for (int64_t target : {base * (p.op == Op::BackwardWeight ? 2 : 1), base * 8}) {
        if (target == base * 8 && p.op != Op::BackwardWeight) continue;
        Choice c;
        c.target = target;
        c.gemm_tile = t;
        add(c);
      }
  // Winograd's transforms cost per channel pair what its products save; with under 4 input or
  // output channels they are most of the work (SimpleCNN's first layer: every Winograd weight
  // gradient candidate about 10 times the best), so such layers are not offered it.
  // F(4x4) only where float32 error may exceed the documented bound (docs/numerics.md):
  // conv_fast_winograd().
  if (winograd_applies(p) && p.g.C >= 4 && p.g.K >= 4) {
    for (int m : {2, 4}) {
      if (m == 4 && !conv_fast_winograd()) continue;
      add(wino_choice(p, m, -1, base));
      for (int t = 0; t < winograd::kTileCount; ++t)
        if (winograd::has_tile(wino_dir(p.op), t) && t != 2 &&
            (!winograd::tile(t).narrow || (p.g.K <= 64 && p.g.C <= 64)))  // 32 x 32: few channels only
          add(wino_choice(p, m, t, base));
      if (p.op == Op::BackwardWeight) add(wino_choice(p, m, -1, base * 4));
    }
  }
  return out;
}

size_t workspace_bytes(const Problem& p, const Choice& c) {
  switch (c.algo) {
    case Algo::Direct:
    case Algo::FewChannels:
    case Algo::Generic: return 0;
    case Algo::Gemm: return gemm_workspace(p, c.target, c.gemm_tile);
    case Algo::Winograd:
      return static_cast<size_t>(winograd::workspace_elements(wino_dir(p.op), wino_conv(p.g), c.wino)) * sizeof(float);
  }
  return 0;
}

void execute(DeviceState& s, CUstream st, const LaunchSite& site, const Problem& p, const Choice& c,
             const Buffers& b) {
  if (c.algo == Algo::Generic || generic_only(p)) return run_generic(s, st, site, p, b);
  if (c.algo == Algo::Winograd && b.ws != nullptr && b.ws_bytes >= workspace_bytes(p, c)) {
    const auto launcher = [&](const char* kernel, unsigned gx, unsigned gy, unsigned gz, unsigned threads,
                              auto... args) { launch(s, st, kernel, Dim3{gx, gy, gz}, Dim3{threads}, site, args...); };
    winograd::run(launcher, wino_dir(p.op), wino_conv(p.g), c.wino, int64_t(s.info.multiprocessors) * 32,
                  static_cast<float*>(b.out), static_cast<const float*>(b.a0), static_cast<const float*>(b.a1),
                  static_cast<const float*>(b.bias), p.relu, static_cast<float*>(b.ws));
    return;
  }
  if (c.algo == Algo::FewChannels && fewc_applies(p))
    run_fewc(s, st, site, p, b);
  else if (c.algo == Algo::Direct && direct_fits(p))
    run_direct(s, st, site, p, b);
  else  // Gemm, or a choice the workspace does not cover: the GEMM (splits only where it fits)
    run_gemms(s, st, site, p, c.algo == Algo::Gemm ? c.target : base_target(s.info.multiprocessors),
              c.algo == Algo::Gemm ? c.gemm_tile : -1, b);
}

namespace {

// x [N,C,H,W], w [K,C,R,S], y [N,K,OH,OW]: the engine's geometry (conv_geometry.h) in the
// kernels' parameter block.
GGConv geometry(const Conv2DGeometry& c, const Shape& y) {
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
  g.G = c.groups;
  g.dh = c.dh;
  g.dw = c.dw;
  return g;
}

Problem problem(Op op, const Shape& x, const Shape& w, const Shape& y, const Attrs& a, DType dt, const Device& dev,
                bool bias) {
  Problem p;
  p.op = op;
  p.g = geometry(Conv2DGeometry::from(x, w, a), y);
  p.dt = dt;
  p.device = dev.index;
  p.has_bias = bias;
  p.relu = op == Op::Forward && fused_relu(a);
  return p;
}

size_t fwd_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  // inputs: x, w (, bias); output y
  const Problem p = problem(Op::Forward, in.at(0).shape, in.at(1).shape, out.at(0).shape, a, out.at(0).dtype,
                            out.at(0).device, in.size() > 2);
  return out.at(0).numel() == 0 ? 0 : workspace_bytes(p, choose(p, true));
}

size_t input_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  // inputs: grad_out dy, w; output dx
  const Problem p = problem(Op::BackwardInput, out.at(0).shape, in.at(1).shape, in.at(0).shape, a, out.at(0).dtype,
                            out.at(0).device, false);
  return out.at(0).numel() == 0 ? 0 : workspace_bytes(p, choose(p, true));
}

size_t weight_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  // inputs: input x, grad_out dy; output dw
  const Problem p = problem(Op::BackwardWeight, in.at(0).shape, out.at(0).shape, in.at(1).shape, a, out.at(0).dtype,
                            out.at(0).device, false);
  return out.at(0).numel() == 0 || in.at(1).numel() == 0 ? 0 : workspace_bytes(p, choose(p, true));
}

void run_op(const KernelContext& c, const char* name, const Problem& p, const Buffers& b) {
  LaunchSite site{name, &c};
  DeviceState& s = state_of(c);
  const Choice ch = choose(p, false);
  Buffers bw = b;
  bw.ws = c.workspace;
  bw.ws_bytes = c.workspace ? c.workspace_bytes : 0;
  execute(s, stream_of(s, &c), site, p, ch, bw);
  // A fused ReLU that the chosen kernels did not apply: the elementwise kernel, in place on y
  // (each element read before it is written), so no separate buffer or plan step exists.
  const bool applied = ch.algo == Algo::Winograd && bw.ws_bytes >= workspace_bytes(p, ch) && bw.ws != nullptr;
  if (p.relu && !applied) {
    const std::vector<Tensor> io{c.outputs[0]};
    const Attrs none;
    KernelContext relu{io, io, none, c.meta, nullptr, 0, c.stream, c.error_word};
    KernelRegistry::instance().at("ReLU", DeviceType::CUDA, p.dt, c.meta).fn(relu);
  }
}

void conv2d(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const Tensor* bias = c.inputs.size() > 2 && c.inputs[2].defined() ? &c.inputs[2] : nullptr;
  const Tensor& y = c.outputs[0];
  if (y.numel() == 0) return;
  require_int32_sizes(c, "Conv2D");
  const Problem p = problem(Op::Forward, x.shape(), w.shape(), y.shape(), c.attrs, y.dtype(), y.device(), bias);
  run_op(c, "Conv2D", p, Buffers{y.data_ptr(), x.data_ptr(), w.data_ptr(), bias ? bias->data_ptr() : nullptr, nullptr, 0});
}

// inputs: grad_out dy [N,K,OH,OW], weight w; output dx [N,C,H,W]
void conv2d_backward_input(const KernelContext& c) {
  const Tensor& dy = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const Tensor& dx = c.outputs[0];
  if (dx.numel() == 0) return;
  require_int32_sizes(c, "Conv2DBackwardInput");
  const Problem p = problem(Op::BackwardInput, dx.shape(), w.shape(), dy.shape(), c.attrs, dx.dtype(), dx.device(),
                            false);
  run_op(c, "Conv2DBackwardInput", p, Buffers{dx.data_ptr(), dy.data_ptr(), w.data_ptr(), nullptr, nullptr, 0});
}

// inputs: input x [N,C,H,W], grad_out dy [N,K,OH,OW]; output dw [K,C,R,S]
void conv2d_backward_weight(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& dy = c.inputs[1];
  const Tensor& dw = c.outputs[0];
  if (dw.numel() == 0) return;
  require_int32_sizes(c, "Conv2DBackwardWeight");
  if (dy.numel() == 0) return fill_tensor(dw, 0.0);
  const Problem p = problem(Op::BackwardWeight, x.shape(), dw.shape(), dy.shape(), c.attrs, dw.dtype(), dw.device(),
                            false);
  run_op(c, "Conv2DBackwardWeight", p, Buffers{dw.data_ptr(), x.data_ptr(), dy.data_ptr(), nullptr, nullptr, 0});
}

}  // namespace
}  // namespace conv

// The rows' kernel symbols (families/conv.def): each launcher with its workspace function.
namespace {
constexpr KernelEntry conv2d{conv::conv2d, conv::fwd_workspace, nullptr};
constexpr KernelEntry conv2d_backward_input{conv::conv2d_backward_input, conv::input_workspace, nullptr};
constexpr KernelEntry conv2d_backward_weight{conv::conv2d_backward_weight, conv::weight_workspace, nullptr};
}  // namespace

void add_conv_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/conv.def"
}

}  // namespace cuda
}  // namespace glassgrad
