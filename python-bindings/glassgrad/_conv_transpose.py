"""Transposed convolutions and 1-d convolutions, as functions with torch.nn.functional's names:
conv_transpose2d, conv_transpose1d, conv1d.

A transposed convolution is the adjoint of a convolution: conv_transpose2d(x, w) is the input
gradient of the convolution by w of an image of the transposed convolution's output size, whose
output has x's size. So it records Conv2DBackwardInput (attribute transposed=true, which words
the shape rule's checks for it), and the engine's gradient rules give its gradients: the input's
is Conv2D(g, w), the weight's Conv2DBackwardWeight(g, x) (autodiff-engine/src/ops/conv.cpp).
PyTorch's weight layout [in_channels, out_channels / groups, kh, kw] is Conv2D's [K, C/G, R, S].

Output size along an axis (PyTorch's):
    out = (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1
The convolution whose adjoint this is pads `padding` on both sides and must map `out` back to
`in`: (out + 2 padding - dilation (kernel - 1) - 1) // stride + 1 = in holds when output_padding
< stride. PyTorch also allows output_padding < dilation; the extra output rows then come from a
bottom/right padding smaller by t = output_padding - stride + 1 (the rows it uncovers receive
taps like any other). When t > padding, the rows past output_padding' = padding + stride - 1
lie beyond every input's last tap, (in - 1) * stride - padding + dilation * (kernel - 1): they
are zeros (plus the bias), appended by a constant pad. docs/transposed-convolution.md derives it.

The 1-d forms run on the 2-d ops with a unit height: (N, C, L) is (N, C, 1, L).
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from . import _C, _args, _autocast
from ._conv_rank import check_input_rank, check_layout
from ._padding import pad
from ._tensor import Tensor, _op, _wrap
from ._torch_operands import WITHOUT_THIRD, named_node, node_attrs

IntTuple = Union[int, Sequence[int]]


# PyTorch's convolutions' sentences for an argument out of range (the layers keep their arguments
# as given, so a layer's call says them: docs/porting.md)
_OUT_OF_RANGE = {"stride": "non-positive stride is not supported", "padding": "negative padding is not supported",
                 "output_padding": "negative output_padding is not supported",
                 "dilation": "dilation should be greater than zero"}


def _ints(value, n: int, name: str, where: str) -> Tuple[int, ...]:
    if n == 2:
        return _args.int_pair(value, name, where)
    if isinstance(value, (tuple, list)):
        if len(value) != n:
            _args.fail(where, name, f"an int or a tuple of {n} int{'s' if n > 1 else ''}", value)
        return tuple(_args.integer(v, name, where) for v in value)
    return (_args.integer(value, name, where),) * n


def int_tuple(value, n: int, name: str, where: str, minimum: Optional[int] = None) -> Tuple[int, ...]:
    """An int, or a tuple/list of n ints, each >= minimum (PyTorch's _single/_pair arguments); one
    below it is refused with PyTorch's sentence first where it has one (_OUT_OF_RANGE)."""
    values = _ints(value, n, name, where)
    if minimum is not None and min(values, default=minimum) < minimum:
        sentence = _OUT_OF_RANGE.get(name, f"{name} must be at least {minimum}")
        got = f", but got {list(values)}" if name == "dilation" else ""
        raise _C.InvalidArgumentError(f"{where}: {sentence}{got}\n  cause: {name}={value!r}: each must be an int >= "
                                      f"{minimum}\n  fix: {name}={minimum}")
    return values


def check_kernel(where: str, kernel: Sequence[int]) -> None:
    """A weight with an empty kernel (a layer built with kernel_size 0, as PyTorch builds it):
    PyTorch's RuntimeError for the convolution."""
    if min(kernel, default=1) < 1:
        raise _C.InvalidArgumentError(f"{where}: kernel size should be greater than zero, but got {list(kernel)}\n"
                                      f"  cause: the weight's kernel has no taps (a layer built with kernel_size 0)\n"
                                      f"  fix: kernel_size=3 (any size >= 1)")


def layer_tuple(value, n: int, name: str, where: str) -> Tuple[int, ...]:
    """A convolution layer's argument as PyTorch's _single/_pair/_triple keep it: an int n times, a
    tuple or list of n ints; one of another length is kept as given (nn.Conv1d(c, c, (1, 2)) holds
    a 4-d weight), and the layer's call refuses it as PyTorch's (_conv_rank.check_arguments)."""
    if isinstance(value, (tuple, list)) and len(value) != n:
        return tuple(_args.integer(v, name, where) for v in value)
    return int_tuple(value, n, name, where)


def transposed_output_size(size: int, kernel: int, stride: int, padding: int, dilation: int,
                           output_padding: int) -> int:
    """(size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1."""
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


def check_output_padding(where: str, output_padding, stride, dilation) -> None:
    """PyTorch's rule: each output_padding smaller than its stride or its dilation."""
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        names = ("depth", "height", "width")[3 - len(stride):]
        got = ", ".join(f"output_padding_{n}: {op} stride_{n}: {s} dilation_{n}: {d}"
                        for n, op, s, d in zip(names, output_padding, stride, dilation))
        raise _C.InvalidArgumentError(f"{where}: output padding must be smaller than either stride or dilation, but "
                                      f"got {got}\n  fix: output_padding=0, or a stride larger than it (output_padding "
                                      f"only picks among the {tuple(stride)} output sizes a stride allows)")


def output_padding_for(where: str, output_size, input_hw: Sequence[int], stride, padding, kernel, dilation,
                       batched: bool) -> Tuple[int, ...]:
    """nn.ConvTransposeNd.forward(input, output_size): the output_padding that gives output_size
    (its spatial sizes, or with the batch and channel dims in front), within PyTorch's valid range
    [min, min + stride - 1] per axis."""
    n = len(stride)
    sizes = list(output_size)
    lead = 2 if batched else 1
    if len(sizes) == n + lead:
        sizes = sizes[lead:]
    if len(sizes) != n:
        raise _C.InvalidArgumentError(f"{where}: for {n + lead}D input, output_size must have {n} or {n + lead} "
                                      f"elements (got {len(sizes)})\n  fix: output_size={list(input_hw)} style: the "
                                      f"spatial sizes")
    mins = [transposed_output_size(i, k, s, p, d, 0)
            for i, k, s, p, d in zip(input_hw, kernel, stride, padding, dilation)]
    maxs = [m + s - 1 for m, s in zip(mins, stride)]
    if any(not (lo <= int(v) <= hi) for v, lo, hi in zip(sizes, mins, maxs)):
        raise _C.InvalidArgumentError(f"{where}: requested an output size of {list(output_size)}, but valid sizes "
                                      f"range from {mins} to {maxs} (for an input of {list(input_hw)})\n"
                                      f"  fix: output_size within that range, or change stride/padding")
    return tuple(int(v) - m for v, m in zip(sizes, mins))


def _geometry_padding(padding: int, stride: int, output_padding: int) -> Tuple[int, int, int]:
    """(top, bottom) padding of the convolution whose input gradient has the transposed output's
    size, and the rows appended as zeros after it: `padding` on top, and at the bottom less by
    t = output_padding - stride + 1 when output_padding >= stride; when t > padding, the bottom
    padding is 0 and the output_padding - (padding + stride - 1) last rows, which no tap reaches,
    are appended (see the module doc)."""
    t = max(0, output_padding - stride + 1)
    if t <= padding:
        return padding, padding - t, 0
    return padding, 0, t - padding


@_autocast.op("conv_transpose2d")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntTuple = 1,
                     padding: IntTuple = 0, output_padding: IntTuple = 0, groups: int = 1,
                     dilation: IntTuple = 1) -> Tensor:
    """torch.nn.functional.conv_transpose2d: input (N, C_in, H, W) or (C_in, H, W), weight
    [C_in, C_out / groups, kh, kw], optional bias [C_out] -> (N, C_out, H_out, W_out) (see the
    module doc for H_out)."""
    where = "conv_transpose2d"
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        _args.fail(where, "input and weight", "glassgrad.Tensors", input if not isinstance(input, Tensor) else weight,
                   type_error=True)
    check_layout(where, 2, input, weight, stride=stride, padding=padding, output_padding=output_padding,
                 dilation=dilation)
    s = int_tuple(stride, 2, "stride", where, minimum=1)
    p = int_tuple(padding, 2, "padding", where, minimum=0)
    op = int_tuple(output_padding, 2, "output_padding", where, minimum=0)
    d = int_tuple(dilation, 2, "dilation", where, minimum=1)
    groups = _args.integer(groups, "groups", where, minimum=1)
    check_output_padding(where, op, s, d)
    check_input_rank(input.shape, 2, where)
    if input.ndim == 3:  # unbatched (C_in, H, W)
        return conv_transpose2d(input.unsqueeze(0), weight, bias, s, p, op, groups, d).squeeze(0)
    attrs = {"stride": list(s), "transposed": True}
    if d != (1, 1):
        attrs["dilation"] = list(d)
    if groups != 1:
        attrs["groups"] = groups
    if input.ndim != 4 or weight.ndim != 4:  # the rule refuses the ranks, worded for the op
        return _op("Conv2DBackwardInput", [input, weight], dict(attrs, input_shape=[1, 1, 1, 1]))
    n, _, h, w = input.shape
    kh, kw = weight.shape[2:]
    out_h = transposed_output_size(h, kh, s[0], p[0], d[0], op[0])
    out_w = transposed_output_size(w, kw, s[1], p[1], d[1], op[1])
    if out_h < 1 or out_w < 1:
        raise _C.ShapeError(f"{where}: Given input size per channel: ({h} x {w}). Calculated output size per "
                            f"channel: ({out_h} x {out_w}). Output size is too small\n  input:  {list(input.shape)}"
                            f"\n  weight: {list(weight.shape)}  stride {s}, padding {p}, dilation {d}\n  fix: less "
                            f"padding, or a larger input or kernel")
    if n == 0:  # the op's rule wants a batch >= 1: the empty output, zero gradients (_empty_batch.py)
        from ._empty_batch import empty_batch_result
        if bias is not None and (not isinstance(bias, Tensor) or tuple(bias.shape) != (weight.shape[1] * groups,)):
            return conv_transpose2d(input[:1], weight, bias, s, p, op, groups, d)  # (raises the bias's error)
        return empty_batch_result((0, weight.shape[1] * groups, out_h, out_w), input, input, weight, bias)
    top, bottom, extra_h = _geometry_padding(p[0], s[0], op[0])
    left, right, extra_w = _geometry_padding(p[1], s[1], op[1])
    attrs["padding"] = [top, bottom, left, right]
    attrs["input_shape"] = [n, weight.shape[1] * groups, out_h - extra_h, out_w - extra_w]
    if bias is None and not (extra_h or extra_w) and (input._h.requires_grad or weight._h.requires_grad):
        attrs["torch_operands"] = WITHOUT_THIRD  # PyTorch's node lists (input, weight, None)
    y = _op("Conv2DBackwardInput", [input, weight], attrs)
    if extra_h or extra_w:  # rows and columns no tap reaches
        y = pad(y, (0, extra_w, 0, extra_h))
    if bias is None:
        return y
    if not isinstance(bias, Tensor) or tuple(bias.shape) != (weight.shape[1] * groups,):
        got = list(bias.shape) if isinstance(bias, Tensor) else type(bias).__name__
        raise _C.ShapeError(f"{where}: the bias must have shape [{weight.shape[1] * groups}] (one value per output "
                            f"channel), got {got}\n  weight: {list(weight.shape)}  (in_channels, out_channels / "
                            f"groups, kh, kw)\n  fix: create the bias with shape [{weight.shape[1] * groups}]")
    b = bias.reshape(-1, 1, 1)
    return _op("Add", [y, b], node_attrs("ConvolutionBackward0", [y, b], input, weight, bias))


