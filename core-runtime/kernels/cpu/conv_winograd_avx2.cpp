// Winograd tile kernels (conv_winograd_impl.h) for AVX2 + FMA: 8 floats / 4 doubles per vector.
// Only called after cpu_isa() reports AVX2 (this file is compiled with -mavx2 -mfma).
#define GG_WINO_NS conv_winograd_avx2
#define GG_WINO_VEC_BYTES 32
#include "conv_winograd_impl.h"
