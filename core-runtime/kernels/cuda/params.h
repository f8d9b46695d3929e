// Kernel parameter blocks shared by the host launchers (src/cuda/, plain C++) and the CUDA
// kernels (kernels/cuda/*.cu). Both sides are LP64 (x86-64 / aarch64 Linux), so these plain
// structs have one layout; they are passed to cuLaunchKernel by value (far below the 4 KB
// parameter limit). No CUDA header is needed to read this file.
#pragma once
#include "fixed_width.h"

#define GG_MAX_DIMS 8   // ranks above this are collapsed (or refused) by the launchers
#define GG_MAX_OPS 4    // operands of one strided iteration (inputs; outputs are dense)

// Iteration over a dense output of `size` (row-major) with up to GG_MAX_OPS strided operands:
// operand k's element for output index i sits at sum_d idx_d(i) * stride[k][d] (elements).
// `small` = 1 when every size and the element count fit in 31 bits (32-bit index division).
struct GGIter {
  int32_t rank;
  int32_t small;
  int64_t size[GG_MAX_DIMS];
  int64_t stride[GG_MAX_OPS][GG_MAX_DIMS];
};

// Rows of a matrix one block of gg_reduce_col_sums adds (reduction.cu): the chunks, and so the
// order of the additions, depend on the shape alone.
#define GG_COL_SUM_ROWS 256

// A reduction: outputs are indexed by the kept axes (dense, row-major), each output reduces
// over the reduced axes of the (strided) input.
struct GGReduce {
  int32_t out_rank;
  int32_t red_rank;
  int64_t out_size[GG_MAX_DIMS];
  int64_t out_stride[GG_MAX_DIMS];   // input strides of the kept axes
  int64_t red_size[GG_MAX_DIMS];
  int64_t red_stride[GG_MAX_DIMS];   // input strides of the reduced axes
  int64_t n_out;
  int64_t n_red;
};

// Batched matrix product C[b] = A[b] @ B[b]; batch axes broadcast (stride 0), A and B strided.
struct GGMatmul {
  int64_t M, N, K;
  int64_t a_sm, a_sk;                // A element (m, k) at m*a_sm + k*a_sk (+ batch offset)
  int64_t b_sk, b_sn;
  int32_t batch_rank;
  int32_t a_k_major;                 // 1 when A's unit stride runs along k (row-major A)
  int32_t b_n_major;                 // 1 when B's unit stride runs along n (row-major B)
  int32_t splits;                    // register-tiled products: k partitions (1 unless batch == 1)
  int64_t batch_size[GG_MAX_DIMS];
  int64_t a_bstride[GG_MAX_DIMS];
  int64_t b_bstride[GG_MAX_DIMS];
  int64_t batch;                     // product of batch_size
  const void* bias;                  // null, or T bias[N] (element n at n*bias_sn) added to every row
  int64_t bias_sn;
};

// 2-D convolution geometry (NCHW input, KCRS weight), shared by forward and both backwards.
struct GGConv {
  int64_t N, C, H, W;                // input
  int64_t K, R, S;                   // weight [K, C, R, S]
  int64_t OH, OW;                    // output
  int64_t sh, sw;                    // stride
  int64_t pt, pl;                    // padding top / left (bottom and right only shape OH, OW)
  int64_t G;                         // groups: K/G output and C/G input channels each (w [K, C/G, R, S])
  int64_t dh, dw;                    // dilation
};

// Division by a divisor d fixed per launch, as a multiply-high and a shift (Granlund and
// Montgomery, "Division by invariant integers using multiplication", PLDI 1994):
//   q = (umulhi(n, mul) + n) >> shift,  shift = ceil(log2 d),  mul = floor(2^32 (2^shift - d) / d) + 1,
// exact for 0 <= n < 2^31 (the sum cannot overflow 32 bits) and 1 <= d < 2^31. The host fills
// it with make_fast_div (fast_div.h); the device side is gg::fast_div (common.cuh).
struct GGFastDiv {
  uint32_t d, mul, shift, pad_;
};

// The implicit-GEMM convolutions (conv.cu, on gemm_engine.cuh): the geometry of GGConv in 32-bit integers
// (the launcher refuses tensors of 2^31 elements or more) plus the divisors the gathers use.
struct GGConvGemm {
  int32_t N, C, H, W, K, R, S, OH, OW, sh, sw, pt, pl;
  int32_t splits;                    // k-range partitions (blockIdx.z); > 1: partial sums to the workspace
  GGFastDiv div_P;                   // OH * OW
  GGFastDiv div_OW, div_RS, div_S, div_HW, div_W, div_sh, div_sw;
  // Backward-input phase (one launch per (ph, pw) in [0, sh) x [0, sw)): the dx pixels
  // (ph + sh*i, pw + sw*j), i < Hp, j < Wp, receive only the taps r = r0 + sh*a (a < Ra),
  // s = s0 + sw*b (b < Sa), from dy at (i + dh - a, j + dw - b). Stride 1 is the single phase.
  int32_t ph, pw, r0, s0, Ra, Sa, dh, dw, Hp, Wp;
  GGFastDiv div_PP;                  // Hp * Wp
  GGFastDiv div_Wp, div_RaSa, div_Sa;
};

