"""PyTorch's view-copy functions (torch.view_copy, permute_copy, transpose_copy, ...): the view op
of the same name, then clone(), so the result has a buffer of its own (writes into it never reach
input) and the view's gradient. split_copy, split_with_sizes_copy and unbind_copy give a tuple of
copies. (narrow_copy is _shapes', as_strided_copy _strided's.)"""
from __future__ import annotations

from typing import Tuple

from . import _C, _args, _shapes
from ._tensor import Tensor, _dim

__all__ = ["alias_copy", "detach_copy", "diagonal_copy", "expand_copy", "permute_copy", "select_copy", "slice_copy",
           "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy",
           "unfold_copy", "unsqueeze_copy", "view_copy"]


def view_copy(input: Tensor, size=None, dtype=None) -> Tensor:
    """torch.view_copy(input, size): input.view(size) copied; view_copy(input, dtype) is
    input.view(dtype) (its bytes read as dtype) copied."""
    return input.view(size if dtype is None else dtype).clone()


def permute_copy(input: Tensor, dims) -> Tensor:
    """torch.permute_copy: input.permute(dims) copied (dims a sequence: () for a 0-d input)."""
    return input.permute(dims=dims).clone()


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """torch.transpose_copy: input.transpose(dim0, dim1) copied."""
    return input.transpose(dim0, dim1).clone()


def t_copy(input: Tensor) -> Tensor:
    """torch.t_copy: input.t() copied."""
    return _shapes.t(input).clone()


def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    """torch.expand_copy: input.expand(size) copied (each repeated element written out)."""
    return input.expand(*size).clone()


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """torch.diagonal_copy: input.diagonal(offset, dim1, dim2) copied."""
    return _shapes.diagonal(input, offset, dim1, dim2).clone()


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    """torch.select_copy: input.select(dim, index) copied."""
    return _shapes.select(input, dim, index).clone()


def slice_copy(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """torch.slice_copy: input[..., start:end:step] along dim, copied."""
    if input.ndim == 0:
        raise _C.GlassgradIndexError("slice() cannot be applied to a 0-dim tensor.\n  slice_copy: input is 0-d\n"
                                     "  fix: input.reshape(1) first")
    d = _dim(dim, input.ndim, "slice_copy", input.shape)
    return input[(slice(None),) * d + (slice(start, end, step),)].clone()


def squeeze_copy(input: Tensor, dim=_args.ABSENT) -> Tensor:
    """torch.squeeze_copy: input.squeeze(dim) copied (dim a dim or a tuple of dims; left out, every
    size-1 dim)."""
    return _shapes.squeeze(input, dim).clone()


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    """torch.unsqueeze_copy: input.unsqueeze(dim) copied."""
    return _shapes.unsqueeze(input, dim).clone()


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """torch.unfold_copy: input.unfold(dimension, size, step) copied."""
    return _shapes.unfold(input, dimension, size, step).clone()


def alias_copy(input: Tensor) -> Tensor:
    """torch.alias_copy: a copy of input, with input's gradient."""
    return input.clone()


def detach_copy(input: Tensor) -> Tensor:
    """torch.detach_copy: input.detach() copied (no gradient flows back)."""
    return input.detach().clone()


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> Tuple[Tensor, ...]:
    """torch.split_copy: the pieces of input.split(split_size, dim), each copied."""
    return tuple(piece.clone() for piece in _shapes.split(input, split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0) -> Tuple[Tensor, ...]:
    """torch.split_with_sizes_copy: the pieces of input.split_with_sizes(split_sizes, dim), copied."""
    return tuple(piece.clone() for piece in _shapes.split_with_sizes(input, split_sizes, dim))


def unbind_copy(input: Tensor, dim: int = 0) -> Tuple[Tensor, ...]:
    """torch.unbind_copy: the slices of input.unbind(dim), each copied."""
    return tuple(piece.clone() for piece in _shapes.unbind(input, dim))

