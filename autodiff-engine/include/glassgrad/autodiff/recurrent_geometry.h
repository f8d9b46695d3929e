// Geometry of one recurrent layer in one direction: the single definition that the recurrent
// schemas (shape rules, autodiff-engine/src/ops/recurrent.cpp), the CPU kernels and the CUDA
// launchers read. docs/recurrent.md derives the formulas; in short, with PyTorch's gate order
// and parameter shapes (G = gates * hidden):
//
//   w_ih [G, I], w_hh [G, H_out], b_ih [G], b_hh [G], w_hr [P, H] (LSTM with proj_size P)
//   RNN   (1 gate):    h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh),  act = tanh or relu
//   LSTM  (4: i f g o): c_t = f * c_{t-1} + i * g,  h_t = o * tanh(c_t)  (then h_t = W_hr h_t)
//   GRU   (3: r z n):  n = tanh(W_in x_t + b_in + r * (W_hn h_{t-1} + b_hn)),
//                      h_t = (1 - z) * n + z * h_{t-1}
//
// Layouts. The sequence is time-major rows: x [T, B, I] (padded: every step has B rows) or,
// with the attribute batch_sizes [T] (a packed sequence), x [N, I] with N = sum(batch_sizes):
// the rows of time t are rows offsets[t] .. offsets[t] + batch_sizes[t] - 1 and belong to
// sequences 0 .. batch_sizes[t] - 1 (sequences sorted by decreasing length, so batch_sizes
// never increases). The output y has x's rows, H_out wide. h0, h_n (and c0, c_n) are [B, H_out]
// ([B, H]).
//
// Processing order. Step s runs time t = s (reverse = false) or t = T - 1 - s (reverse = true,
// the backward direction of a bidirectional layer). Row b of step s continues the state of
// step s - 1 when b < carried_rows(s), and starts from row b of the initial state otherwise: in
// the forward direction that is only step 0; in the reverse direction of a packed sequence the
// shorter sequences start late (their last element comes first). The final state of row b is
// its state after the last step that has it, so h_n needs no gather: the kernels keep the
// running state in h_n (c_n) itself, and inactive rows keep theirs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

enum class RecurrentCell : int { RNNTanh, RNNReLU, LSTM, GRU };

// Gates per hidden unit: 1 (RNN), 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n).
inline int64_t recurrent_gate_count(RecurrentCell c) {
  return c == RecurrentCell::LSTM ? 4 : c == RecurrentCell::GRU ? 3 : 1;
}

struct RecurrentGeometry {
  RecurrentCell cell = RecurrentCell::LSTM;
  int64_t steps = 0;       // T
  int64_t batch = 0;       // B: rows of h0 (batch_sizes[0] when packed and T > 0)
  int64_t rows = 0;        // N: rows of x and y
  int64_t input_size = 0;  // I
  int64_t hidden = 0;      // H: the cell's hidden size (c's size for an LSTM)
  int64_t out = 0;         // H_out: h's size, proj_size when projected, else H
  bool projected = false;  // LSTM with proj_size: h_t = W_hr (o * tanh(c_t))
  bool reverse = false;
  bool packed = false;     // batch_sizes given: x is [N, I]
  std::vector<int64_t> batch_sizes;  // rows of each time step t
  std::vector<int64_t> offsets;      // first row of each time step t

  int64_t gates() const { return recurrent_gate_count(cell) * hidden; }  // G
  int64_t time_at(int64_t s) const { return reverse ? steps - 1 - s : s; }
  int64_t rows_at(int64_t s) const { return batch_sizes[static_cast<size_t>(time_at(s))]; }
  int64_t offset_at(int64_t s) const { return offsets[static_cast<size_t>(time_at(s))]; }
  // Rows of step s whose previous state is step s - 1's output (the rest start from h0, c0).
  int64_t carried_rows(int64_t s) const {
    if (s == 0) return 0;
    const int64_t a = rows_at(s), b = rows_at(s - 1);
    return a < b ? a : b;
  }
  // Width of a row of the forward op's `reserve` output, saved for the backward op:
  //   LSTM: the activated gates i, f, g, o, then c_t (5H), then o * tanh(c_t) when projected;
  //   GRU:  the activated gates r, z, n, then W_hn h_{t-1} + b_hn (4H);
  //   RNN:  no reserve (the backward reads y: act'(pre) follows from h_t).
  int64_t reserve_width() const {
    if (cell == RecurrentCell::LSTM) return (projected ? 6 : 5) * hidden;
    if (cell == RecurrentCell::GRU) return 4 * hidden;
    return 0;
  }

