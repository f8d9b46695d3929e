"""The attributes that make a composite's last op read as PyTorch's single node in Tensor.grad_fn
(docs/autograd.md): torch_node names the node, torch_operands lists the node's operands as paths
of input indices down from the op (_GradFn._composite_inputs reads them), so next_functions has
PyTorch's entries: one per operand of PyTorch's op, (None, 0) for an absent one (conv's bias)."""
from __future__ import annotations

from typing import List, Optional, Sequence

# torch_operands' encoding: a path's input indices, paths separated by SEPARATOR; a path that is
# NO_OPERAND alone is an operand PyTorch's node lists as (None, 0).
SEPARATOR = -1
NO_OPERAND = -2
# The op's inputs 0 and 1, then an absent operand (a convolution's (input, weight, None))
WITHOUT_THIRD = [0, SEPARATOR, 1, SEPARATOR, NO_OPERAND]

# How far below the op an operand is looked for: a composite's own ops, not the script's graph.
_MAX_DEPTH = 32
_MAX_VISITS = 512


def node_attrs(node: str, inputs: Sequence, *operands) -> dict:
    """{'torch_node': node, 'torch_operands': ...} for an op about to be recorded with inputs,
    whose PyTorch node's operands are `operands` (tensors, or None for an absent one; one that needs no gradient is (None, 0) too). Empty when
    no operand requires grad (the plain path records no attribute); just the name when an
    operand is not found below the inputs."""
    from ._tensor import Tensor
    if not any(isinstance(t, Tensor) and t._h.requires_grad for t in operands):
        return {}
    flat: List[int] = []
    for k, t in enumerate(operands):
        if k:
            flat.append(SEPARATOR)
        if not isinstance(t, Tensor) or not t._h.requires_grad:  # listed as (None, 0) either way
            flat.append(NO_OPERAND)
            continue
        path = _path_to(t._h.identity, [x._h for x in inputs])
        if path is None:
            return {"torch_node": node}
        flat.extend(path)
    return {"torch_node": node, "torch_operands": flat}


def named_node(t, node: str, *operands):
    """t recorded as PyTorch's node `node` for Tensor.grad_fn when it requires grad: a composite
    whose last op is another's (cummax's gather, median's where) ends with a Reshape to its own
    shape carrying the name, a view; operands (when given): the tensors (None: absent) PyTorch's
    node lists in next_functions, found below t."""
    from ._tensor import _op
    if not t._h.requires_grad:
        return t
    attrs = node_attrs(node, [t], *operands) if operands else {}
    return _op("Reshape", [t], {"shape": list(t._h.shape), "torch_node": node, **attrs})


def _path_to(identity: int, inputs: list) -> Optional[List[int]]:
    """The input indices from an op with inputs down to the value of identity (breadth first, so
    the shortest path), or None."""
    frontier = [([i], h) for i, h in enumerate(inputs)]
    visits = 0
    while frontier:
        nxt: list = []
        for path, h in frontier:
            if h.identity == identity:
                return path
            visits += 1
            if visits > _MAX_VISITS or len(path) >= _MAX_DEPTH:
                return None
            nxt.extend((path + [j], p) for j, p in enumerate(h.producer_inputs))
        frontier = nxt
    return None


def resolve(handle, flat: Sequence[int]) -> Optional[list]:
    """The operands torch_operands `flat` names below handle's op (None for an absent operand), or
    None when the recorded ops do not have the paths (the composite recorded otherwise)."""
    found: list = []
    path: List[int] = []
    for v in list(flat) + [SEPARATOR]:
        if v != SEPARATOR:
            path.append(int(v))
            continue
        if path == [NO_OPERAND]:
            found.append(None)
        else:
            h = handle
            for i in path:
                inputs = h.producer_inputs
                if not 0 <= i < len(inputs):
                    return None
                h = inputs[i]
            found.append(h)
        path = []
    return found
