"""Memory formats on glassgrad tensors (torch.memory_format's semantics, docs/porting.md "Memory
formats"): which dim order a tensor is dense in, and making a tensor dense in a given order.

A tensor in channels_last is a permuted view of a dense tensor: x.permute(0, 2, 3, 1) made dense,
permuted back to NCHW, has PyTorch's strides (N, 1, W*C, C) and the same values, and gradients
flow through the permute and the copy. Elementwise results keep their inputs' dim order
(_elementwise_layout.py); other op results are row-major (the planner chooses kernels' layouts
itself: docs/architecture.md, insert_contiguous_copies), where PyTorch carries channels_last
through convolutions too; values are the same either way."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from . import _C, _elementwise_layout
from ._layouts import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format

# outermost dim first: NHWC and NDHWC
_ORDERS = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}
_RANKS = {channels_last: 4, channels_last_3d: 5}


def checked(fmt, fn: str) -> Optional[memory_format]:
    """fmt when it is a memory format (or None), else PyTorch's TypeError."""
    if fmt is None or isinstance(fmt, memory_format):
        return fmt
    raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}\n"
                    f"  fix: memory_format=glassgrad.channels_last (or contiguous_format, preserve_format)")


def _need_rank(shape: Sequence[int], fmt: memory_format) -> None:
    rank = _RANKS.get(fmt)
    if rank is not None and len(shape) != rank:
        raise _C.InvalidArgumentError(
            f"required rank {rank} tensor to use {fmt.name} format (got a tensor of shape {list(shape)})\n"
            f"  fix: {fmt.name} is for {'NCHW' if rank == 4 else 'NCDHW'} tensors; leave other tensors in "
            f"glassgrad.contiguous_format")


def dense_in(shape: Sequence[int], strides: Sequence[int], order: Sequence[int]) -> bool:
    """True when the elements are dense in `order` (outermost dim first); size-1 dims' strides do
    not matter, as in PyTorch's contiguity checks."""
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def is_contiguous(t, fmt) -> bool:
    """Tensor.is_contiguous(memory_format=fmt): channels_last(_3d) checks NHWC (NDHWC) density
    (False for another rank); any other format checks row-major density."""
    fmt = checked(fmt, "is_contiguous")
    order = _ORDERS.get(fmt)
    if order is None:
        return t._h.layout[2]
    return t.ndim == len(order) and dense_in(t.shape, t.stride(), order)


def inverse(order: Sequence[int]) -> List[int]:
    return [list(order).index(d) for d in range(len(order))]


def in_order(t, order: Sequence[int]):
    """t itself when dense in `order`, else a copy dense in it (NCHW sizes kept)."""
    if dense_in(t.shape, t.stride(), order):
        return t
    return t.permute(*order).contiguous().permute(*inverse(order))


def to_format(t, fmt, fn: str):
    """t in memory format fmt: itself when already so (or fmt is None / preserve_format), else a copy."""
    fmt = checked(fmt, fn)
    if fmt is None or fmt is preserve_format:
        return t
    if fmt is contiguous_format:
        return t.contiguous()
    _need_rank(t.shape, fmt)
    return in_order(t, _ORDERS[fmt])


def contiguous(t, fmt):
    """Tensor.contiguous(memory_format=fmt): preserve_format only for a tensor already row-major."""
    fmt = checked(fmt, "contiguous")
    if fmt is preserve_format:
        if not t._h.layout[2]:
            raise _C.InvalidArgumentError(
                "preserve memory format is unsupported by the contiguous operator\n"
                "  fix: x.contiguous() (row-major) or x.contiguous(memory_format=glassgrad.channels_last)")
        return t
    return to_format(t, fmt, "contiguous")


def _stride_order(shape: Sequence[int], strides: Sequence[int]) -> Tuple[int, ...]:
    """Dims outermost first by stride; of two with one stride the larger outer (a size-1 dim sits
    inside the dim whose stride it shares, so a dense tensor's order gives back its strides, as
    PyTorch's empty_like copies them), then in dim order."""
    return tuple(sorted(range(len(shape)), key=lambda d: (-strides[d], -shape[d], d)))


def dense_order(t) -> Optional[Tuple[int, ...]]:
    """The dim order (outermost first) a tensor dense in another order than row-major is laid out
    in (a transpose's, channels_last's); None for a row-major tensor or one with gaps or overlaps."""
    shape, strides = tuple(t.shape), t.stride()
    order = _stride_order(shape, strides)
    if order == tuple(range(len(shape))) or not dense_in(shape, strides, order):
        return None
    return order


def laid_out_copy(t):
    """A copy of t with t's strides and requires_grad, a leaf, where t is dense in another order
    than row-major (a transpose, channels_last), as PyTorch's copy.deepcopy, pickle and torch.save
    keep a tensor's strides; None otherwise (a row-major copy serves)."""
    order = None if t.is_contiguous() else dense_order(t)
    return None if order is None else leaf_in_order(t, order)


def leaf_in_order(t, order: Sequence[int]):
    """A leaf holding a copy of t's values laid out in dim order `order` (outermost first), as a
    view of a dense buffer in that order, requiring gradients where t does."""
    from ._runtime import no_grad
    from ._tensor import _wrap
    with no_grad():
        h = t.detach().permute(*order).clone(memory_format=contiguous_format).permute(*inverse(order))._h
    h.set_requires_grad(bool(t.requires_grad))
    return _wrap(h)


def format_order(shape: Sequence[int], fmt, fn: str) -> Optional[Tuple[int, ...]]:
    """The dim order (outermost first) of memory format fmt for a tensor of `shape` (None: row-major)."""
    fmt = checked(fmt, fn)
    if fmt is preserve_format:
        raise _C.InvalidArgumentError(f"{fn}: unsupported memory format Preserve (a new tensor has no input to "
                                      f"preserve)\n  fix: memory_format=glassgrad.contiguous_format or channels_last")
    if fmt is None or fmt is contiguous_format:
        return None
    _need_rank(shape, fmt)
    return _ORDERS[fmt]


def result_order(t, fmt, fn: str) -> Optional[Tuple[int, ...]]:
    """The dim order (outermost first) that clone and the *_like factories lay their result out in,
    None for row-major. preserve_format (the default) keeps a dense tensor's order, as PyTorch
    does; a tensor with gaps or with expanded (stride 0) dims gets PyTorch's infer_dense_strides
    order: its dims sorted by stride as TensorIterator sorts them, an expanded dim keeping its
    place (x.t()[::2] stays transposed; x.expand(...) and repeat's tiles come out row-major)."""
    fmt = checked(fmt, fn)
    if fmt is not None and fmt is not preserve_format:
        return format_order(t.shape, fmt, fn)
    shape, strides = tuple(t.shape), t.stride()
    order = _stride_order(shape, strides)
    if not dense_in(shape, strides, order):
        order = tuple(_elementwise_layout.iterator_order([strides], shape))
    return None if order == tuple(range(len(shape))) else order


def laid_out(make, shape: Sequence[int], order: Optional[Sequence[int]]):
    """make(sizes) (a fresh row-major tensor) laid out in `order`: made in the permuted sizes and
    permuted back, so its strides are `order`'s dense strides and its elements fill memory in order."""
    if order is None:
        return make(tuple(shape))
    return make(tuple(shape[d] for d in order)).permute(*inverse(order))