// Winograd F(m x m, 3 x 3) convolutions, stride 1 (winograd.cu). One geometry serves the
// forward (src x, dst y, filter w), the input gradient (src dy, dst dx, filter w transposed and
// rotated, pt/pl = 2 - padding) and the weight gradient (src x, tiles over dy):
//   dst[n, co, oh, ow] = sum_{ci, r, s} src[n, ci, oh - pt + r, ow - pl + s] * f[co, ci, r, s]
// dst is cut into m x m tiles, TH x TW per image, P = N * TH * TW in all; a pass transforms
// the tiles [p0, p0 + pc) (passes bound the workspace). 32-bit indices (launcher-checked).
struct GGWino {
  int32_t N, Ci, Hi, Wi;             // source
  int32_t Co, Ho, Wo;                // destination (weight gradient: dy's K, OH, OW)
  int32_t pt, pl;                    // source offset of destination (0, 0) is (-pt, -pl)
  int32_t TH, TW, P;                 // tiles
  int32_t p0, pc;                    // this pass's tiles
  int32_t splits;                    // weight gradient: partitions of the tile axis
  int32_t flip;                      // filter: f[co, ci] = w[ci, co] rotated 180 degrees
  int32_t accumulate;                // weight gradient GEMM: add to the partial sums (passes > 0)
  int32_t relu;                      // output transform: max(0, .) after the bias
  GGFastDiv div_T;                   // TH * TW
  GGFastDiv div_TW;
  GGFastDiv div_pc;
};
// The Winograd filter transform's block tile (winograd.cu, winograd_plan.h): 8 destination by 32
// source channels, 256 threads.
constexpr int kWinoFilterCo = 8, kWinoFilterCi = 32;

// Cross-entropy's "sum" and "mean" of at most this many rows (of at most 32 classes) run in one
// block, a warp a row (softmax.cu's ce_reduced, whose shared buffers hold this many rows; its
// launcher, in the same file, picks it).
constexpr int kCEReducedRows = 256;

// Batch normalization of x [N, C, I] (I = product of the trailing axes): the per-channel sums
// run in P partitions of `chunk` consecutive values of the channel's M = N * I (blocks (q, c)),
// merged in order by a per-channel finishing kernel. Indices are 32-bit (the launcher refuses
// 2^31 elements or more).
struct GGBatchNorm {
  int32_t N, C, I, P, chunk, pad_;
  GGFastDiv div_I;   // j / I: the image of the j-th value of a channel
  GGFastDiv div_C;   // (e / I) / C: the channel of the e-th element of x
  GGFastDiv div_I4;  // j / (I / 4): the image of a channel's j-th group of four (I % 4 == 0)
};

// BatchNorm2DTrainUpdate's state writes, done where the training kernels write mean and var
// (rm null: BatchNorm2DTrain, no writes): running_mean/var of the kernels' dtype, and the int64
// counter (num_batches_tracked) += add once.
struct GGRunningUpdate {
  void* rm;
  void* rv;
  int64_t* counter;
  double momentum;
  double unbias;  // count / (count - 1)
  int64_t add;
};

// 2-D pooling geometry (NCHW; N*C planes).
struct GGPool {
  int64_t planes, H, W, OH, OW;
  int64_t kh, kw, sh, sw, ph, pw;
  int32_t count_include_pad;
  int32_t divisor_override;  // > 0: AvgPool2D divides by it instead of the window's size
};

// FusedElementwise: a register program over up to GG_FUSED_MAX_IN broadcast inputs. Registers
// 0..n_in-1 hold the inputs, instruction j writes register n_in + j, the last one is the
// output. code[j] = unary | op << 1 | a << 8 | b << 20 (op: a glassgrad::ElementwiseOp code,
// a row of elementwise_ops.def; unary: 1 when the row takes one operand).
#define GG_FUSED_MAX_IN 8
#define GG_FUSED_MAX_CODE 64
struct GGFused {
  int32_t rank;
  int32_t small;
  int32_t n_in;
  int32_t n_code;
  int64_t size[GG_MAX_DIMS];
  int64_t stride[GG_FUSED_MAX_IN][GG_MAX_DIMS];  // each input broadcast to the output shape
  const void* in[GG_FUSED_MAX_IN];
  int32_t code[GG_FUSED_MAX_CODE];
  double scalar[GG_FUSED_MAX_CODE];
};

