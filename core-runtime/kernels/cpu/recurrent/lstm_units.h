// The time loops of an LSTM layer (not projected) with each step cut into slices of hidden units,
// one slice a part of run_step_parts (step_parts.h); kernels/cpu/recurrent.cpp calls these for
// such a layer (one part with one thread). The input projection before the loop and the
// whole-sequence products after it stay there.
//
// Part p owns units [j0, j0 + n) and, for them, every gate's column (q * H + j0 ...):
//   forward step s    R_p[:r] = h_{s-1}[:r] W_hh[gate rows of p]^T    (h_{s-1}: y's rows of step
//                     s - 1, h0's rows for the rows starting at s), then the cell pass over
//                     p's units: reserve, c_n, y and h_n of those units;
//   backward step s   dh_n[:r', p's units] += dP_{s+1}[:r'] W_hh[:, p's units]   (step s + 1's
//                     products, every part's, hence one step later), then the cell backward
//                     pass over p's units; one more step after s = 0 adds dP_0's product.
// The per-step products: float32 through rows_product.h (one accumulator per element over the
// whole depth), float64 through the GEMM cut along N; either way an element's arithmetic does
// not depend on the part count, so results do not depend on the thread count.
// Each part's slice of W_hh is packed once, by the part's first step, into its own workspace.
#pragma once
#include <cstddef>
#include <cstdint>

#include "glassgrad/autodiff/recurrent_geometry.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {
namespace cpu {

// How many parts to cut a step into with `threads` threads: 0 when the layer is projected or not
// an LSTM (the step-by-step loops of recurrent.cpp), 1 with one thread or when a step's
// recurrent product is too small to share.
int64_t lstm_unit_parts(const RecurrentGeometry& g, int threads);

// Workspace of the parts' buffers for `parts` parts (64-byte aligned inside).
size_t lstm_units_forward_bytes(const RecurrentGeometry& g, DType dt, int64_t parts);
size_t lstm_units_backward_bytes(const RecurrentGeometry& g, DType dt, int64_t parts);

template <typename T>
struct LstmForwardSteps {
  const T* w_hh;  // [G, H]
  const T* h0;    // [B, H]
  T* y;           // [N, H]
  T* hn;          // [B, H]: written for each row's last step
  T* cn;          // [B, H]: the running cell state (c0 on entry)
  T* reserve;     // [N, 5H]: the input projection on entry (gates i f g o), then i f g o c
};

template <typename T>
struct LstmBackwardSteps {
  const T* w_hh;     // [G, H]
  const T* grad_y;   // [N, H]
  const T* c0;       // [B, H]
  const T* reserve;  // [N, 5H]
  T* dh;             // [B, H]: grad_hn on entry, the gradient reaching h0 on exit
  T* dc;             // [B, H]: grad_cn on entry, the gradient reaching c0 on exit
  T* dp;             // [N, G]: the pre-activation gradients
};

// Run the loops with `parts` parts (>= 1) in `workspace` of the sizes above.
template <typename T>
void lstm_forward_by_units(const RecurrentGeometry& g, const LstmForwardSteps<T>& a, int64_t parts, void* workspace);
template <typename T>
void lstm_backward_by_units(const RecurrentGeometry& g, const LstmBackwardSteps<T>& a, int64_t parts,
                            void* workspace);

}  // namespace cpu
}  // namespace glassgrad
