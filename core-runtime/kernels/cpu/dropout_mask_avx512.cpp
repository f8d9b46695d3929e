// The dropout mask (dropout_mask_impl.h) for AVX-512. Only called after cpu_isa() reports
// AVX-512 (this file is compiled with -mavx512f ...).
#define GG_DROPOUT_NS dropout_mask_avx512
#include "dropout_mask_impl.h"
