"""The views a function returning several views made (split, split_with_sizes, chunk, unbind):
PyTorch refuses an in-place op on one of them under grad mode when they require grad (its
autograd cannot rebase such a view), and so does glassgrad (_inplace checks here). Their unsafe_
spellings (unsafe_split, unsafe_chunk, unsafe_split_with_sizes) make unmarked views."""
from __future__ import annotations

import weakref
from typing import Dict, Tuple

from . import _C, _output_numbers

# id(tensor) -> (a weak reference to it, PyTorch's op name, output index); an entry leaves with its tensor
_OUTPUTS: Dict[int, Tuple[weakref.ref, str, int]] = {}


def mark(outputs: tuple, op: str) -> tuple:
    """outputs (the views `op` returned), registered where autograd records them (and numbered:
    Tensor.output_nr)."""
    _output_numbers.number(outputs)
    if outputs and _C.grad_enabled() and outputs[0]._h.requires_grad:
        for i, t in enumerate(outputs):
            key = id(t)
            _OUTPUTS[key] = (weakref.ref(t, _forget(key)), op, i)
    return outputs


def _forget(key: int):
    def forget(_ref) -> None:
        _OUTPUTS.pop(key, None)
    return forget


def check(t, what: str) -> None:
    """Raises PyTorch's RuntimeError where the in-place op `what` modifies such a view under grad mode."""
    entry = _OUTPUTS.get(id(t))
    if entry is None or not _C.grad_enabled() or not t._h.requires_grad:
        return
    ref, op, i = entry
    shape = list(t.shape)
    if ref() is not t:  # another object took a collected one's id
        return
    raise _C.TensorStateError(
        f"Output {i} of {op}Backward0 is a view and is being modified inplace. This view is the output of a function that "
        "returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
        f"replace the inplace operation by an out-of-place one.\n  {what}: output {i} of {op.lower()} "
        f"{shape} requires grad\n  fix: y = a * 2 instead of a.mul_(2), or a = a.clone() first")
