"""2-D max and average pooling (PyTorch's F.max_pool2d and F.avg_pool2d) and the checks of their
arguments that the pooling layers (nn/layers.py) share. The family's attributes and their
defaults are read once by the engine's geometry (families/pool.h, docs/architecture.md)."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union, cast

from . import _C, _args, _autocast
from ._integer_pooling import INTEGRAL, integer_average, integer_max
from ._pool_indices import max_unpool, window_max_pool2d
from ._torch_operands import named_node
from ._tensor import Tensor, _op

IntPair = Union[int, Sequence[int]]


def pool_arguments(where: str, kernel_size, stride, padding):
    """(kernel, stride, padding) pairs for the pooling functions and layers, checked as PyTorch
    does: kernel and stride >= 1 (stride None or []: the kernel), padding >= 0 and at most half
    the kernel (a window that sees only padding has no value)."""
    k = _args.int_pair(kernel_size, "kernel_size", where, minimum=1)
    s = _args.int_pair(stride, "stride", where, minimum=1) if stride is not None and stride != [] else k
    p = _args.int_pair(padding, "padding", where, minimum=0)
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:  # PyTorch's sentence first, for the first dim too large
        d = 0 if p[0] > k[0] // 2 else 1
        raise _C.InvalidArgumentError(f"{where}: pad should be at most half of effective kernel size, but got "
                                      f"pad={p[d]}, kernel_size={k[d]} and dilation=1\n  cause: padding {p} must be "
                                      f"at most half the kernel size {k}\n"
                                      f"  fix: padding <= {(k[0] // 2, k[1] // 2)}, or a larger kernel")
    return k, s, p


def _pool_attrs(where: str, kernel_size: IntPair, stride: Optional[IntPair], padding: IntPair, ceil_mode) -> dict:
    k, s, p = pool_arguments(where, kernel_size, stride, padding)
    attrs: dict = {"kernel": list(k), "stride": list(s), "padding": list(p)}
    if _args.flag(ceil_mode, "ceil_mode", where):
        attrs["ceil_mode"] = True
    return attrs


def max_pool_dilation(where: str, dilation) -> Tuple[int, int]:
    """Max pooling's dilation pair, each >= 1 (for max_pool2d and MaxPool2d, which checks when it
    is built)."""
    return _args.int_pair(dilation, "dilation", where, minimum=1)


def avg_pool_divisor(where: str, divisor_override) -> Optional[int]:
    """divisor_override: None (divide by the window's size) or an int >= 1 (for avg_pool2d and
    AvgPool2d, which checks when it is built)."""
    if divisor_override is None:
        return None
    return _args.integer(divisor_override, "divisor_override", where, minimum=1,
                         fix="divisor_override=None divides by the window's size")


def on_batch_of_one(input: Tensor, run) -> Tensor:
    """run(input) on a batch [N, C, H, W]; an unbatched [C, H, W] input runs as a batch of one and
    comes back unbatched, as PyTorch's 2-d convolutions and poolings take it."""
    if isinstance(input, Tensor) and input.ndim == 3:
        return run(cast(Any, input).unsqueeze(0)).squeeze(0)  # (Tensor's methods are attached at import)
    return run(input)


def nonempty_planes(input, where: str, spatial: int = 2) -> None:
    """PyTorch's poolings take an empty batch only: a (N, C, *spatial) input with C or a spatial
    size zero, or an unbatched (C, *spatial) one with any size zero, is its RuntimeError (0
    channels included; the words are its 2-d poolings' and its 3-d ones')."""
    shape = list(input._h.shape) if isinstance(input, Tensor) else []
    if len(shape) not in (spatial + 1, spatial + 2) or 0 not in shape[-spatial - 1:]:
        return
    if spatial == 2:
        cause = f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{shape}"
    else:
        empty = shape[-spatial - 1:].index(0)
        cause = (f"{where}(): Expected input's non-batch dimensions to have positive length, but input has a shape "
                 f"of {shape} and non-batch dimension {empty} has length zero!")
    raise _C.ShapeError(f"{where}: {cause}\n  only the batch (N of (N, C, ...)) may be empty\n"
                        f"  fix: give the input at least one channel and nonempty spatial sizes")


