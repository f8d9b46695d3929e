// GELU loops for AVX-512 (gelu_impl.h). Only called after cpu_isa() reports AVX-512 (this file
// is compiled with the AVX-512 flags).
#define GG_GELU_NS gelu_avx512
#include "gelu_impl.h"
