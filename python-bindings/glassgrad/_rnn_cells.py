"""torch.rnn_tanh_cell, rnn_relu_cell, lstm_cell and gru_cell: one time step of PyTorch's
recurrent cells in ATen's signatures (input, hx, w_ih, w_hh, b_ih=None, b_hh=None), written with
matmuls and activations, PyTorch's gate order (LSTM: input, forget, cell, output; GRU: reset,
update, new). nn.RNNCell, LSTMCell and GRUCell compute the same with their own kernels."""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

from ._math import add, mul, sigmoid, sub, tanh
from ._arranging import transpose
from ._shapes import chunk, matmul
from ._tensor import Tensor

__all__ = ["gru_cell", "lstm_cell", "rnn_relu_cell", "rnn_tanh_cell"]


def _linear(x: Tensor, w: Tensor, b: Optional[Tensor]) -> Tensor:
    out = matmul(x, transpose(w, 0, 1))
    return out if b is None else add(out, b)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor] = None,
                  b_hh: Optional[Tensor] = None) -> Tensor:
    """tanh(input w_ih^T + b_ih + hx w_hh^T + b_hh)."""
    return tanh(add(_linear(input, w_ih, b_ih), _linear(hx, w_hh, b_hh)))


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor] = None,
                  b_hh: Optional[Tensor] = None) -> Tensor:
    """relu(input w_ih^T + b_ih + hx w_hh^T + b_hh)."""
    from .functional import relu
    return relu(add(_linear(input, w_ih, b_ih), _linear(hx, w_hh, b_hh)))


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor] = None,
              b_hh: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """(h', c') from hx = (h, c): gates i, f, g, o of input w_ih^T + b_ih + h w_hh^T + b_hh,
    c' = f c + i g, h' = o tanh(c')."""
    h, c = hx
    i, f, g, o = chunk(add(_linear(input, w_ih, b_ih), _linear(h, w_hh, b_hh)), 4, -1)
    c_next = add(mul(sigmoid(f), c), mul(sigmoid(i), tanh(g)))
    return mul(sigmoid(o), tanh(c_next)), c_next


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor] = None,
             b_hh: Optional[Tensor] = None) -> Tensor:
    """h' = (1 - z) n + z h with r, z = sigmoid of the input and hidden parts' sums and
    n = tanh(x_n + r h_n) (the hidden part's bias inside r's product, as PyTorch's)."""
    x_r, x_z, x_n = chunk(_linear(input, w_ih, b_ih), 3, -1)
    h_r, h_z, h_n = chunk(_linear(hx, w_hh, b_hh), 3, -1)
    r, z = sigmoid(add(x_r, h_r)), sigmoid(add(x_z, h_z))
    n = tanh(add(x_n, mul(r, h_n)))
    return add(n, mul(z, sub(hx, n)))
