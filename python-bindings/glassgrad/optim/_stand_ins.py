"""Optimizer.step for parameters that are not dense in row-major order (a transposed view made a
leaf, `torch.ones(4, 3).t().requires_grad_()`).

The update ops (SGDUpdate, AdamUpdate, ...) write their target's buffer in place, and a plan runs
such a write over a dense buffer: a strided target is copied into one first, and moving the
parameter's handle to the update's result re-points a view away from its storage. So during the
step such a parameter's handle is a dense stand-in holding its values and its gradient (every
optimizer reads and moves p._h, so each one updates the stand-in as any parameter); after the
updates ran, the result is written into the parameter through its own view, as `p.copy_(new)`
under no_grad. The parameter keeps its storage, strides and views, and its values and version
move as PyTorch's in-place step moves them; its state tensors laid out as it is (lay_out_state)
go through stand-ins the same way. Dense parameters (nearly all) take none of this: a
step with no view among its parameters pays one pass over their handles."""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Set, Tuple

from .. import _C
from .._tensor import Tensor, _wrap

# (parameter, its own handle, restored after the step)
StandIns = List[Tuple[Tensor, "_C.Handle"]]


def strided_params(work: Sequence[Tuple[dict, Tensor]], handles: Sequence) -> List[Tensor]:
    """The parameters of `work` ((group, parameter) pairs; handles[i] is work[i]'s parameter's),
    each once, that are views not dense in row-major order: only a view can be (a plain handle's
    layout is its shape's row-major one); the views are found in one runtime call."""
    positions = _C.lazy_views(handles)
    if not positions:
        return []
    seen: set = set()
    out: List[Tensor] = []
    for i in positions:
        p = work[i][1]
        if not p.is_contiguous() and id(p) not in seen:
            seen.add(id(p))
            out.append(p)
    return out


def swap_in(params: Sequence[Tensor], stand_ins: StandIns, state: Dict[Tensor, Dict[str, Any]]) -> Set[int]:
    """Points each parameter's handle at a dense leaf holding its values and its gradient, and so
    each of its state tensors that is laid out as the parameter (lay_out_state); each (tensor, own
    handle) is appended to stand_ins as it moves, so restore() finds every one even if a later one
    fails. Returns the ids of the parameters' state tensors before the step."""
    before: Set[int] = set()
    for p in params:
        h = p._h
        dense = _C.lazy_leaf(h.data().contiguous(), "parameter", True, h.name)
        dense.set_grad(h.grad_value())
        stand_ins.append((p, h))
        p._h = dense
        for t in state.get(p, {}).values():
            if isinstance(t, Tensor):
                before.add(id(t))
                if t._h.is_view and not t.is_contiguous():
                    own = t._h
                    stand_ins.append((t, own))
                    t._h = _C.lazy_leaf(own.data().contiguous(), "state", False, own.name)
    return before


def lay_out_state(params: Sequence[Tensor], state: Dict[Tensor, Dict[str, Any]], before: Set[int]) -> None:
    """Lays each state tensor the step made for a parameter of `params` (not in `before`) of the
    parameter's shape out in the parameter's order, as PyTorch makes it (zeros_like with
    preserve_format): an Adam moment of a transposed or channels_last weight has its strides.
    Later steps update it through a stand-in (swap_in) and keep its layout."""
    from .._grad_views import in_leaf_layout
    from .._runtime import no_grad
    with no_grad():
        for p in params:
            for t in state.get(p, {}).values():
                if isinstance(t, Tensor) and id(t) not in before and t.shape == p.shape and t.dim():
                    t._h = in_leaf_layout(p, t)._h


def restore(stand_ins: StandIns, write: bool) -> None:
    """Gives every parameter its own handle back, then, with write=True (the step's updates ran),
    copies each stand-in's updated values into its parameter through its view, under no_grad."""
    if not stand_ins:
        return
    from .._runtime import no_grad
    moved: List[Tuple[Tensor, Tensor]] = []
    for p, own in stand_ins:
        moved.append((p, _wrap(p._h)))
        p._h = own
    stand_ins.clear()
    if not write:
        return
    with no_grad():
        for p, dense in moved:
            p.copy_(dense)
    _C.lazy_realize([p._h for p, _ in moved])
