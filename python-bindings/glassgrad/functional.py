"""Module-level functions: glassgrad.relu(x), glassgrad.conv2d(x, w), glassgrad.cross_entropy(...).

Each records one or a few nodes; shapes are checked at once, with the layer's name in errors.
"""
from __future__ import annotations

import builtins
import math
import warnings
from typing import Any, Optional, Sequence, Tuple, Union, cast


from . import _C, _args, _autocast, _dtypes, _inplace, _math, _torch_operands, _trace
from ._batchnorm import batch_norm  # PyTorch's F.batch_norm
from ._conv_rank import check_input_rank, check_layout
from ._conv_transpose import int_tuple
from ._losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, l1_loss,
                      mse_loss, nll_loss)
from ._math import abs, clamp, exp, log, maximum, minimum, pow, sigmoid, sqrt, tanh
from ._padding import pad
from ._pooling import (avg_pool2d, avg_pool_divisor, max_pool2d, max_pool2d_with_indices, max_pool_dilation, max_unpool2d,
                       on_batch_of_one, pool_arguments)
from ._reductions import argmax, max, mean, sum, var
from ._shapes import matmul, nonzero
from ._spatial import adaptive_avg_pool2d, cat, dropout, interpolate, one_hot
from ._indexing import (gather, index_add, index_fill, index_put, index_select, masked_fill,
                        masked_select, scatter, scatter_add, take_along_dim)
from ._tensor import Tensor, _op, _op_multi, check_fits, tensor

IntPair = Union[int, Sequence[int]]
_FLOATING: frozenset = _dtypes.FLOATING


def _pair(v: IntPair, name: str, where: str = "", minimum: Optional[int] = None) -> Tuple[int, int]:
    return _args.int_pair(v, name, where or name, minimum)


