// Small-row products (rows_product_impl.h) for AVX-512: 16 floats a vector. Only called after
// cpu_isa() reports AVX-512 (this file is compiled with -mavx512f ...).
#define GG_ROWS_NS rows_product_avx512
#define GG_ROWS_VEC_BYTES 64
#include "rows_product_impl.h"
