// Direct Conv2D forward (conv_direct.h) for AVX-512: 8 channels x 2 vectors = 16 accumulators
// (32 float / 16 double output columns per run). Only called after cpu_isa() reports AVX-512
// (compiled with -mavx512f ...).
#define GG_CONV_NS conv_direct_avx512
#define GG_CONV_VEC_BYTES 64
#define GG_CONV_KB_F32 8
#define GG_CONV_NV_F32 2
#define GG_CONV_KB_F64 8
#define GG_CONV_NV_F64 2
#include "conv_direct_impl.h"
