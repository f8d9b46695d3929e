"""masked_fill_, index_fill_, index_put_ and x[indices] = v into an expanded tensor (an axis of
stride 0 holding one memory element several times), as PyTorch 2.14 runs them: with its
deprecation warning, each memory element takes what was written into one of its copies (the last
written copy in row-major order), or, for index_put_(accumulate=True), everything added to any of
its copies (docs/inplace-and-views.md, "Writes into expanded tensors"). Other writes into such a
target raise PyTorch's RuntimeError (core-runtime/src/lazy/alias.cpp), and so do these where a
gradient would flow through the write (PyTorch's backward raises that error there)."""
from __future__ import annotations

import warnings

from . import _C


def _warning(op: str) -> str:
    what = "tensor[indices] = tensor" if op == "index_put_" else "tensor[mask] = scalar"
    return (f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before performing this "
            f"operation. This also applies to advanced indexing e.g. {what}")


def overlapping_axes(t) -> list:
    """The axes of t that hold one memory element several times (size > 1, stride 0)."""
    strides, _, contiguous = t._h.layout
    if contiguous:
        return []
    return [d for d, (n, s) in enumerate(zip(t.shape, strides)) if n > 1 and s == 0]


def applies(t, result) -> bool:
    """Whether a write of `result` into t that the runtime refused is one this module runs."""
    if _C.grad_enabled() and (t.requires_grad or result.requires_grad):
        return False
    return bool(overlapping_axes(t))


def write(t, ops, first: int, written=None, values=None, added=None):
    """Writes into expanded t (applies() holds): values (t's shape) where the bool tensor written
    is set, or t + added summed over each element's copies; warns once per op in ops, as
    PyTorch's ops do. Returns t."""
    from . import _factories, _inplace, functional
    for op in ops:
        warnings.warn(_warning(op), UserWarning, stacklevel=4)  # the caller of the Tensor method
    axes = overlapping_axes(t)
    target = t[tuple(slice(0, 1) if d in axes else slice(None) for d in range(t.ndim))]
    if added is not None:
        new = target + added.sum(dim=axes, keepdim=True).astype(t._h.dtype)
    else:
        for d in axes:  # the last written copy along d: its position, or -1 where none was written
            n = t.shape[d]
            at = _factories.arange(n, device=t.device).reshape(*[n if i == d else 1 for i in range(t.ndim)])
            pos = functional.where(written, at, -1).amax(dim=d, keepdim=True)
            written = pos >= 0
            values = values.gather(d, pos.clamp(min=0))
        new = functional.where(written, values, target)
    _inplace.write(target, new, ops[-1], first)
    return t


def in_place(t, op: str, first: int, result, mark=None, added=None):
    """Writes result (op's out-of-place result, computed from t since first) into t and returns t;
    where t is expanded, mark(a bool tensor of t's shape, all False) gives the positions op writes
    (or added() what it adds, for index_put_(accumulate=True))."""
    from . import _inplace
    try:
        return _inplace.write(t, result, op, first)
    except _C.TensorStateError:
        if not applies(t, result):
            raise
    if added is not None:
        return write(t, [op], first, added=added())
    return write(t, [op], first, mark(zeros_mask(t)), result)


def zeros_mask(t):
    """A bool tensor of t's shape, all False: what a write marks."""
    from . import _factories
    return _factories.zeros(tuple(t.shape), dtype="bool", device=t.device)
