"""torch.special's airy_ai, bessel_y0, bessel_y1, modified_bessel_k0/k1 and
scaled_modified_bessel_k0/k1: float64 values (_special_bessel_values.py) in the input's float dtype
(integers and bools give the default float; float16, bfloat16 and complex are refused, as by
PyTorch's CPU kernels), without a gradient, as in PyTorch (docs/special-functions.md)."""
from __future__ import annotations

from . import _special_bessel_values as B
from ._special import _into
from ._special_more import _without_gradient
from ._tensor import Tensor


def airy_ai(x: Tensor, *, out=None) -> Tensor:
    """The Airy function Ai (torch.special.airy_ai): 0 above 103.892, NaN at +-inf."""
    return _into(out, _without_gradient("airy_ai", B.airy_ai, x), "airy_ai")


def bessel_y0(input: Tensor, *, out=None) -> Tensor:
    """The Bessel function of the second kind, order 0 (torch.special.bessel_y0): -inf at 0, NaN below."""
    return _into(out, _without_gradient("bessel_y0", B.bessel_y0, input), "bessel_y0")


def bessel_y1(input: Tensor, *, out=None) -> Tensor:
    """The Bessel function of the second kind, order 1 (torch.special.bessel_y1): -inf at 0, NaN below."""
    return _into(out, _without_gradient("bessel_y1", B.bessel_y1, input), "bessel_y1")


def modified_bessel_k0(input: Tensor, *, out=None) -> Tensor:
    """The modified Bessel function of the second kind, order 0 (torch.special.modified_bessel_k0):
    inf at 0, NaN below."""
    return _into(out, _without_gradient("modified_bessel_k0", B.modified_bessel_k0, input), "modified_bessel_k0")


def modified_bessel_k1(input: Tensor, *, out=None) -> Tensor:
    """The modified Bessel function of the second kind, order 1 (torch.special.modified_bessel_k1):
    inf at 0, NaN below."""
    return _into(out, _without_gradient("modified_bessel_k1", B.modified_bessel_k1, input), "modified_bessel_k1")


def scaled_modified_bessel_k0(x: Tensor, *, out=None) -> Tensor:
    """e^x K0(x) (torch.special.scaled_modified_bessel_k0): inf at 0, NaN below."""
    name = "scaled_modified_bessel_k0"
    return _into(out, _without_gradient(name, B.scaled_modified_bessel_k0, x), name)


def scaled_modified_bessel_k1(x: Tensor, *, out=None) -> Tensor:
    """e^x K1(x) (torch.special.scaled_modified_bessel_k1): inf at 0, NaN below."""
    name = "scaled_modified_bessel_k1"
    return _into(out, _without_gradient(name, B.scaled_modified_bessel_k1, x), name)


__all__ = ["airy_ai", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]