// A multi-tensor optimizer update (kernels/cuda/optimizer.cu): one launch updates up to
// GG_OPT_MAX_TENSORS parameters, in place. Parameter k owns the blocks
// [first_block, next one's first_block) of the grid, GG_OPT_CHUNK elements each. Its gradient's
// element i (row-major in the parameter's shape) sits at (i / cols) * gstride0 + (i % cols) *
// gstride1: a dense gradient has cols = n, gstride1 = 1; a transposed Linear weight gradient
// [out, in] has cols = in, gstride0 = 1, gstride1 = out. Scalars: SGD a = weight_decay,
// b = dampening, flag = nesterov; Adam a = beta2, b = eps, c = weight_decay, flag = decoupled
// (bit 0) | the step count's dtype code << GG_OPT_STEP_DTYPE_SHIFT.
// At 128 bytes an entry, the table stays under the 4 KB parameter limit of every architecture.
#define GG_OPT_MAX_TENSORS 28
#define GG_OPT_CHUNK 2048
#define GG_OPT_STEP_DTYPE_SHIFT 8
struct GGOptTensor {
  void* p;
  void* state0;       // SGD momentum: buf; Adam: m
  void* state1;       // Adam: v
  void* state2;       // AMSGrad: v_max (else null)
  const void* g;
  const void* lr;     // 0-d, the parameter's dtype
  const void* hyper;  // 0-d momentum (SGD) or beta1 (Adam), the parameter's dtype; else null
  void* step;         // Adam: the 0-d step count, dtype code in flag (incremented by gg_adam_step_multi)
  int64_t n, cols, gstride0, gstride1;
  double a, b, c;
  int32_t flag;
  int32_t first_block;
};
struct GGOptTable {
  int32_t count;
  int32_t blocks;  // the grid: the last entry's blocks end here
  GGOptTensor t[GG_OPT_MAX_TENSORS];
};

enum GGReduceOp { GG_SUM = 0, GG_MEAN, GG_MAX, GG_VAR, GG_ARGMAX };
// dtype codes, equal to glassgrad::DType's values.
enum GGDType {
  GG_F32 = 0, GG_F64 = 1, GG_I64 = 2, GG_U8 = 3, GG_BOOL = 4,
  GG_I8 = 5, GG_I16 = 6, GG_I32 = 7, GG_F16 = 8, GG_BF16 = 9
};

// An indexing op's walk (glassgrad/autodiff/indexing.h; kernels/cuda/indexing.cu): position p of
// the iteration shape `size` names the target element sum_r p_r * target_stride[r] +
// sum_j index_j(p) * dim_stride[j], with index_j(p) = index[j][sum_r p_r * index_stride[j][r]]
// (negative values wrap when `wrap`), and the source element sum_r p_r * source_stride[r].
// The ordered axes (target stride 0) are walked in order by one thread per combination of the
// free axes (deterministic accumulation). A bad index value records (j << 56) | its position in
// *bad (atomicMin keeps the first) and is skipped; GG_INDEX_ERROR_TAG marks such a record in a
// captured graph's error word.
#define GG_MAX_INDEX 8
#define GG_INDEX_ERROR_TAG (1ll << 62)
struct GGIndexWalk {
  int32_t rank;
  int32_t k;                                  // index operands
  int32_t wrap;
  int32_t small;                              // every size and count below 2^31
  int64_t size[GG_MAX_DIMS];
  int64_t target_stride[GG_MAX_DIMS];
  int64_t source_stride[GG_MAX_DIMS];
  int64_t index_stride[GG_MAX_INDEX][GG_MAX_DIMS];
  int64_t dim_stride[GG_MAX_INDEX];
  int64_t dim_size[GG_MAX_INDEX];
  const int64_t* index[GG_MAX_INDEX];
  int32_t free_rank, ordered_rank;
  int32_t free_axes[GG_MAX_DIMS], ordered_axes[GG_MAX_DIMS];
  int64_t free_count, ordered_count;
  int64_t tag;                                // ORed into a bad-index record (GG_INDEX_ERROR_TAG or 0)
};

// The dense three-axis form of Gather/Scatter/IndexSelect/IndexAdd ([outer, D, inner] with the
// indexed axis in the middle): position (o, j, i) of a walk of outer * J * inner reads the
// index at (o * J + j) * inner + i (per_position) or at j, and names the target element
// (o * D + index) * inner + i.
struct GGIndex3 {
  int64_t outer, J, inner, D;
  int32_t per_position;
  int32_t small;
  int64_t tag;
};
