"""Recurrent layers (autodiff-engine/src/ops/recurrent.cpp, recurrent_geometry.h): one layer and
direction per node, x [T, B, I], h0 [B, H] -> y [T, B, H], h_n [B, H] (LSTM: c0, c_n).

RNNSequence, LSTMSequence and GRUSequence are ONNX's RNN, LSTM and GRU with one direction
("forward", or "reverse" for the second direction of a bidirectional layer). ONNX keeps the
weights as [1, G, I] and [1, G, H] and both biases in one [1, 2G], and orders the gates its own
way, so the exported graph reorders the stored parameters (which stay initializers named by
module path) with Gather:
    LSTM: PyTorch's i, f, g, o  ->  ONNX's i, o, f, c (c = PyTorch's g)
    GRU:  PyTorch's r, z, n     ->  ONNX's z, r, h, with linear_before_reset = 1 (PyTorch's n gate
          applies r after the hidden state's product and bias)
An LSTM with a projection (proj_size, the weight w_hr) has no ONNX op: it is unrolled over its
steps, each the cell's formula with MatMul, Sigmoid and Tanh (the number of steps fixed).

Packed sequences cannot be exported: their lengths are attributes of the recorded graph
(batch_sizes), so a file would hold the example batch's lengths.
"""
from __future__ import annotations

import numpy as np

from .._context import NodeContext
from .._registry import cannot, converts
from .._symbolic import Sym

_PACKED = ("a packed sequence: its lengths (batch_sizes) are numbers recorded in the graph, so an exported file "
           "would only take sequences of the example batch's lengths")
_PADDED = ("pass the padded sequences ([T, B, features]) to the recurrent layer and mask or pick the outputs "
           "by length after it")
cannot("PackSequence", _PACKED, _PADDED)
cannot("PadPackedSequence", _PACKED, _PADDED)

# Rows of PyTorch's stacked gates, in ONNX's order (block indices into the [G, ...] weights).
_ONNX_GATE_ORDER = {"LSTMSequence": [0, 3, 1, 2], "GRUSequence": [1, 0, 2], "RNNSequence": [0]}


def _refuse_packed(ctx: NodeContext) -> None:
    if ctx.attr("batch_sizes") is not None:
        ctx.fail(_PACKED, _PADDED)


def _reordered(ctx: NodeContext, w: str, hidden: int) -> str:
    order = _ONNX_GATE_ORDER[ctx.op]
    if order == list(range(len(order))):
        return w
    rows = np.concatenate([np.arange(g * hidden, (g + 1) * hidden) for g in order]).astype(np.int64)
    return ctx.emit("Gather", w, ctx.const(rows), axis=0)


def _unsqueeze0(ctx: NodeContext, x: str) -> str:
    return ctx.emit("Unsqueeze", x, ctx.ints([0]))


def _squeeze(ctx: NodeContext, x: str, axis: int) -> str:
    return ctx.emit("Squeeze", x, ctx.ints([axis]))


@converts("RNNSequence", onnx="RNN")
@converts("GRUSequence", onnx="GRU (linear_before_reset)")
@converts("LSTMSequence", onnx="LSTM (with proj_size: unrolled into MatMul, Sigmoid, Tanh)")
def recurrent(ctx: NodeContext):
    _refuse_packed(ctx)
    lstm = ctx.op == "LSTMSequence"
    if lstm and ctx.has_input(7):
        return _projected_lstm(ctx)
    gates = len(_ONNX_GATE_ORDER[ctx.op])
    hidden = int(ctx.in_shapes[1][0]) // gates
    x, w_ih, w_hh, h0 = ctx.inputs[:4]
    first_bias = 5 if lstm else 4
    w = _unsqueeze0(ctx, _reordered(ctx, w_ih, hidden))
    r = _unsqueeze0(ctx, _reordered(ctx, w_hh, hidden))
    b = None
    if ctx.has_input(first_bias):
        b = _unsqueeze0(ctx, ctx.emit("Concat", _reordered(ctx, ctx.inputs[first_bias], hidden),
                                      _reordered(ctx, ctx.inputs[first_bias + 1], hidden), axis=0))
    inputs = [x, w, r, b, None, _unsqueeze0(ctx, h0)]
    attrs = dict(hidden_size=hidden, direction="reverse" if ctx.attr("reverse", False) else "forward")
    if lstm:
        inputs.append(_unsqueeze0(ctx, ctx.inputs[4]))
        y, y_h, y_c = ctx.node("LSTM", inputs, 3, **attrs)
        return [_squeeze(ctx, y, 1), _squeeze(ctx, y_h, 0), _squeeze(ctx, y_c, 0), None]
    if ctx.op == "GRUSequence":
        y, y_h = ctx.node("GRU", inputs, 2, linear_before_reset=1, **attrs)
        return [_squeeze(ctx, y, 1), _squeeze(ctx, y_h, 0), None]
    act = "Relu" if ctx.attr("nonlinearity", "tanh") == "relu" else "Tanh"
    y, y_h = ctx.node("RNN", inputs, 2, activations=[act], **attrs)
    return [_squeeze(ctx, y, 1), _squeeze(ctx, y_h, 0)]


def _projected_lstm(ctx: NodeContext):
    """LSTM with proj_size, step by step: per time t (backwards for reverse)
        [i f g o] = x_t W_ih^T + b_ih + h W_hh^T + b_hh,   c = sigmoid(f) c + sigmoid(i) tanh(g),
        h = (sigmoid(o) tanh(c)) W_hr^T."""
    steps = ctx.in_shapes[0][0]
    if isinstance(steps, Sym):
        ctx.fail("an LSTM with proj_size has no ONNX op and is unrolled over its steps, whose number follows a "
                 "dynamic axis here", "keep the sequence axis static (leave it out of dynamic_axes)")
    x, w_ih, w_hh, h, c, b_ih, b_hh, w_hr = ctx.inputs[:8]
    hidden = int(ctx.in_shapes[1][0]) // 4
    wt_ih = ctx.emit("Transpose", w_ih, perm=[1, 0])
    wt_hh = ctx.emit("Transpose", w_hh, perm=[1, 0])
    wt_hr = ctx.emit("Transpose", w_hr, perm=[1, 0])
    bias = ctx.emit("Add", b_ih, b_hh)
    projected = ctx.emit("Add", ctx.emit("MatMul", x, wt_ih), bias)   # [T, B, 4H]: every step's input at once
    order = range(int(steps) - 1, -1, -1) if ctx.attr("reverse", False) else range(int(steps))
    ys = {}
    for t in order:
        step = ctx.emit("Gather", projected, ctx.const(np.int64(t)), axis=0)
        pre = ctx.emit("Add", step, ctx.emit("MatMul", h, wt_hh))
        gate = [ctx.emit("Slice", pre, ctx.ints([k * hidden]), ctx.ints([(k + 1) * hidden]), ctx.ints([1]))
                for k in range(4)]
        i, f, g, o = (ctx.emit("Sigmoid", gate[0]), ctx.emit("Sigmoid", gate[1]), ctx.emit("Tanh", gate[2]),
                      ctx.emit("Sigmoid", gate[3]))
        c = ctx.emit("Add", ctx.emit("Mul", f, c), ctx.emit("Mul", i, g))
        h = ctx.emit("MatMul", ctx.emit("Mul", o, ctx.emit("Tanh", c)), wt_hr)
        ys[t] = _unsqueeze0(ctx, h)
    y = ctx.emit("Concat", *[ys[t] for t in range(int(steps))], axis=0)
    return [y, h, c, None]
