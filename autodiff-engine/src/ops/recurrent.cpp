// Recurrent layers as ops over a whole sequence (one layer, one direction per node), and the
// packing of variable-length sequences. The geometry, layouts and processing order are
// recurrent_geometry.h's; docs/recurrent.md derives the gradients.
//
//   RNNSequence(x, w_ih, w_hh, h0[, b_ih, b_hh]){nonlinearity, reverse, batch_sizes?} -> (y, h_n)
//   LSTMSequence(x, w_ih, w_hh, h0, c0[, b_ih, b_hh[, w_hr]]){reverse, batch_sizes?}
//       -> (y, h_n, c_n, reserve)
//   GRUSequence(x, w_ih, w_hh, h0[, b_ih, b_hh]){reverse, batch_sizes?} -> (y, h_n, reserve)
//
// Forward (each kernel): one GEMM projects the whole sequence's input, P = x W_ih^T + b (the
// biases that add to it), then a time loop inside the kernel runs, per step, the recurrent GEMM
// h_{t-1} W_hh^T and one fused pass computing the gates, the cell and the new h. The reserve
// output holds what the backward op needs besides y (recurrent_geometry.h, reserve_width).
//
// Backward (backpropagation through time), the *SequenceBackward ops: with dh the gradient
// reaching h_t (from y and from step t + 1) and dc reaching c_t, a reverse time loop computes the
// pre-activation gate gradients dP_t with one fused pass per step, and the recurrent part of dh
// for step t - 1 with one GEMM, dh_{t-1} += dP^h_t W_hh; after the loop one GEMM each gives
//   dx = dP W_ih,  dW_ih = dP^T x,  dW_hh = dP^{hT} h_prev,  db_ih = sum_rows dP,  db_hh = sum_rows dP^h
// (dP^h = dP except for the GRU's n gate, whose hidden part is scaled by r), and dW_hr = dh^T
// (o * tanh(c)) for a projected LSTM. dh_0 and dc_0 are what reaches the initial states.
//
//   RNNSequenceBackward(grad_y, grad_hn, x, w_ih, w_hh, h0, y){...} -> (dx, dw_ih, dw_hh, dh0, db)
//   LSTMSequenceBackward(grad_y, grad_hn, grad_cn, x, w_ih, w_hh, h0, c0, y, reserve[, w_hr]){...}
//       -> (dx, dw_ih, dw_hh, dh0, dc0, db, dw_hr)
//   GRUSequenceBackward(grad_y, grad_hn, x, w_ih, w_hh, h0, y, reserve){...}
//       -> (dx, dw_ih, dw_hh, dh0, db_ih, db_hh)
//
// The backward ops' attributes are the forward's plus input_grad (false: dx is not needed, and
// is an empty [0] tensor) and bias (false: db is [0]); dw_hr is [0] without a projection. For
// RNN and LSTM db_ih = db_hh (both biases add to the same pre-activation), one output serving
// both. The backward ops have no gradient rule (no double backward).
//
//   PackSequence(padded){batch_sizes, sorted_indices?, batch_first?} -> packed [N, ...]
//   PadPackedSequence(packed){batch_sizes, sorted_indices?, batch_first?, total_length,
//       padding_value?} -> padded [T, B, ...] ([B, T, ...] with batch_first)
// each the other's gradient (recurrent_geometry.h, PackGeometry).
#include <algorithm>
#include <numeric>

#include "glassgrad/autodiff/family.h"
#include "glassgrad/autodiff/recurrent_geometry.h"
#include "op_helpers.h"

