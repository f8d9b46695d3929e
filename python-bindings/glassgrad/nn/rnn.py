"""Recurrent layers with PyTorch's interface: RNN (tanh, relu), LSTM (with proj_size), GRU and the
cells RNNCell, LSTMCell, GRUCell.

Each layer and direction records one op over the whole sequence (RNNSequence, LSTMSequence,
GRUSequence; autodiff-engine/src/ops/recurrent.cpp): one GEMM projects every step's input, a
time loop inside the kernel runs the recurrent GEMM and a fused cell pass per step, and the
backward op runs backpropagation through time the same way (docs/recurrent.md). A cell is the
same op over a sequence of one step. Layers of a stack feed each other (the two directions of
a bidirectional layer concatenated), with dropout between them in training.

Parameters, their names, shapes, order and gate layout are PyTorch's, so state_dicts load both
ways: weight_ih_l{k}[_reverse] [G, input], weight_hh_l{k}[_reverse] [G, h], bias_ih_l{k},
bias_hh_l{k} [G], weight_hr_l{k} [proj_size, hidden_size]; G = hidden_size times 4 (LSTM: i, f,
g, o), 3 (GRU: r, z, n) or 1. Every parameter starts uniform in +-1/sqrt(hidden_size), drawn
from glassgrad's generator (glassgrad.manual_seed).
"""
from __future__ import annotations

import math
import warnings
from typing import List, Optional, Tuple

import numpy as np

from .. import _C, _args, _autocast, _dtypes, _trace
from .._factories import zeros
from .._random import generator
from .._spatial import cat, dropout
from .._tensor import Tensor, _op_multi, tensor
from .module import Module, Parameter, assign_data, layer_name
from .utils.rnn import PackedSequence, select_batch


class RecurrentShapeError(_C.ShapeError, RuntimeError):
    """An input or hidden state whose shape does not fit a recurrent layer: a glassgrad ShapeError
    and, as PyTorch raises there, a RuntimeError."""


RecurrentShapeError.__module__ = "glassgrad"


class RecurrentDTypeError(_C.DTypeError, ValueError):
    """An input whose dtype is not the recurrent layer's weights': a glassgrad DTypeError and, as
    PyTorch raises there, a ValueError."""


RecurrentDTypeError.__module__ = "glassgrad"

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_OPS = {"LSTM": "LSTMSequence", "GRU": "GRUSequence", "RNN_TANH": "RNNSequence", "RNN_RELU": "RNNSequence"}
# each mode's names in PyTorch's autocast lists (_autocast_lists.py): the layers' op, the cells'
_AUTOCAST_LAYER = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}
_AUTOCAST_CELL = {"LSTM": "lstm_cell", "GRU": "gru_cell", "RNN_TANH": "rnn_tanh_cell", "RNN_RELU": "rnn_relu_cell"}


def _uniform(shape, bound: float, dtype: str) -> np.ndarray:
    return generator().uniform(-bound, bound, shape).astype(dtype)


def _uniform_parameter(shape, bound: float, dtype: str, device) -> Parameter:
    """A parameter of `dtype` drawn by _uniform (bfloat16, which NumPy lacks, drawn in float32 and
    stored rounded)."""
    if dtype == "bfloat16":
        return Parameter(tensor(_uniform(shape, bound, "float32"), device=device).to(_dtypes.to_dtype(dtype)))
    return Parameter(_uniform(shape, bound, dtype), device=device)


def _reset_uniform(layer: Module) -> None:
    """PyTorch's reset_parameters of the recurrent layers and cells: every parameter uniform in
    +-1/sqrt(hidden_size)."""
    bound = 1.0 / math.sqrt(layer.hidden_size) if layer.hidden_size > 0 else 0.0
    for p in layer.parameters():
        assign_data(p, generator().uniform(-bound, bound, p.shape))


def _dtype_of(dtype, where: str) -> str:
    if dtype is None:
        dtype = _dtypes.DEFAULT_FLOAT
    name = getattr(dtype, "__name__", None) or _dtypes.plain(dtype).replace("torch.", "")
    name = {"float": "float32", "double": "float64"}.get(name, name)
    if name not in ("float32", "float64", "float16", "bfloat16"):  # PyTorch's: any floating type
        _args.fail(where, "dtype", "a floating type (float32, float64, float16 or bfloat16)", dtype)
    return name


