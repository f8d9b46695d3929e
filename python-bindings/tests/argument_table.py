"""One table of the argument values glassgrad's layers, functions and optimizers accept, each with
the PyTorch call it must match. It drives two test families:

  test_argument_table.py     every row builds and runs (forward and backward, train and eval),
                             in float64, with gradients against finite differences; no torch
  test_torch_differential.py every row against PyTorch's CPU semantics: forward, input and
                             parameter gradients, running statistics; optimizers three steps;
                             learning-rate schedulers 30 steps (every group's lr, momentum or
                             beta1, get_last_lr()). Skipped without torch;
                             tools/torch_differential.sh runs it in an environment that has torch.

Scheduler rows (SCHEDULERS) also run without torch in test_argument_table.py: finite rates and a
state_dict that resumes the schedule exactly after glassgrad.save / glassgrad.load.

Adding a layer, a loss, a function or an optimizer (or an argument value to one): add a row per
documented argument value here. A row names the callable as glassgrad and torch both spell it
(nn.Conv2d, F.conv2d, optim.SGD; torch_name/torch_kwargs where torch differs) and the inputs it
takes. A row whose behaviour is glassgrad's own (no torch equivalent) sets torch=<the reason>.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np


@dataclass(frozen=True)
class Labels:
    """An int64 input of class indices in [0, classes) of `shape`."""
    shape: Tuple[int, ...]
    classes: int


@dataclass(frozen=True)
class Positive:
    """A float input > 0 (variances), not differentiated."""
    shape: Tuple[int, ...]


@dataclass(frozen=True)
class BoolMask:
    """A bool input (an attention mask), True with probability p; entry 0 of the last axis is
    `first`, so that no row is masked out entirely."""
    shape: Tuple[int, ...]
    first: bool = False
    p: float = 0.3


@dataclass(frozen=True)
class Same:
    """The very tensor of input `index` (self-attention passes one tensor as query, key and value)."""
    index: int


Input = Union[Tuple[int, ...], Labels, Positive, BoolMask, Same, None]


@dataclass(frozen=True)
class Row:
    kind: str                    # "layer" (nn.<name>), "functional" (F.<name>), "optimizer" (optim.<name>)
    #                              or "scheduler" (optim.lr_scheduler.<name>)
    name: str
    args: Tuple[Any, ...] = ()
    kwargs: Dict[str, Any] = field(default_factory=dict)
    inputs: Tuple[Input, ...] = ((2, 3, 7, 7),)   # layers: the input(s); functionals: every positional input
    modes: Tuple[str, ...] = ("train", "eval")    # layers: the modes to run
    torch_name: Optional[str] = None              # "torch.flatten" or a torch.nn(.functional) name
    torch_kwargs: Optional[Dict[str, Any]] = None
    torch: Union[bool, str] = True                # a str: why there is no torch equivalent
    grad: bool = True                             # the gradient check applies (no kinks at random inputs)
    note: str = ""
    epochs: Optional[Tuple[float, ...]] = None   # schedulers: step(epoch) at these epochs instead of step()
    call_kwargs: Dict[str, Any] = field(default_factory=dict)  # keyword arguments of the call (a layer's
    #                              forward; functionals' kwargs go here too when they are inputs: Input specs)

    @property
    def call(self) -> str:
        """name(args, kwargs) as written in the table (a nested row as its call, a function as 'fn')."""
        parts = [_show(a) for a in self.args] + [f"{k}={_show(v)}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"

    @property
    def id(self) -> str:
        return f"{self.kind[0]}:{self.call}" + (f"[{self.note}]" if self.note else "") + \
            (f"[step(epoch) x{len(self.epochs)}]" if self.epochs else "")


def _show(value) -> str:
    if isinstance(value, Row):
        return value.call
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_show(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return "fn" if callable(value) else repr(value)


def L(name, *args, inputs=((2, 3, 7, 7),), **kwargs):
    return Row("layer", name, args, kwargs, inputs)


def A(name, *args, inputs, call=None, modes=("train", "eval"), grad=True, **kwargs):
    """An attention layer's row: forward keyword arguments (masks, flags) in `call`."""
    return Row("layer", name, args, kwargs, inputs, modes=modes, call_kwargs=call or {}, grad=grad)


def F(name, *inputs, args=(), **kwargs):
    """fn(*inputs, *args, **kwargs): inputs are tensors made from the shapes, args plain values."""
    return Row("functional", name, tuple(args), kwargs, tuple(inputs))


def O(name, **kwargs):
    return Row("optimizer", name, (), kwargs, ())


def S(name, *args, epochs=None, **kwargs):
    """A scheduler on an optimizer of two parameter groups (lr 0.1 and 0.05); a row among args
    (SequentialLR's and ChainedScheduler's lists) is built on the same optimizer."""
    return Row("scheduler", name, args, kwargs, (), epochs=epochs)


