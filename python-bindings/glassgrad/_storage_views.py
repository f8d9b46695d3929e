"""Tensors of one storage in a checkpoint (glassgrad.save / glassgrad.load in PyTorch's format):
views of one memory ({'a': t, 'b': t[1:]}) are written as PyTorch writes them, one storage
record and each tensor's storage_offset, size and stride over it, and a file with such tensors
(torch.save's, or glassgrad.save's) loads them as views of one memory again, so a write through
one is seen through the others, as after torch.load (docs/save-and-resume.md).

Saving: tensors of the tree whose memory is one buffer (the same device, buffer address and
dtype) get one StorageSpan, the buffer's elements from the first any of them reaches to the
last, and each its layout over the span (link_views). A tensor alone on its buffer that is dense
in another order than row-major (a transpose, channels_last) gets one too, so it is written with
its strides, as torch.save writes it, and loads with them; any other tensor alone on its buffer is
written as before, its own elements only.

Loading: the first tensor met on a storage record that covers the whole record densely (what
every tensor of a state_dict does) is made as any loaded tensor and becomes the storage's base;
otherwise a 1-d base holds the whole record. Every other tensor on the record is
as_strided(base, size, stride, offset), a view of the base (StorageBases).
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Tuple

import numpy as np

from . import _C


class StorageSpan:
    """Elements lo..hi of one buffer, as stored_array gives them: the storage record written for
    every tensor of the tree over that buffer."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array


def _reach(offset: int, size, stride) -> int:
    """One past the last storage element a layout reads."""
    return offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1


def link_views(saved: Iterable) -> None:
    """For every buffer two or more SavedTensors of a tree lie on (their `source` tensors), or one
    dense in another order than row-major, sets each one's `view` to (the buffer's StorageSpan,
    its storage_offset in the span, its strides)."""
    from ._memory_formats import dense_order
    from ._tensor import _wrap, stored_array
    groups: Dict[Tuple[str, int, str], List[Tuple[Any, Any]]] = {}  # (SavedTensor, _C tensor)
    for s in saved:
        t = s.source
        if t is None or t.numel() == 0:
            continue
        raw = t._raw()
        if not raw.storage_ptr:
            continue
        groups.setdefault((str(t.device), int(raw.storage_ptr), str(t.dtype)), []).append((s, raw))
    for members in groups.values():
        if len(members) < 2 and dense_order(members[0][0].source) is None:
            continue
        lo = min(int(raw.offset) for _, raw in members)
        hi = max(_reach(int(raw.offset), raw.shape, raw.strides) for _, raw in members)
        first = members[0][1]
        span = first.as_strided([hi - lo], [1], lo)  # the buffer's elements lo..hi, no copy
        values = stored_array(_wrap(_C.lazy_leaf(span, "constant", False, "")))
        storage = StorageSpan(np.ascontiguousarray(values))
        for s, raw in members:
            s.view = (storage, int(raw.offset) - lo, tuple(int(d) for d in raw.strides))


class _Member:
    """A tensor of an object being pickled whole, as link_views reads and marks it."""

    __slots__ = ("source", "view")

    def __init__(self, source):
        self.source, self.view = source, None


def shared_layouts(tensors: Iterable) -> Dict[int, Tuple[StorageSpan, int, Tuple[int, ...]]]:
    """{id(tensor): (StorageSpan, storage_offset, strides)} for the tensors that share their
    buffer with another of `tensors` (link_views' grouping), for glassgrad.save of a whole object."""
    members = [_Member(t) for t in tensors]
    link_views(members)
    return {id(m.source): m.view for m in members if m.view is not None}


def covers(length: int, offset: int, size: Tuple[int, ...], stride: Tuple[int, ...]) -> bool:
    """Whether a layout reads a whole storage of `length` elements densely, in row-major order."""
    expected, acc = [], 1
    for d in reversed(size):
        expected.append(acc)
        acc *= d
    return offset == 0 and acc == length and tuple(reversed(expected)) == tuple(stride)


class StorageBases:
    """The tensors loaded so far over each storage record of a file (by its key), which later
    tensors on the same record are views of."""

    def __init__(self):
        self.bases: Dict[str, object] = {}

    def base(self, key: str):
        return self.bases.get(key)

    def keep(self, key: str, tensor) -> None:
        self.bases[key] = tensor

    @staticmethod
    def view(base, size, stride, offset: int, requires_grad: bool):
        """as_strided(base, size, stride, offset) outside autograd: a view of base's memory (or, for
        strides as_strided cannot give as a view, a copy of those elements: _strided.py)."""
        from ._runtime import no_grad
        from ._strided import as_strided
        with no_grad():  # base itself (a detached alias's views would not see writes through base)
            out = as_strided(base, list(size), list(stride), offset)
        if out.requires_grad == requires_grad:
            return out
        # a view of a Parameter (which glassgrad.load makes the base) saved not requiring gradients
        return out.requires_grad_(True) if requires_grad else out.detach()

