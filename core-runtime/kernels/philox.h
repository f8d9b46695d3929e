// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011; Random123's
// constants): four uniform 32-bit words that are a function of a 64-bit counter and a 64-bit key
// alone. The counter-based dropout of the attention kernels (attention_rules.h) and of the
// Dropout op (dropout_rules.h) draw from it, so a mask is regenerated instead of stored, and the
// CPU and CUDA kernels, whatever their tiles or thread counts, draw the same words. Written once
// for the host and the device; on the device it needs nothing but the fixed-width integers
// (NVRTC has no host headers).
#pragma once

#if defined(__CUDACC__)
#include "cuda/fixed_width.h"  // the fixed-width integers, also under NVRTC
#define GG_PHILOX_RULE __host__ __device__ __forceinline__
#else
#include <cstdint>
#define GG_PHILOX_RULE inline
#endif

namespace glassgrad {
namespace philox {

// The high 32 bits of a * b.
GG_PHILOX_RULE uint32_t mulhi32(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

// The four words of Philox4x32-10 at counter (counter, 0) under key seed.
GG_PHILOX_RULE void philox4(uint64_t counter, uint64_t seed, uint32_t (&out)[4]) {
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
// A word is uniform on [0, 2^32), so `word >= threshold` holds with probability 1 - p (to
// within 2^-32).
GG_PHILOX_RULE uint64_t keep_threshold(double p) {
  const double t = p * 4294967296.0 + 0.5;
  return t >= 4294967296.0 ? uint64_t(4294967296ull) : static_cast<uint64_t>(t);
}

}  // namespace philox
}  // namespace glassgrad