IMG = (2, 3, 7, 7)


def _after_identity(row: Row) -> Row:
    """Sequential(Hardtanh(-1e3, 1e3), layer): the layer's input is computed (an identity on the
    table's inputs, gradient 1), so an in-place layer may write into it."""
    return Row("layer", "Sequential", (L("Hardtanh", -1e3, 1e3), row), {}, (IMG,))


LAYERS = [
    L("Conv2d", 3, 4, 3),
    L("Conv2d", 3, 4, 3, stride=2),
    L("Conv2d", 3, 4, 3, stride=(2, 1)),
    L("Conv2d", 3, 4, 3, padding=1),
    L("Conv2d", 3, 4, (3, 2), padding=(1, 2)),
    L("Conv2d", 3, 4, 3, padding="same"),
    L("Conv2d", 3, 4, 4, padding="same"),
    L("Conv2d", 3, 4, 3, padding="same", dilation=2),
    L("Conv2d", 3, 4, 3, padding="valid"),
    L("Conv2d", 3, 4, 3, bias=False),
    L("Conv2d", 3, 4, 3, dilation=2),
    L("Conv2d", 3, 4, 3, dilation=(2, 1), padding=1),
    L("Conv2d", 3, 6, 3, groups=3),
    L("Conv2d", 3, 3, 3, groups=3, bias=False),
    L("Conv2d", 3, 4, 3, padding=1, padding_mode="reflect"),
    L("Conv2d", 3, 4, 3, padding=(2, 1), stride=2, padding_mode="replicate"),
    L("Conv2d", 3, 6, 3, padding="same", dilation=2, groups=3, padding_mode="circular"),
    L("Conv2d", 3, 4, 2, padding="same", padding_mode="reflect"),
    L("ConvTranspose2d", 3, 4, 3),
    L("ConvTranspose2d", 3, 4, 4, 2, 1, bias=False),
    L("ConvTranspose2d", 3, 4, 3, stride=(2, 3), padding=(1, 0), output_padding=(1, 2)),
    L("ConvTranspose2d", 3, 6, 3, stride=2, groups=3, dilation=2),
    L("ConvTranspose2d", 3, 4, 3, 1, 2, 1, 1, True, 2),
    L("ConvTranspose2d", 3, 4, 2, inputs=((3, 7, 7),)),
    L("Conv1d", 3, 4, 3, inputs=((2, 3, 9),)),
    L("Conv1d", 3, 6, 3, 2, 1, 2, 3, False, inputs=((2, 3, 9),)),
    L("Conv1d", 3, 4, 4, padding="same", padding_mode="reflect", inputs=((2, 3, 9),)),
    L("Conv1d", 3, 4, 3, padding=2, padding_mode="circular", inputs=((3, 9),)),
    L("ConvTranspose1d", 3, 4, 3, inputs=((2, 3, 9),)),
    L("ConvTranspose1d", 3, 4, 5, 3, 2, 1, inputs=((2, 3, 9),)),
    L("ConvTranspose1d", 3, 6, 2, groups=3, dilation=2, bias=False, inputs=((3, 9),)),
    L("Linear", 5, 3, inputs=((4, 5),)),
    L("Linear", 5, 3, bias=False, inputs=((4, 5),)),
    L("Linear", 5, 3, inputs=((2, 4, 5),)),
    L("BatchNorm2d", 3),
    L("BatchNorm2d", 3, eps=1e-3),
    L("BatchNorm2d", 3, momentum=0.5),
    L("BatchNorm2d", 3, momentum=None),
    L("BatchNorm2d", 3, affine=False),
    L("BatchNorm2d", 3, track_running_stats=False),
    L("BatchNorm1d", 3, inputs=((6, 3),)),
    L("BatchNorm1d", 3, inputs=((4, 3, 5),)),
    L("LayerNorm", 5, inputs=((4, 5),)),
    L("LayerNorm", (5,), eps=1e-3, inputs=((2, 4, 5),)),
    L("LayerNorm", 5, elementwise_affine=False, inputs=((4, 5),)),
    L("LayerNorm", (3, 5), inputs=((2, 3, 5),)),
    L("LayerNorm", [5], bias=False, inputs=((4, 5),)),
    L("BatchNorm2d", 3, bias=False),
    L("Conv2d", 3, 4, 3, 1, 1, 1, 1, False, "reflect"),
    L("Conv2d", 3, 4, 3, padding=2, padding_mode="circular", dilation=2),
    L("Conv2d", 3, 4, 3, padding="same", padding_mode="replicate"),
    L("InstanceNorm2d", 3),
    L("InstanceNorm2d", 3, affine=True),
    L("InstanceNorm2d", 3, affine=True, bias=False, eps=1e-3),
    L("InstanceNorm2d", 3, track_running_stats=True, momentum=0.3),
    L("InstanceNorm2d", 3, affine=True, track_running_stats=True, momentum=None),
    L("InstanceNorm2d", 3, affine=True, inputs=((3, 7, 7),)),
    L("InstanceNorm1d", 3, inputs=((4, 3, 6),)),
    L("InstanceNorm1d", 3, affine=True, track_running_stats=True, inputs=((4, 3, 6),)),
    L("InstanceNorm1d", 3, affine=True, inputs=((3, 6),)),
    L("GroupNorm", 3, 6, inputs=((2, 6, 5, 5),)),
    L("GroupNorm", 2, 6, eps=1e-3, inputs=((2, 6, 7),)),
    L("GroupNorm", 6, 6, affine=False, inputs=((3, 6, 2),)),
    L("GroupNorm", 1, 4, inputs=((2, 4, 3, 2, 2),)),
    L("GroupNorm", 2, 4, inputs=((5, 4),)),
    L("GroupNorm", 2, 4, bias=False, inputs=((3, 4, 3),)),
    Row("layer", "Dropout", (0.5,), {}, (IMG,), modes=("eval",), note="random in train mode"),
    L("Dropout", 0.0),
    Row("layer", "Dropout2d", (0.5,), {}, (IMG,), modes=("eval",), note="random in train mode"),
    L("Dropout2d", 0.0),
    Row("layer", "Dropout1d", (0.3,), {"inplace": True}, ((2, 3, 7),), modes=("eval",),
        note="random in train mode"),
    L("Dropout1d", 0.0, inputs=((3, 7),)),
    L("Dropout3d", 0.0, inputs=((2, 3, 2, 3, 4),)),
    Row("layer", "AlphaDropout", (0.4,), {}, (IMG,), modes=("eval",), note="random in train mode"),
    L("AlphaDropout", 0.0),
    L("ReLU"),
    # inplace=True writes into the layer's input, which both libraries refuse for the table's leaf
    # input that requires grad: the in-place layer follows an identity on these inputs, as in a
    # network (test_nn_inplace_activations.py checks aliasing and the leaf error).
    _after_identity(Row("layer", "ReLU", (), {"inplace": True})),
    L("LeakyReLU"),
    L("LeakyReLU", 0.2),
    _after_identity(Row("layer", "LeakyReLU", (0.2,), {"inplace": True})),
    L("Sigmoid"),
    L("Tanh"),
    L("ReLU6"),
    _after_identity(Row("layer", "ReLU6", (), {"inplace": True})),
    L("Hardtanh"),
    L("Hardtanh", -0.5, 0.8),
    L("Hardtanh", min_val=-2.0, max_val=-0.5),
    L("Hardswish"),
    _after_identity(Row("layer", "Hardswish", (), {"inplace": True})),
    L("Hardsigmoid"),
    L("Mish"),
    L("MaxPool2d", 2),
    L("MaxPool2d", 3, stride=2),
    L("MaxPool2d", 3, stride=2, padding=1),
    L("MaxPool2d", (2, 3)),
    L("AvgPool2d", 2),
    L("AvgPool2d", 3, stride=1, padding=1),
    L("AvgPool2d", 3, stride=2, padding=1, count_include_pad=False),
    L("Flatten"),
    L("Flatten", 0, -1),
    L("Flatten", 1, 2),
    L("Identity"),
    L("Identity", 54, unused_argument="ignored"),
    L("Upsample", scale_factor=2),
    L("Upsample", size=(9, 11)),
    L("Upsample", size=(5, 4), mode="nearest-exact"),
    L("Upsample", scale_factor=1.5, recompute_scale_factor=True),
    L("Upsample", scale_factor=(2, 1.5), mode="bilinear"),
    L("Upsample", size=(5, 9), mode="bilinear", align_corners=True),
    L("Softmax", dim=1),
    L("LogSoftmax", -1),
    L("Unflatten", 1, (3, 1)),
    L("Unflatten", -1, (-1, 7), inputs=((2, 3, 49),)),
    L("ReflectionPad2d", 2),
    L("ReflectionPad2d", (1, 0, 3, 2)),
    L("ReflectionPad2d", (-1, 2, 1, -2)),
    L("ReflectionPad1d", (3, 1), inputs=((2, 3, 7),)),
    L("ReflectionPad1d", 2, inputs=((3, 7),)),
    L("ReplicationPad2d", 3),
    L("ReplicationPad2d", (0, 2, 4, 1), inputs=((3, 7, 7),)),
    L("ReplicationPad1d", (2, 5), inputs=((2, 3, 7),)),
    L("ZeroPad2d", 2),
    L("ZeroPad2d", (1, -2, 0, 3)),
    L("ConstantPad1d", 2, 3.5, inputs=((2, 3, 7),)),
    L("ConstantPad2d", (1, 2, 0, 1), -1.0),
    L("CircularPad2d", (2, 1, 7, 0)),
    L("CircularPad1d", 3, inputs=((2, 3, 7),)),
    L("PixelShuffle", 2, inputs=((2, 8, 3, 5),)),
    L("PixelShuffle", 3, inputs=((18, 2, 3),)),
    L("PixelUnshuffle", 2, inputs=((2, 3, 6, 4),)),
]

