"""1-D pooling and adaptive max pooling with torch.nn.functional's names, arguments and defaults:
max_pool1d and avg_pool1d run the 2-D pooling ops on a (N, C, 1, L) view of (N, C, L) input;
adaptive_avg_pool1d runs adaptive_avg_pool2d the same way; adaptive_max_pool1d/2d take the
maximum of each of PyTorch's bins (bin i of n over a size L spans floor(i L / n) to
ceil((i + 1) L / n)) by window tables (_pool_indices, docs/pooling.md), which also give the
indices; max_unpool1d is unpooling of the (N, C, 1, L) view."""
from __future__ import annotations

from typing import List, Optional, Tuple

from . import _C, _args
from ._adaptive_avg_empty import empty_pooled, nonempty_sizes, refuse_empty_backward
from ._pool_indices import max_unpool, window_adaptive_max_pool2d
from ._pooling import avg_pool2d, max_pool2d, max_pool2d_with_indices, max_pool_dilation
from ._spatial import adaptive_avg_pool2d
from ._torch_operands import named_node
from ._tensor import Tensor


def _one(value, name: str, where: str, minimum: int) -> int:
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise _C.InvalidArgumentError(f"{where}: {name} must be an int or a 1-tuple, got {value}\n"
                                          f"  fix: {name}={value[0] if value else 1}")
        value = value[0]
    return _args.integer(value, name, where, minimum=minimum)


def _as_2d(input: Tensor, where: str) -> Tuple[Tensor, bool]:
    if input.ndim not in (2, 3):
        raise _C.ShapeError(f"{where}: expected a 2-d (C, L) or 3-d (N, C, L) input, got {list(input.shape)}\n"
                            f"  fix: x.reshape(n, c, l)")
    batched = input.ndim == 3
    x = input if batched else input.unsqueeze(0)
    return x.unsqueeze(2), batched


def _back(y: Tensor, batched: bool) -> Tensor:
    y = y.squeeze(2)
    return y if batched else y.squeeze(0)


def window_arguments(where: str, kernel_size, stride, padding):
    """(kernel, stride, padding) of a 1-d window, checked; stride None or [] is the kernel (for
    max/avg pooling and MaxUnpool1d)."""
    k = _one(kernel_size, "kernel_size", where, 1)
    s = k if stride is None or stride == [] else _one(stride, "stride", where, 1)
    return k, s, _one(padding, "padding", where, 0)


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Max over windows of kernel_size along the last axis (PyTorch's F.max_pool1d); stride
    defaults to the kernel size. With return_indices, (values, int64 positions along L)."""
    where = "max_pool1d"
    k, s, p = window_arguments(where, kernel_size, stride, padding)
    d = max_pool_dilation(where, (1, _one(dilation, "dilation", where, 1)))
    x, batched = _as_2d(input, where)
    if _args.switch(return_indices):  # PyTorch's indexed kernel takes integers too
        values, indices = max_pool2d_with_indices(x, (1, k), (1, s), (0, p), d, ceil_mode)
        return _back(values, batched), _back(indices, batched)
    _args.floating_input(input, "max_pool1d_impl")  # PyTorch's kernel without indices is float-only
    return _back(max_pool2d(x, (1, k), (1, s), (0, p), d, ceil_mode), batched)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """F.max_pool1d_with_indices: (values, indices) whatever return_indices says, as PyTorch's."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """F.max_unpool1d: each value of max_pool1d's output back at its index along L, zeros
    elsewhere; output_size (L,) or (N, C, L) picks among the lengths that pool to input's."""
    where = "max_unpool1d"
    k, s, p = window_arguments(where, kernel_size, stride, padding)
    return max_unpool(where, input, indices, (k,), (s,), (p,), output_size)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows of kernel_size along the last axis (PyTorch's F.avg_pool1d)."""
    where = "avg_pool1d"
    k, s, p = window_arguments(where, kernel_size, stride, padding)
    x, batched = _as_2d(input, where)
    return _back(avg_pool2d(x, (1, k), (1, s), (0, p), ceil_mode, count_include_pad), batched)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Means over PyTorch's bins to output_size along the last axis (F.adaptive_avg_pool1d)."""
    _args.floating_input(input, "adaptive_avg_pool2d")  # PyTorch's kernel, named in its error
    n = _one(output_size, "output_size", "adaptive_avg_pool1d", 0)
    x, batched = _as_2d(input, "adaptive_avg_pool1d")
    if not batched:  # PyTorch pools it as an unbatched (C, 1, L): 0 channels then have a backward
        # (mypy does not see the methods attached to Tensor at import)
        return _back(adaptive_avg_pool2d(x[0], (1, n)).unsqueeze(0), batched)  # type: ignore[attr-defined]
    return _back(adaptive_avg_pool2d(x, (1, n)), batched)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Maxima over PyTorch's bins to output_size along the last axis (F.adaptive_max_pool1d);
    with return_indices, (values, int64 positions along L)."""
    where = "adaptive_max_pool1d"
    _args.floating_input(input, "adaptive_max_pool2d")  # PyTorch's kernel, named in its error
    n = _one(output_size, "output_size", where, 0)
    if isinstance(input, Tensor) and input.ndim in (2, 3):  # (other ranks: _as_2d's error)
        nonempty_sizes(input, where, range(1, input.ndim))
    x, batched = _as_2d(input, where)
    values, indices = adaptive_max_pool2d(x, (1, 0), True) if n == 0 else window_adaptive_max_pool2d(x, 1, n)
    values, indices = _back(values, batched), _back(indices, batched)
    return (values, indices) if _args.switch(return_indices) else values


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Maxima over PyTorch's bins to output_size (an int or (H, W), None keeping that size) for
    (C, H, W) or (N, C, H, W) input (F.adaptive_max_pool2d); with return_indices, (values,
    int64 indices into each input plane)."""
    where = "adaptive_max_pool2d"
    if not isinstance(input, Tensor) or input.ndim not in (3, 4):
        raise _C.ShapeError(f"{where}: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got "
                            f"{list(getattr(input, 'shape', [type(input).__name__]))}")
    _args.floating_input(input, where)
    nonempty_sizes(input, where, range(1, input.ndim))
    h, w = input.shape[-2:]
    sizes: List[Optional[int]] = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * 2
    oh = h if sizes[0] is None else _args.integer(sizes[0], "output_size", where, minimum=0)
    ow = w if sizes[1] is None else _args.integer(sizes[1], "output_size", where, minimum=0)
    if 0 in (oh, ow):  # PyTorch pools to the empty result, whose backward its kernel refuses
        values = refuse_empty_backward(empty_pooled(input, (oh, ow)), input, where)
        indices = values.detach().long()
    else:
        values, indices = window_adaptive_max_pool2d(input, oh, ow)
    values = named_node(values, "AdaptiveMaxPool2DBackward0", input)  # PyTorch's one node of the input
    return (values, indices) if _args.switch(return_indices) else values


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """F.adaptive_max_pool1d_with_indices: (values, indices) whatever return_indices says."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """F.adaptive_max_pool2d_with_indices: (values, indices) whatever return_indices says."""
    return adaptive_max_pool2d(input, output_size, True)
