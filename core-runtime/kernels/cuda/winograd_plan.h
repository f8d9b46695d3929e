// Host side of the Winograd convolutions (kernels/cuda/winograd.cu): which products, tiles,
// passes and splits, the workspace layout, and the launch sequence. Header-only and free of
// driver calls, so the CUDA launcher (conv.cpp) and the CPU emulation of the kernels
// (core-runtime/tests/test_cuda_emulated.cpp) run the very same sequence.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "fast_div.h"
#include "params.h"

namespace glassgrad {
namespace cuda {
namespace winograd {

enum class Dir { Forward, BackwardInput, BackwardWeight };

// A 3x3 stride-1 convolution: x [N, C, H, W], w [K, C, 3, 3], y [N, K, OH, OW], padding top pt
// and left pl (bottom and right only shape OH, OW).
struct Conv {
  int64_t N, C, H, W, K, OH, OW, pt, pl;
};

// Product tiles (gemm_engine.cuh TileConfig): kernel infix, rows, columns, threads, and which
// products have a kernel of it (forward / input gradient, weight gradient). The "k16" tiles
// walk k in steps of 16 instead of 8 (half the barriers, twice the staging registers).
// "32x32k16" (narrow) is for weight gradients of few channels (K x C of 32 x 16: a 64 x 64 tile
// multiplied 7/8 zeros).
struct Tile {
  const char* name;
  int64_t bm, bn, threads;
  bool forward, weight;
  bool narrow = false;
};
// "w" tiles: k steps of 16 with 8 x 4 micro-tiles a warp (TileConfig's WARPS).
constexpr int kTileCount = 10;
inline const Tile& tile(int i) {
  static const Tile t[kTileCount] = {
      {"128x128", 128, 128, 256, true, true},      {"64x128", 64, 128, 128, true, true},
      {"32x128", 32, 128, 128, true, false},       {"64x64", 64, 64, 128, false, true},
      {"128x128k16", 128, 128, 256, true, true},   {"64x128k16", 64, 128, 128, true, true},
      {"64x64k16", 64, 64, 128, false, true},      {"32x32k16", 32, 32, 64, false, true, true},
      {"128x128w", 128, 128, 256, true, true},     {"64x128w", 64, 128, 128, true, true}};
  return t[i];
}
inline bool has_tile(Dir d, int i) { return d == Dir::BackwardWeight ? tile(i).weight : tile(i).forward; }

struct Choice {
  int m = 4;           // output tile m x m: F(2x2, 3x3) or F(4x4, 3x3)
  int tile = 1;        // index of the product tile
  int64_t pc = 0;      // tiles per pass
  int64_t splits = 1;  // weight gradient: partitions of the tile axis
};

constexpr int64_t kMinSplitLength = 64;  // tiles per weight-gradient partition, at least

inline int64_t alpha2(int m) { return int64_t(m + 2) * (m + 2); }
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Source and destination of the transforms (GGWino's comment, params.h), all tiles.
inline GGWino geometry(Dir d, const Conv& c, int m) {
  GGWino g{};
  g.N = static_cast<int32_t>(c.N);
  if (d == Dir::BackwardInput) {  // dx = dy correlated with the rotated, transposed filter
    g.Ci = static_cast<int32_t>(c.K);
    g.Hi = static_cast<int32_t>(c.OH);
    g.Wi = static_cast<int32_t>(c.OW);
    g.Co = static_cast<int32_t>(c.C);
    g.Ho = static_cast<int32_t>(c.H);
    g.Wo = static_cast<int32_t>(c.W);
    g.pt = static_cast<int32_t>(2 - c.pt);
    g.pl = static_cast<int32_t>(2 - c.pl);
    g.flip = 1;
  } else {  // forward, and the weight gradient's tiles of dy (source x)
    g.Ci = static_cast<int32_t>(c.C);
    g.Hi = static_cast<int32_t>(c.H);
    g.Wi = static_cast<int32_t>(c.W);
    g.Co = static_cast<int32_t>(c.K);
    g.Ho = static_cast<int32_t>(c.OH);
    g.Wo = static_cast<int32_t>(c.OW);
    g.pt = static_cast<int32_t>(c.pt);
    g.pl = static_cast<int32_t>(c.pl);
  }
  const int64_t th = ceil_div(g.Ho, m), tw = ceil_div(g.Wo, m);
  g.TH = static_cast<int32_t>(th);
  g.TW = static_cast<int32_t>(tw);
  g.P = static_cast<int32_t>(c.N * th * tw);
  g.splits = 1;
  g.div_T = make_fast_div(std::max<int64_t>(1, th * tw));
  g.div_TW = make_fast_div(std::max<int64_t>(1, tw));
  return g;
}

// Workspace in elements: forward / input gradient U [A2][Co][Ci], V [A2][Ci][pc], M [A2][Co][pc];
// weight gradient V [A2][C][pc], Y [A2][K][pc], dU [splits][A2][K][C].
inline int64_t workspace_elements(Dir d, const Conv& c, const Choice& ch) {
  const GGWino g = geometry(d, c, ch.m);
  const int64_t a2 = alpha2(ch.m), pc = ch.pc;
  if (d == Dir::BackwardWeight) return a2 * (g.Ci * pc + g.Co * pc + ch.splits * g.Co * g.Ci);
  return a2 * (int64_t(g.Co) * g.Ci + g.Ci * pc + g.Co * pc);
}

// Tile, splits and pass length for F(m x m): `tile_pref` < 0 picks the tile by size; the
// products aim at `target_threads` (about 256 a multiprocessor) and the workspace at
// `cap_bytes`: the weight gradient's partial sums take at most half of it, a pass is cut to fit
// the rest, at least min(P, 128) tiles a pass (so very wide layers may exceed it).
inline Choice choose(Dir d, const Conv& c, int m, int tile_pref, int64_t target_threads, int64_t cap_bytes,
                     int64_t item_bytes) {
  Choice ch;
  ch.m = m;
  const GGWino g = geometry(d, c, m);
  const int64_t a2 = alpha2(m), P = g.P;
  const int64_t rows = g.Co, cols = d == Dir::BackwardWeight ? g.Ci : P;
  const auto blocks = [&](int t) { return a2 * ceil_div(rows, tile(t).bm) * ceil_div(cols, tile(t).bn); };
  if (tile_pref >= 0 && has_tile(d, tile_pref)) {
    ch.tile = tile_pref;
  } else if (d == Dir::BackwardWeight) {
    ch.tile = (g.Ci <= 64 || rows <= 64) ? 3 : 1;
    if (ch.tile == 1 && rows > 64 && blocks(0) * tile(0).threads >= target_threads) ch.tile = 0;
  } else {
    ch.tile = rows <= 32 ? 2 : rows <= 64 ? 1 : 0;
    if (ch.tile == 0 && blocks(0) * tile(0).threads < target_threads) ch.tile = 1;
  }
  if (d == Dir::BackwardWeight) {
    const int64_t per = blocks(ch.tile) * tile(ch.tile).threads;
    const int64_t partial_bytes = a2 * g.Co * g.Ci * item_bytes;  // one split's dU
    while (per * ch.splits < target_threads && P / (2 * ch.splits) >= kMinSplitLength && ch.splits < 64 &&
           2 * ch.splits * partial_bytes <= cap_bytes / 2)
      ch.splits *= 2;
  }
  const int64_t fixed = d == Dir::BackwardWeight ? a2 * ch.splits * g.Co * g.Ci : a2 * int64_t(g.Co) * g.Ci;
  const int64_t per_tile = a2 * (int64_t(g.Ci) + g.Co);
  const int64_t room = cap_bytes / item_bytes - fixed;
  int64_t pc = room > 0 ? room / per_tile : 0;
  if (pc < P) pc = std::max<int64_t>(std::min<int64_t>(P, 128), pc / 128 * 128);
  ch.pc = std::min(pc, P);
  return ch;
}

// Launches an op's kernels through launch(name, grid_x, grid_y, grid_z, threads, args...), whose
// argument types are exactly the kernels'. `max_blocks` caps the transforms' grid-stride grids.
// Forward: a0 = x, a1 = w, out = y (bias may be null). Input gradient: a0 = dy, a1 = w, out = dx.
// Weight gradient: a0 = x, a1 = dy, out = dw. `ws` holds workspace_elements() floats.
template <typename Launch>
void run(Launch& launch, Dir d, const Conv& c, const Choice& ch, int64_t max_blocks, float* out, const float* a0,
         const float* a1, const float* bias, bool relu, float* ws) {
  GGWino g = geometry(d, c, ch.m);
  g.relu = relu ? 1 : 0;
  const int64_t a2 = alpha2(ch.m);
  const std::string pre = "gg_wino" + std::to_string(ch.m) + "_";
  const Tile& t = tile(ch.tile);
  const auto grid = [&](int64_t n) {
    return static_cast<unsigned>(std::max<int64_t>(1, std::min(ceil_div(n, 256), max_blocks)));
  };
  const auto yz = [](int64_t n) { return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(n, 65535))); };
  const int batch = static_cast<int>(a2);
  if (d == Dir::BackwardWeight) {
    g.splits = static_cast<int32_t>(ch.splits);
    float* V = ws;
    float* Y = V + a2 * g.Ci * ch.pc;
    float* dU = Y + a2 * g.Co * ch.pc;
    const std::string gemm = std::string("gg_wino_wgrad_gemm") + t.name + "_f32";
    for (int64_t p0 = 0; p0 < g.P; p0 += ch.pc) {
      g.p0 = static_cast<int32_t>(p0);
      g.pc = static_cast<int32_t>(std::min<int64_t>(ch.pc, g.P - p0));
      g.div_pc = make_fast_div(g.pc);
      g.accumulate = p0 > 0 ? 1 : 0;
      launch((pre + "input_f32").c_str(), grid(int64_t(g.Ci) * g.pc), 1u, 1u, 256u, g, a0, V);
      launch((pre + "grad_output_f32").c_str(), grid(int64_t(g.Co) * g.pc), 1u, 1u, 256u, g, a1, Y);
      launch(gemm.c_str(), static_cast<unsigned>(ceil_div(g.Ci, t.bn)), yz(ceil_div(g.Co, t.bm)), yz(a2 * ch.splits),
             static_cast<unsigned>(t.threads), g, static_cast<const float*>(Y), static_cast<const float*>(V), dU, batch);
    }
    launch((pre + "grad_filter_f32").c_str(), grid(int64_t(g.Co) * g.Ci), 1u, 1u, 256u, g,
           static_cast<const float*>(dU), out);
    return;
  }
  float* U = ws;
  float* V = U + a2 * g.Co * g.Ci;
  float* M = V + a2 * g.Ci * ch.pc;
  const std::string gemm = std::string("gg_wino_gemm") + t.name + "_f32";
  // filter transform: one block of 256 threads per 8 x 32 tile of channel pairs (winograd.cu)
  const int64_t filter_tiles = ceil_div(g.Co, kWinoFilterCo) * ceil_div(g.Ci, kWinoFilterCi);
  launch((pre + "filter_f32").c_str(), grid(filter_tiles * 256), 1u, 1u, 256u, g, a1, U);
  for (int64_t p0 = 0; p0 < g.P; p0 += ch.pc) {
    g.p0 = static_cast<int32_t>(p0);
    g.pc = static_cast<int32_t>(std::min<int64_t>(ch.pc, g.P - p0));
    g.div_pc = make_fast_div(g.pc);
    launch((pre + "input_f32").c_str(), grid(int64_t(g.Ci) * g.pc), 1u, 1u, 256u, g, a0, V);
    launch(gemm.c_str(), static_cast<unsigned>(ceil_div(g.pc, t.bn)), yz(ceil_div(g.Co, t.bm)), yz(a2),
           static_cast<unsigned>(t.threads), g, static_cast<const float*>(U), static_cast<const float*>(V), M, batch);
    launch((pre + "output_f32").c_str(), grid(int64_t(g.Co) * g.pc), 1u, 1u, 256u, g, static_cast<const float*>(M),
           out, bias);
  }
}

}  // namespace winograd
}  // namespace cuda
}  // namespace glassgrad
