"""Tensor hooks registered on a view that is then written in place: PyTorch registers them on
the view's grad_fn of the time, which the write replaces (the view's history becomes the
rewritten base's, CopySlices), so they never run; a write through any other tensor keeps its
hooks (they get the gradient of the value before the write). Here hooks live on the tensor's
runtime value and move along with writes, so the ones a view held are removed at its write."""
from __future__ import annotations

import weakref
from typing import Dict, List, Tuple

# id(view) -> (a weak reference to it, the keys of its hooks)
HOOKED: Dict[int, Tuple[weakref.ref, List[int]]] = {}


def registered(t, key: int) -> None:
    """Records hook `key` of t when t is a view computed with gradients."""
    h = t._h
    if not (h.is_view and h.requires_grad and not h.is_leaf):
        return
    ident = id(t)
    entry = HOOKED.get(ident)
    if entry is None or entry[0]() is not t:
        entry = HOOKED[ident] = (weakref.ref(t, lambda _r: HOOKED.pop(ident, None)), [])
    entry[1].append(key)


def written(t) -> None:
    """t is written in place: the hooks it held as a view are removed."""
    entry = HOOKED.pop(id(t), None)
    if entry is None:
        return
    ref, keys = entry
    owner = ref()
    if owner is not None and owner is t:
        h = owner._h
        for key in keys:
            h.remove_grad_hook(key)
