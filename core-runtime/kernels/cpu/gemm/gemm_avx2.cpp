// GEMM loop nest for AVX2 + FMA (16 registers of 8 floats / 4 doubles). 6 x 16 (f32) and
// 6 x 8 (f64) tiles: 12 accumulator registers + 2 of B + 1 broadcast of A.
// Only called after cpu_isa() reports AVX2 (this file is compiled with -mavx2 -mfma).
#define GG_GEMM_NS gemm_avx2
#define GG_GEMM_NAME "avx2"
#define GG_GEMM_VEC_BYTES 32
#define GG_GEMM_MR_F32 6
#define GG_GEMM_NR_F32 16
#define GG_GEMM_MR_F64 6
#define GG_GEMM_NR_F64 8
#define GG_GEMM_BLOCK_F32 {192, 256, 2048}
#define GG_GEMM_BLOCK_F64 {192, 256, 1024}
#include "gemm_impl.h"