# Attention: [L, N, E] sequences (batch_first: [N, L, E]) of 8 features, 2 heads unless said. The
# stacks (TransformerEncoder, TransformerDecoder, Transformer) skip the finite differences, which
# their layers' rows check: their gradients are compared with torch's.
SEQ, MEM, SEQ_BF, MEM_BF = (5, 3, 8), (6, 3, 8), (3, 5, 8), (3, 6, 8)
CAUSAL5 = np.triu(np.full((5, 5), -np.inf), 1)   # Transformer.generate_square_subsequent_mask(5)
ENC = A("TransformerEncoderLayer", 8, 2, dim_feedforward=16, dropout=0.0, inputs=())
DEC = A("TransformerDecoderLayer", 8, 2, dim_feedforward=16, dropout=0.0, inputs=())
LAYERS += [
    A("MultiheadAttention", 8, 2, inputs=(SEQ, Same(0), Same(0))),
    A("MultiheadAttention", 8, 2, inputs=(SEQ, MEM, MEM), call={"need_weights": False}),
    A("MultiheadAttention", 8, 2, batch_first=True, inputs=(SEQ_BF, MEM_BF, MEM_BF)),
    A("MultiheadAttention", 8, 2, batch_first=True, inputs=(SEQ_BF, Same(0), Same(0)), call={"need_weights": False}),
    A("MultiheadAttention", 8, 4, bias=False, inputs=(SEQ, Same(0), Same(0)), call={"need_weights": False}),
    A("MultiheadAttention", 8, 2, kdim=5, vdim=3, inputs=(SEQ, (6, 3, 5), (6, 3, 3))),
    A("MultiheadAttention", 8, 2, add_bias_kv=True, inputs=(SEQ, MEM, MEM)),
    A("MultiheadAttention", 8, 2, add_zero_attn=True, inputs=(SEQ, MEM, MEM), call={"need_weights": False}),
    A("MultiheadAttention", 8, 2, dropout=0.3, inputs=(SEQ, Same(0), Same(0)), modes=("eval",)),
    A("MultiheadAttention", 8, 2, inputs=(SEQ, MEM, MEM), call={"key_padding_mask": BoolMask((3, 6))}),
    A("MultiheadAttention", 8, 2, inputs=(SEQ, MEM, MEM),
      call={"key_padding_mask": BoolMask((3, 6)), "need_weights": False}),
    A("MultiheadAttention", 8, 2, inputs=(SEQ, MEM, MEM),
      call={"attn_mask": BoolMask((5, 6)), "average_attn_weights": False}),
    A("MultiheadAttention", 8, 2, inputs=(SEQ, MEM, MEM), call={"attn_mask": (5, 6), "need_weights": False}),
    A("MultiheadAttention", 8, 2, inputs=(SEQ, MEM, MEM),
      call={"attn_mask": (6, 5, 6), "key_padding_mask": BoolMask((3, 6)), "need_weights": False}),
    A("MultiheadAttention", 8, 2, inputs=(SEQ, Same(0), Same(0)),
      call={"attn_mask": CAUSAL5, "is_causal": True, "need_weights": False}),
    A("MultiheadAttention", 8, 2, inputs=((5, 8), Same(0), Same(0))),
    A("TransformerEncoderLayer", 8, 2, dim_feedforward=16, dropout=0.0, inputs=(SEQ,)),
    A("TransformerEncoderLayer", 8, 2, inputs=(SEQ,), modes=("eval",)),
    A("TransformerEncoderLayer", 8, 2, dim_feedforward=16, dropout=0.0, norm_first=True, activation="gelu",
      inputs=(SEQ,), call={"src_mask": CAUSAL5, "is_causal": True}),
    A("TransformerEncoderLayer", 8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, layer_norm_eps=1e-3,
      inputs=(SEQ_BF,), call={"src_key_padding_mask": BoolMask((3, 5))}),
    A("TransformerEncoderLayer", 8, 2, dim_feedforward=16, dropout=0.0, bias=False, inputs=(SEQ,),
      call={"src_mask": BoolMask((5, 5))}),
    A("TransformerDecoderLayer", 8, 2, dim_feedforward=16, dropout=0.0, inputs=(SEQ, MEM),
      call={"tgt_mask": CAUSAL5, "memory_key_padding_mask": BoolMask((3, 6))}),
    A("TransformerDecoderLayer", 8, 2, dim_feedforward=16, dropout=0.0, norm_first=True, activation="gelu",
      batch_first=True, inputs=(SEQ_BF, MEM_BF), call={"tgt_mask": CAUSAL5, "tgt_is_causal": True}),
    A("TransformerDecoderLayer", 8, 2, inputs=(SEQ, MEM), modes=("eval",), call={"memory_mask": (5, 6)}),
    A("TransformerEncoder", ENC, 2, inputs=(SEQ,), call={"mask": CAUSAL5}, grad=False),
    A("TransformerEncoder", ENC, 1, L("LayerNorm", 8), inputs=(SEQ,), call={"src_key_padding_mask": BoolMask((3, 5))},
      grad=False),
    A("TransformerDecoder", DEC, 2, L("LayerNorm", 8), inputs=(SEQ, MEM), call={"tgt_mask": CAUSAL5}, grad=False),
    A("Transformer", d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16, dropout=0.0,
      inputs=(MEM, SEQ), call={"tgt_mask": CAUSAL5, "src_key_padding_mask": BoolMask((3, 6))}, grad=False),
    A("Transformer", d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0,
      batch_first=True, norm_first=True, bias=False, activation="gelu", inputs=(MEM_BF, SEQ_BF), grad=False),
]