def _input_2d(x: Tensor, where: str) -> Tuple[Tensor, bool]:
    """A 1-d convolution's (N, C, L) or (C, L) input as (N, C, 1, L); and whether it was batched.
    (The 2-d op sees the unit height, so the rank is checked here, worded for 1-d.)"""
    check_input_rank(x.shape, 1, where)
    return (x if x.ndim == 3 else x.unsqueeze(0)).unsqueeze(2), x.ndim == 3


def _weight_2d(w: Tensor, where: str) -> Tensor:
    """A 1-d convolution's weight [a, b, k] as [a, b, 1, k]."""
    if w.ndim != 3:
        raise _C.ShapeError(f"{where}: expected a 3-d weight (out or in channels, channels / groups, k), got "
                            f"{w.ndim}-d {list(w.shape)}\n  fix: w.reshape(a, b, k)")
    return w.unsqueeze(2)


@_autocast.op("conv_tbc")
def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """torch.nn.functional.conv_tbc: a 1-d convolution in (time, batch, channels) layout: input
    (T, B, C_in), weight (k, C_in, C_out), bias (C_out), `pad` steps of zeros at both ends; the
    output (T + 2 pad - k + 1, B, C_out). It is conv1d on the permuted tensors."""
    where = "conv_tbc"
    for i, (name, t) in enumerate((("input", input), ("weight", weight), ("bias", bias))):
        if not isinstance(t, Tensor):  # PyTorch's bias is no optional argument
            raise TypeError(f"conv_tbc(): argument '{name}' (position {i + 1}) must be Tensor, not "
                            f"{type(t).__name__}\n  fix: conv_tbc(x, w, glassgrad.zeros(w.shape[2]), pad) for no bias")
    if input.ndim != 3 or weight.ndim != 3 or bias.ndim != 1:
        raise _C.ShapeError(f"{where}: expected input (T, B, C_in), weight (k, C_in, C_out) and bias (C_out), got "
                            f"{list(input.shape)}, {list(weight.shape)} and {list(bias.shape)}\n  fix: "
                            f"conv_tbc(x, w, b, pad) with x.shape[2] == w.shape[1] and b.shape[0] == w.shape[2]")
    pad = int_tuple(pad, 1, "pad", where, minimum=0)[0]
    y = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return named_node(y.permute(2, 0, 1), "ConvTbcBackward0", input, weight, bias)  # PyTorch's one node