def recurrent_sequence(mode: str, x: Tensor, weights: List[Optional[Tensor]], h0: Tensor, c0: Optional[Tensor],
                       reverse: bool, batch_sizes: Optional[List[int]]):
    """One layer and direction over a sequence: x [T, B, I] (or packed rows [N, I] with
    batch_sizes), weights [w_ih, w_hh, b_ih, b_hh, w_hr] (None where absent), h0 [B, H_out]
    (c0 [B, H]). Returns y, h_n and, for the LSTM, c_n."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    inputs = [x, w_ih, w_hh, h0] + ([c0] if mode == "LSTM" else [])
    if b_ih is not None or w_hr is not None:
        if b_ih is None:  # the op's projection follows the biases: none is zeros
            b_ih = b_hh = zeros(w_ih.shape[0], dtype=x.dtype, device=x.device)
        inputs += [b_ih, b_hh]
    if w_hr is not None:
        inputs.append(w_hr)
    attrs = {"reverse": bool(reverse)}
    if batch_sizes is not None:
        attrs["batch_sizes"] = list(batch_sizes)
    if mode.startswith("RNN"):
        attrs["nonlinearity"] = "relu" if mode == "RNN_RELU" else "tanh"
    outs = _op_multi(_OPS[mode], inputs, attrs)
    return outs[0], outs[1], (outs[2] if mode == "LSTM" else None)


def _stack(states: List[Tensor]) -> Tensor:
    return cat([s.unsqueeze(0) for s in states], 0)


class RNNBase(Module):
    """The layers' common part (PyTorch's nn.RNNBase): parameters, checks and the layer stack."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None):
        super().__init__()
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(mode, mode)
        where = _args.call(name, input_size, hidden_size)
        if mode not in _GATES:
            raise _C.InvalidArgumentError(f"Unrecognized RNN mode: {mode}\n  fix: mode is 'LSTM', 'GRU', 'RNN_TANH' or "
                                          f"'RNN_RELU'")
        self.mode = mode
        # PyTorch's RNNBase checks, its sentences first (_args.integer_as_pytorch)
        self.input_size = _args.integer_as_pytorch(
            input_size, "input_size", where, 1, "input_size must be greater than zero",
            f"input_size should be of type int, got: {type(input_size).__name__}")
        self.hidden_size = _args.integer_as_pytorch(
            hidden_size, "hidden_size", where, 1, "hidden_size must be greater than zero",
            f"hidden_size should be of type int, got: {type(hidden_size).__name__}", fix=f"{name}({input_size}, 128)")
        self.num_layers = _args.integer_as_pytorch(num_layers, "num_layers", where, 1,
                                                   "num_layers must be greater than zero", fix="num_layers=1")
        # PyTorch's RNNBase checks these two as bools (bidirectional at the forward's call, _run)
        with _args.pytorch_says(f"bias should be of type bool, got: {type(bias).__name__}"):
            self.bias = _args.flag(bias, "bias", where)
        with _args.pytorch_says(f"batch_first should be of type bool, got: {type(batch_first).__name__}"):
            self.batch_first = _args.flag(batch_first, "batch_first", where)
        # PyTorch's check: a number, not a bool, in [0, 1] (nan refused)
        fix = "dropout=0.2 drops 20% of each layer's outputs but the last's"
        self.dropout = _args.real(dropout, "dropout", where, as_float=True, fix=fix)
        if isinstance(dropout, bool) or not 0.0 <= self.dropout <= 1.0:
            raise _C.InvalidArgumentError(f"{where}: dropout should be a number in range [0, 1] representing the "
                                          f"probability of an element being zeroed, got {dropout}\n  fix: {fix}")
        self.bidirectional = bidirectional  # as given, as PyTorch keeps it: the call refuses one that is no bool
        self.proj_size = _args.integer_as_pytorch(
            proj_size, "proj_size", where, 0, "proj_size should be a positive integer or zero to disable projections",
            fix="proj_size=0 (no projection)")
        if self.proj_size >= self.hidden_size:
            raise _C.InvalidArgumentError(f"{where}: proj_size has to be smaller than hidden_size, got proj_size="
                                          f"{self.proj_size} and hidden_size={self.hidden_size}\n"
                                          f"  fix: proj_size=0, or less than {self.hidden_size}")
        if self.dropout > 0 and self.num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=_trace.user_stacklevel())
        dt = _dtype_of(dtype, where)
        gates = _GATES[mode] * self.hidden_size
        real_hidden = self.proj_size or self.hidden_size
        directions = 2 if self.bidirectional else 1
        bound = 1.0 / math.sqrt(self.hidden_size)
        self._flat_weights_names: List[str] = []
        self._all_weights: List[List[str]] = []
        for layer in range(self.num_layers):
            for direction in range(directions):
                layer_input = self.input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih_l{}{}", (gates, layer_input)), ("weight_hh_l{}{}", (gates, real_hidden))]
                if self.bias:
                    shapes += [("bias_ih_l{}{}", (gates,)), ("bias_hh_l{}{}", (gates,))]
                if self.proj_size > 0:
                    shapes.append(("weight_hr_l{}{}", (self.proj_size, self.hidden_size)))
                names = []
                for pattern, shape in shapes:
                    pname = pattern.format(layer, suffix)
                    setattr(self, pname, _uniform_parameter(shape, bound, dt, device))
                    names.append(pname)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)

    # ---- PyTorch's helpers ----
    @property
    def _flat_weights(self) -> List[Tensor]:
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> List[List[Parameter]]:
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op kept for ported code: PyTorch packs the weights into one buffer for cuDNN;
        glassgrad's kernels read each parameter where it is."""

    def reset_parameters(self) -> None:
        _reset_uniform(self)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---- checks (PyTorch's check_forward_args) ----
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    def _layer_weights(self, index: int) -> List[Optional[Tensor]]:
        names = self._all_weights[index]
        w = [getattr(self, names[0]), getattr(self, names[1]), None, None, None]
        if self.bias:
            w[2], w[3] = getattr(self, names[2]), getattr(self, names[3])
        if self.proj_size > 0:
            w[4] = getattr(self, names[-1])
        return w

    def _check_input(self, x: Tensor, batch_sizes) -> None:
        expected = 2 if batch_sizes is not None else 3
        if x.ndim != expected:
            layout = "[N, input_size] (a packed sequence's data)" if batch_sizes is not None else (
                "[B, T, input_size]" if self.batch_first else "[T, B, input_size]")
            raise RecurrentShapeError(f"{layer_name(self)}: input must have {expected} dimensions, got {x.ndim}: "
                                      f"{list(x.shape)}\n  fix: pass {layout}")
        weight = getattr(self, self._flat_weights_names[0])
        if x.dtype != weight.dtype and not any(_autocast.state.enabled.values()):   # autocast casts them (PyTorch's rule)
            given, held = _dtypes.plain(x.dtype), _dtypes.plain(weight.dtype)
            model = f", or the model, model.to(glassgrad.{given})" if x.is_floating_point() else ""
            raise RecurrentDTypeError(
                f"{layer_name(self)}: RNN input dtype ({x.dtype}) does not match weight dtype ({weight.dtype}): "
                f"the input is {given} but the layer's parameters are {held}\n"
                f"  cause: NumPy arrays are float64 unless converted (np.random.rand, np.load of float data); "
                f"glassgrad never converts dtypes silently\n"
                f"  fix: convert the input, x.to(glassgrad.{held}){model}")
        if x.shape[-1] != self.input_size:
            raise RecurrentShapeError(
                f"{layer_name(self)}: input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{x.shape[-1]}\n  input: {list(x.shape)} {x.dtype} {x.device}\n"
                f"  fix: build the layer as {type(self).__name__}({x.shape[-1]}, {self.hidden_size}), or give the "
                f"input {self.input_size} features in its last axis")

    def _expected_hidden(self, x: Tensor, batch_sizes, size: int) -> Tuple[int, int, int]:
        batch = batch_sizes[0] if batch_sizes is not None else x.shape[1]  # x is time-major here
        return (self.num_layers * self._directions(), batch, size)

    def _check_hidden(self, hx: Tensor, expected, x: Tensor, what: str = "hidden") -> None:
        # PyTorch's matmul refuses the mix ('must have the same dtype'), half ones too; autocast casts both
        if hx.dtype != x.dtype and not any(_autocast.state.enabled.values()):
            raise _C.DTypeError(f"{layer_name(self)}: {what} and input must have the same dtype, but got "
                                f"{_dtypes.plain(hx.dtype)} and {_dtypes.plain(x.dtype)}\n  fix: h0.to(x.dtype)")
        if tuple(hx.shape) != tuple(expected):
            raise RecurrentShapeError(
                f"{layer_name(self)}: Expected {what} size {tuple(expected)}, got {list(hx.shape)}\n"
                f"  cause: the initial state is (num_layers * num_directions, batch, hidden) = "
                f"({self.num_layers} * {self._directions()}, batch, size)\n"
                f"  fix: pass a state of shape {tuple(expected)}, or none (zeros)")

    # ---- the layer stack ----
    def _run(self, x: Tensor, h: Tensor, c: Optional[Tensor], batch_sizes) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
        """x time-major [T, B, I] or packed [N, I]; h [L*D, B, H_out], c [L*D, B, H]."""
        if type(self.bidirectional) is not bool:  # PyTorch's op takes a Python bool only (its parser's TypeError)
            raise _args.InvalidArgumentTypeError(
                f"{self.mode.lower().partition('_')[0]}() received an invalid combination of arguments: "
                f"bidirectional must be bool, not {type(self.bidirectional).__name__}\n  {layer_name(self)} was "
                f"built with bidirectional={self.bidirectional!r}\n  fix: bidirectional={bool(self.bidirectional)}")
        directions = self._directions()
        hs, cs = [], []
        layer_input = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                y, hn, cn = _autocast.call(_AUTOCAST_LAYER[self.mode], recurrent_sequence, self.mode, layer_input,
                                           self._layer_weights(k), h[k], c[k] if c is not None else None, d == 1,
                                           batch_sizes)
                outs.append(y)
                hs.append(hn)
                cs.append(cn)
            layer_input = outs[0] if directions == 1 else cat(outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = dropout(layer_input, self.dropout, True)
        return layer_input, _stack(hs), (_stack(cs) if c is not None else None)

    def _forward(self, input, hx, with_cell: bool):
        """The forward of RNN/GRU (with_cell False: hx a tensor) and LSTM (hx a pair)."""
        name = type(self).__name__
        real_hidden = self.proj_size or self.hidden_size
        packed = isinstance(input, PackedSequence)
        if packed:
            x, batch_sizes_t, sorted_indices, unsorted_indices = input
            batch_sizes = [int(v) for v in batch_sizes_t.numpy(force=True).tolist()]
            is_batched, time_major = True, x
        else:
            x, batch_sizes, sorted_indices, unsorted_indices = input, None, None, None
            if not isinstance(x, Tensor):
                raise _C.InvalidArgumentError(f"{layer_name(self)} expects a glassgrad.Tensor or a PackedSequence, got "
                                              f"{type(x).__name__}\n  fix: x = glassgrad.tensor(x)")
            if x.ndim not in (2, 3):
                raise RecurrentShapeError(f"{name}: Expected input to be 2D or 3D, got {x.ndim}D instead "
                                          f"({list(x.shape)})\n  fix: pass [T, B, input_size] ([B, T, input_size] "
                                          f"with batch_first=True), or one sequence [T, input_size]")
            is_batched = x.ndim == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                x = x.unsqueeze(batch_dim)
            states = hx if with_cell and hx is not None else ([hx] if hx is not None else [])
            for s in states:
                want = 3 if is_batched else 2
                if s.ndim != want:
                    what = "hx and cx" if with_cell else "hx"
                    got = f"({', '.join(f'{t.ndim}-D' for t in hx)}) tensors" if with_cell else f"{s.ndim}-D tensor"
                    kind = "batched 3-D" if is_batched else "unbatched 2-D"
                    raise RecurrentShapeError(f"{name}: For {kind} input, {what} should also be {want}-D but got {got}"
                                              f"\n  fix: give the states shape (num_layers * num_directions, "
                                              f"{'batch, ' if is_batched else ''}hidden_size)")
            if not is_batched and hx is not None:
                hx = tuple(s.unsqueeze(1) for s in hx) if with_cell else hx.unsqueeze(1)
            time_major = x.transpose(0, 1) if self.batch_first else x
            if time_major.shape[0] == 0:  # PyTorch's RuntimeError (a PackedSequence cannot be empty)
                raise RecurrentShapeError(f"{name}: Expected sequence length to be larger than 0 in RNN, got input "
                                          f"{list(input.shape)}\n  fix: skip empty sequences, or pad them to one "
                                          f"step")
        self._check_input(time_major, batch_sizes)
        expected_h = self._expected_hidden(time_major, batch_sizes, real_hidden)
        expected_c = self._expected_hidden(time_major, batch_sizes, self.hidden_size)
        if hx is None:
            h = zeros(expected_h, dtype=time_major.dtype, device=time_major.device)
            c = zeros(expected_c, dtype=time_major.dtype, device=time_major.device) if with_cell else None
        else:
            if with_cell:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise _C.InvalidArgumentError(f"{layer_name(self)}: hx must be a pair (h_0, c_0), got "
                                                  f"{type(hx).__name__}\n  fix: lstm(x, (h0, c0)), or lstm(x) for zeros")
                h, c = hx
                h, c = select_batch(h, sorted_indices), select_batch(c, sorted_indices)
                self._check_hidden(h, expected_h, time_major, "hidden[0]")
                self._check_hidden(c, expected_c, time_major, "hidden[1]")
            else:
                h, c = select_batch(hx, sorted_indices), None
                self._check_hidden(h, expected_h, time_major)
        y, h_n, c_n = self._run(time_major, h, c, batch_sizes)
        h_n = select_batch(h_n, unsorted_indices)
        c_n = select_batch(c_n, unsorted_indices) if c_n is not None else None
        hidden = (h_n, c_n) if with_cell else h_n
        if packed:
            return PackedSequence(y, batch_sizes_t, sorted_indices, unsorted_indices), hidden
        if self.batch_first:
            y = y.transpose(0, 1)
        if not is_batched:
            y = y.squeeze(0 if self.batch_first else 1)
            hidden = (h_n.squeeze(1), c_n.squeeze(1)) if with_cell else h_n.squeeze(1)
        return y, hidden


class RNN(RNNBase):
    """An Elman RNN (PyTorch's nn.RNN): h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), or
    relu with nonlinearity='relu'. RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh',
    bias=True, batch_first=False, dropout=0.0, bidirectional=False). forward(input, hx=None) ->
    (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise _C.InvalidArgumentError("proj_size argument is only supported for LSTM, not RNN or GRU\n"
                                          "  fix: drop proj_size, or use nn.LSTM")
        args = list(args)
        if len(args) > 3:
            self_nonlinearity = args.pop(3)
        else:
            self_nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self_nonlinearity not in ("tanh", "relu"):
            raise _C.InvalidArgumentError(f"Unknown nonlinearity '{self_nonlinearity}'. Select from 'tanh' or 'relu'.\n"
                                          f"  fix: nonlinearity='tanh'")
        super().__init__("RNN_TANH" if self_nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = self_nonlinearity

    def forward(self, input, hx: Optional[Tensor] = None):
        return self._forward(input, hx, False)


class LSTM(RNNBase):
    """Long short-term memory (PyTorch's nn.LSTM): gates i, f, g, o = sigmoid, sigmoid, tanh,
    sigmoid of x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh; c_t = f c_{t-1} + i g; h_t = o tanh(c_t)
    (then h_t W_hr^T with proj_size > 0). LSTM(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, proj_size=0). forward(input, (h_0, c_0)=None)
    -> (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx: Optional[Tuple[Tensor, Tensor]] = None):
        return self._forward(input, hx, True)


class GRU(RNNBase):
    """Gated recurrent unit (PyTorch's nn.GRU): r, z = sigmoid(...), n = tanh(x_t W_in^T + b_in +
    r * (h_{t-1} W_hn^T + b_hn)), h_t = (1 - z) n + z h_{t-1}. GRU(input_size, hidden_size,
    num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False).
    forward(input, hx=None) -> (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise _C.InvalidArgumentError("proj_size argument is only supported for LSTM, not RNN or GRU\n"
                                          "  fix: drop proj_size, or use nn.LSTM")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx: Optional[Tensor] = None):
        return self._forward(input, hx, False)


# ---- cells ------------------------------------------------------------------------------------


class RNNCellBase(Module):
    """The cells' common part (PyTorch's nn.RNNCellBase): weight_ih [G, input_size], weight_hh
    [G, hidden_size], bias_ih and bias_hh [G] (None without bias), uniform in +-1/sqrt(hidden_size).
    A step is the layer's op over a sequence of one step."""

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None, dtype=None):
        super().__init__()
        name = type(self).__name__
        where = _args.call(name, input_size, hidden_size)
        self.input_size = _args.integer(input_size, "input_size", where, minimum=0)
        self.hidden_size = _args.integer(hidden_size, "hidden_size", where, minimum=1, fix=f"{name}({input_size}, 128)")
        self.bias = bias  # as given, as PyTorch keeps it (the repr shows bias=1), read by its truth value
        dt = _dtype_of(dtype, where)
        bound = 1.0 / math.sqrt(self.hidden_size)
        gates = num_chunks * self.hidden_size
        self.weight_ih = _uniform_parameter((gates, self.input_size), bound, dt, device)
        self.weight_hh = _uniform_parameter((gates, self.hidden_size), bound, dt, device)
        if self.bias:
            self.bias_ih = _uniform_parameter((gates,), bound, dt, device)
            self.bias_hh = _uniform_parameter((gates,), bound, dt, device)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)

    def reset_parameters(self) -> None:
        _reset_uniform(self)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def _step(self, x: Tensor, states: List[Optional[Tensor]], mode: str):
        """One step: x [I] or [B, I]; states [h] or [h, c], each [H] or [B, H] or None (zeros)."""
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise _C.InvalidArgumentError(f"{layer_name(self)} expects a glassgrad.Tensor, got {type(x).__name__}\n"
                                          f"  fix: x = glassgrad.tensor(x)")
        if x.ndim not in (1, 2):
            raise RecurrentShapeError(f"{name}: Expected input to be 1D or 2D, got {x.ndim}D instead "
                                      f"({list(x.shape)})\n  fix: pass [batch, input_size] or [input_size]")
        for k, s in enumerate(states):
            if s is not None and s.ndim not in (1, 2):
                what = f"hx[{k}]" if len(states) > 1 else "hidden"
                raise RecurrentShapeError(f"{name}: Expected {what} to be 1D or 2D, got {s.ndim}D instead\n"
                                          f"  fix: pass [batch, hidden_size] or [hidden_size]")
        is_batched = x.ndim == 2
        if not is_batched:
            x = x.unsqueeze(0)
            states = [s.unsqueeze(0) if s is not None else None for s in states]
        if x.shape[1] != self.input_size:
            raise RecurrentShapeError(f"{layer_name(self)}: input has inconsistent input_size: got {x.shape[1]} "
                                      f"expected {self.input_size}\n  fix: build the cell as "
                                      f"{name}({x.shape[1]}, {self.hidden_size})")
        batch = x.shape[0]
        full = [zeros(batch, self.hidden_size, dtype=x.dtype, device=x.device) if s is None else s for s in states]
        for k, s in enumerate(full):
            shape = tuple(s.shape)
            if shape != (batch, self.hidden_size):
                what = "hidden0" if len(full) == 1 else f"hx[{k}]"
                # PyTorch's sentence (its check_forward_hidden: the batch first, then the size), then ours
                if shape[0] != batch:
                    sentence = f"Input batch size {batch} doesn't match hidden{k} batch size {shape[0]}\n  "
                elif shape[1] != self.hidden_size:
                    sentence = f"hidden{k} has inconsistent hidden_size: got {shape[1]}, expected {self.hidden_size}\n  "
                else:
                    sentence = ""
                raise RecurrentShapeError(f"{sentence}{layer_name(self)}: {what} has shape {list(s.shape)} but the "
                                          f"input batch is {batch} and hidden_size {self.hidden_size}\n"
                                          f"  fix: pass a state of shape ({batch}, {self.hidden_size})")
        weights = [self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, None]
        _, h, c = _autocast.call(_AUTOCAST_CELL[mode], recurrent_sequence, mode, x.unsqueeze(0), weights, full[0],
                                 full[1] if mode == "LSTM" else None, False, None)
        if not is_batched:
            h = h.squeeze(0)
            c = c.squeeze(0) if c is not None else None
        return (h, c) if mode == "LSTM" else h


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (relu with nonlinearity='relu'); PyTorch's
    nn.RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh'). forward(input, hx=None) -> h'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):
            raise _C.InvalidArgumentError(f"Unknown nonlinearity: {self.nonlinearity}\n  fix: nonlinearity='tanh' "
                                          f"or 'relu'")
        return self._step(input, [hx], "RNN_RELU" if self.nonlinearity == "relu" else "RNN_TANH")


class LSTMCell(RNNCellBase):
    """One LSTM step (PyTorch's nn.LSTMCell(input_size, hidden_size, bias=True)):
    forward(input, (h, c)=None) -> (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Optional[Tuple[Tensor, Tensor]] = None):
        states = [None, None] if hx is None else list(hx)
        if len(states) != 2:
            raise _C.InvalidArgumentError(f"{layer_name(self)}: hx must be a pair (h, c)\n  fix: cell(x, (h, c))")
        return self._step(input, states, "LSTM")


class GRUCell(RNNCellBase):
    """One GRU step (PyTorch's nn.GRUCell(input_size, hidden_size, bias=True)): forward(input,
    hx=None) -> h'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        return self._step(input, [hx], "GRU")
