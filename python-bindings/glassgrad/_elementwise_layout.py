"""The memory layout of an elementwise op's result, as PyTorch's TensorIterator lays it out: a
result computed from a transposed or permuted tensor is laid out as that tensor is
(x.t().exp().stride() is (1, 3) for a 2x3 x, and is_contiguous() False), so that .view() refuses
and accepts what PyTorch's does. Row-major inputs (every op of a plain training step) give a
row-major result and take no detour (docs/porting.md, "Memory formats"): only where an input
is a view laid out other than row-major (_tensor._op's test) can the result's layout differ.

The op itself runs on its inputs permuted into the result's dim order (where a transposed input
reads as row-major) and the result is permuted back: a view whose grad_fn names the op's node."""
from __future__ import annotations

from typing import List, Optional, Sequence

from . import _C

# The engine's elementwise ops (op_schema's elementwise flag) but their gradients' ops and the
# fused op the planner makes. (Cast, Tensor.to's conversion, follows the same rule here; PyTorch's
# empty_like gives a tensor with gaps a row-major result there, where this gives its dim order.)
ELEMENTWISE: frozenset = frozenset(n for n in _C.op_names() if _C.op_schema(n)["elementwise"]
                        and not n.endswith("Backward") and n != "FusedElementwise")


def _strides(h, shape: Sequence[int]) -> List[int]:
    """h's strides over the result's dims (`shape`): 0 where h broadcasts (a missing leading dim,
    or a size-1 dim the result has more of), as TensorIterator's compute_strides sets them."""
    own, strides = list(h.shape), list(h.layout[0])
    lead = len(shape) - len(own)
    return [0] * lead + [0 if n == 1 and shape[lead + i] != 1 else s for i, (n, s) in enumerate(zip(own, strides))]


def result_order(inputs: Sequence, shape: Sequence[int]) -> Optional[List[int]]:
    """The result's dims outermost first, None for row-major: TensorIterator's reorder_dimensions
    (an insertion sort of the dims, fastest first, by the first input whose strides tell two dims
    apart, equal strides put the smaller dim first), kept only when no fast path applies (every
    input row-major: row-major; every input of the result's shape with the same dense strides:
    those)."""
    ndim = len(shape)
    if ndim < 2:
        return None
    handles = [x._h for x in inputs]
    strides = [_strides(h, shape) for h in handles]

    order = iterator_order(strides, shape)
    return None if order == list(range(ndim)) else order


def iterator_order(strides: Sequence[Sequence[int]], shape: Sequence[int]) -> List[int]:
    """The dims outermost first as TensorIterator's reorder_dimensions sorts them (and PyTorch's
    infer_dense_strides, which clone and the *_like factories lay a tensor with gaps out by): an
    insertion sort, fastest first, by the first of `strides` (one list per input) that tells two
    dims apart; a stride 0 (a broadcast or expanded dim) tells nothing, so such a dim keeps its
    place; equal strides put the smaller dim first."""
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))  # fastest first

    def should_swap(d0: int, d1: int) -> int:
        for s in strides:
            s0, s1 = s[d0], s[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm[::-1]


def record_in_order(op, record, name: str, inputs: Sequence, attrs, shape: Sequence[int], order: List[int]):
    """record(name) (the op without this module's detour) on the inputs permuted into `order` (each first given the result's rank), its
    result permuted back: dense in `order`, as PyTorch's."""
    ndim = len(shape)
    moved = []
    for x in inputs:
        if x.ndim == 0:
            moved.append(x)
            continue
        if x.ndim < ndim:
            x = op("Reshape", [x], {"shape": [1] * (ndim - x.ndim) + list(x.shape)})
        moved.append(op("Permute", [x], {"dims": order}))
    inner = record(name, moved, attrs)
    back = [order.index(d) for d in range(ndim)]
    named = {"torch_node": inner.grad_fn.name()} if inner._h.requires_grad and inner.grad_fn is not None else {}
    return op("Permute", [inner], {"dims": back, **named})