namespace glassgrad {

RecurrentCell recurrent_cell_of(const std::string& op, const Attrs& attrs) {
  if (op.rfind("LSTM", 0) == 0) return RecurrentCell::LSTM;
  if (op.rfind("GRU", 0) == 0) return RecurrentCell::GRU;
  return attrs.has("nonlinearity") && attrs.s("nonlinearity") == "relu" ? RecurrentCell::RNNReLU
                                                                         : RecurrentCell::RNNTanh;
}

RecurrentGeometry RecurrentGeometry::from(RecurrentCell cell, const Shape& x, const Shape& w_ih, const Shape& w_hh,
                                          const Shape* w_hr, const Attrs& attrs) {
  RecurrentGeometry g;
  g.cell = cell;
  g.reverse = attrs.b("reverse", false);
  g.packed = attrs.has("batch_sizes");
  g.input_size = x.back();
  g.hidden = w_ih[0] / recurrent_gate_count(cell);
  g.out = w_hh[1];
  g.projected = w_hr != nullptr;
  if (g.packed) {
    g.batch_sizes = attrs.ints("batch_sizes");
    g.steps = static_cast<int64_t>(g.batch_sizes.size());
    g.batch = g.steps > 0 ? g.batch_sizes[0] : 0;
  } else {
    g.steps = x[0];
    g.batch = x[1];
    g.batch_sizes.assign(static_cast<size_t>(g.steps), g.batch);
  }
  g.offsets.resize(g.batch_sizes.size());
  int64_t off = 0;
  for (size_t t = 0; t < g.batch_sizes.size(); ++t) {
    g.offsets[t] = off;
    off += g.batch_sizes[t];
  }
  g.rows = off;
  return g;
}

PackGeometry PackGeometry::from(const Shape& padded, const Attrs& attrs) {
  PackGeometry g;
  g.batch_first = attrs.b("batch_first", false);
  g.steps = padded[g.batch_first ? 1 : 0];
  g.batch = padded[g.batch_first ? 0 : 1];
  for (size_t i = 2; i < padded.size(); ++i) g.feature *= padded[i];
  g.batch_sizes = attrs.ints("batch_sizes");
  if (attrs.has("sorted_indices")) g.sorted_indices = attrs.ints("sorted_indices");
  g.offsets.resize(g.batch_sizes.size());
  int64_t off = 0;
  for (size_t t = 0; t < g.batch_sizes.size(); ++t) {
    g.offsets[t] = off;
    off += g.batch_sizes[t];
  }
  return g;
}

namespace {

const char* cell_layer(RecurrentCell c) {
  return c == RecurrentCell::LSTM ? "LSTM" : c == RecurrentCell::GRU ? "GRU" : "RNN";
}

// batch_sizes (a packed sequence): at least one step, each >= 1, never increasing, summing to
// the rows of x (input xi).
void check_batch_sizes(const ShapeContext& ctx, int xi) {
  const std::vector<int64_t>& bs = ctx.attrs().ints("batch_sizes");
  const TensorInfo& x = ctx.in(xi);
  if (bs.empty()) ops::bad_attr(ctx, "batch_sizes", "a list of at least one step", "[]");
  int64_t sum = 0;
  for (size_t t = 0; t < bs.size(); ++t) {
    if (bs[t] < 1 || (t > 0 && bs[t] > bs[t - 1])) {
      ops::bad_attr(ctx, "batch_sizes", "positive and non-increasing (sequences sorted by decreasing length)",
                    "batch_sizes[" + std::to_string(t) + "] = " + std::to_string(bs[t]) +
                        (t > 0 ? " after " + std::to_string(bs[t - 1]) : ""),
                    "build packed sequences with glassgrad.nn.utils.rnn.pack_padded_sequence");
    }
    if (!size_add(sum, bs[t], sum)) ops::bad_attr(ctx, "batch_sizes", "a sum within the size limit", "larger");
  }
  if (x.rank() != 2 || x.shape[0] != sum) {
    ctx.fail(ErrorMessage("a packed sequence's data must be [" + std::to_string(sum) + ", features] (the sum of its " +
                          "batch_sizes rows), got " + shape_str(x.shape))
                 .detail("x: " + x.str())
                 .fix("pass the data and batch_sizes of one PackedSequence"));
  }
}

// x's shape: [T, B, I] padded, or [N, I] packed (checked by check_batch_sizes).
void check_sequence_input(const ShapeContext& ctx, RecurrentCell cell, int xi) {
  ctx.expect_float(xi);
  if (ctx.attrs().has("batch_sizes")) {
    check_batch_sizes(ctx, xi);
    return;
  }
  const TensorInfo& x = ctx.in(xi);
  if (x.rank() == 3) return;
  const std::string layer = cell_layer(cell);
  ctx.fail(ErrorMessage("expected a sequence [T, B, input_size] (time-major), got " + std::to_string(x.rank()) +
                        "-d " + shape_str(x.shape))
               .detail("x: " + x.str())
               .fix("nn." + layer + " takes [T, B, input_size], [B, T, input_size] with batch_first=True, or one "
                    "sequence [T, input_size]"));
}

// The weights of a forward or backward op: w_ih [G, I], w_hh [G, H_out], w_hr [H_out, H] (wi,
// whi, hri: input positions, hri < 0 without a projection); x (xi) has I features. Returns the
// hidden size H.
int64_t check_weights(const ShapeContext& ctx, RecurrentCell cell, int xi, int wi, int whi, int hri) {
  const TensorInfo& x = ctx.in(xi);
  const TensorInfo& w_ih = ctx.in(wi);
  const TensorInfo& w_hh = ctx.in(whi);
  const int64_t gates = recurrent_gate_count(cell);
  for (int i : {wi, whi}) {
    if (ctx.in(i).rank() != 2) {
      ctx.fail(ErrorMessage(ctx.op() + "'s " + (i == wi ? "w_ih" : "w_hh") + " must be a matrix, got " +
                            shape_str(ctx.in(i).shape))
                   .detail("w_ih: " + w_ih.str())
                   .detail("w_hh: " + w_hh.str()));
    }
    ctx.expect_same_dtype(xi, i);
  }
  if (w_ih.shape[0] % gates != 0 || w_ih.shape[0] == 0) {
    ctx.fail(ErrorMessage("w_ih has " + std::to_string(w_ih.shape[0]) + " rows, not a positive multiple of the " +
                          std::to_string(gates) + " gates")
                 .detail("w_ih: " + w_ih.str())
                 .fix("w_ih is [" + std::to_string(gates) + " * hidden_size, input_size]"));
  }
  const int64_t hidden = w_ih.shape[0] / gates;
  const int64_t in = x.shape.back();
  if (w_ih.shape[1] != in) {
    throw ShapeError(ctx.layer_where() + ": " +
                     ErrorMessage("got input of shape " + shape_str(x.shape) + " but expects " +
                                  std::to_string(w_ih.shape[1]) + " features in the last axis (input_size)")
                         .detail("x:    " + x.str())
                         .detail("w_ih: " + w_ih.str())
                         .fix("build the layer with input_size=" + std::to_string(in) + ", e.g. " + cell_layer(cell) +
                              "(" + std::to_string(in) + ", " + std::to_string(hidden) + ")")
                         .str());
  }
  int64_t out = hidden;
  if (hri >= 0) {
    const TensorInfo& w_hr = ctx.in(hri);
    ctx.expect_same_dtype(xi, hri);
    if (cell != RecurrentCell::LSTM) ctx.fail(ErrorMessage("only LSTM layers have a projection (w_hr)"));
    if (w_hr.rank() != 2 || w_hr.shape[1] != hidden || w_hr.shape[0] < 1 || w_hr.shape[0] >= hidden) {
      ctx.fail(ErrorMessage("w_hr must be [proj_size, hidden_size] with 0 < proj_size < hidden_size = " +
                            std::to_string(hidden) + ", got " + shape_str(w_hr.shape))
                   .detail("w_ih: " + w_ih.str())
                   .detail("w_hr: " + w_hr.str()));
    }
    out = w_hr.shape[0];
  }
  if (w_hh.shape != Shape{w_ih.shape[0], out}) {
    ctx.fail(ErrorMessage("w_hh has shape " + shape_str(w_hh.shape) + ", expected [" + std::to_string(w_ih.shape[0]) +
                          ", " + std::to_string(out) + "] (" + std::to_string(gates) + " * hidden_size, " +
                          (hri >= 0 ? "proj_size" : "hidden_size") + ")")
                 .detail("w_ih: " + w_ih.str())
                 .detail("w_hh: " + w_hh.str()));
  }
  return hidden;
}

// A state (input i, named `what`): [batch, size], x's dtype.
void check_state(const ShapeContext& ctx, int i, int xi, const char* what, int64_t batch, int64_t size) {
  const TensorInfo& s = ctx.in(i);
  ctx.expect_same_dtype(xi, i);
  if (s.shape == Shape{batch, size}) return;
  ctx.fail(ErrorMessage(std::string(what) + " has shape " + shape_str(s.shape) + ", expected [" + std::to_string(batch) +
                        ", " + std::to_string(size) + "] (batch, " + (std::string(what) == "c0" ? "hidden_size" : "the hidden state's size") + ")")
               .detail("x:  " + ctx.in(xi).str())
               .detail(std::string(what) + ": " + s.str())
               .cause("the initial state was made for another batch size or layer size")
               .fix("give one row per sequence of the batch: " + std::string(what) + " of shape [" +
                    std::to_string(batch) + ", " + std::to_string(size) + "]"));
}

void check_bias(const ShapeContext& ctx, int i, int xi, const char* what, int64_t gates) {
  ctx.expect_same_dtype(xi, i);
  if (ctx.in(i).shape == Shape{gates}) return;
  ctx.fail(ErrorMessage(std::string(what) + " has shape " + shape_str(ctx.in(i).shape) + ", expected [" +
                        std::to_string(gates) + "] (one value per gate and hidden unit)")
               .detail(std::string(what) + ": " + ctx.in(i).str()));
}

void check_direction_attrs(const ShapeContext& ctx, RecurrentCell cell) {
  (void)ctx.attrs().b("reverse", false);
  if (cell == RecurrentCell::RNNTanh || cell == RecurrentCell::RNNReLU) {
    const std::string nl = ctx.attrs().has("nonlinearity") ? ctx.attrs().s("nonlinearity") : "tanh";
    if (nl != "tanh" && nl != "relu") ops::bad_attr(ctx, "nonlinearity", "'tanh' or 'relu'", "'" + nl + "'", "nonlinearity='tanh'");
  }
}

// The checks every forward and backward op shares: x, the weights, the states, the attributes.
// Returns the geometry.
RecurrentGeometry check_layer(const ShapeContext& ctx, RecurrentCell cell, int xi, int wi, int whi, int h0i, int c0i,
                              int hri) {
  check_sequence_input(ctx, cell, xi);
  check_direction_attrs(ctx, cell);
  check_weights(ctx, cell, xi, wi, whi, hri);
  const Shape* w_hr = hri >= 0 ? &ctx.in(hri).shape : nullptr;
  const RecurrentGeometry g = RecurrentGeometry::from(cell, ctx.in(xi).shape, ctx.in(wi).shape, ctx.in(whi).shape, w_hr,
                                                      ctx.attrs());
  check_state(ctx, h0i, xi, "h0", g.batch, g.out);
  if (c0i >= 0) check_state(ctx, c0i, xi, "c0", g.batch, g.hidden);
  return g;
}

Shape output_shape(const RecurrentGeometry& g, int64_t width) {
  return g.packed ? Shape{g.rows, width} : Shape{g.steps, g.batch, width};
}

const char* forward_name(RecurrentCell c) {
  return c == RecurrentCell::LSTM ? "LSTMSequence" : c == RecurrentCell::GRU ? "GRUSequence" : "RNNSequence";
}

std::vector<TensorInfo> forward_infer(const ShapeContext& ctx, RecurrentCell cell) {
  const RecurrentInputs in = RecurrentInputs::forward(cell, ctx.num_inputs());
  if (cell != RecurrentCell::LSTM && ctx.num_inputs() == 5) {
    ctx.fail(ErrorMessage("takes both biases (b_ih and b_hh) or neither, got one").fix("pass b_ih and b_hh"));
  }
  if (cell == RecurrentCell::LSTM && ctx.num_inputs() == 6) {
    ctx.fail(ErrorMessage("takes both biases (b_ih and b_hh) or neither, got one").fix("pass b_ih and b_hh"));
  }
  const RecurrentGeometry g = check_layer(ctx, cell, in.x, in.w_ih, in.w_hh, in.h0, in.c0, in.w_hr);
  if (in.b_ih >= 0) {
    check_bias(ctx, in.b_ih, in.x, "b_ih", g.gates());
    check_bias(ctx, in.b_hh, in.x, "b_hh", g.gates());
  }
  const TensorInfo& x = ctx.in(in.x);
  std::vector<TensorInfo> out{ops::with_shape(x, output_shape(g, g.out)), ops::with_shape(x, {g.batch, g.out})};
  if (cell == RecurrentCell::LSTM) out.push_back(ops::with_shape(x, {g.batch, g.hidden}));
  if (g.reserve_width() > 0) out.push_back(ops::with_shape(x, {g.rows, g.reserve_width()}));
  return out;
}

// Attributes the backward op takes over from the forward op.
Attrs backward_attrs(const Attrs& a, bool input_grad, bool bias) {
  Attrs out;
  for (const char* k : {"reverse", "batch_sizes", "nonlinearity"}) {
    if (const AttrValue* v = a.find(k)) out.set(k, *v);
  }
  out.set("input_grad", input_grad);
  out.set("bias", bias);
  return out;
}

void forward_gradient(GradContext& c, RecurrentCell cell) {
  const RecurrentInputs in = RecurrentInputs::forward(cell, c.num_inputs());
  const bool lstm = cell == RecurrentCell::LSTM, gru = cell == RecurrentCell::GRU;
  const int reserve = lstm ? 3 : gru ? 2 : -1;
  if (reserve >= 0 && c.grad_output(reserve) != kNoValue) {
    throw UnsupportedError(std::string(forward_name(cell)) +
                           ": the reserve output holds values saved for the backward op and has no gradient");
  }
  bool any = false;
  for (int i = 0; i < c.num_inputs(); ++i) any = any || c.needs_grad(i);
  const int states = lstm ? 3 : 2;
  bool flowing = false;
  for (int k = 0; k < states; ++k) flowing = flowing || c.grad_output(k) != kNoValue;
  if (!any || !flowing) return;
  std::vector<ValueId> grads;
  for (int k = 0; k < states; ++k) {
    const ValueId g = c.grad_output(k);
    grads.push_back(g != kNoValue ? g : ops::zeros_like(c, c.output(k)));
  }
  std::vector<ValueId> inputs = grads;
  inputs.insert(inputs.end(), {c.input(in.x), c.input(in.w_ih), c.input(in.w_hh), c.input(in.h0)});
  if (lstm) inputs.push_back(c.input(in.c0));
  inputs.push_back(c.output(0));
  if (reserve >= 0) inputs.push_back(c.output(reserve));
  if (in.w_hr >= 0) inputs.push_back(c.input(in.w_hr));
  const std::string op = std::string(forward_name(cell)) + "Backward";
  const auto d = c.emit_multi(op, inputs, backward_attrs(c.attrs(), c.needs_grad(in.x), in.b_ih >= 0));
  // Outputs: dx, dw_ih, dw_hh, dh0, [dc0], then db (RNN, LSTM) or db_ih, db_hh (GRU), [dw_hr].
  if (c.needs_grad(in.x)) c.set_grad(in.x, d[0]);
  if (c.needs_grad(in.w_ih)) c.set_grad(in.w_ih, d[1]);
  if (c.needs_grad(in.w_hh)) c.set_grad(in.w_hh, d[2]);
  if (c.needs_grad(in.h0)) c.set_grad(in.h0, d[3]);
  size_t k = 4;
  if (lstm && c.needs_grad(in.c0)) c.set_grad(in.c0, d[4]);
  if (lstm) k = 5;
  if (in.b_ih >= 0) {
    if (c.needs_grad(in.b_ih)) c.set_grad(in.b_ih, d[k]);
    if (c.needs_grad(in.b_hh)) c.set_grad(in.b_hh, d[gru ? k + 1 : k]);
  }
  if (in.w_hr >= 0 && c.needs_grad(in.w_hr)) c.set_grad(in.w_hr, d[k + 1]);
}

// Backward inputs: grad_y, grad_hn, [grad_cn], x, w_ih, w_hh, h0, [c0], y, [reserve], [w_hr].
std::vector<TensorInfo> backward_infer(const ShapeContext& ctx, RecurrentCell cell) {
  const bool lstm = cell == RecurrentCell::LSTM, gru = cell == RecurrentCell::GRU;
  const RecurrentInputs in = RecurrentInputs::backward(cell, ctx.num_inputs());
  const int xi = in.x, wi = in.w_ih, whi = in.w_hh, yi = in.y, ri = in.reserve;
  const int hri = lstm ? in.w_hr : -1;
  const RecurrentGeometry g = check_layer(ctx, cell, xi, wi, whi, in.h0, in.c0, hri);
  const TensorInfo& x = ctx.in(xi);
  const auto expect = [&](int i, const Shape& shape, const char* what) {
    ctx.expect_same_dtype(xi, i);
    if (ctx.in(i).shape != shape) {
      ctx.fail(ErrorMessage(std::string(what) + " has shape " + shape_str(ctx.in(i).shape) + ", expected " +
                            shape_str(shape))
                   .detail(std::string(what) + ": " + ctx.in(i).str())
                   .detail("x: " + x.str()));
    }
  };
  expect(0, output_shape(g, g.out), "grad_y");
  expect(1, {g.batch, g.out}, "grad_hn");
  if (lstm) expect(2, {g.batch, g.hidden}, "grad_cn");
  expect(yi, output_shape(g, g.out), "y");
  if (ri >= 0) expect(ri, {g.rows, g.reserve_width()}, "reserve");
  const bool input_grad = ctx.attrs().b("input_grad", true), bias = ctx.attrs().b("bias", true);
  std::vector<TensorInfo> out{ops::with_shape(x, input_grad ? x.shape : Shape{0}), ctx.in(wi), ctx.in(whi),
                              ctx.in(in.h0)};
  if (lstm) out.push_back(ctx.in(in.c0));
  const TensorInfo db = ops::with_shape(x, bias ? Shape{g.gates()} : Shape{0});
  out.push_back(db);
  if (gru) out.push_back(db);
  if (lstm) out.push_back(hri >= 0 ? ctx.in(hri) : ops::with_shape(x, {0}));
  return out;
}

// PackSequence / PadPackedSequence attributes against the padded shape (input or output).
void check_pack_attrs(const ShapeContext& ctx, const Shape& padded) {
  if (padded.size() < 2) {
    ctx.fail(ErrorMessage("the padded sequence must have at least 2 axes ([T, B, ...] or [B, T, ...]), got " +
                          shape_str(padded)));
  }
  const bool batch_first = ctx.attrs().b("batch_first", false);
  const int64_t steps = padded[batch_first ? 1 : 0], batch = padded[batch_first ? 0 : 1];
  const std::vector<int64_t>& bs = ctx.attrs().ints("batch_sizes");
  if (static_cast<int64_t>(bs.size()) > steps) {
    ops::bad_attr(ctx, "batch_sizes", "at most one entry per time step (" + std::to_string(steps) + ")",
                  std::to_string(bs.size()) + " entries");
  }
  for (size_t t = 0; t < bs.size(); ++t) {
    if (bs[t] < 1 || bs[t] > batch || (t > 0 && bs[t] > bs[t - 1])) {
      ops::bad_attr(ctx, "batch_sizes", "in [1, " + std::to_string(batch) + "] and non-increasing",
                    "batch_sizes[" + std::to_string(t) + "] = " + std::to_string(bs[t]));
    }
  }
  if (ctx.attrs().has("sorted_indices")) {
    const std::vector<int64_t>& si = ctx.attrs().ints("sorted_indices");
    std::vector<char> seen(static_cast<size_t>(batch), 0);
    bool perm = static_cast<int64_t>(si.size()) == batch;
    for (int64_t v : si) {
      if (!perm || v < 0 || v >= batch || seen[static_cast<size_t>(v)]) {
        perm = false;
        break;
      }
      seen[static_cast<size_t>(v)] = 1;
    }
    if (!perm) ops::bad_attr(ctx, "sorted_indices", "a permutation of the " + std::to_string(batch) + " sequences", "another list");
  }
}

Shape packed_shape(const Shape& padded, const Attrs& attrs) {
  const std::vector<int64_t>& bs = attrs.ints("batch_sizes");
  Shape out{std::accumulate(bs.begin(), bs.end(), int64_t(0))};
  out.insert(out.end(), padded.begin() + 2, padded.end());
  return out;
}

// The forward ops: the layer's weight_ih is w_ih (a device or dtype mismatch is said for it).
void forward_op(OpSchema& s) {
  s.layer_parameter = "weight_ih";
  s.infer = [](const ShapeContext& ctx) { return forward_infer(ctx, recurrent_cell_of(ctx.op(), ctx.attrs())); };
  s.gradient = [](GradContext& c) { forward_gradient(c, recurrent_cell_of(c.node().op(), c.attrs())); };
}

// The backward ops: their kernels are chosen by x's dtype (input x_input).
void backward_op(OpSchema& s, int x_input) {
  s.dispatch_input = x_input;
  s.infer = [](const ShapeContext& ctx) { return backward_infer(ctx, recurrent_cell_of(ctx.op(), ctx.attrs())); };
}

void rnn_sequence(OpSchema& s) { forward_op(s); }
void lstm_sequence(OpSchema& s) { forward_op(s); }
void gru_sequence(OpSchema& s) { forward_op(s); }
void rnn_sequence_backward(OpSchema& s) { backward_op(s, 2); }
void lstm_sequence_backward(OpSchema& s) { backward_op(s, 3); }
void gru_sequence_backward(OpSchema& s) { backward_op(s, 2); }

void pack_sequence(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    check_pack_attrs(ctx, ctx.in(0).shape);
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), packed_shape(ctx.in(0).shape, ctx.attrs()))};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    Attrs a = c.attrs();
    const Shape padded = c.shape(c.input(0));
    a.set("total_length", padded[a.b("batch_first", false) ? 1 : 0]);
    a.set("batch", padded[a.b("batch_first", false) ? 0 : 1]);
    c.set_grad(0, c.emit("PadPackedSequence", {c.grad_output(0)}, a));
  };
}

