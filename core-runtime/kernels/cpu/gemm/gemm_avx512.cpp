// GEMM loop nest for AVX-512 (32 registers of 16 floats / 8 doubles). 12 x 32 (f32) and
// 12 x 16 (f64) tiles: 24 accumulator registers + 2 of B + 1 broadcast of A.
// Only called after cpu_isa() reports AVX-512 (this file is compiled with -mavx512f ...).
#define GG_GEMM_NS gemm_avx512
#define GG_GEMM_NAME "avx512"
#define GG_GEMM_VEC_BYTES 64
#define GG_GEMM_MR_F32 12
#define GG_GEMM_NR_F32 32
#define GG_GEMM_MR_F64 12
#define GG_GEMM_NR_F64 16
#define GG_GEMM_BLOCK_F32 {192, 256, 2048}
#define GG_GEMM_BLOCK_F64 {192, 256, 1024}
#include "gemm_impl.h"