def _as_tensor(x, like: Optional[Tensor] = None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return tensor(x, device=like.device if like is not None else None)


# ---- elementwise ----
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0), elementwise (torch.relu, F.relu); inplace=True writes it into input (x.relu_()).
    An integer tensor stays integer (PyTorch's); a bool one is refused, as there."""
    if inplace is False:  # the default: the op alone, whose rule refuses every dtype but floats
        try:  # (the dtype read only when refused: a handle property read costs about 1.4k instructions)
            return _op("ReLU", [input])
        except _C.DTypeError:
            if input._h.dtype in _FLOATING:
                raise
    if input._h.dtype not in _FLOATING:  # input.dtype.is_floating_point, without two properties' frames
        if input.dtype == "bool":
            raise _C.UnsupportedError(f"relu: Boolean inputs not supported for relu (shape {list(input.shape)})\n"
                                      f"  fix: x.relu() of x.long(), or x itself: a bool is never negative")
        return _inplace.activation(input, inplace, "relu_", lambda: _math.clamp(input, min=0))
    return _inplace.activation(input, inplace, "relu_", lambda: _op("ReLU", [input]))


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope * x (PyTorch's F.leaky_relu; inplace=True writes into input)."""
    slope = _args.real(negative_slope, "negative_slope", "leaky_relu", as_float=True)
    return _inplace.activation(input, inplace, "leaky_relu_", lambda: _op("LeakyReLU", [input],
                                                                          {"negative_slope": slope}),
                               node="LeakyReluBackward1")


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    """x * Phi(x) (PyTorch's F.gelu); approximate='tanh' uses the tanh formula."""
    if approximate != "none" and approximate != "tanh":  # PyTorch's sentence first for a str it does not know
        fix = "approximate='tanh' for the tanh formula"
        if not isinstance(approximate, str):  # PyTorch's parser: a TypeError
            raise _args.InvalidArgumentTypeError(f"gelu(): argument 'approximate' must be str, not "
                                                 f"{type(approximate).__name__}\n  fix: {fix}")
        with _args.pytorch_says("approximate argument must be either none or tanh."):
            _args.choice(approximate, "approximate", "gelu", ("none", "tanh"), fix=fix)
    return _op("GELU" if approximate == "none" else "GELUTanh", [input])


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (PyTorch's F.silu, also called swish; inplace=True writes into input)."""
    return _inplace.activation(input, inplace, "silu_", lambda: _op("SiLU", [input]))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1) (PyTorch's F.elu; inplace=True writes into input)."""
    a = _args.real(alpha, "alpha", "elu", as_float=True)
    return _inplace.activation(input, inplace, "elu_", lambda: _op("ELU", [input], {"alpha": a}), node="EluBackward1")


def hardtanh_arguments(where: str, min_val, max_val) -> Tuple[float, float]:
    """min_val and max_val: finite numbers with min_val <= max_val (PyTorch's check)."""
    lo = _args.real(min_val, "min_val", where, fix="hardtanh(x, -1.0, 1.0)", as_float=True)
    hi = _args.real(max_val, "max_val", where, fix="hardtanh(x, -1.0, 1.0)", as_float=True)
    if lo > hi:
        raise _C.InvalidArgumentError(f"{where}: min_val cannot be greater than max_val (min_val={lo}, "
                                      f"max_val={hi})\n  fix: hardtanh(x, min_val={hi}, max_val={lo})")
    return lo, hi


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """min(max(x, min_val), max_val) (PyTorch's F.hardtanh); the gradient is zero at and beyond
    either bound. inplace=True writes it into input."""
    lo, hi = hardtanh_arguments("hardtanh", min_val, max_val)
    if not input.dtype.is_floating_point and input.dtype != "bool":  # integers stay integers, as PyTorch's
        if input.dtype == "uint8" and (lo < 0 or hi < 0):
            raise _C.InvalidArgumentError(f"hardtanh: cannot do hardtanh on an unsigned type with negative limits "
                                          f"(min_val={lo}, max_val={hi}), as in PyTorch\n  fix: x.long(), or limits >= 0")
        return _inplace.activation(input, inplace, "hardtanh_", lambda: _math.clamp(input, int(lo), int(hi)))
    for bound in (lo, hi):  # converted checked, as PyTorch's: float16's 7e4 is refused
        check_fits(bound, input.dtype, "hardtanh")
    return _inplace.activation(input, inplace, "hardtanh_", lambda: _op("HardtanhMax", [
        _op("HardtanhMin", [input], {"min_val": lo})], {"max_val": hi}))


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6) (PyTorch's F.relu6: hardtanh(x, 0, 6), the same gradient)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6 (PyTorch's F.hardswish; inplace=True writes into input)."""
    return _inplace.activation(input, inplace, "hardswish_", lambda: _op("Hardswish", [input]))


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6 (PyTorch's F.hardsigmoid; inplace=True writes into input)."""
    return _inplace.activation(input, inplace, "hardsigmoid_", lambda: _op("Hardsigmoid", [input]))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x)) (PyTorch's F.mish; inplace=True writes into input)."""
    return _inplace.activation(input, inplace, "mish_", lambda: _op("Mish", [input]))


@_autocast.op("softplus")
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (PyTorch's F.softplus)."""
    _args.floating_input(input, "softplus_cpu")
    beta, threshold = softplus_arguments("softplus", beta, threshold)
    if beta == 1.0:
        return _op("Softplus", [input], {"threshold": threshold})
    # another beta is composed; it reads as PyTorch's one node of the input (SoftplusBackward0)
    if beta == 0.0:  # PyTorch's kernel: x where 0 > threshold, else log(2) / beta, an infinity of beta's sign,
        # and its gradient sigmoid(beta * x) = 1/2 there (1 where it returns x)
        if 0.0 > threshold:
            y = _math.mul(input, 1.0)
        else:
            y = _math.add(_math.mul(input, 0.5), math.copysign(math.inf, beta))
    else:
        y = _math.mul(_op("Softplus", [_math.mul(input, beta)], {"threshold": threshold}), 1.0 / beta)
    return _torch_operands.named_node(y, "SoftplusBackward0", input)


def softplus_arguments(where: str, beta, threshold) -> Tuple[float, float]:
    """beta and threshold: finite numbers (beta 0 is PyTorch's division by zero, infinities)."""
    beta = _args.real(beta, "beta", where, fix="beta=1.0")
    return beta, _args.real(threshold, "threshold", where, fix="threshold=20.0", as_float=True)


def where(condition: Tensor, input=None, other=None):
    """torch.where: input where condition holds, else other (numbers or tensors, broadcast, in
    result_type(input, other)); where(condition) alone is nonzero(condition, as_tuple=True)."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    a, b, dev = _math._operands(input, other)
    dev = dev or condition.device  # two numbers: the result lives where the condition does
    dt = _dtypes.result_type(a, b)
    if condition.dtype == "uint8":
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=_trace.user_stacklevel())
    elif condition.dtype != "bool":
        raise _C.UnsupportedError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                                  f"{_inplace._type_name(condition.dtype)}\n  where: the condition is "
                                  f"{condition.dtype} of shape {list(condition.shape)}, as PyTorch refuses it\n"
                                  f"  fix: torch.where(condition != 0, input, other)")
    for x in (a, b):
        if not isinstance(x, Tensor):  # a number converts checked, as PyTorch's: int8's 300 is refused
            check_fits(x, dt, "where", narrow_floats=False)  # float16's 7e4 is inf, as PyTorch's
    cond = condition if condition.dtype == "bool" else condition.astype("bool")
    return _op("Where", [cond, _math.as_operand(a, dt, dev), _math.as_operand(b, dt, dev)])


# ---- shapes ----
def reshape(input: Tensor, shape) -> Tensor:
    """input with a new shape, the same elements in row-major order; -1 infers one size (torch.reshape)."""
    return input.reshape(shape)


def flatten(x: Tensor, start_dim: int = 1, end_dim: int = -1) -> Tensor:
    """Flattens dims start_dim..end_dim. The default start_dim=1 keeps the batch axis
    ([N, C, H, W] -> [N, C*H*W]), as the seed's script expects (and like nn.Flatten)."""
    return x.flatten(start_dim, end_dim)


# ---- layers as functions ----
@_autocast.op("linear")
def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """y = input @ weight.T + bias, weight [out_features, in_features]; input [*, in_features],
    also one unbatched sample [in_features] (then y is [out_features]), as PyTorch's. A 1-d
    weight [in_features] gives y [*] (matmul's matrix-vector product, as PyTorch's), which takes a
    bias only when it is 0-d and the input is not a matrix (PyTorch's addmm refuses the others)."""
    integral = input._h.dtype not in _FLOATING  # matmul multiplies integer matrices
    ndim = len(input._h.shape)  # (read once: each read is a call)
    # weight.t() (_shapes.t of a matrix, written out), PyTorch's TBackward0 node, for the matrix
    # weight linear takes (the same view as .T)
    wdim = len(weight._h.shape)
    weight_t = (weight.permute(list(range(wdim))[::-1]) if wdim != 2
                else _op("Permute", [weight], {"dims": [1, 0], "torch_node": "TBackward0"}))
    vector = wdim == 1  # the MatMul op takes matrices: matmul multiplies by a vector
    y = matmul(input, weight_t) if ndim == 1 or integral or vector else _op("MatMul", [input, weight_t])
    if bias is None:
        return y
    if vector and (ndim == 2 or len(bias._h.shape) != 0):  # PyTorch adds only a 0-d bias, to a 1-d or >= 3-d input
        raise _C.ShapeError(f"mat2 must be a matrix, got 1-D tensor\n  linear: a 1-d weight {list(weight.shape)} with "
                            f"input {list(input.shape)} and bias {list(bias.shape)}\n  fix: weight.unsqueeze(0) "
                            f"(one output feature), or add the bias after F.linear(x, w)")
    # PyTorch's node (Tensor.grad_fn): addmm's for a matrix input, whose operands are (bias, input,
    # weight.T) (torch_operands: _GradFn._composite_inputs), else the view of addmm's result
    if ndim == 2 and not integral and not vector:
        return _op("Add", [y, bias], {"torch_node": "AddmmBackward0", "torch_operands": [1, -1, 0, 0, -1, 0, 1]})
    return _op("Add", [y, bias], {"torch_node": "AddmmBackward0" if ndim == 2 else "ViewBackward0"})


@_autocast.op("layer_norm")
def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias over the trailing axes normalized_shape, with
    the biased variance (PyTorch's F.layer_norm). One LayerNorm op with its own kernels; the
    op's shape rule checks the input against normalized_shape, weight and bias."""
    where = "layer_norm"
    if not isinstance(normalized_shape, (tuple, list)):
        _args.fail(where, "normalized_shape", "a tuple or list of ints", normalized_shape,
                   fix=f"layer_norm(x, ({normalized_shape!r},))", type_error=True)
    sizes = [_args.integer(d, "normalized_shape", where, minimum=0) for d in normalized_shape]
    if not sizes:
        _args.fail(where, "normalized_shape", "at least one size (the trailing axes to normalize)", normalized_shape,
                   fix="layer_norm(x, x.shape[-1:])")
    attrs = {"normalized_shape": sizes, "eps": _args.real(eps, "eps", where, minimum=0.0, fix="eps=1e-5"),
             "weight": weight is not None, "bias": bias is not None}
    inputs = [input] + [t for t in (weight, bias) if t is not None]
    return _op_multi("LayerNorm", inputs, attrs)[0]


def conv_padding(padding, kernel: Tuple[int, ...], stride: Tuple[int, ...], hw: Tuple[int, ...]):
    """[top, bottom, left, right] for padding given as an int, a pair, 'valid' or 'same'
    (kernel: the window's extent, dilation * (size - 1) + 1).

    'same' keeps H (its callers refuse a stride other than 1, as PyTorch does): total padding
    k - 1, the extra row (if odd) at the bottom/right, as PyTorch does."""
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            return [0, 0, 0, 0]
        if mode == "same":
            pads = []
            for k, s, n in zip(kernel, stride, hw):
                out = -(-n // s)
                total = builtins.max((out - 1) * s + k - n, 0)  # this module's max is the tensor op
                pads += [total // 2, total - total // 2]
            return [pads[0], pads[1], pads[2], pads[3]]
        raise _C.InvalidArgumentError(f"padding must be an int, a pair, 'same' or 'valid', got '{padding}'\n"
                                      f"  fix: padding='same' keeps the spatial size (stride 1)")
    ph, pw = _pair(padding, "padding", "conv2d", minimum=0)
    return [ph, ph, pw, pw]


# PyTorch's ConvolutionBackward0 lists (input, weight, bias), (None, 0) for an absent bias
_CONV_WITHOUT_BIAS = _torch_operands.WITHOUT_THIRD

# conv2d's attrs by the ids of (stride, padding, dilation, groups) (_args.remember)
_CONV2D_ATTRS: dict = {}


def _conv2d_attrs(input: Tensor, weight: Tensor, stride, padding, dilation, groups) -> dict:
    """The Conv2D node's attrs, each argument checked as PyTorch's conv2d checks it."""
    check_layout("conv2d", 2, input, weight, stride=stride, padding=padding, dilation=dilation)
    s = cast(Tuple[int, int], int_tuple(stride, 2, "stride", "conv2d", minimum=1))
    d = cast(Tuple[int, int], int_tuple(dilation, 2, "dilation", "conv2d", minimum=1))
    groups = _args.integer(groups, "groups", "conv2d", minimum=1)
    if isinstance(padding, str):  # only 'same' reads the input's H and W and the kernel's extent
        if padding == "same" and s != (1, 1):  # PyTorch's RuntimeError (conv1d's stride is (1, s) here)
            raise _C.InvalidArgumentError(f"conv2d: padding='same' is not supported for strided convolutions "
                                          f"(stride {s})\n  fix: stride=1, or an explicit padding")
        hw = tuple(input.shape[-2:]) if input.ndim >= 2 else (0, 0)
        extent = tuple(dd * (k - 1) + 1 for dd, k in zip(d, tuple(weight.shape[-2:])))
        pad = conv_padding(padding, extent, s, hw)
    else:
        ph, pw = int_tuple(padding, 2, "padding", "conv2d", minimum=0)
        pad = [ph, ph, pw, pw]
    attrs = {"stride": list(s), "padding": pad}
    if d != (1, 1):
        attrs["dilation"] = list(d)
    if groups != 1:
        attrs["groups"] = groups
    return attrs


@_autocast.op("conv2d")
def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntPair = 1,
           padding: Union[IntPair, str] = 0, dilation: IntPair = 1, groups: int = 1) -> Tensor:
    """2-D convolution as PyTorch's: NCHW input [N, C, H, W] (or one unbatched [C, H, W]), weight [K, C / groups, R, S],
    optional bias [K]. dilation spaces the kernel taps (a 3x3 kernel with dilation 2 spans 5x5);
    groups splits the channels into independent convolutions (groups = C: depthwise). The
    engine's shape rule checks every argument against the shapes."""
    # A layer's arguments are the same objects every call: their attrs, checked once (_args.remember).
    # Each entry holds the attrs and, for a recorded call without bias, the same with PyTorch's
    # operands; both dicts are shared by every call with those arguments, never mutated.
    known = _CONV2D_ATTRS.get((id(stride), id(padding), id(dilation), id(groups)))
    if isinstance(weight, Tensor) and len(weight._h.shape) != 4:  # known arguments, a weight of another rank
        check_layout("conv2d", 2, input, weight, stride=stride, padding=padding, dilation=dilation)
    if known is not None:
        attrs, tracked = known[1]
    else:
        attrs = _conv2d_attrs(input, weight, stride, padding, dilation, groups)
        tracked = {**attrs, "torch_operands": _CONV_WITHOUT_BIAS}
        if not isinstance(padding, str):  # 'same' depends on the input's size
            _args.remember(_CONV2D_ATTRS, (stride, padding, dilation, groups), (attrs, tracked))
    rest = [weight] if bias is None else [weight, bias]
    if bias is None and _C.grad_enabled() and ((isinstance(weight, Tensor) and weight._h.requires_grad)
                                               or (isinstance(input, Tensor) and input._h.requires_grad)):
        attrs = tracked
    if isinstance(input, Tensor):
        shape = input._h.shape
        if len(shape) != 4:
            check_input_rank(shape, 2, "conv2d")
        if len(shape) == 3:  # on_batch_of_one, written out (every conv of every step)
            return cast(Any, _op("Conv2D", [cast(Any, input).unsqueeze(0)] + rest, attrs)).squeeze(0)
        if len(shape) == 4 and not shape[0]:  # the kernels' rules want a batch >= 1 (_empty_batch.py)
            from ._empty_batch import empty_batch_result
            y = _op("Conv2D", [input] + rest, attrs)  # (its shape rule checks the arguments)
            return empty_batch_result(y._h.shape, y, input, weight, bias)
    return _op("Conv2D", [input] + rest, attrs)


def softmax(input: Tensor, dim: int = -1, dtype=None) -> Tensor:
    """softmax along dim (glassgrad's default dim=-1; F.softmax has PyTorch's implicit dim), after
    converting to dtype when given (torch.softmax(x, dim, dtype=...))."""
    return input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int = -1, dtype=None) -> Tensor:
    """log_softmax along dim (glassgrad's default dim=-1; F.log_softmax has PyTorch's implicit dim),
    after converting to dtype when given."""
    return input.log_softmax(dim, dtype=dtype)
