// Small-row products (rows_product_impl.h) for AVX2 + FMA: 8 floats a vector. Only called after
// cpu_isa() reports AVX2 (this file is compiled with -mavx2 -mfma).
#define GG_ROWS_NS rows_product_avx2
#define GG_ROWS_VEC_BYTES 32
#include "rows_product_impl.h"
