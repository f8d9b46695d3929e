"""PyTorch's deprecated overloads of addmm, addmv, addr, baddbmm and addbmm that pass beta (and
alpha) first and by position, as scripts of PyTorch 0.4's time write them: torch.addmm(beta, M,
alpha, mat1, mat2), torch.addmm(beta, M, mat1, mat2), M.addmm(beta, alpha, mat1, mat2) and
M.addmm(beta, mat1, mat2) (the in-place methods too), each with PyTorch's UserWarning naming the
overload; the documented signatures are unchanged (docs/porting.md). As PyTorch's parser, a 0-d
tensor that does not require grad is taken for a number (add's and addcmul's such overloads are
_math.py's)."""
from __future__ import annotations

import functools
import warnings
from typing import Callable, Dict, Tuple

from ._math import _scalar_like
from ._tensor import Tensor
from ._trace import user_stacklevel

# each function's two tensor operands, as PyTorch names them
OPERANDS: Dict[str, Tuple[str, str]] = {"addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
                                        "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2")}


def _number(x):
    return x.item() if isinstance(x, Tensor) else x


def _warn(name: str, spelled: str, instead: str) -> None:
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({spelled})\nConsider using one of the following "
                  f"signatures instead:\n\t{name}({instead})", UserWarning, stacklevel=user_stacklevel())


def _coefficients_first(args: tuple) -> int:
    """How many numbers (beta, or beta and alpha) lead args before the two tensors (0: none, or not this form)."""
    for n in (1, 2):
        if (len(args) == n + 2 and all(_scalar_like(a) for a in args[:n])
                and all(isinstance(a, Tensor) for a in args[n:])):
            return n
    return 0


def method(fn: Callable, name: str) -> Callable:
    """The Tensor method `name` (addmm or addmm_, ...) also taking self.name(beta, [alpha,] t1, t2)."""
    a, b = OPERANDS[name.rstrip("_")]

    @functools.wraps(fn)
    def call(self, *args, **kwargs):
        n = 0 if "beta" in kwargs or "alpha" in kwargs else _coefficients_first(args)
        if not n:
            return fn(self, *args, **kwargs)
        _warn(name, f"Number beta, {'Number alpha, ' if n == 2 else ''}Tensor {a}, Tensor {b}",
              f"Tensor {a}, Tensor {b}, *, Number beta = 1, Number alpha = 1")
        coefficients = {"beta": _number(args[0])} if n == 1 else {"beta": _number(args[0]), "alpha": _number(args[1])}
        return fn(self, *args[n:], **coefficients, **kwargs)
    return call


def function(fn: Callable, name: str) -> Callable:
    """torch.name also taking torch.name(beta, input, [alpha,] t1, t2)."""
    a, b = OPERANDS[name.rstrip("_")]

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if (len(args) in (4, 5) and _scalar_like(args[0]) and isinstance(args[1], Tensor)
                and "beta" not in kwargs and "alpha" not in kwargs):
            n = _coefficients_first((args[0],) + args[2:])
            if n == len(args) - 3:
                _warn(name, f"Number beta, Tensor input, {'Number alpha, ' if n == 2 else ''}Tensor {a}, Tensor {b}, "
                            f"*, Tensor out = None",
                      f"Tensor input, Tensor {a}, Tensor {b}, *, Number beta = 1, Number alpha = 1, Tensor out = None")
                coefficients = {"beta": _number(args[0])}
                if n == 2:
                    coefficients["alpha"] = _number(args[2])
                return fn(args[1], *args[-2:], **coefficients, **kwargs)
        return fn(*args, **kwargs)
    return call


def install(namespace: dict) -> None:
    """Wraps torch.addmm, ... in the namespace (glassgrad's top level) and the Tensor methods and
    their in-place forms."""
    for name in OPERANDS:
        for spelled in (name, name + "_"):
            if callable(namespace.get(spelled)):
                namespace[spelled] = function(namespace[spelled], spelled)
            if callable(getattr(Tensor, spelled, None)):
                setattr(Tensor, spelled, method(getattr(Tensor, spelled), spelled))
