"""torch.autograd.Variable: since PyTorch 0.4 a Variable is a Tensor; the name stays for older
scripts. Variable(t) is t itself (requires_grad=True sets it), and isinstance(x, Variable) holds
for every tensor."""
from __future__ import annotations

from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False, volatile=False): returns `data` (a glassgrad Tensor),
    with requires_grad set when asked. volatile (removed from PyTorch) is accepted and ignored,
    as no_grad() replaced it."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            raise TypeError("Variable(): pass the tensor to wrap, e.g. Variable(torch.zeros(3))")
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}\n"
                            "  fix: Variable(torch.tensor(x)), or use the tensor itself (Variable is not needed)")
        if requires_grad:
            data.requires_grad_(True)
        return data