  // From the shapes of x, w_ih, w_hh, w_hr (null: none) and the attributes (reverse,
  // batch_sizes), already validated by the shape rule.
  static RecurrentGeometry from(RecurrentCell cell, const Shape& x, const Shape& w_ih, const Shape& w_hh,
                                const Shape* w_hr, const Attrs& attrs);
};

// The cell an op name stands for ("RNNSequence" needs its nonlinearity attribute).
RecurrentCell recurrent_cell_of(const std::string& op, const Attrs& attrs);

// Input positions of the ops (-1: absent), from the cell and the node's input count:
//   forward   x, w_ih, w_hh, h0, [c0 (LSTM)], [b_ih, b_hh, [w_hr (LSTM)]]
//   backward  grad_y, grad_hn, [grad_cn], x, w_ih, w_hh, h0, [c0], y, [reserve (LSTM, GRU)], [w_hr]
// (a projected LSTM without biases gets zero biases: w_hr follows them).
struct RecurrentInputs {
  int grad_y = -1, grad_hn = -1, grad_cn = -1;
  int x = 0, w_ih = 1, w_hh = 2, h0 = 3, c0 = -1, b_ih = -1, b_hh = -1, w_hr = -1, y = -1, reserve = -1;

  static RecurrentInputs forward(RecurrentCell cell, int count) {
    RecurrentInputs in;
    int k = 4;
    if (cell == RecurrentCell::LSTM) in.c0 = k++;
    if (count > k + 1) {
      in.b_ih = k;
      in.b_hh = k + 1;
      k += 2;
    }
    if (count > k) in.w_hr = k;
    return in;
  }
  static RecurrentInputs backward(RecurrentCell cell, int count) {
    RecurrentInputs in;
    int k = 0;
    in.grad_y = k++;
    in.grad_hn = k++;
    if (cell == RecurrentCell::LSTM) in.grad_cn = k++;
    in.x = k++;
    in.w_ih = k++;
    in.w_hh = k++;
    in.h0 = k++;
    if (cell == RecurrentCell::LSTM) in.c0 = k++;
    in.y = k++;
    if (cell == RecurrentCell::LSTM || cell == RecurrentCell::GRU) in.reserve = k++;
    if (count > k) in.w_hr = k;
    return in;
  }
};

// Packing (PackSequence, PadPackedSequence): a padded [T, B, *] tensor (or [B, T, *] with
// batch_first) and the packed [N, *] rows of the sequences sorted by decreasing length:
//   packed[offsets[t] + j] = padded[t, sorted_indices[j]]   for j < batch_sizes[t]
// (sorted_indices absent: the identity). Padded positions past a sequence's length hold
// padding_value when unpacking.
struct PackGeometry {
  int64_t steps = 0;    // T of the padded tensor (total_length when unpacking)
  int64_t batch = 0;    // B
  int64_t feature = 1;  // product of the axes after the first two
  bool batch_first = false;
  std::vector<int64_t> batch_sizes, offsets, sorted_indices;

  int64_t rows() const { return offsets.empty() ? 0 : offsets.back() + batch_sizes.back(); }
  // Row of padded[t, b] (rows of `feature` elements).
  int64_t padded_row(int64_t t, int64_t b) const { return batch_first ? b * steps + t : t * batch + b; }
  int64_t sequence(int64_t j) const { return sorted_indices.empty() ? j : sorted_indices[static_cast<size_t>(j)]; }

  // padded: the padded tensor's shape; attrs: batch_sizes, sorted_indices?, batch_first?.
  static PackGeometry from(const Shape& padded, const Attrs& attrs);
};

}  // namespace glassgrad