Q4, K4, V4 = (2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 3)


# Recurrent layers: input [T, B, features] (batch_first: [B, T, ...]; unbatched [T, features]),
# an optional initial state [layers * directions, B, hidden]; the rows compare output and h_n
# (and c_n). LSTM states, packed sequences and dropout in training are compared in
# test_recurrent_layers.py (a pair of states and a PackedSequence are no plain input here).
RSEQ = (5, 2, 3)
LAYERS += [
    L("RNN", 3, 4, inputs=(RSEQ,)),
    L("RNN", 3, 4, 2, inputs=(RSEQ,)),
    L("RNN", 3, 4, nonlinearity="relu", inputs=(RSEQ,)),
    L("RNN", 3, 4, 1, "relu", inputs=(RSEQ,)),
    L("RNN", 3, 4, bias=False, inputs=(RSEQ,)),
    L("RNN", 3, 4, batch_first=True, inputs=((2, 5, 3),)),
    L("RNN", 3, 4, bidirectional=True, inputs=(RSEQ,)),
    L("RNN", 3, 4, num_layers=2, dropout=0.0, inputs=(RSEQ,)),
    Row("layer", "RNN", (3, 4), {"num_layers": 2, "dropout": 0.5}, (RSEQ,), modes=("eval",),
        note="random in train mode"),
    L("RNN", 3, 4, inputs=(RSEQ, (1, 2, 4))),
    L("RNN", 3, 4, inputs=((5, 3),)),
    L("RNN", 3, 4, inputs=((5, 3), (1, 4))),
    L("LSTM", 3, 4, inputs=(RSEQ,)),
    L("LSTM", 3, 4, 2, inputs=(RSEQ,)),
    L("LSTM", 3, 4, bias=False, inputs=(RSEQ,)),
    L("LSTM", 3, 4, batch_first=True, inputs=((2, 5, 3),)),
    L("LSTM", 3, 4, bidirectional=True, inputs=(RSEQ,)),
    L("LSTM", 3, 4, num_layers=2, bidirectional=True, inputs=(RSEQ,)),
    Row("layer", "LSTM", (3, 4), {"num_layers": 2, "dropout": 0.3}, (RSEQ,), modes=("eval",),
        note="random in train mode"),
    L("LSTM", 3, 5, proj_size=2, inputs=(RSEQ,)),
    L("LSTM", 3, 5, proj_size=3, num_layers=2, bidirectional=True, bias=False, inputs=(RSEQ,)),
    L("LSTM", 3, 4, inputs=((5, 3),)),
    L("GRU", 3, 4, inputs=(RSEQ,)),
    L("GRU", 3, 4, 2, inputs=(RSEQ,)),
    L("GRU", 3, 4, bias=False, inputs=(RSEQ,)),
    L("GRU", 3, 4, batch_first=True, bidirectional=True, inputs=((2, 5, 3),)),
    Row("layer", "GRU", (3, 4), {"num_layers": 2, "dropout": 0.5}, (RSEQ,), modes=("eval",),
        note="random in train mode"),
    L("GRU", 3, 4, 2, inputs=(RSEQ, (2, 2, 4))),
    L("GRU", 3, 4, inputs=((5, 3), (1, 4))),
    L("RNNCell", 3, 4, inputs=((2, 3),)),
    L("RNNCell", 3, 4, inputs=((2, 3), (2, 4))),
    L("RNNCell", 3, 4, nonlinearity="relu", inputs=((2, 3), (2, 4))),
    L("RNNCell", 3, 4, bias=False, inputs=((2, 3),)),
    L("RNNCell", 3, 4, inputs=((3,), (4,))),
    L("LSTMCell", 3, 4, inputs=((2, 3),)),
    L("LSTMCell", 3, 4, bias=False, inputs=((2, 3),)),
    L("LSTMCell", 3, 4, inputs=((3,),)),
    L("GRUCell", 3, 4, inputs=((2, 3),)),
    L("GRUCell", 3, 4, inputs=((2, 3), (2, 4))),
    L("GRUCell", 3, 4, bias=False, inputs=((3,), (4,))),
]

