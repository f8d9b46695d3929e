// Parameter blocks of the recurrent kernels (kernels/cuda/recurrent.cu), shared with their
// launcher (kernels/cuda/recurrent.cpp) and its launch sequence (kernels/cuda/recurrent_plan.h).
// Plain LP64 structs passed by value, as params.h's.
#pragma once
#include "fixed_width.h"

// A product C[M, N] (+)= A[M, K] B[K, N] of the gg_rnn_gemm_{nt,nn,tn}<tile> kernels. Layouts by
// the kernel's letters (elements, leading dimensions lda, ldb):
//   nt: A(m, k) = a[m * lda + k],  B(k, n) = b[n * ldb + k]   (x W^T: B is a row-major [N, K])
//   nn: A(m, k) = a[m * lda + k],  B(k, n) = b[k * ldb + n]   (dP W: B is a row-major [K, N])
//   tn: A(m, k) = a[k * lda + m],  B(k, n) = b[k * ldb + n]   (dP^T x: A is a row-major [K, M])
// Epilogue: c[m * ldc + n] = v + bias[n] + (n < bias2_cols ? bias2[n] : 0) (+ the old value with
// accumulate), and c2[m * ldc2 + n] the same value when c2 is set. With splits > 1 the kernel
// writes k partition z's sums densely to ws[z][M][N] instead, and gg_rnn_gemm_reduce (or a cell
// kernel, for the recurrent product of a step) adds them in z order.
struct GGRnnGemm {
  int32_t M, N, K;
  int32_t lda, ldb, ldc, ldc2;
  int32_t splits;
  int32_t accumulate;
  int32_t bias2_cols;
};

// One time step of a cell kernel: rows active at the step (rows), rows continuing the previous
// step's state (carried), the hidden size H, h's size Hout, the gates G, the reserve's row width
// W, and the recurrent product's partial sums (splits of rec_rows rows, G wide in the forward,
// Hout wide in the backward; rec_rows = 0: none). relu: an RNN's nonlinearity.
struct GGRnnStep {
  int32_t rows, carried, rec_rows, splits;
  int32_t H, Hout, G, W;
  int32_t relu, pad_;
};

// Up to kGGIndexChunk int32 values copied into device memory by gg_rnn_index_fill: how the
// packing kernels get their row tables into a CUDA graph (kernel parameters are captured with
// the launch; a host-to-device copy of pageable memory is not).
#define GG_INDEX_CHUNK 1000
struct GGIndexChunk {
  int32_t start, count;
  int32_t value[GG_INDEX_CHUNK];
};
