"""The views a function returning several views made (split, split_with_sizes, chunk, unbind),
and the outputs of a custom autograd.Function that are views of its inputs (forward returned
x.view(-1), x[0], or x as it is): PyTorch refuses an in-place op on one of them under grad mode
when they require grad (its autograd cannot rebase such a view, nor override the Function's
backward with the write's), and so does glassgrad (_inplace checks here). The unsafe_ spellings
(unsafe_split, unsafe_chunk, unsafe_split_with_sizes) make unmarked views."""
from __future__ import annotations

import weakref
from typing import Dict, Tuple

from . import _C, _output_numbers

# id(tensor) -> (a weak reference to it, PyTorch's op name or the Function's class name, output
# index, whether a custom Function made it); an entry leaves with its tensor
_OUTPUTS: Dict[int, Tuple[weakref.ref, str, int, bool]] = {}


def mark(outputs: tuple, op: str) -> tuple:
    """outputs (the views `op` returned), registered where autograd records them (and numbered:
    Tensor.output_nr)."""
    _output_numbers.number(outputs)
    if outputs and _C.grad_enabled() and outputs[0]._h.requires_grad:
        for i, t in enumerate(outputs):
            key = id(t)
            _OUTPUTS[key] = (weakref.ref(t, _forget(key)), op, i, False)
    return outputs


def mark_function_view(t, function: str, index: int) -> None:
    """t, output `index` of the custom Function class named `function`, is a view of an input."""
    key = id(t)
    _OUTPUTS[key] = (weakref.ref(t, _forget(key)), function, index, True)


def _forget(key: int):
    def forget(_ref) -> None:
        _OUTPUTS.pop(key, None)
    return forget


def check(t, what: str) -> None:
    """Raises PyTorch's RuntimeError where the in-place op `what` modifies such a view under grad mode."""
    entry = _OUTPUTS.get(id(t))
    if entry is None or not _C.grad_enabled() or not t._h.requires_grad:
        return
    ref, op, i, by_function = entry
    shape = list(t.shape)
    if ref() is not t:  # another object took a collected one's id
        return
    if by_function:
        raise _C.TensorStateError(
            f"Output {i} of {op} is a view and is being modified inplace. This view was created inside a custom "
            "Function (or because an input was returned as-is) and the autograd logic to handle view+inplace would "
            "override the custom backward associated with the custom Function, leading to incorrect gradients. This "
            "behavior is forbidden. You can fix this by cloning the output of the custom Function.\n"
            f"  {what}: output {i} of {op}.apply {shape} is a view of its input and requires grad\n"
            f"  fix: y = {op}.apply(x).clone() before writing into it, or return x.clone() from forward")
    raise _C.TensorStateError(
        f"Output {i} of {op}Backward0 is a view and is being modified inplace. This view is the output of a function that "
        "returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
        f"replace the inplace operation by an out-of-place one.\n  {what}: output {i} of {op.lower()} "
        f"{shape} requires grad\n  fix: y = a * 2 instead of a.mul_(2), or a = a.clone() first")
