// The CUDA convolutions' algorithms and how one is chosen per shape (conv.cpp launches them,
// conv_tuner.cpp chooses among them).
//
// Algorithms: direct kernels (first layers; a few-channel input gradient among them), the
// register-tiled implicit GEMM (every shape),
// and Winograd F(2x2, 3x3) / F(4x4, 3x3) (3x3 stride-1 float32 layers; winograd_plan.h); grouped
// and dilated convolutions run on generic kernels (one thread per output element). Each
// has parameters (the GEMM's split target; Winograd's product tile, pass length and splits),
// chosen from the shape and the device's multiprocessor count. With autotuning on (the default;
// GLASSGRAD_CONV_AUTOTUNE=0 turns it off), the first plan of a shape on a device times every
// candidate once on scratch buffers and keeps the fastest in a cache; the kernel of every later
// step and replay reads the cache, and the planned workspace is the chosen one's.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "params.h"
#include "cuda/launch.h"
#include "winograd_plan.h"

namespace glassgrad {
namespace cuda {
namespace conv {

enum class Op { Forward, BackwardInput, BackwardWeight };
// FewChannels: the input gradient of a 3x3 stride-1 layer with at most 4 input channels
// (conv.cu's bwd_input_fewc), a tuner candidate and "direct:fewc".
enum class Algo { Direct, Gemm, Winograd, Generic, FewChannels };

// One convolution call's shapes: geometry, dtype, device, bias and fused ReLU (forward only).
struct Problem {
  Op op = Op::Forward;
  GGConv g{};
  DType dt = DType::Float32;
  int device = 0;
  bool has_bias = false;
  bool relu = false;
};

struct Choice {
  Algo algo = Algo::Gemm;
  int64_t target = 0;         // Gemm: threads the tile shape and k split aim for
  int gemm_tile = -1;         // Gemm: index of conv.cpp's kTiles (float32: 0 128x128, 1 64x128, 2 32x128,
                              // 3 128x128 k16, 4 32x32 k16, 5 64x32, 6 32x64, 7 128x64, 8 128x128 k16
                              // with 8x4-thread warps, 9 128x64 k16); -1 by rows
  winograd::Choice wino;      // Winograd
  std::string describe() const;
};

// Pointers of one call: out = y / dx / dw; a0, a1 = (x, w) / (dy, w) / (x, dy).
struct Buffers {
  void* out;
  const void* a0;
  const void* a1;
  const void* bias;
  void* ws;
  size_t ws_bytes;
};

bool winograd_applies(const Problem& p);
bool grouped_or_dilated(const Problem& p);
bool generic_only(const Problem& p);  // grouped, dilated or wider than 32 taps: the generic kernels only
// Whether `name` is a product tile of `algo` ("igemm", "winograd2", "winograd4"): set_conv_algo's
// "algo:tile" forces that tile (tests and benchmarks).
bool known_tile(const std::string& algo, const std::string& name);
// The heuristic choice (no timing) for `sms` multiprocessors, honouring set_conv_algo.
Choice heuristic(const Problem& p, int64_t sms);
// Every choice worth timing (the heuristic's first); one element when nothing is to choose.
std::vector<Choice> candidates(const Problem& p, int64_t sms);
size_t workspace_bytes(const Problem& p, const Choice& c);
// Launches the choice's kernels on `stream` (b.ws must hold workspace_bytes(p, c)).
void execute(DeviceState& s, CUstream stream, const LaunchSite& site, const Problem& p, const Choice& c,
             const Buffers& b);

// The choice for p on its device: the cached one, else (tune = true) the fastest candidate,
// timed now and cached, or the heuristic when timing is off, impossible (capturing a graph, no
// events, no memory for scratch buffers) or not worth it (small problems).
Choice choose(const Problem& p, bool tune);
// "Conv2D [32, 64, 32, 32] x [64, 64, 3, 3]: winograd F(4x4) ... (timed: ...)" per cached choice.
std::vector<std::string> cached_choices();
void clear_cache();

}  // namespace conv
}  // namespace cuda
}  // namespace glassgrad
