// The arithmetic that the attention kernels (kernels/cpu/attention.cpp, kernels/cuda/attention.cu)
// must share bit for bit: which score a dropout keeps. Written once for the host and the device;
// like optimizer_rules.h, on the device it needs nothing but the fixed-width integers (NVRTC has
// no host headers).
//
// Dropout inside attention is counter-based (philox.h): whether score (z, i, j) of the [*batch, L, S]
// scores (z the flat batch index) survives is a function of the seed and the score's position alone, so
// the backward regenerates the forward's mask without storing it, and the CPU and CUDA kernels,
// whatever their tiles or thread counts, drop the same scores. With row = z * L + i, the keys of a
// row are taken in groups of 32; key j (group j / 32, w = j % 32) reads word w / 8 of
// Philox4x32-10 at
//     counter = row * 8 * ceil(S / 32) + 8 * (j / 32) + w % 8
// under the 64-bit seed, and is kept when that word is at least round(dropout_p * 2^32). The
// four keys j, j + 8, j + 16, j + 24 of a group share one Philox evaluation: the CUDA kernels give
// a thread exactly those four keys of a 32-key tile. A word is uniform on [0, 2^32), so a score is
// kept with probability 1 - dropout_p (to within 2^-32); dropout_p = 1 keeps none (the threshold
// 2^32 exceeds every word).
#pragma once
#include "philox.h"

namespace glassgrad {
namespace attention_rule {

using philox::keep_threshold;
using philox::mulhi32;
using philox::philox4;

// The Philox counter of keys 8 * (j / 32) + j % 8 (+ 0, 8, 16, 24) of flat row `row`.
GG_PHILOX_RULE uint64_t group_counter(uint64_t row, int64_t s, int64_t j) {
  const uint64_t groups = static_cast<uint64_t>((s + 31) / 32);
  return row * 8u * groups + 8u * static_cast<uint64_t>(j / 32) + static_cast<uint64_t>(j % 8);
}

// Whether score (row, j) survives: word (j % 32) / 8 of its group's counter.
GG_PHILOX_RULE bool keep(uint64_t seed, uint64_t threshold, uint64_t row, int64_t s, int64_t j) {
  uint32_t w[4];
  philox4(group_counter(row, s, j), seed, w);
  return static_cast<uint64_t>(w[(j % 32) / 8]) >= threshold;
}

}  // namespace attention_rule
}  // namespace glassgrad
