"""torch.jit._flatten: a nested input or output as the flat list of its tensors and a descriptor of
its structure, as TorchScript's argument flattening takes it apart (PyTorch's own tests and DETR's
export test compare a model's outputs with a runtime's through it).

Tuples, lists and dicts are walked in order (a dict's items as (key, value) pairs, keys included);
a tensor is kept as it is; a Python bool, int or float becomes a 0-d bool, int64 or float64
tensor; a str or None is kept in the descriptor only; any other object is refused with PyTorch's
RuntimeError."""
from __future__ import annotations

from typing import Any, List, Tuple

from .._tensor import Tensor

__all__ = ["IODescriptor", "_flatten"]

_UNSUPPORTED = ("Only tuples, lists and Variables are supported as JIT inputs/outputs. Dictionaries and strings are "
                "also accepted, but their usage is not recommended. Here, received an input of unsupported type: ")


class IODescriptor:
    """torch.IODescriptor: the structure _flatten took apart (opaque, as PyTorch's); `structure`
    holds it as nested tuples, "v" where a tensor was."""

    __slots__ = ("structure",)

    def __init__(self, structure: Any) -> None:
        self.structure = structure


def _flatten(obj: Any) -> Tuple[List[Tensor], IODescriptor]:
    """(the tensors of obj in order, its IODescriptor)."""
    from .._factories import tensor
    tensors: List[Tensor] = []

    def walk(x: Any) -> Any:
        if isinstance(x, Tensor):
            tensors.append(x)
            return "v"
        if isinstance(x, (bool, int, float)):
            dtype = "bool" if isinstance(x, bool) else "int64" if isinstance(x, int) else "float64"
            tensors.append(tensor(x, dtype=dtype))
            return "v"
        if isinstance(x, (str, type(None))):
            return ("const", x)
        if isinstance(x, (tuple, list)):
            return (type(x).__name__, tuple(walk(item) for item in x))
        if isinstance(x, dict):
            return ("dict", tuple(walk(item) for item in x.items()))
        raise RuntimeError(_UNSUPPORTED + type(x).__name__)

    return tensors, IODescriptor(walk(obj))
