// GEMM loop nest for baseline x86-64 (SSE2: 16 registers of 4 floats / 2 doubles) and for any
// other CPU. 6 x 8 (f32) and 6 x 4 (f64) tiles: 12 accumulator registers + 2 of B + 1 of A.
#define GG_GEMM_NS gemm_generic
#define GG_GEMM_NAME "generic"
#define GG_GEMM_VEC_BYTES 16
#define GG_GEMM_MR_F32 6
#define GG_GEMM_NR_F32 8
#define GG_GEMM_MR_F64 6
#define GG_GEMM_NR_F64 4
#define GG_GEMM_BLOCK_F32 {192, 256, 2048}
#define GG_GEMM_BLOCK_F64 {192, 256, 1024}
#include "gemm_impl.h"
