"""Tensor.storage() and Tensor.untyped_storage(): the memory a tensor and its views share, as
PyTorch's TypedStorage and UntypedStorage present it to scripts (docs/porting.md, "Storage").

    points = glassgrad.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
    s = points.storage()        # 6 float32 elements: size(), len, s[i], tolist(), data_ptr()
    s[0] = 2.0                  # writes points[0, 0]
    points[1].storage()         # the same 6 elements (the row is a view at offset 2)

A storage object is a window on the tensor it came from: reading computes the tensor's pending
work and reads the whole buffer; writing element i goes through that tensor (tensor[idx] = v for
the idx whose element lives at i, without recording gradients, as PyTorch's storage writes), so
every view of the buffer sees it and glassgrad's in-place tracking stays whole. An element the
tensor does not reach (storage()[0] of a row view at offset 2) is written into the buffer
itself, as PyTorch writes storages: the base and every view read it there, and no tensor's
in-place version changes. Sizes count elements of the storage's dtype (TypedStorage) or
bytes (UntypedStorage), as PyTorch's.
"""
from __future__ import annotations

import warnings
from typing import Any, List

import numpy as np

from . import _C

__all__ = ["TypedStorage", "UntypedStorage"]

_WARNED: List[bool] = [False]  # PyTorch warns once per process that TypedStorage is deprecated


class _Storage:
    """What both storage kinds share: the tensor they came from and its buffer."""

    def __init__(self, tensor):
        self._tensor = tensor

    def _raw(self):
        return self._tensor._raw()  # computes the tensor's pending work

    @property
    def device(self):
        return self._tensor.device

    def data_ptr(self) -> int:
        """The address of the buffer's first byte (Tensor.data_ptr() - storage_offset() * itemsize)."""
        return int(self._raw().storage_ptr)

    def nbytes(self) -> int:
        return int(self._raw().storage_nbytes)

    def __len__(self) -> int:
        return self.size()

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> List[Any]:
        return self._values().tolist()

    def is_shared(self) -> bool:
        return self._tensor.is_shared()

    @staticmethod
    def _of(tensor) -> "_Storage":
        """The same kind of storage of another tensor (each subclass names its accessor)."""
        raise NotImplementedError

    def cpu(self):
        return self if self.device.type == "cpu" else self._of(self._tensor.cpu())

    def cuda(self, device=None):
        return self._of(self._tensor.cuda(device))

    def to(self, *, device=None, non_blocking: bool = False):
        return self._of(self._tensor.to(device))

    def _values(self) -> np.ndarray:  # pragma: no cover - each kind has its own
        raise NotImplementedError

    def size(self) -> int:  # pragma: no cover - each kind has its own
        raise NotImplementedError

    def _typename(self) -> str:
        return f"glassgrad.storage.{type(self).__name__}"

    def __repr__(self) -> str:
        """PyTorch's layout: one element a line, then [type(dtype=..., device=...) of size n]."""
        values = self.tolist()
        body = " " + "\n ".join(str(v) for v in values) + "\n" if values else ""
        return f"{body}[{self._typename()}({self._describe()}device={self.device}) of size {len(values)}]"

    __str__ = __repr__

    def _describe(self) -> str:
        return ""


class TypedStorage(_Storage):
    """tensor.storage(): the buffer as elements of the tensor's dtype."""

    @property
    def dtype(self):
        return self._tensor.dtype

    def element_size(self) -> int:
        return int(self.dtype.itemsize)

    def size(self) -> int:
        return self.nbytes() // self.element_size()

    def _describe(self) -> str:
        return f"dtype={self.dtype}, "

    def _values(self) -> np.ndarray:
        return _elements(self._tensor)

    def _index(self, i) -> int:
        n = self.size()
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"storage indices must be integers, got {type(i).__name__} (slices are only supported "
                            f"in UntypedStorage, as in PyTorch)\n  fix: s[i] for one element, or s.tolist()[a:b]")
        i = int(i)
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for a storage of size {n}")
        return i + n if i < 0 else i

    def __getitem__(self, i):
        return self._values()[self._index(i)].item()

    def __setitem__(self, i, value) -> None:
        from ._runtime import no_grad
        i = self._index(i)
        t = self._tensor
        where = _position(t, i)
        if where is None:
            _write_outside(t, i, value)
            return
        with no_grad():
            t[where] = value

    def fill_(self, value) -> "TypedStorage":
        """Sets every element the tensor reaches (the whole storage for a tensor that covers it)."""
        from ._runtime import no_grad
        with no_grad():
            self._tensor.fill_(value)
        return self

    @staticmethod
    def _of(tensor) -> "TypedStorage":
        return tensor.storage()

    def untyped(self) -> "UntypedStorage":
        return UntypedStorage(self._tensor)


class UntypedStorage(_Storage):
    """tensor.untyped_storage(): the buffer as bytes (size() and len count bytes; s[i] is a byte)."""

    def size(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def _values(self) -> np.ndarray:
        values = _elements(self._tensor)
        if self._tensor.dtype == "bfloat16":  # the 16-bit patterns: the high halves of the exact float32s
            values = (values.view(np.uint32) >> 16).astype("<u2")
        return np.ascontiguousarray(values).view(np.uint8)

    def __getitem__(self, i):
        values = self._values()
        if isinstance(i, slice):
            return values[i].tolist()
        return int(values[int(i)])

    @staticmethod
    def _of(tensor) -> "UntypedStorage":
        return tensor.untyped_storage()


def _elements(t) -> np.ndarray:
    """Every element of t's buffer, in order, as NumPy values (bfloat16 as its exact float32)."""
    raw = t._raw()
    full = raw.as_strided([raw.storage_nbytes // t.dtype.itemsize], [1], 0)
    if t.dtype != "bfloat16":
        return full.numpy()
    from ._tensor import _wrap
    return _wrap(_C.lazy_leaf(full, "constant", False, "")).float()._raw().numpy()


def _write_outside(t, i: int, value) -> None:
    """Writes storage element i, which tensor t does not reach (storage()[0] of a row view at
    offset 2), into the buffer itself, as PyTorch's storage writes go: not through autograd and
    not counted as an in-place version of any tensor. Every tensor over the buffer (the base, its
    other views) reads it from there; t's pending work is computed first, so the buffer is the
    storage's current one."""
    from ._tensor import raw_from_numpy
    raw = t._raw()
    try:
        src = raw_from_numpy(np.asarray([value]), t.device, "", t.dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"storage()[{i}] = {value!r}: the value must be a number of the storage's dtype {t.dtype} "
                        f"({type(e).__name__}: {e})\n  fix: s[{i}] = 1.5") from None
    element = raw.as_strided([1], [1], i)  # (the offset counts from the buffer's start)
    if t.device.type == "cpu":
        _C.wait_pinned_reads_at(int(raw.storage_ptr))  # a queued GPU copy may still read the buffer
    element.copy_from(src)


def _position(t, i: int):
    """The index of t whose element lives at storage element i, or None when t reaches none."""
    shape, strides, offset = tuple(t.shape), tuple(t.stride()), int(t.storage_offset())
    if not shape:
        return () if i == offset else None
    grids = np.indices(shape, sparse=True)
    where = offset + sum(g * s for g, s in zip(grids, strides))
    hits = np.argwhere(np.broadcast_to(where, shape) == i)
    return None if not len(hits) else tuple(int(k) for k in hits[0])


def storage_of(tensor) -> TypedStorage:
    """Tensor.storage(), with PyTorch's one-time deprecation warning."""
    from ._runtime import warn_once
    if warn_once(_WARNED):
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=3)
    return TypedStorage(tensor)
