// GELU loops for AVX2 (gelu_impl.h). Only called after cpu_isa() reports AVX2 (this file is
// compiled with -mavx2 -mfma).
#define GG_GELU_NS gelu_avx2
#include "gelu_impl.h"