# Embedding layers: int64 indices in; padding_idx and scale_grad_by_freq change the weight's
# gradient on purpose (not the finite-difference derivative: grad=False), max_norm rescales the
# named rows of the weight in place before the lookup.
EMB_IN = Labels((3, 4), 10)
LAYERS += [
    L("Embedding", 10, 3, inputs=(EMB_IN,)),
    L("Embedding", 10, 3, inputs=(Labels((5,), 10),)),
    A("Embedding", 10, 3, padding_idx=0, inputs=(EMB_IN,), grad=False),
    A("Embedding", 10, 3, padding_idx=-1, scale_grad_by_freq=True, inputs=(EMB_IN,), grad=False),
    A("Embedding", 10, 3, max_norm=1.0, inputs=(EMB_IN,), grad=False),
    A("Embedding", 10, 3, max_norm=1.5, norm_type=1.0, inputs=(EMB_IN,), grad=False),
    Row("layer", "Embedding", (10, 3), {"sparse": True}, (EMB_IN,),
        torch="PyTorch's weight gradient is then a sparse tensor; test_embedding.py compares it densified"),
    L("EmbeddingBag", 10, 3, inputs=(EMB_IN,)),
    L("EmbeddingBag", 10, 3, mode="sum", inputs=(EMB_IN,)),
    L("EmbeddingBag", 10, 3, mode="max", inputs=(EMB_IN,)),
    A("EmbeddingBag", 10, 3, mode="sum", padding_idx=2, inputs=(EMB_IN,), grad=False),
    Row("layer", "EmbeddingBag", (10, 3), {"scale_grad_by_freq": True}, (EMB_IN,), grad=False,
        torch="PyTorch 2.13's CPU embedding_bag divides some rows by another index's count (pytorch/pytorch#190063, "
              "fixed after 2.13); test_embedding.py checks the documented rule"),
    A("EmbeddingBag", 10, 3, max_norm=1.0, inputs=(EMB_IN,), grad=False),
]

