"""Which tensors a running torch.func.vmap maps (func/_vmap.py runs func once per index): a
Python number read from one of them (item(), float(), int(), a tensor in an `if`) has no single
value across the batch, and PyTorch's vmap refuses it; reading one from any other tensor is
fine there and here."""
from __future__ import annotations

from typing import List, Set, Tuple

# The mapped slices (tensors) of each running vmap call (innermost last).
MAPPED: List[list] = []

ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
        "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
        "inside PyTorch internals, please file a bug report.")
CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We don't "
                "support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")


def mapped(t) -> bool:
    """t is a mapped slice, a view into one, or computed from one: its pending graph (producer
    inputs, walked up to the leaves) reaches a slice or a view overlapping one. A value already
    computed has no pending graph to walk, so one read from it is let through."""
    slices = [x for call in MAPPED for x in call]
    targets = {x._h.identity for x in slices}
    seen: Set[int] = set()
    todo = [t._h]
    while todo:
        h = todo.pop()
        i = h.identity
        if i in targets or (h.is_view and any(_overlaps(h, x) for x in slices)):
            return True
        if i not in seen:
            seen.add(i)
            todo.extend(h.producer_inputs)
    return False


def _span(t) -> Tuple[int, int]:
    """The first and last storage element t addresses."""
    lo = hi = t.storage_offset()
    for n, st in zip(t.shape, t.stride()):
        if n == 0:
            return 0, -1
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return lo, hi


def _overlaps(h, x) -> bool:
    """The view handle h and the slice x address common storage elements (by their spans)."""
    if not h.shares_storage(x._h):
        return False
    from ._tensor import _wrap
    (a, b), (c, d) = _span(_wrap(h)), _span(x)
    return a <= d and c <= b


def refuse_number(t, message: str = ITEM) -> None:
    """A RuntimeError, PyTorch's, when a running vmap maps t."""
    if MAPPED and mapped(t):
        raise RuntimeError(message)
