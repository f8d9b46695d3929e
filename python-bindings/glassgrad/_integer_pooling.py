"""Pooling of integer tensors, as PyTorch's. Average pooling: int64 windows average in integer
arithmetic, the quotient truncated toward zero (avg_pool2d(arange(16).view(1, 1, 4, 4), 2) is
[[2, 4], [10, 12]]); other integer and bool dtypes raise PyTorch's NotImplementedError. The window
sums of int64 values are exact in float64 below 2^53, and a float64 quotient of two such integers
truncates to the integer quotient, so the float path computes it. Max pooling (2-d and 3-d) takes
every integer dtype, its maxima in the input's dtype (exact in float64 for magnitudes below 2^53),
and refuses bool, as PyTorch's."""
from __future__ import annotations

from typing import Callable

from ._math import trunc
from ._tensor import Tensor

# glassgrad dtype -> the name PyTorch's kernels give it in their errors
_TORCH_NAMES = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "bool": "Bool"}
INTEGRAL = frozenset(("uint8", "int8", "int16", "int32", "int64", "bool"))


def integer_average(input: Tensor, kernel: str, pool: Callable[[Tensor], Tensor]) -> Tensor:
    """pool (a floating average pooling) applied to an integer input, or PyTorch's refusal."""
    name = str(input.dtype).rsplit(".", 1)[-1]
    if name != "int64":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_TORCH_NAMES.get(name, name)}\'\n'
                                  f"  fix: input.long() (int64 pools as PyTorch's) or input.float()")
    return trunc(pool(input.double())).long()


def integer_max(input: Tensor, kernel: str, pool: Callable[[Tensor], object]):
    """pool (a floating max pooling, returning values or (values, indices)) applied to an integer
    input, the values back in its dtype; PyTorch's refusal for bool."""
    name = str(input.dtype).rsplit(".", 1)[-1]
    if name == "bool":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'\n  fix: input.to(torch.uint8)')
    out = pool(input.double())
    if isinstance(out, tuple):
        return out[0].to(input.dtype), out[1]
    assert isinstance(out, Tensor)
    return out.to(input.dtype)