FUNCTIONALS = [
    F("relu", IMG),
    F("leaky_relu", IMG),
    F("leaky_relu", IMG, negative_slope=0.2),
    F("sigmoid", IMG),
    F("tanh", IMG),
    F("relu6", IMG),
    F("hardtanh", IMG),
    F("hardtanh", IMG, args=(-0.3, 0.6)),
    F("hardswish", IMG),
    F("hardsigmoid", IMG),
    F("mish", IMG),
    F("softmax", (4, 5), dim=1),
    F("softmax", (4, 5), dim=-1),
    F("softmax", (4, 5), dim=0),
    F("log_softmax", (4, 5), dim=1),
    F("embedding", Labels((3, 4), 6), (6, 5)),
    Row("functional", "embedding", (), {"padding_idx": 1, "scale_grad_by_freq": True}, (Labels((7,), 6), (6, 5)),
        grad=False),
    F("embedding_bag", Labels((3, 4), 6), (6, 5)),
    F("embedding_bag", Labels((3, 4), 6), (6, 5), mode="sum", padding_idx=0),
    F("cross_entropy", (6, 4), Labels((6,), 4)),
    F("cross_entropy", (6, 4), Labels((6,), 4), reduction="sum"),
    F("linear", (4, 5), (3, 5), (3,)),
    F("linear", (4, 5), (3, 5)),
    F("conv2d", IMG, (4, 3, 3, 3), (4,)),
    F("conv2d", IMG, (4, 3, 3, 3), None, stride=2, padding=1),
    F("conv2d", IMG, (4, 3, 3, 3), (4,), padding="same"),
    F("conv2d", IMG, (6, 1, 3, 3), (6,), groups=3, dilation=2),
    F("conv_transpose2d", IMG, (3, 4, 3, 3), (4,)),
    F("conv_transpose2d", IMG, (3, 2, 4, 4), None, stride=2, padding=1, output_padding=1),
    F("conv_transpose2d", IMG, (3, 2, 3, 3), (6,), stride=2, groups=3, dilation=2),
    F("conv_transpose2d", IMG, (3, 4, 3, 3), None, args=(1, 2, 1, 1, 3)),
    F("conv1d", (2, 3, 9), (4, 3, 3), (4,), stride=2, padding=1),
    F("conv1d", (3, 9), (6, 1, 3), None, padding="same", groups=3),
    F("conv_transpose1d", (2, 3, 9), (3, 4, 3), (4,), stride=2, output_padding=1),
    F("conv_transpose1d", (3, 9), (3, 2, 3), None, dilation=2, groups=3),
    F("max_pool2d", IMG, args=(2,)),
    F("max_pool2d", IMG, args=(3,), stride=2, padding=1),
    F("avg_pool2d", IMG, args=(3,), stride=2, padding=1, count_include_pad=False),
    F("avg_pool2d", IMG, args=(2,)),
    F("batch_norm", IMG, (3,), Positive((3,)), (3,), (3,), training=True, momentum=0.2, eps=1e-3),
    F("batch_norm", IMG, (3,), Positive((3,)), (3,), (3,), training=False),
    F("pad", IMG, args=((1, 2),)),
    F("pad", IMG, args=((1, 2, 0, 3),), mode="constant", value=0.5),
    F("pad", IMG, args=((2, 1, 1, 3),), mode="reflect"),
    F("pad", (3, 7), args=((-2, 5),), mode="reflect"),
    F("pad", IMG, args=((3, 0, 1, 2),), mode="replicate"),
    F("pad", (2, 3, 2, 3, 4), args=((1, 1, 2, 0, 1, 2),), mode="replicate"),
    F("pad", IMG, args=((7, 2, 0, 5),), mode="circular"),
    F("pad", IMG, args=((-1, 2, 1, 1),), mode="circular"),
    F("pixel_shuffle", (2, 12, 3, 4), args=(2,)),
    F("pixel_unshuffle", (2, 3, 6, 9), args=(3,)),
    Row("functional", "dropout2d", (), {"p": 0.4, "training": False}, (IMG,)),
    Row("functional", "dropout1d", (), {"p": 0.4, "training": False}, ((2, 3, 7),)),
    F("instance_norm", IMG),
    F("instance_norm", IMG, (3,), Positive((3,)), (3,), (3,), momentum=0.2, eps=1e-3),
    F("instance_norm", IMG, (3,), Positive((3,)), None, None, use_input_stats=False),
    F("group_norm", (2, 6, 5, 5), num_groups=3),
    F("group_norm", (2, 6, 5), num_groups=2, eps=1e-3),
    F("layer_norm", (4, 5), args=((5,),)),
    Row("functional", "layer_norm", ((3, 5),), {"eps": 1e-3}, ((2, 3, 5),),
        call_kwargs={"weight": (3, 5), "bias": (3, 5)}),
    Row("functional", "layer_norm", ([5],), {}, ((2, 4, 5),), call_kwargs={"weight": (5,)}),
    Row("functional", "layer_norm", ((5,),), {}, ((3, 5),), call_kwargs={"bias": (5,)}),
    Row("functional", "flatten", (), {"start_dim": 1}, (IMG,), torch_name="torch.flatten"),
    Row("functional", "flatten", (), {"start_dim": 0, "end_dim": 2}, (IMG,), torch_name="torch.flatten"),
    F("scaled_dot_product_attention", Q4, K4, V4),
    F("scaled_dot_product_attention", Q4, K4, V4, (5, 6)),
    F("scaled_dot_product_attention", Q4, K4, V4, (2, 1, 5, 6), scale=0.3),
    Row("functional", "scaled_dot_product_attention", (), {}, (Q4, K4, V4),
        call_kwargs={"attn_mask": BoolMask((5, 6), first=True)}),
    F("scaled_dot_product_attention", Q4, K4, V4, is_causal=True),
    F("scaled_dot_product_attention", (2, 3, 7, 4), K4, V4, is_causal=True),
    F("scaled_dot_product_attention", (2, 4, 5, 4), (2, 2, 6, 4), (2, 2, 6, 3), enable_gqa=True),
    F("scaled_dot_product_attention", Q4, (1, 3, 6, 4), (2, 1, 6, 3)),
    F("scaled_dot_product_attention", (5, 4), (6, 4), (6, 3)),
    Row("functional", "scaled_dot_product_attention", (), {"dropout_p": 0.5}, (Q4, K4, V4),
        torch="dropout masks come from each library's own generator", grad=False),
]

