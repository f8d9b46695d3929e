"""torch.autograd.graph.saved_tensors_hooks' machinery (docs/autograd.md, "Hooks for saved
tensors"). glassgrad's gradient rules read the forward values themselves, so the hooks see the
tensors PyTorch's node would save: pack_hook(tensor) runs as an op that autograd records is
recorded under the hooks (for each tensor PyTorch's node saves, in its order), unpack_hook(packed)
runs once per packed value when a backward first reaches the op, and the packed values are freed
with the graph (a backward without retain_graph). Where unpack returns other values than the
ones saved, the gradient is PyTorch's from what unpack returned (_unpacked_gradients), for the
ops listed there; for other ops it is computed from the forward values."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

# The active (pack_hook, unpack_hook) pairs, innermost last; an entry (None, message) disables them
STACK: List[Tuple[Optional[Callable], Any]] = []

# The packed values of each op recorded under hooks, by its first output's runtime value
# (identity): (unpack_hook, packed values, a pin on that value, (op, inputs, output, saved tensors)).
SAVED: Dict[int, Tuple[Callable, list, Any, tuple]] = {}

# What PyTorch's node saves, per glassgrad op: "inputs" (each tensor input, in order), "other"
# (for a binary op, each operand's partner when that operand requires grad: mul saves other, then
# self), "result" (the output), or nothing (a number operand, x * 2, is not saved either). Ops not
# listed save their tensor inputs.
_SAVES = {
    "Mul": "other", "MatMul": "other", "Div": "inputs",
    "Exp": "result", "Sigmoid": "result", "Tanh": "result", "ReLU": "result", "Sqrt": "result", "Rsqrt": "result",
    "Softmax": "result", "LogSoftmax": "result", "RDivScalar": "result",
}
_SAVES_NOTHING = frozenset({"Add", "Sub", "AddScalar", "Neg", "Sum", "Mean", "Reshape", "Permute", "Slice", "Expand",
                            "Concat", "Detach", "Cast", "Contiguous", "SliceScatter", "Where", "Alias",
                            "MulScalar"})


def push(pack_hook: Callable, unpack_hook: Callable) -> None:
    for pack, message in reversed(STACK):
        if pack is None:
            raise RuntimeError(message)
    STACK.append((pack_hook, unpack_hook))


def record(op: str, inputs, output, attrs) -> None:
    """Packs what PyTorch's node for `op` saves when autograd records it under the innermost
    hooks (called by _tensor._record_op while STACK is not empty)."""
    from . import _C
    from ._tensor import Tensor
    pack, unpack = STACK[-1]
    if pack is None or not _C.grad_enabled() or not output._h.requires_grad:
        return
    kind = _SAVES.get(op, "nothing" if op in _SAVES_NOTHING else "inputs")
    saved: List[Any] = []
    if kind == "inputs":
        saved = [t for t in inputs if isinstance(t, Tensor)]
    elif kind == "other" and len(inputs) == 2:
        a, b = inputs
        saved = ([b] if a._h.requires_grad else []) + ([a] if b._h.requires_grad else [])
    elif kind == "result":
        saved = [output]
    if not saved:
        return
    # the pin keeps the value (and so its identity) until a backward frees the entry, as PyTorch's
    # graph keeps its saved values
    SAVED[output._h.identity] = (unpack, [pack(t) for t in saved], output._h.pin(), (op, tuple(inputs), output, saved))


def unpack_reached(loss, retain_graph: bool) -> None:
    """Runs the unpack hooks of the ops a backward from `loss` reaches (each once per packed
    value, the ops nearest the loss first), then frees them unless retain_graph."""
    order: List[int] = []
    seen = set()
    frontier = [loss._h]
    while frontier:
        h = frontier.pop()
        identity = h.identity
        if identity in seen or not h.requires_grad:
            continue
        seen.add(identity)
        if identity in SAVED:
            order.append(identity)
        frontier.extend(h.producer_inputs)
    from . import _unpacked_gradients
    for identity in order:
        unpack, packed, _pin, (op, inputs, output, saved) = SAVED[identity]
        unpacked = [unpack(p) for p in packed]
        if not getattr(unpack, "returns_saved_values", False):  # save_on_cpu's gives them back
            _unpacked_gradients.correct(op, inputs, output, saved, unpacked)
        if not retain_graph:
            SAVED.pop(identity, None)
