// How the attention kernels (kernels/cuda/attention.cu) are launched: their parameter block and
// grids, shared by the launcher (kernels/cuda/attention.cpp) and the emulated test that runs the
// kernels on the CPU (core-runtime/tests/test_cuda_emulated_attention.cpp), so the test runs the
// launcher's own configuration.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "attention_params.h"
#include "attention_layout.h"
#include "attention_rules.h"

namespace glassgrad {
namespace cuda {
namespace attention {

static_assert(GG_ATTN_Q == kAttnQuery && GG_ATTN_K == kAttnKey && GG_ATTN_V == kAttnValue &&
                  GG_ATTN_GO == kAttnGradOut && GG_ATTN_OUT == kAttnOut && GG_ATTN_LSE == kAttnLse &&
                  GG_ATTN_MASK == kAttnMask && GG_ATTN_OPERANDS == kAttnSlots,
              "the operand slots of the parameter block and of attention_layout.h must agree");

// Rows and features per block and the threads of each kernel (attention.cu's Cfg; resident_threads:
// gg_attn_bwd_resident's kResidentThreads).
struct Tiles {
  int fwd_rows, rows, features, fwd_threads, threads, resident_threads;
};
inline Tiles tiles_of(DType dt) {
  return dt == DType::Float32 ? Tiles{64, 32, 64, 128, 64, 128} : Tiles{32, 32, 32, 64, 64, 64};
}

struct Grid {
  unsigned x, y, z;
};
inline unsigned blocks_of(int64_t n, int per) {
  return static_cast<unsigned>(std::max<int64_t>(1, (n + per - 1) / per));
}
inline unsigned capped(int64_t n) { return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(n, 65535))); }

// x: row blocks; y: chunks of output columns; z: the batch (y and z capped, the kernels loop).
inline Grid forward_grid(const AttentionGeometry& g, const Tiles& t) {
  return {blocks_of(g.l, t.fwd_rows), capped((g.ev + t.features - 1) / t.features), capped(g.batch_count())};
}
inline Grid dq_grid(const AttentionGeometry& g, const Tiles& t) {
  return {blocks_of(g.l, t.rows), capped((g.e + t.features - 1) / t.features), capped(g.batch_count())};
}
inline Grid dkv_grid(const AttentionGeometry& g, const Tiles& t) {
  return {blocks_of(g.s, t.rows), capped((std::max(g.e, g.ev) + t.features - 1) / t.features),
          capped(g.batch_count())};
}
// gg_attn_prep (D and a zeroed dq before gg_attn_bwd, which runs on dkv_grid): x the row blocks.
inline Grid prep_grid(const AttentionGeometry& g, const Tiles& t) {
  return {blocks_of(g.l, t.rows), 1, capped(g.batch_count())};
}

// The backward adds dq's shares with atomics (gg_attn_prep, then gg_attn_bwd: two score products
// fewer than gg_attn_dq with gg_attn_dkv) in float32 unless bit-reproducible results are asked
// for (glassgrad.use_deterministic_algorithms or backends.cudnn.deterministic); float64 always
// takes the two-kernel path (no double atomicAdd before sm_60).
inline bool atomic_dq(DType dt, bool deterministic) { return dt == DType::Float32 && !deterministic; }

// Which kernel the float32 backward with atomics launches after gg_attn_prep: gg_attn_bwd_resident
// (on dkv_grid, resident_threads) where the query/key and value features fit one resident chunk,
// else gg_attn_bwd (docs/attention.md, "The backward"; its timings chose it).
inline const char* atomic_backward_kernel(const AttentionGeometry& g, const Tiles& t) {
  return g.e > t.features || g.ev > t.features ? "gg_attn_bwd_f32" : "gg_attn_bwd_resident_f32";
}
inline int atomic_backward_threads(const char* kernel, const Tiles& t) {
  return std::string(kernel) == "gg_attn_bwd_f32" ? t.threads : t.resident_threads;
}

// The parameter block: sizes, strides by slot, flags and the dropout constants. The caller has
// checked that the sizes fit 31 bits and that the batch axes collapse to at most GG_MAX_DIMS.
inline GGAttention params_of(const AttentionGeometry& g, const AttentionLayout& lay) {
  GGAttention p{};
  p.L = static_cast<int32_t>(g.l);
  p.S = static_cast<int32_t>(g.s);
  p.E = static_cast<int32_t>(g.e);
  p.Ev = static_cast<int32_t>(g.ev);
  p.batch = g.batch_count();
  p.batch_rank = static_cast<int32_t>(lay.batch.size());
  for (size_t d = 0; d < lay.batch.size(); ++d) p.batch_size[d] = lay.batch[d];
  for (int k = 0; k < kAttnSlots; ++k) {
    const size_t ks = static_cast<size_t>(k);
    const Tensor* t = lay.tensor[ks];
    p.row[k] = lay.row[ks];
    p.col[k] = lay.col[ks];
    // Groups of four along a row are one aligned vector load when the row is contiguous and
    // every matrix and row starts on a multiple of four elements of an aligned base.
    bool vec = t != nullptr && lay.col[ks] == 1 && lay.row[ks] % 4 == 0 &&
               reinterpret_cast<uintptr_t>(t->data_ptr()) % (4 * t->itemsize()) == 0;
    for (size_t d = 0; d < lay.batch.size(); ++d) {
      p.batch_stride[k][d] = lay.strides[ks][d];
      vec = vec && lay.strides[ks][d] % 4 == 0;
    }
    p.vec4[k] = vec ? 1 : 0;
  }
  p.causal = g.causal ? 1 : 0;
  p.masked = g.masked ? 1 : 0;
  p.dropout = g.dropout() ? 1 : 0;
  p.mask_grad = g.mask_grad ? 1 : 0;
  p.scale_log2 = g.scale * 1.4426950408889634;
  p.keep_threshold = attention_rule::keep_threshold(g.dropout_p);
  p.keep_scale = g.dropout_p >= 1.0 ? 0.0 : 1.0 / (1.0 - g.dropout_p);
  return p;
}

}  // namespace attention
}  // namespace cuda
}  // namespace glassgrad
