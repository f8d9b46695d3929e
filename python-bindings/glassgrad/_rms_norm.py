"""Root-mean-square normalization (Zhang and Sennrich 2019), PyTorch's F.rms_norm and nn.RMSNorm:
x / sqrt(mean(x^2 over the trailing normalized_shape axes) + eps) * weight, eps None meaning the
machine epsilon of x's dtype. Composed from elementwise ops and a mean."""
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from . import _C, _args
from ._tensor import Tensor
from ._type_info import finfo

Shape = Union[int, Sequence[int]]


def normalized_dims(normalized_shape: Shape) -> Tuple[int, ...]:
    return (int(normalized_shape),) if isinstance(normalized_shape, int) else tuple(int(s) for s in normalized_shape)


def rms_norm(input: Tensor, normalized_shape: Shape, weight: Optional[Tensor] = None,
             eps: Optional[float] = None) -> Tensor:
    """F.rms_norm(input, normalized_shape, weight=None, eps=None); normalized_shape a tuple or list
    (nn.RMSNorm also takes an int), as PyTorch's."""
    if not isinstance(normalized_shape, (tuple, list)):
        _args.fail("rms_norm", "normalized_shape", "a tuple of ints", normalized_shape,
                   fix=f"rms_norm(x, ({normalized_shape!r},))", type_error=True)
    dims = normalized_dims(normalized_shape)
    n = len(dims)
    if n == 0:
        raise _C.ShapeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                            f"element, but got normalized_shape = {list(dims)}, as PyTorch\n  rms_norm: input has "
                            f"shape {list(input.shape)}\n  fix: normalized_shape = the input's last dimensions")
    if tuple(input.shape[input.ndim - n:]) != dims or input.ndim < n:
        raise _C.ShapeError(f"rms_norm: Given normalized_shape={list(dims)}, expected input with shape "
                            f"[*{', '.join(map(str, dims))}], but got input of size{list(input.shape)}\n"
                            f"  fix: normalized_shape = the input's last dimensions, e.g. RMSNorm({input.shape[-1] if input.ndim else 1})")
    e = finfo(input.dtype).eps if eps is None else float(eps)
    axes = tuple(range(input.ndim - n, input.ndim))
    dtype = input.dtype
    # PyTorch's rule: float16/bfloat16 input is normalized in float32 (the sum of squares would
    # overflow), and the result, weight product included, has the input's dtype whatever the weight's.
    x = input.float() if dtype in ("float16", "bfloat16") else input
    y = (x * ((x * x).mean(axes, keepdim=True) + e).rsqrt()).to(dtype)
    return y if weight is None else (y * weight).to(dtype)

