"""Tensor members PyTorch keeps for older code: x.as_subclass(cls), the tensor as an instance of a
Tensor subclass (the same values, attached to the graph through an alias, as PyTorch's
AliasBackward0), and x.volatile, always False since volatile was removed (with PyTorch's warning
on each read)."""
from __future__ import annotations

import warnings

from . import _trace
from ._tensor import Tensor, _op


def as_subclass(self: Tensor, cls) -> Tensor:
    """self as an instance of cls, a subclass of Tensor, sharing its values; gradients flow back to
    self (Tensor.as_subclass)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        f"Make sure your class inherits from Tensor.\n  as_subclass: got {cls!r}\n  fix: class "
                        f"MyTensor(torch.Tensor): ...")
    alias = _op("Reshape", [self], {"shape": list(self.shape), "torch_node": "AliasBackward0"}) \
        if self.requires_grad else self
    out = Tensor.__new__(cls)
    out._h = alias._h
    return out


def _volatile(self: Tensor) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=_trace.user_stacklevel())
    return False


Tensor.as_subclass = as_subclass  # type: ignore[attr-defined]  # bound at import, as _methods.py binds
Tensor.volatile = property(_volatile)  # type: ignore[attr-defined]
