// Host side of the attention kernels (kernels/cpu/attention.cpp, kernels/cuda/attention.cpp): where
// each operand's matrices are. An operand [*b_t, rows, cols] (lse: [*b_t, rows]) is read under
// the broadcast batch axes of glassgrad/autodiff/attention_geometry.h: its batch strides over
// those axes (0 where it broadcasts), collapsed together with every other operand's so that a
// flat batch index z walks them in row-major order (the order of the dense outputs), and its
// row and column strides. Any strides work: permuted heads, the slices of a packed qkv
// projection and expanded (stride-0) keys are read in place.
#pragma once
#include <vector>

#include "glassgrad/autodiff/attention_geometry.h"
#include "glassgrad/runtime/strided.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// The operands' slots, in the order of the CUDA parameter block's tables (GG_ATTN_* in
// kernels/cuda/attention_params.h; the launcher checks that they agree).
enum AttentionSlot : int { kAttnQuery, kAttnKey, kAttnValue, kAttnGradOut, kAttnOut, kAttnLse, kAttnMask, kAttnSlots };

struct AttentionLayout {
  Shape batch;                              // the collapsed batch axes (at least one)
  std::vector<Strides> strides;             // per slot, over `batch` (zeros for an absent operand)
  std::vector<int64_t> row, col;            // per slot (col 0 for lse)
  std::vector<const Tensor*> tensor;        // per slot, null when absent

  // Offset of the matrix number z (a flat index over `batch`) of the operand in `slot`.
  int64_t offset(int slot, int64_t z) const {
    int64_t off = 0;
    const Strides& st = strides[static_cast<size_t>(slot)];
    for (size_t d = batch.size(); d-- > 0;) {
      const int64_t n = batch[d], q = z / n;
      off += (z - q * n) * st[d];
      z = q;
    }
    return off;
  }
};

// The layout of ScaledDotProductAttention's inputs (q, k, v[, mask][, seed]) or, with
// backward = true, of its backward's (grad_out, q, k, v, out, lse[, mask][, seed]).
inline AttentionLayout attention_layout(const AttentionGeometry& g, const std::vector<Tensor>& inputs, bool backward) {
  AttentionLayout out;
  out.tensor.assign(kAttnSlots, nullptr);
  const size_t first = backward ? 1 : 0;
  out.tensor[kAttnQuery] = &inputs[first];
  out.tensor[kAttnKey] = &inputs[first + 1];
  out.tensor[kAttnValue] = &inputs[first + 2];
  if (backward) {
    out.tensor[kAttnGradOut] = &inputs[0];
    out.tensor[kAttnOut] = &inputs[4];
    out.tensor[kAttnLse] = &inputs[5];
  }
  if (g.masked) out.tensor[kAttnMask] = &inputs[static_cast<size_t>(g.mask_input(static_cast<int>(first)))];
  std::vector<Strides> strides;
  for (int slot = 0; slot < kAttnSlots; ++slot) {
    const Tensor* t = out.tensor[static_cast<size_t>(slot)];
    if (!t) {
      strides.push_back(Strides(g.batch.size(), 0));
      out.row.push_back(0);
      out.col.push_back(0);
      continue;
    }
    // Read as [*batch, rows(, cols)]: the mask may also broadcast along its rows and columns
    // ([N, 1, 1, S] key padding); every other operand has its own matrix sizes.
    const Shape& shape = t->shape();
    const size_t m = slot == kAttnLse ? 1 : 2;  // matrix axes
    Shape target = g.batch;
    if (slot == kAttnMask) {
      target.push_back(g.l);
      target.push_back(g.s);
    } else {
      target.insert(target.end(), shape.end() - static_cast<ptrdiff_t>(m), shape.end());
    }
    const Strides st = broadcast_strides(*t, target);
    const size_t r = target.size();
    strides.push_back(Strides(st.begin(), st.end() - static_cast<ptrdiff_t>(m)));
    out.row.push_back(st[r - m]);
    out.col.push_back(m == 2 ? st[r - 1] : 0);
  }
  CollapsedAxes c = collapse_axes(g.batch, strides, 1);
  out.batch = std::move(c.shape);
  out.strides = std::move(c.strides);
  return out;
}

// Scratch of the backward kernels: D_i = sum_e grad_out_ie out_ie for every row, [*batch, L].
inline size_t attention_backward_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&,
                                           const Attrs& attrs) {
  const AttentionGeometry g = AttentionGeometry::from(in[1].shape, in[2].shape, in[3].shape, attrs);
  return static_cast<size_t>(g.batch_count() * g.l) * dtype_size(in[1].dtype);
}

}  // namespace glassgrad
