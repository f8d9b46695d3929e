// The dropout mask (dropout_mask_impl.h) for AVX2. Only called after cpu_isa() reports AVX2
// (this file is compiled with -mavx2 -mfma).
#define GG_DROPOUT_NS dropout_mask_avx2
#include "dropout_mask_impl.h"