OPTIMIZERS = [
    O("SGD", lr=0.1),
    O("SGD", lr=0.1, momentum=0.9),
    O("SGD", lr=0.1, momentum=0.9, dampening=0.5),
    O("SGD", lr=0.1, momentum=0.9, nesterov=True),
    O("SGD", lr=0.1, momentum=0.9, weight_decay=0.01),
    O("SGD", lr=0.1, weight_decay=0.01, maximize=True),
    O("Adam", lr=0.01),
    O("Adam", lr=0.01, betas=(0.8, 0.9)),
    O("Adam", lr=0.01, eps=1e-6, weight_decay=0.01),
    O("Adam", lr=0.01, amsgrad=True),
    O("Adam", lr=0.01, maximize=True),
    O("AdamW", lr=0.01),
    O("AdamW", lr=0.01, weight_decay=0.05, amsgrad=True),
    O("RMSprop", lr=0.01),
    O("RMSprop", lr=0.01, alpha=0.9, eps=1e-6),
    O("RMSprop", lr=0.01, momentum=0.5, weight_decay=0.01),
    O("RMSprop", lr=0.01, centered=True),
    O("RMSprop", lr=0.01, momentum=0.5, centered=True, maximize=True),
    O("Adadelta"),
    O("Adadelta", lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.01),
    O("Adadelta", lr=0.3, maximize=True, foreach=False),
    O("Adagrad", lr=0.05),
    O("Adagrad", lr=0.05, lr_decay=0.1, weight_decay=0.01, initial_accumulator_value=0.3, eps=1e-6),
    O("Adagrad", lr=0.05, maximize=True, foreach=False),
    O("Adamax", lr=0.01),
    O("Adamax", lr=0.01, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.01),
    O("Adamax", lr=0.01, maximize=True),
    O("NAdam", lr=0.01),
    O("NAdam", lr=0.01, betas=(0.8, 0.9), weight_decay=0.01, momentum_decay=0.01),
    O("NAdam", lr=0.01, weight_decay=0.05, decoupled_weight_decay=True, maximize=True),
    O("RAdam", lr=0.01),
    O("RAdam", lr=0.01, betas=(0.5, 0.9), weight_decay=0.01),
    O("RAdam", lr=0.01, betas=(0.8, 0.95), weight_decay=0.05, decoupled_weight_decay=True, maximize=True),
    O("Adafactor"),
    O("Adafactor", lr=0.1, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0, weight_decay=0.01, maximize=True),
]

