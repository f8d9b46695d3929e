"""torch.as_strided (and Tensor.as_strided, as_strided_, torch.as_strided_copy, as_strided_scatter):
the elements of input's storage at storage_offset + sum_k i_k * stride[k], for every index i of
`size`.

glassgrad's views are ops (Reshape, Slice, Permute, Expand: docs/architecture.md, the movement
family), not arbitrary strides over a buffer, so as_strided is built from them where it can be:
the storage as one flat axis, cut at the offset, reshaped into blocks of the strides, sliced to
the sizes and permuted into the asked order. That holds when the strides, sorted, each divide
the next and no dimension overlaps the one outside it (the re-striding of a tensor, a transpose,
a strided pick such as a diagonal) and the blocks fit the storage: the result is then a view,
and writes into it reach input. Otherwise (overlapping windows, the last block running past the
storage) the result is a copy gathered from the storage, as glassgrad's Tensor.unfold of
overlapping windows: reading it is PyTorch's, writing into it does not reach input. Either way
the gradient is PyTorch's (overlapping reads add their gradients)."""
from __future__ import annotations

import numbers
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import _C, _args, _shapes
from ._arranging import put_at_positions
from ._tensor import Tensor, _wrap, tensor

__all__ = ["as_strided", "as_strided_", "as_strided_copy", "as_strided_scatter"]


def _ints(values, name: str, where: str, position: int) -> List[int]:
    if isinstance(values, numbers.Integral):
        values = [values]
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)):
            raise _args.InvalidArgumentTypeError(
                f"{where}(): argument '{name}' (position {position}) must be tuple of ints, but found element of "
                f"type {type(v).__name__} at pos {i}\n  fix: integers, e.g. {where}(x, (2, 3), (3, 1))")
        out.append(int(v))
    return out


def _storage(input: Tensor) -> Tuple[Tensor, int]:
    """input's storage as a flat tensor whose ops reach input's buffer (so a view of it is a view
    of input), and input's offset in it. A view's storage is the tensor it views (its handle's
    chain of view ops, followed to the first tensor with a buffer of its own, which is dense)."""
    h = input._h
    while h.is_view and h.producer_inputs:
        h = h.producer_inputs[0]
    root = input if h is input._h else _wrap(h)
    strides, offset, dense = root._h.layout
    if not h.is_view and offset == 0 and dense:
        if root is input or not input.requires_grad:
            return root.reshape(-1), input.storage_offset()
        # PyTorch's gradient reaches input's elements only, not the rest of its base: the storage
        # is the base's values with input's elements put in their places (a copy, then)
        flat = root.detach().reshape(-1).clone()
        positions = _positions(list(input.shape), list(input.stride()), input.storage_offset())
        flat[tensor(positions.reshape(-1), device=input.device)] = input.reshape(-1)
        return flat, input.storage_offset()
    # a view made at once over a buffer (of a tensor that does not require grad, so no op records
    # it): the buffer's elements, read as a constant, so the result is a copy
    raw = input._raw()
    full = raw.as_strided([raw.storage_nbytes // input.element_size()], [1], 0)
    return _wrap(_C.lazy_leaf(full, "constant", False, "")).clone(), input.storage_offset()


def _check(size: Sequence[int], stride: Sequence[int], offset: int, storage: int, itemsize: int, where: str) -> None:
    if len(size) != len(stride):
        raise _C.ShapeError(f"mismatch in length of strides and shape\n  {where}: size {list(size)} has "
                            f"{len(size)} dims, stride {list(stride)} {len(stride)}\n  fix: one stride per dim")
    if any(s < 0 for s in size):
        raise _C.ShapeError(f"{where}: negative size in {list(size)}\n  fix: sizes >= 0")
    if any(t < 0 for t in stride):
        raise _C.InvalidArgumentError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                                      f"{list(stride)}\n  fix: strides >= 0 (flip() reverses an axis)")
    if offset < 0:
        raise _C.InvalidArgumentError(f"Tensor: invalid storage offset {offset}\n  fix: storage_offset >= 0")
    need = offset + 1 + sum((s - 1) * t for s, t in zip(size, stride)) if all(size) else 0
    if need > storage:
        raise _C.ShapeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                            f"itemsize {itemsize} requiring a storage size of {need * itemsize} are out of bounds for "
                            f"storage of size {storage * itemsize}\n  fix: sizes and strides that stay inside the "
                            f"input's {storage} elements")


