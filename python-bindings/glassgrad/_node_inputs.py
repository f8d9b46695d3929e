"""The operands PyTorch's backward node lists in next_functions for glassgrad's indexing ops
(Tensor.grad_fn; docs/autograd.md): only differentiable ones. An index, a mask or a condition is
no input of PyTorch's node (GatherBackward0 lists self alone, WhereBackward0 (self, other)), and
a number written by masked_fill or scatter is not one either."""
from __future__ import annotations

# glassgrad ops whose integer and bool inputs are indices or masks (autodiff-engine/src/ops/indexing.cpp)
_INDEXED = frozenset({"Gather", "IndexSelect", "Index", "IndexPut", "IndexAdd", "Scatter"})

# Where(condition, a, b) recorded for PyTorch's ops that list (self, value) or self alone: the
# positions of those among a and b (masked_fill and x[mask] = v record Where(mask, value, self))
_WHERE_OPERANDS = {"WhereBackward0": (0, 1), "MaskedFillBackward0": (1,), "MaskedFillBackward1": (1, 0),
                   "IndexPutBackward0": (1, 0),
                   # fill_ and zero_ of a tensor that requires grad: Where(False, self, the constant)
                   "ZeroBackward0": (0,), "FillBackward2": (0,), "FillBackward3": (0, 1)}
# index_fill's and scatter's number value is an input of the recorded op, not of PyTorch's node
_WITHOUT_VALUE = {"IndexFillBackward0": 1, "ScatterBackward1": 2}


def listed(op: str, node: str, inputs: list) -> list:
    """inputs (runtime handles of op's inputs) as PyTorch's node `node` lists them."""
    if op == "Where":
        order = _WHERE_OPERANDS.get(node)  # (another node named on a Where lists what it lists)
        return inputs if order is None else [inputs[1:][i] for i in order]
    if op not in _INDEXED:
        return inputs
    drop = _WITHOUT_VALUE.get(node)
    return [h for i, h in enumerate(inputs)
            if i != drop and (h is None or not (h.dtype == "bool" or h.dtype.startswith(("int", "uint"))))]



# ops whose output views their first input, as a write through a view reads it
VIEWING = frozenset({"Slice", "Reshape", "Permute", "Expand", "Alias"})


def views(h, identity: int) -> bool:
    """Whether the value h is a view (of a view ...) of the value of identity: the first operand
    of the node that computed a write through a view (CopySlices lists that node's other operands)."""
    for _ in range(16):
        if h.op not in VIEWING or not h.producer_inputs:
            return False
        h = h.producer_inputs[0]
        if h.identity == identity:
            return True
    return False
