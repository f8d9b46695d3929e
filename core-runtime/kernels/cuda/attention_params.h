// The parameter block of the attention kernels (kernels/cuda/attention.cu), filled by their
// launcher (kernels/cuda/attention.cpp); laid out like params.h's blocks (LP64, passed by value).
#pragma once
#include "params.h"

// The operands a kernel reads, each at its own strides: slots of GGAttention's stride tables.
#define GG_ATTN_Q 0
#define GG_ATTN_K 1
#define GG_ATTN_V 2
#define GG_ATTN_GO 3    // the gradient of out (backward)
#define GG_ATTN_OUT 4   // the forward's out (backward: D = rowsum(grad_out * out))
#define GG_ATTN_LSE 5   // the forward's log-sum-exp rows (backward; column stride unused)
#define GG_ATTN_MASK 6  // the additive mask, when `masked`
#define GG_ATTN_OPERANDS 7

// Scaled dot-product attention over a flat batch of `batch` problems (glassgrad/autodiff/
// attention_geometry.h): operand k's matrix z starts at the offset of z over batch_size with
// batch_stride[k] (the launcher collapses the broadcast batch axes, kernels/attention_layout.h),
// its element (i, j) at i * row[k] + j * col[k] beyond that. Outputs are dense.
struct GGAttention {
  int32_t L, S, E, Ev;            // query rows, key rows, query/key and value features (< 2^31)
  int64_t batch;
  int32_t batch_rank;
  int32_t causal;                 // key j hidden from query i when j > i
  int64_t batch_size[GG_MAX_DIMS];
  int64_t batch_stride[GG_ATTN_OPERANDS][GG_MAX_DIMS];
  int64_t row[GG_ATTN_OPERANDS];
  int64_t col[GG_ATTN_OPERANDS];
  int32_t vec4[GG_ATTN_OPERANDS]; // 1: rows are contiguous and every group of 4 starting at a
                                  // multiple of 4 is one aligned 16-byte (float) or 32-byte load
  int32_t masked;
  int32_t dropout;
  int32_t mask_grad;              // backward: write d(mask) = d(scores) to the dense [batch, L, S] output
  double scale_log2;              // scale * log2(e): the kernels exponentiate in base 2
  uint64_t keep_threshold;        // kernels/attention_rules.h
  double keep_scale;              // 1 / (1 - dropout_p), 0 when dropout_p = 1
};