SCHEDULERS = [
    S("StepLR", 7, 0.5),
    S("MultiStepLR", [3, 5, 5, 20], 0.3),
    S("CosineAnnealingLR", 10, 0.001),
    S("LinearLR", 0.2, 0.9, 10),
    S("LambdaLR", lambda e: 0.95 ** e),
    S("MultiplicativeLR", lambda e: 0.9),
    S("ExponentialLR", 0.9),
    S("ConstantLR", 0.5, 4),
    S("PolynomialLR"),
    S("PolynomialLR", total_iters=12, power=2.0),
    S("PolynomialLR", total_iters=40, power=0.5),
    S("CosineAnnealingWarmRestarts", 4),
    S("CosineAnnealingWarmRestarts", T_0=3, T_mult=2, eta_min=0.001),
    S("CosineAnnealingWarmRestarts", 3, 2, 0.001, epochs=tuple(e / 4 for e in range(0, 120, 3))),
    S("CosineAnnealingWarmRestarts", 5, epochs=(0, 0.5, 2.25, 4.99, 5, 7.5, 12, 3, 20.1, 0.2)),
    S("OneCycleLR", 1.0, total_steps=30),
    S("OneCycleLR", [1.0, 0.5], total_steps=31, three_phase=True, anneal_strategy="linear"),
    S("SequentialLR", [S("LinearLR", 0.1, total_iters=5), S("CosineAnnealingLR", 20)], [5]),
    S("SequentialLR", [S("ConstantLR", 0.1, 3), S("ExponentialLR", 0.9), S("StepLR", 4)], [4, 10]),
    S("SequentialLR", [S("ChainedScheduler", [S("ConstantLR", 0.1, 3), S("ExponentialLR", 0.95)]),
                       S("PolynomialLR", 10, 2.0)], [6]),
    S("ChainedScheduler", [S("ConstantLR", 0.1, 3), S("ExponentialLR", 0.9)]),
    S("ChainedScheduler", [S("LinearLR", 0.5, total_iters=4), S("CosineAnnealingWarmRestarts", 5, 2),
                           S("MultiStepLR", [7, 12], 0.5)]),
    S("ReduceLROnPlateau"),
    S("ReduceLROnPlateau", patience=2),
    S("ReduceLROnPlateau", "max", 0.5, 1, 0.01, "abs", 2, [0.01, 0.02], 1e-3),
    S("ReduceLROnPlateau", mode="min", factor=0.3, patience=0, threshold=0.1, threshold_mode="rel", cooldown=1,
      min_lr=0.004),
    S("ReduceLROnPlateau", factor=0.0, patience=3, eps=0.0),
]

ROWS = LAYERS + FUNCTIONALS + OPTIMIZERS + SCHEDULERS
