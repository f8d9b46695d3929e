"""A .grad assigned a view of other memory, as PyTorch's (docs/autograd.md, "The .grad tensor
object"): `p.grad = flat[0:n].view_as(p)` (a flat gradient buffer) or a transposed tensor stays
`p.grad`, backward() adds into its memory in place, and a write through it or through its base
is p's gradient. So is the gradient backward() made for a leaf dense in another order than
row-major (a transpose, channels_last), laid out in the leaf's order as PyTorch's (laid_out_like)
when first read.

The runtime links a leaf's gradient value to a storage only where that storage is the gradient's
own (lazy::grad_handle); a view's storage is its base's. So the link is kept here.

Invariant: after sync(), each linked leaf's gradient value is its view's value, whose identity
is noted. sync() carries a change either way: a gradient value the runtime stored since (a
backward accumulated from the view's value) is written into the view, in place and unrecorded;
a write through the view or its base (its value re-derived) becomes the leaf's gradient. It runs
where the gradient is read or about to be accumulated: the .grad getter, backward()'s start and
end, and an optimizer's read of the gradient value. Setting .grad again (None included) unlinks."""
from __future__ import annotations

import weakref

from ._runtime import enable_grad, no_grad

# id(leaf) -> (weak reference to the leaf, the view (held: its memory is the gradient's), the
# identity of the gradient value last linked)
LINKED: dict = {}


def link(leaf, view) -> None:
    """Makes `view` (a tensor whose handle is a view) leaf's gradient, accumulated in place."""
    leaf._h.set_grad(None)  # (drops the link of a gradient leaf held before to its own storage)
    leaf._h.set_grad(view._h)
    key = id(leaf)
    LINKED[key] = (weakref.ref(leaf, _drop(key)), view, view._h.identity)


def unlink(leaf) -> None:
    LINKED.pop(id(leaf), None)


def laid_out_like(leaf, g):
    """leaf's gradient (handle g, the runtime's row-major value) as a tensor with leaf's strides,
    linked, where leaf is dense in another order (PyTorch's layout contract); else None. A
    gradient that requires grad (create_graph=True) is laid out in the graph, so it stays
    differentiable, as PyTorch's."""
    laid = _laid(leaf, g)
    if not laid._h.is_view:
        return None
    link(leaf, laid)
    return laid


def _laid(leaf, g):
    """in_leaf_layout of gradient handle g: recorded in the graph where g requires grad."""
    from ._tensor import _wrap
    with (enable_grad() if g.requires_grad else no_grad()):
        return in_leaf_layout(leaf, _wrap(g))


def in_leaf_layout(leaf, t):
    """t (of leaf's shape) laid out in leaf's order where leaf is dense in another order than
    row-major (recorded as the grad mode records it: a copy in the graph under create_graph),
    else t itself."""
    from . import _memory_formats
    order = _memory_formats.dense_order(leaf)
    if order is None:
        return t
    return t.permute(*order).contiguous().permute(*_memory_formats.inverse(order))


def view_of(leaf):
    """leaf's linked view, synced, or None where its gradient is not linked to one."""
    if id(leaf) not in LINKED:
        return None
    sync()
    entry = LINKED.get(id(leaf))
    return None if entry is None or entry[0]() is not leaf else entry[1]


def sync() -> None:
    """Brings every linked leaf's gradient and its view together (the module's invariant)."""
    for key, (ref, view, linked) in list(LINKED.items()):
        leaf = ref()
        g = None if leaf is None else leaf._h.grad_value()
        if g is None:  # collected, or its gradient cleared (zero_grad()): the link ends
            LINKED.pop(key, None)
            continue
        # a create_graph backward's sum is a new tensor, as PyTorch's out-of-place one: laid out
        # as the leaf and linked in place of the view (which keeps its values)
        if g.identity != linked and g.requires_grad:
            view = _laid(leaf, g)
            if not view._h.is_view:
                LINKED.pop(key, None)
                continue
        elif g.identity != linked:  # stored by a backward: into the view's memory
            from ._tensor import _wrap
            with no_grad():
                view.copy_(_wrap(g))
        elif view._h.identity == linked:
            continue
        leaf._h.set_grad(view._h)
        LINKED[key] = (ref, view, view._h.identity)


def _drop(key: int):
    def drop(_ref) -> None:
        LINKED.pop(key, None)
    return drop
