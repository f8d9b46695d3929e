// Direct Conv2D forward (conv_direct.h) for AVX2 + FMA: 6 channels x 2 vectors = 12
// accumulators. Only called after cpu_isa() reports AVX2 (compiled with -mavx2 -mfma).
#define GG_CONV_NS conv_direct_avx2
#define GG_CONV_VEC_BYTES 32
#define GG_CONV_KB_F32 6
#define GG_CONV_NV_F32 2
#define GG_CONV_KB_F64 6
#define GG_CONV_NV_F64 2
#include "conv_direct_impl.h"
