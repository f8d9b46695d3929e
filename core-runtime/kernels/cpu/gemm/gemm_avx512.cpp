// GEMM loop nest for AVX-512 (32 registers of 16 floats / 8 doubles). 8 x 48 (f32) and 8 x 24
// (f64) tiles: 24 accumulator registers + 3 of B + 1 broadcast of A, i.e. 24 FMAs per 11 loads.
// MR = 8 divides the channel counts of typical conv layers (16, 32, 64), which are M in the
// conv GEMMs. Single-thread, against 12 x 32 and 14 x 32 (scratch harness on the dev machine,
// GFLOP/s): 1024^3 about equal (138 / 134 / 131); conv shapes m x n x k = 16 x 676 x 9:
// 60 / 43 / 42, 32 x 784 x 144: 110 / 97 / 92, 32 x 144 x 784: 111 / 77 / 69.
// Only called after cpu_isa() reports AVX-512 (this file is compiled with -mavx512f ...).
#define GG_GEMM_NS gemm_avx512
#define GG_GEMM_NAME "avx512"
#define GG_GEMM_VEC_BYTES 64
#define GG_GEMM_MR_F32 8
#define GG_GEMM_NR_F32 48
#define GG_GEMM_MR_F64 8
#define GG_GEMM_NR_F64 24
// The KC x NR sliver of packed B (192 x 48 x 4 bytes = 36 KiB) stays in the 48 KiB L1.
#define GG_GEMM_BLOCK_F32 {192, 192, 2048}
#define GG_GEMM_BLOCK_F64 {192, 192, 1024}
#include "gemm_impl.h"