@_autocast.op("conv1d")
def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntTuple = 1,
           padding: Union[IntTuple, str] = 0, dilation: IntTuple = 1, groups: int = 1) -> Tensor:
    """torch.nn.functional.conv1d: input (N, C_in, L) or (C_in, L), weight [C_out, C_in / groups,
    k], padding an int, (p,), 'same' or 'valid'; the Conv2D op with a unit height."""
    from .functional import conv2d
    where = "conv1d"
    check_layout(where, 1, input, weight, stride=stride, padding=padding, dilation=dilation)
    x, batched = _input_2d(input, where)
    w = _weight_2d(weight, where)
    (s,), (d,) = int_tuple(stride, 1, "stride", where, minimum=1), int_tuple(dilation, 1, "dilation", where, minimum=1)
    pad = padding if isinstance(padding, str) else (0, int_tuple(padding, 1, "padding", where, minimum=0)[0])
    y = _unit_height_removed(conv2d(x, w, bias, (1, s), pad, (1, d), groups), x, weight, bias)
    return y if batched else y.squeeze(0)


@_autocast.op("conv_transpose1d")
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntTuple = 1,
                     padding: IntTuple = 0, output_padding: IntTuple = 0, groups: int = 1,
                     dilation: IntTuple = 1) -> Tensor:
    """torch.nn.functional.conv_transpose1d: input (N, C_in, L) or (C_in, L), weight
    [C_in, C_out / groups, k]; conv_transpose2d with a unit height."""
    where = "conv_transpose1d"
    check_layout(where, 1, input, weight, stride=stride, padding=padding, output_padding=output_padding,
                 dilation=dilation)
    x, batched = _input_2d(input, where)
    w = _weight_2d(weight, where)
    one = lambda v, name, m: (1 if name != "output_padding" else 0,) + int_tuple(v, 1, name, where, m)  # noqa: E731
    y = conv_transpose2d(x, w, bias, one(stride, "stride", 1), (0,) + int_tuple(padding, 1, "padding", where, 0),
                         one(output_padding, "output_padding", 0), groups, one(dilation, "dilation", 1))
    y = _unit_height_removed(y, x, weight, bias)
    return y if batched else y.squeeze(0)


def _unit_height_removed(y: Tensor, x: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
    """A 1-d convolution's (N, C, 1, L) result as (N, C, L), recorded as PyTorch's one node
    ConvolutionBackward0 of (input, weight, bias): x is the (N, C, 1, L) input, whose input is
    the (N, C, L) one."""
    shape = [y.shape[0], y.shape[1], y.shape[3]]
    if not y._h.requires_grad:
        return _op("Reshape", [y], {"shape": shape})
    below = x._h.producer_inputs  # empty for a view recorded without its op (of a tensor needing no grad)
    operand = _wrap(below[0]) if below else None
    return _op("Reshape", [y], {"shape": shape, **node_attrs("ConvolutionBackward0", [y], operand, weight, bias)})