def _as_view(flat: Tensor, size: List[int], stride: List[int], offset: int) -> Optional[Tensor]:
    """The strided elements of flat as ops that view it, or None where they cannot be."""
    live = sorted((k for k in range(len(size)) if size[k] > 1 and stride[k] > 0), key=lambda k: -stride[k])
    for outer, inner in zip(live, live[1:]):
        t_out, t_in = stride[outer], stride[inner]
        if t_out == t_in or t_out % t_in or t_out < size[inner] * t_in:
            return None  # overlapping or interleaved dims: no block structure
    if not live:
        block = flat[offset:offset + 1].reshape(())
    elif len(live) == 1 and offset + size[live[0]] * stride[live[0]] > flat.shape[0]:
        k = live[0]  # one strided axis (a diagonal) whose last step would pass the end: a stepped slice
        block = flat[offset:offset + (size[k] - 1) * stride[k] + 1:stride[k]]
    else:
        first = live[0]
        end = offset + size[first] * stride[first]
        if end > flat.shape[0]:
            return None
        blocks = [size[first]] + [stride[a] // stride[b] for a, b in zip(live, live[1:])] + [stride[live[-1]]]
        block = flat[offset:end].reshape(blocks)
        picks = (slice(None),) + tuple(slice(0, size[k]) for k in live[1:]) + (0,)
        block = block[picks]
    # the live dims in the asked order, then the others in their places: size 1 (any stride) and
    # stride 0 (expanded)
    order = sorted(range(len(live)), key=lambda j: live[j])
    if len(order) > 1:
        block = block.permute(order)
    for k in range(len(size)):
        if k not in live:
            block = _shapes.unsqueeze(block, k)
    return block.expand(*size) if size else block


def _positions(size: List[int], stride: List[int], offset: int) -> np.ndarray:
    """offset + sum_k i_k * stride[k] for every index i of size: where each element is in storage."""
    out: np.ndarray = np.full(size, offset, dtype=np.int64)
    for k, (s, t) in enumerate(zip(size, stride)):
        out += np.arange(s, dtype=np.int64).reshape([-1 if i == k else 1 for i in range(len(size))]) * t
    return out


def _gathered(flat: Tensor, size: List[int], stride: List[int], offset: int) -> Tensor:
    """The strided elements of flat as a copy (an Index op: overlapping reads add their gradients)."""
    return flat[tensor(_positions(size, stride, offset).reshape(-1), device=flat.device)].reshape(size)


def _strided(input: Tensor, size, stride, storage_offset, where: str) -> Tensor:
    if not isinstance(input, Tensor):
        _args.fail(where, "input", "a glassgrad.Tensor", input, type_error=True)
    size, stride = _ints(size, "size", where, 2), _ints(stride, "stride", where, 3)
    flat, own = _storage(input)
    offset = own if storage_offset is None else _args.integer(storage_offset, "storage_offset", where)
    _check(size, stride, offset, flat.shape[0], input.element_size(), where)
    if not all(size):
        return flat[:0].reshape(size) if flat.shape[0] else flat.reshape(size)
    view = _as_view(flat, size, stride, offset)
    return view if view is not None else _gathered(flat, size, stride, offset)


def as_strided(input: Tensor, size, stride, storage_offset: Optional[int] = None) -> Tensor:
    """torch.as_strided(input, size, stride, storage_offset=None): input's storage read with the
    given sizes and strides, from storage_offset (input's own offset by default). A view where the
    strides have a block structure, else a copy (the module's docstring says which)."""
    return _strided(input, size, stride, storage_offset, "as_strided")


def as_strided_copy(input: Tensor, size, stride, storage_offset: Optional[int] = None) -> Tensor:
    """torch.as_strided_copy: as_strided's elements in a new tensor of their own."""
    return _strided(input, size, stride, storage_offset, "as_strided_copy").clone()


def as_strided_(input: Tensor, size, stride, storage_offset: Optional[int] = None) -> Tensor:
    """torch.as_strided_ / Tensor.as_strided_: input becomes as_strided(input, size, stride,
    storage_offset)."""
    if input.is_leaf and input.requires_grad:
        raise _C.TensorStateError("a leaf Variable that requires grad is being used in an in-place operation.\n"
                                  "  as_strided_: fix: x.detach().as_strided_(...), or x.as_strided(...)")
    input._h = _strided(input, size, stride, storage_offset, "as_strided_")._h
    return input


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset: Optional[int] = None) -> Tensor:
    """torch.as_strided_scatter: a copy of input (contiguous: its own storage, from offset 0) with
    as_strided(copy, size, stride, storage_offset) replaced by src."""
    where = "as_strided_scatter"
    if not isinstance(src, Tensor):
        _args.fail(where, "src", "a glassgrad.Tensor", src, type_error=True)
    size, stride = _ints(size, "size", where, 3), _ints(stride, "stride", where, 4)
    offset = 0 if storage_offset is None else _args.integer(storage_offset, "storage_offset", where)
    _check(size, stride, offset, input.numel(), input.element_size(), where)
    if list(src.shape) != size:
        raise _C.ShapeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                            f"slice size = {size}\n  {where}: fix: src of shape {size}")
    return put_at_positions(input, _positions(size, stride, offset), src)
