"""Tensor.grad's object identity, as PyTorch's: reading `p.grad` twice gives the same tensor object,
and a tensor read from `p.grad` (or assigned to it) stays `p.grad`'s object while backward()
accumulates into it (docs/autograd.md, "The .grad tensor object").

Invariant: a tensor object is handed back for a tensor's gradient only while its handle is on the
gradient's storage itself (lazy::grad_handle keeps one storage per gradient until it is set to
None or replaced, and accumulation writes into that storage), so the object always reads the
gradient's current values. Objects are held weakly: an entry costs no memory of the gradient, and
once no one holds the object the next read makes a new one, which no script can tell apart."""
from __future__ import annotations

import weakref

# id(tensor) -> (weak reference to the tensor, weak reference to its gradient's tensor object)
_OBJECTS: dict = {}


def get(owner, handle, wrap):
    """The tensor object for owner's gradient handle: the one handed out before while it still
    stands for the gradient's storage, else wrap(handle), remembered."""
    entry = _OBJECTS.get(id(owner))
    if entry is not None and entry[0]() is owner:
        obj = entry[1]()
        if obj is not None and not obj._h.is_view and obj._h.shares_storage(handle):
            return obj
    obj = wrap(handle)
    remember(owner, obj)
    return obj


def remember(owner, obj) -> None:
    """obj is owner's gradient object now (`p.grad = g` makes g the object `p.grad` gives)."""
    key = id(owner)
    _OBJECTS[key] = (weakref.ref(owner, _forget(key)), weakref.ref(obj))


def forget(owner) -> None:
    """owner's gradient was set to None: the next gradient is a new object."""
    _OBJECTS.pop(id(owner), None)


def _forget(key: int):
    """The callback that drops key's entry when its tensor is collected."""
    def drop(_ref) -> None:
        _OBJECTS.pop(key, None)
    return drop
