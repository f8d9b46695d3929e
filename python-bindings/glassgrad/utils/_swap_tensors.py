"""torch.utils.swap_tensors(t1, t2): t1 takes t2's content (its handle: data, dtype, device, grad,
requires_grad, hooks; and its class and attributes) and t2 t1's, each keeping its identity, so
every reference to t1 (a module's parameter dict, an optimizer's list) sees t2's content
(docs/porting.md). As PyTorch's, it refuses a tensor with a weak reference or two classes of
different slots; unlike PyTorch's, also a Tensor subclass with a __dict__ and one without (Python
cannot exchange their classes: glassgrad.Tensor has __slots__)."""
from __future__ import annotations

import copyreg
import weakref

from .._tensor import Tensor


def _has(t, slot: str) -> bool:
    try:
        object.__getattribute__(t, slot)
    except AttributeError:
        return False
    return True


def swap_tensors(t1: Tensor, t2: Tensor) -> None:
    """Swaps the content of t1 and t2 in place (their Python objects stay where they are)."""
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors: {name} must be a Tensor, got {type(t).__name__}\n  fix: pass two tensors")
        if weakref.getweakrefs(t):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it\n  swap_tensors: "
                               f"{name} {tuple(t.shape)} {t.dtype} is weakly referenced\n  fix: drop the weak reference"
                               " first, or assign the tensor instead of swapping")
    slots = set(copyreg._slotnames(type(t1)))  # type: ignore[attr-defined]  # copyreg's helper PyTorch uses too
    if slots != set(copyreg._slotnames(type(t2))):  # type: ignore[attr-defined]
        raise RuntimeError(f"Cannot swap t1 and t2 if they have different slots\n  swap_tensors: t1 is "
                           f"{type(t1).__name__}, t2 {type(t2).__name__}\n  fix: swap tensors of classes with the same "
                           "__slots__")
    for t in (t1, t2):
        t._h  # a tensor still holding its NumPy array makes its handle now, so both swap handles
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__  # every tensor has one (Tensor.__slots__)
    for slot in sorted(slots - {"__weakref__", "__dict__"}):
        has1, has2 = _has(t1, slot), _has(t2, slot)
        value1 = object.__getattribute__(t1, slot) if has1 else None
        value2 = object.__getattribute__(t2, slot) if has2 else None
        for t, has, value in ((t1, has2, value2), (t2, has1, value1)):
            if has:
                object.__setattr__(t, slot, value)
            elif _has(t, slot):
                object.__delattr__(t, slot)
