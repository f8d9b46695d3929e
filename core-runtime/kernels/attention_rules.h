// The arithmetic that the attention kernels (kernels/cpu/attention.cpp, kernels/cuda/attention.cu)
// must share bit for bit: which score a dropout keeps. Written once for the host and the device;
// like optimizer_rules.h, on the device it needs nothing but the fixed-width integers (NVRTC has
// no host headers).
//
// Dropout inside attention is counter-based: whether score (z, i, j) of the [*batch, L, S] scores
// (z the flat batch index) survives is a function of the seed and the score's position alone, so
// the backward regenerates the forward's mask without storing it, and the CPU and CUDA kernels,
// whatever their tiles or thread counts, drop the same scores. With row = z * L + i, the keys of a
// row are taken in groups of 32; key j (group j / 32, w = j % 32) reads word w / 8 of
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011) at
//     counter = row * 8 * ceil(S / 32) + 8 * (j / 32) + w % 8
// under the 64-bit seed, and is kept when that word is at least round(dropout_p * 2^32). The
// four keys j, j + 8, j + 16, j + 24 of a group share one Philox evaluation: the CUDA kernels give
// a thread exactly those four keys of a 32-key tile. A word is uniform on [0, 2^32), so a score is
// kept with probability 1 - dropout_p (to within 2^-32); dropout_p = 1 keeps none (the threshold
// 2^32 exceeds every word).
#pragma once

#if defined(__CUDACC__)
#include "cuda/fixed_width.h"  // the fixed-width integers, also under NVRTC
#define GG_ATTN_RULE __host__ __device__ __forceinline__
#else
#include <cstdint>
#define GG_ATTN_RULE inline
#endif

namespace glassgrad {
namespace attention_rule {

// The high 32 bits of a * b.
GG_ATTN_RULE uint32_t mulhi32(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

// The four words of Philox4x32-10 at counter (counter, 0) under key seed; Random123's constants.
GG_ATTN_RULE void philox4(uint64_t counter, uint64_t seed, uint32_t (&out)[4]) {
  uint32_t x0 = static_cast<uint32_t>(counter), x1 = static_cast<uint32_t>(counter >> 32), x2 = 0, x3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint32_t lo0 = 0xD2511F53u * x0, hi0 = mulhi32(0xD2511F53u, x0);
    const uint32_t lo1 = 0xCD9E8D57u * x2, hi1 = mulhi32(0xCD9E8D57u, x2);
    x0 = hi1 ^ x1 ^ k0;
    x1 = lo1;
    x2 = hi0 ^ x3 ^ k1;
    x3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}

// The dropout threshold for probability p: round(p * 2^32), at most 2^32 (p = 1 keeps nothing).
GG_ATTN_RULE uint64_t keep_threshold(double p) {
  const double t = p * 4294967296.0 + 0.5;
  return t >= 4294967296.0 ? uint64_t(4294967296ull) : static_cast<uint64_t>(t);
}

// The Philox counter of keys 8 * (j / 32) + j % 8 (+ 0, 8, 16, 24) of flat row `row`.
GG_ATTN_RULE uint64_t group_counter(uint64_t row, int64_t s, int64_t j) {
  const uint64_t groups = static_cast<uint64_t>((s + 31) / 32);
  return row * 8u * groups + 8u * static_cast<uint64_t>(j / 32) + static_cast<uint64_t>(j % 8);
}

// Whether score (row, j) survives: word (j % 32) / 8 of its group's counter.
GG_ATTN_RULE bool keep(uint64_t seed, uint64_t threshold, uint64_t row, int64_t s, int64_t j) {
  uint32_t w[4];
  philox4(group_counter(row, s, j), seed, w);
  return static_cast<uint64_t>(w[(j % 32) / 8]) >= threshold;
}

}  // namespace attention_rule
}  // namespace glassgrad
