"""torch.autograd.forward_ad: dual_level, make_dual, unpack_dual, enter_dual_level,
exit_dual_level, UnpackedDualTensor (docs/autograd.md, "Forward-mode AD").

glassgrad has no forward mode: a dual tensor is an alias of the primal that requires grad,
remembered with its tangent for the level, and unpack_dual(y) computes y's tangent, the sum of
J_x t_x over the level's duals x, by two reverse passes (autograd/_double_vjp.py). So ops on
duals record a graph (and results require grad), no_grad() blocks tangents, and each
unpack_dual costs two backward passes through y's graph. One level at a time, as PyTorch."""
from __future__ import annotations

import contextlib
from typing import Dict, NamedTuple, Optional, Tuple

from .._runtime import enable_grad
from .._shapes import view_as
from .._tensor import Tensor
from ._double_vjp import jvp_of

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

_current_level = -1
_duals: Dict[int, Tuple[Tensor, Tensor, Tensor]] = {}  # id(dual) -> (dual, tangent, primal)


class UnpackedDualTensor(NamedTuple):
    """unpack_dual's result: the primal and its tangent (None when it has none at this level)."""
    primal: Tensor
    tangent: Optional[Tensor]


def enter_dual_level() -> int:
    """Starts the forward-AD level (dual_level() does it for a with block); returns it."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment\n  fix: exit the open "
                           "dual_level() first")
    _current_level = 0
    return _current_level


def exit_dual_level(*, level: Optional[int] = None) -> None:
    """Ends the level: its dual tensors lose their tangents."""
    global _current_level
    level = _current_level if level is None else level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _duals.clear()
    _current_level = -1


class dual_level(contextlib.ContextDecorator):
    """with forward_ad.dual_level(): ... : the scope of dual tensors and their tangents."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def _level(level: Optional[int], who: str) -> int:
    level = _current_level if level is None else level
    if level < 0 or level != _current_level:
        raise RuntimeError(f"{who}: Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.\n  fix: with torch.autograd.forward_ad.dual_level(): ...")
    return level


def make_dual(tensor: Tensor, tangent: Tensor, *, level: Optional[int] = None) -> Tensor:
    """A tensor with tensor's values that carries `tangent` (same shape) for this level."""
    _level(level, "make_dual")
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(t, Tensor) or not t.dtype.is_floating_point:
            what = t.dtype if isinstance(t, Tensor) else type(t).__name__
            raise ValueError(f"make_dual: Expected {name} to be a floating point Tensor, got {what}\n"
                             "  fix: .double() or .float()")
    if list(tensor.shape) != list(tangent.shape):
        raise RuntimeError(f"make_dual: Trying to set a forward gradient that has a different size than that of the "
                           f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the "
                           f"given forward gradient is of size {list(tangent.shape)}.")
    with enable_grad():
        dual = view_as(tensor, tensor) if tensor.requires_grad else tensor.detach().requires_grad_(True)
    _duals[id(dual)] = (dual, tangent, tensor)
    return dual


def unpack_dual(tensor, *, level: Optional[int] = None) -> UnpackedDualTensor:
    """(primal, tangent). For a dual, the tensor given to make_dual and its tangent. For a tensor
    computed from duals, the tangent is J t, computed now, and the primal is the tensor itself
    where a dual's primal or tangent requires grad (it keeps its graph, so backward() through it
    still reaches them); else the tensor detached, which requires no grad, as PyTorch's primal of
    a computation that reverse mode does not track (its graph here only serves the tangents)."""
    if level is not None and level != _current_level or _current_level < 0 or not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    entry = _duals.get(id(tensor))
    if entry is not None and entry[0] is tensor:
        return UnpackedDualTensor(entry[2], entry[1])
    duals = list(_duals.values())
    if not duals:
        return UnpackedDualTensor(tensor, None)
    create_graph = any(t.requires_grad or p.requires_grad for _, t, p in duals)
    (tangent,) = jvp_of([tensor], [d for d, _, _ in duals], [t for _, t, _ in duals], create_graph, "unpack_dual")
    return UnpackedDualTensor(tensor if create_graph else tensor.detach(), tangent)