void pad_packed_sequence(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    const TensorInfo& p = ctx.in(0);
    const std::vector<int64_t>& bs = ctx.attrs().ints("batch_sizes");
    const int64_t steps = ctx.attrs().i("total_length");
    const int64_t batch = ctx.attrs().i("batch", bs.empty() ? 0 : bs[0]);
    const bool batch_first = ctx.attrs().b("batch_first", false);
    if (p.rank() < 1) ctx.fail(ErrorMessage("the packed data must have a rows axis, got a 0-d tensor"));
    Shape padded = batch_first ? Shape{batch, steps} : Shape{steps, batch};
    padded.insert(padded.end(), p.shape.begin() + 1, p.shape.end());
    check_pack_attrs(ctx, padded);
    if (packed_shape(padded, ctx.attrs()) != p.shape) {
      ctx.fail(ErrorMessage("the packed data has shape " + shape_str(p.shape) + " but batch_sizes make " +
                            shape_str(packed_shape(padded, ctx.attrs())))
                   .fix("pass the data and batch_sizes of one PackedSequence"));
    }
    (void)ctx.attrs().f("padding_value", 0.0);
    return std::vector<TensorInfo>{ops::with_shape(p, padded)};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    Attrs a;
    for (const char* k : {"batch_sizes", "sorted_indices", "batch_first"}) {
      if (const AttrValue* v = c.attrs().find(k)) a.set(k, *v);
    }
    c.set_grad(0, c.emit("PackSequence", {c.grad_output(0)}, a));
  };
}

}  // namespace

void register_recurrent_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/recurrent.def"
}

}  // namespace glassgrad
