"""grad_fn._raw_saved_<name>: PyTorch's SavedTensor objects (torch._C._autograd.SavedTensor) for
the tensors a node saved (_saved_attributes). register_hooks(pack_hook, unpack_hook) packs the
saved tensor at once and unpacks it when a backward reaches the node, as
autograd.graph.saved_tensors_hooks does for every node (_saved_tensor_hooks: its SAVED entries,
which this module adds to): the gradient is then PyTorch's from what unpack_hook returned for
the ops _unpacked_gradients covers, and grad_fn._saved_<name> gives the unpacked value. One pair
of hooks per saved tensor, as PyTorch allows."""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

from . import _C, _saved_tensor_hooks

# (node value identity, attribute name) -> (unpack_hook, packed value)
_HOOKED: Dict[Tuple[int, str], Tuple[Callable, Any]] = {}


class SavedTensor:
    """A tensor a backward node saved (grad_fn._raw_saved_<name>)."""

    __slots__ = ("_node", "_name", "_tensor", "_operands")

    def __init__(self, node, name: str, tensor, operands: tuple):
        self._node, self._name, self._tensor, self._operands = node, name, tensor, operands

    def register_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: SavedTensor, arg0: Callable, arg1: Callable) -> None\n"
                            f"  got ({type(pack_hook).__name__}, {type(unpack_hook).__name__})")
        identity = self._node._h.identity
        key = (identity, self._name)
        entry = _saved_tensor_hooks.SAVED.get(identity)
        if key in _HOOKED or (entry is not None and not getattr(entry[0], "raw_saved", False)):
            raise _C.TensorStateError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                                      "Hint: only one pair of hooks is allowed at a time.\n"
                                      "  fix: register one (pack_hook, unpack_hook) pair per saved tensor")
        packed = pack_hook(self._tensor)
        _HOOKED[key] = (unpack_hook, packed)
        if entry is None:
            op, output = self._node._op, self._operands[1]
            entry = (_unpack_pair, [], self._node._h.pin(), (op, self._operands[0], output, []))
            _saved_tensor_hooks.SAVED[identity] = entry
        entry[1].append((unpack_hook, packed, key))
        entry[3][3].append(self._tensor)

    def unpack(self):
        hooked = _HOOKED.get((self._node._h.identity, self._name))
        return self._tensor if hooked is None else hooked[0](hooked[1])

    @property
    def data(self):
        return self.unpack()

    def __repr__(self) -> str:
        return f"<glassgrad._C._autograd.SavedTensor object at {hex(id(self))}>"


def _unpack_pair(item):
    unpack_hook, packed, key = item
    _HOOKED.pop(key, None)  # unpacked by this backward (an entry kept by retain_graph packs again)
    return unpack_hook(packed)


_unpack_pair.raw_saved = True  # type: ignore[attr-defined]


def saved_tensor(node, name: str, value_of: Callable[[], Any]) -> SavedTensor:
    """node's SavedTensor for its saved attribute `name` (value_of() gives the saved value)."""
    from ._tensor import Tensor, _wrap
    h = node._h
    inputs = tuple(_wrap(x) for x in h.producer_inputs)
    output = _wrap(h)
    value = value_of()
    if not isinstance(value, Tensor):
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '_raw_saved_{name}' (its saved "
                             f"{name} is not a tensor)")
    # the object among the node's operands and output that holds the saved value: the one the
    # gradient's correction substitutes (_unpacked_gradients matches saved tensors by object)
    same = [t for t in inputs + (output,) if t._h.identity == value._h.identity]
    return SavedTensor(node, name, same[0] if same else value, (inputs, output))


def unpacked(node, name: str):
    """grad_fn._saved_<name> after register_hooks: what unpack_hook returns, or None."""
    hooked = _HOOKED.get((node._h.identity, name))
    return None if hooked is None else (hooked[0](hooked[1]),)
