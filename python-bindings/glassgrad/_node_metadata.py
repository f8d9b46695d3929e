"""Node.metadata (torch.autograd.graph.Node): a dict the user fills, one per node, the same
dict every time the node is asked for it (PyTorch keeps it on the node). glassgrad's grad_fn
objects are made per access (they view the recorded forward op, docs/autograd.md), so the dicts
live here, by the node's runtime value. A dict read while empty pins nothing; the first write
pins the value (so its identity is not reused while the dict holds entries), as node hooks do."""
from __future__ import annotations

from typing import Any, Dict, Tuple

# value identity -> (pin on the value, its metadata dict)
_FILLED: Dict[int, Tuple[object, dict]] = {}


class _Metadata(dict):
    """An empty node's metadata: registers itself on its first write."""

    __slots__ = ("_handle",)
    _handle: Any  # the node's runtime value, until the first write registers the dict

    def _keep(self) -> None:
        if self._handle is not None:
            _FILLED.setdefault(self._handle.identity, (self._handle.pin(), self))
            self._handle = None

    def __setitem__(self, key, value) -> None:
        self._keep()
        super().__setitem__(key, value)

    def setdefault(self, key, default=None):
        self._keep()
        return super().setdefault(key, default)

    def update(self, *args, **kwargs) -> None:
        self._keep()
        super().update(*args, **kwargs)


def of(handle) -> dict:
    """The metadata dict of the node that made (or, for a leaf, accumulates into) handle's value."""
    found = _FILLED.get(handle.identity)
    if found is not None:
        return found[1]
    fresh = _Metadata()
    fresh._handle = handle
    return fresh
