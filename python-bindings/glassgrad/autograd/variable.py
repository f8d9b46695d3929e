"""torch.autograd.Variable: since PyTorch 0.4 a Variable is a Tensor; the name stays for older
scripts. Variable(t, requires_grad) is PyTorch's: a new leaf on t's data (t.detach()) that requires
grad as asked, t itself untouched; isinstance(x, Variable) holds for every tensor (docs/autograd.md)."""
from __future__ import annotations

import warnings

from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False, volatile=False): a leaf sharing `data`'s values (as
    data.detach()) with requires_grad as given; `data` keeps its own requires_grad and graph.
    volatile=True (removed from PyTorch) warns as PyTorch does and has no effect: no_grad()
    replaced it."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            raise TypeError("Variable(): pass the tensor to wrap, e.g. Variable(torch.zeros(3))")
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}\n"
                            "  fix: Variable(torch.tensor(x)), or use the tensor itself (Variable is not needed)")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          stacklevel=2)
        if not requires_grad:
            return data.detach()  # shares data's values, as PyTorch's
        # A leaf of its own: glassgrad's detached views re-derive from their storage when it is
        # written (docs/inplace-and-views.md), which would drop the leaf's gradient at the first
        # `v.data -= lr * v.grad.data`; so this leaf holds a copy of data's values.
        return data.detach().clone().requires_grad_(True)
