"""torch.frexp (and Tensor.frexp): a floating tensor split into mantissa and exponent,
input = mantissa * 2 ** exponent with |mantissa| in [0.5, 1) (0, inf and NaN keep themselves, with
exponent 0), as NumPy's and C's frexp."""
from __future__ import annotations

import numpy as np

from . import _C
from ._math import mul
from ._return_types import return_type
from ._tensor import Tensor, tensor


def frexp(input: Tensor, *, out=None):
    """(mantissa, exponent) of input (torch.frexp): mantissa in input's dtype, exponent int32. The
    exponent is read from the data (it computes pending work); the mantissa is input scaled by
    2 ** -exponent, so its gradient is grad * 2 ** -exponent, as PyTorch's."""
    if not isinstance(input, Tensor) or not input.dtype.is_floating_point:
        got = input.dtype if isinstance(input, Tensor) else type(input).__name__
        raise _C.DTypeError(f"torch.frexp() only supports floating-point dtypes (got {got})\n"
                            f"  fix: frexp(x.float())")
    # float16/bfloat16/float32 values are exact in float64, and their exponents the same there
    exponent = np.frexp(np.asarray(input.detach().double().numpy(force=True)))[1].astype(np.int32)
    # two powers of two, each representable in input's dtype (a denormal's 2 ** 149 is not in
    # float32): each product is exact, as the one scaling is
    first = np.floor_divide(-exponent, 2)
    scales = [tensor(np.ldexp(1.0, k), dtype=input.dtype, device=input.device) for k in (first, -exponent - first)]
    mantissa = mul(mul(input, scales[0]), scales[1])
    exp = tensor(exponent, device=input.device)
    if out is not None:
        out[0].copy_(mantissa)
        out[1].copy_(exp)
        mantissa, exp = out
    return return_type("frexp", ("mantissa", "exponent"))(mantissa, exp)
