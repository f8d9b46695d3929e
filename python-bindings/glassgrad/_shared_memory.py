"""Tensors in shared memory and how tensors pickle, with torch.multiprocessing's meaning
(docs/data-loading.md, "Sharing a model between processes"):

    model.share_memory()            # every parameter and buffer moves into shared memory
    p = mp.Process(target=train, args=(model,)); p.start()   # fork, spawn or forkserver

A CPU tensor's share_memory_() moves its values into a shared-memory file (a memfd on Linux) and
points the tensor at it; from then on every process that holds the tensor (a forked child
inherits the mapping, a spawned one receives the file descriptor when the tensor is pickled)
reads and writes the same bytes, so an optimizer step in one process is seen by the others
(Hogwild training). In-place ops on a shared tensor, and clone() of one, are computed when they
are called rather than at the next realize (holds_shared_values): a write is visible to the other
processes at once (a child that exits right after it does not take it along), and a copy holds
the values of the moment it was taken. Optimizers update parameters in place, into their storage, so the sharing
lasts across steps. GPU tensors are left as they are (as PyTorch's share_memory_ on CUDA).

Pickling a tensor that is not shared sends its values: the copy is the receiver's own. Shared
ones send their file descriptor (multiprocessing.reduction.DupFd: directly to a child being
spawned, through the resource sharer otherwise), so the receiver maps the same memory.

Invariant: a shared storage keeps its _Segment (the descriptor and the mapping) alive; the
segment is found again by the storage's address while that storage lives."""
from __future__ import annotations

import mmap
import os
import tempfile
import weakref
from multiprocessing import reduction

import numpy as np

from . import _C, _device

_segments: "weakref.WeakValueDictionary[int, _Segment]" = weakref.WeakValueDictionary()


class _Segment:
    """A shared-memory file mapped into this process: made here, or opened from a received
    descriptor."""

    def __init__(self, nbytes: int, fd: int = -1):
        self.size = max(int(nbytes), 1)  # a mapping cannot be empty
        if fd < 0:
            if hasattr(os, "memfd_create"):
                fd = os.memfd_create("glassgrad_shared_tensor", os.MFD_CLOEXEC)
            else:  # pragma: no cover - other systems: an unlinked file, in /dev/shm where there is one
                handle, path = tempfile.mkstemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
                os.unlink(path)
                fd = handle
            os.ftruncate(fd, self.size)
        self.fd = fd
        self.map = mmap.mmap(fd, self.size)  # MAP_SHARED: every process's writes land here

    def array(self, dtype: str, shape) -> np.ndarray:
        count = int(np.prod(shape, dtype=np.int64))
        return np.frombuffer(self.map, dtype=np.dtype(dtype), count=count).reshape(shape)

    def __del__(self):
        try:
            os.close(self.fd)
        except OSError:
            pass


def _leaf(raw, requires_grad: bool, name: str):
    return _C.lazy_leaf(raw, "parameter" if requires_grad else "input", requires_grad, name)


def _segment_of(t) -> "_Segment | None":
    if str(t.device) != "cpu":
        return None
    return _segments.get(t._raw().storage_ptr)


def is_shared(t) -> bool:
    """Whether the CPU tensor t lives in shared memory (Tensor.is_shared)."""
    return _segment_of(t) is not None


def holds_shared_values(t) -> bool:
    """Whether t is a stored tensor (not a pending result) in shared memory: what in-place ops and
    clone() compute at once, so other processes see a write when it is made and a copy holds the
    values of when it was taken, as in PyTorch (docs/data-loading.md, "Sharing a model between
    processes"). Costs one dict check while no tensor of this process is shared."""
    return bool(_segments) and t._h.realized and _segment_of(t) is not None


def share_(t):
    """Moves the CPU tensor t into shared memory (Tensor.share_memory_); t itself is returned."""
    if str(t.device) != "cpu" or is_shared(t):
        return t
    if not t.is_leaf:
        raise _C.TensorStateError(f"share_memory_: this tensor of shape {tuple(t.shape)} is computed by an op, and only a "
                            f"leaf (data, a parameter, a buffer) can move into shared memory\n"
                            f"  fix: share the tensor it is computed from, or x.detach().share_memory_()")
    values = t.numpy(force=True)
    seg = _Segment(values.nbytes)
    arr = seg.array(values.dtype.str, values.shape)
    arr[...] = values
    raw = _C.Tensor.wrap_array(arr, seg, t.name)
    _segments[raw.storage_ptr] = seg
    t._h.reset(_leaf(raw, t.requires_grad, t.name))
    return t


def _rebuild_shared(cls, fd, size: int, dtype: str, shape, requires_grad: bool, name: str):
    seg = _Segment(size, fd.detach() if hasattr(fd, "detach") else fd)
    raw = _C.Tensor.wrap_array(seg.array(dtype, tuple(shape)), seg, name)
    _segments[raw.storage_ptr] = seg
    return _new(cls, _leaf(raw, requires_grad, name))


def _rebuild_values(cls, values: np.ndarray, device: str, requires_grad: bool, name: str, order=None):
    """The tensor reduce_tensor pickled: its values, laid out in dim order `order` where it was
    dense in another order than row-major (its strides, as PyTorch's pickle keeps them)."""
    raw = _C.Tensor.from_numpy(values, _device.normalize(device), name)
    handle = _leaf(raw, requires_grad, name)
    if order is not None:
        from ._memory_formats import leaf_in_order
        from ._tensor import _wrap
        handle = leaf_in_order(_wrap(handle), order)._h
    return _new(cls, handle)


def _new(cls, handle):
    t = cls.__new__(cls)
    t._h = handle
    return t


def reduce_tensor(t):
    """Tensor.__reduce__: the values, or for a shared tensor its shared memory."""
    seg = _segment_of(t)
    if seg is not None:
        values_dtype, shape = t._raw().dtype, tuple(t.shape)
        dtype = np.dtype(values_dtype).str
        return _rebuild_shared, (type(t), reduction.DupFd(seg.fd), seg.size, dtype, shape, t.requires_grad, t.name)
    from ._memory_formats import dense_order
    order = None if t.is_contiguous() else dense_order(t)
    values = (type(t), t.numpy(force=True), str(t.device), t.requires_grad, t.name)
    return _rebuild_values, values if order is None else values + (order,)
