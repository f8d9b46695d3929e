// Winograd tile kernels (conv_winograd_impl.h) for AVX-512: 16 floats / 8 doubles per vector,
// the blocked layout nChw16c. Only called after cpu_isa() reports AVX-512 (this file is
// compiled with -mavx512f ...).
#define GG_WINO_NS conv_winograd_avx512
#define GG_WINO_VEC_BYTES 64
#include "conv_winograd_impl.h"