# max_pool2d's attrs (without indices or dilation) by the ids of its arguments (_args.remember)
_MAX_POOL2D_ATTRS: dict = {}


def max_pool2d(input: Tensor, kernel_size: IntPair, stride: Optional[IntPair] = None, padding: IntPair = 0,
               dilation: IntPair = 1, ceil_mode: bool = False, return_indices: bool = False):
    """Max pooling (PyTorch's F.max_pool2d); stride defaults to the kernel size (so
    max_pool2d(input, 2) halves H and W); ceil_mode keeps the last, partial windows. With
    return_indices, (values, int64 indices of each maximum in its input plane), which
    max_unpool2d takes; dilation and indices run by window tables (docs/pooling.md)."""
    nonempty_planes(input, "max_pool2d")
    if isinstance(input, Tensor) and input._h.dtype in INTEGRAL:
        return integer_max(input, "max_pool2d", lambda x: max_pool2d(x, kernel_size, stride, padding, dilation,
                                                                     ceil_mode, return_indices))
    # The same argument objects as an earlier call (a layer's, or literals): its attrs (_args.remember).
    known = _MAX_POOL2D_ATTRS.get((id(kernel_size), id(stride), id(padding), id(dilation), id(ceil_mode),
                                   id(return_indices)))
    if known is not None:
        attrs = known[1]
    else:
        d = max_pool_dilation("max_pool2d", dilation)
        indexed = _args.switch(return_indices)
        if indexed or d != (1, 1):
            values, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
            values = named_node(values, "MaxPool2DWithIndicesBackward0", input)  # PyTorch's one node of the input
            return (values, indices) if indexed else values
        attrs = _pool_attrs("max_pool2d", kernel_size, stride, padding, ceil_mode)
        _args.remember(_MAX_POOL2D_ATTRS, (kernel_size, stride, padding, dilation, ceil_mode, return_indices), attrs)
    if isinstance(input, Tensor) and len(input._h.shape) == 3:  # on_batch_of_one, written out (every step's pools)
        return cast(Any, _op("MaxPool2D", [cast(Any, input).unsqueeze(0)], attrs)).squeeze(0)
    return _op("MaxPool2D", [input], attrs)


def max_pool2d_with_indices(input: Tensor, kernel_size: IntPair, stride: Optional[IntPair] = None,
                            padding: IntPair = 0, dilation: IntPair = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """F.max_pool2d_with_indices: (values, indices) whatever return_indices says, as PyTorch's."""
    nonempty_planes(input, "max_pool2d")
    k, s, p = pool_arguments("max_pool2d", kernel_size, stride, padding)
    d = max_pool_dilation("max_pool2d", dilation)
    return window_max_pool2d(input, k, s, p, d, _args.flag(ceil_mode, "ceil_mode", "max_pool2d"))


@_autocast.op("max_unpool2d")
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: IntPair, stride: Optional[IntPair] = None,
                 padding: IntPair = 0, output_size: Optional[Sequence[int]] = None) -> Tensor:
    """F.max_unpool2d: each value of a max pooling's output back at its index, zeros elsewhere;
    output_size (H, W) or (N, C, H, W) picks among the sizes that pool to input's."""
    k, s, p = pool_arguments("max_unpool2d", kernel_size, stride, padding)
    return max_unpool("max_unpool2d", input, indices, k, s, p, output_size)


def avg_pool2d(input: Tensor, kernel_size: IntPair, stride: Optional[IntPair] = None, padding: IntPair = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
    """Average pooling (PyTorch's F.avg_pool2d, same argument order and divisors); int64 input
    averages in integers, truncated (_integer_pooling.py)."""
    nonempty_planes(input, "avg_pool2d")
    if isinstance(input, Tensor) and not input.is_floating_point():
        return integer_average(input, "avg_pool2d", lambda x: avg_pool2d(
            x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override))
    attrs = _pool_attrs("avg_pool2d", kernel_size, stride, padding, ceil_mode)
    attrs["count_include_pad"] = _args.flag(count_include_pad, "count_include_pad", "avg_pool2d")
    if divisor_override is not None:
        attrs["divisor_override"] = avg_pool_divisor("avg_pool2d", divisor_override)
    return on_batch_of_one(input, lambda x: _op("AvgPool2D", [x], attrs))
