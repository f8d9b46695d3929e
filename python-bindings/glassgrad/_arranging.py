"""PyTorch functions that arrange tensors into new ones, composed of glassgrad's differentiable
ops (so gradients flow wherever PyTorch's do): torch.permute, transpose, column_stack, dstack,
block_diag, cartesian_prod, combinations, vander, tensordot, chain_matmul, select_scatter,
slice_scatter; and the index builders tril_indices, triu_indices and unravel_index."""
from __future__ import annotations

import functools
import itertools
import math
import warnings
from typing import List, Sequence, Tuple

import numpy as np

from . import _C, _args, _autocast, _dtypes, _runtime, _trace
from ._args import UnsupportedDTypeError
from ._factories import ones_like, zeros
from ._inplace import _type_name
from ._shapes import atleast_3d, hstack, meshgrid, stack
from ._spatial import cat
from ._tensor import Tensor, _dim, tensor


def _tensors(tensors, where: str) -> List[Tensor]:
    items = list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else list(tensors)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            _args.fail(where, f"tensors[{i}]", "a glassgrad.Tensor", t, type_error=True)
    return items


def permute(input: Tensor, dims) -> Tensor:
    """torch.permute: input's axes in the order dims names (a view)."""
    return input.permute(dims)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """torch.transpose: axes dim0 and dim1 swapped (a view)."""
    return input.transpose(dim0, dim1)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """torch.column_stack: 0-d and 1-d tensors become columns [n, 1], then all are joined along
    axis 1."""
    items = _tensors((tensors,), "column_stack")
    return hstack([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in items])


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """torch.dstack: each made at least 3-d (atleast_3d), then joined along axis 2."""
    return cat([atleast_3d(t) for t in _tensors((tensors,), "dstack")], 2)


def block_diag(*tensors: Tensor) -> Tensor:
    """torch.block_diag: the (at most 2-d) tensors along the diagonal of a zero matrix; a 0-d
    tensor is a 1 x 1 block, a 1-d one a row. The dtype is their result_type, as PyTorch's: a 0-d
    tensor of a higher float type does not widen dimensioned ones (float16 with a 0-d float32 is float16)."""
    items = _tensors(tensors, "block_diag")
    blocks = []
    for i, t in enumerate(items):
        if t.ndim > 2:
            raise _C.ShapeError(f"block_diag: tensors[{i}] has {t.ndim} dimensions {list(t.shape)}; every "
                                f"input must have at most 2\n  fix: reshape it to 2-d first")
        blocks.append(t.reshape(1, -1) if t.ndim == 1 else t.reshape(1, 1) if t.ndim == 0 else t)
    if not blocks:
        return zeros(1, 0)
    dtype = _dtypes.result_type(*items)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        h, w = b.shape
        pieces = [zeros(h, left, dtype=dtype, device=b.device), b.to(dtype),
                  zeros(h, width - left - w, dtype=dtype, device=b.device)]
        rows.append(cat(pieces, 1))
        left += w
    return cat(rows, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """torch.cartesian_prod: every combination of one element from each 1-d tensor, as rows
    [n1 * n2 * ..., k] in itertools.product's order; one tensor comes back as it is."""
    items = _tensors(tensors, "cartesian_prod")
    for i, t in enumerate(items):
        if t.ndim != 1:
            raise _C.ShapeError(f"cartesian_prod: expected 1-d tensors, tensors[{i}] has shape {list(t.shape)}\n"
                                f"  fix: t.flatten()")
    if len(items) == 1:
        return items[0]
    return stack([g.reshape(-1) for g in meshgrid(*items, indexing="ij")], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """torch.combinations: the r-length combinations of a 1-d tensor's elements, as rows in
    itertools.combinations' order (with_replacement: combinations_with_replacement's)."""
    if not isinstance(input, Tensor) or input.ndim != 1:
        raise _C.ShapeError(f"combinations: expect a 1D vector, but got shape "
                            f"{list(getattr(input, 'shape', []))}\n  fix: input.flatten()")
    r = _args.integer(r, "r", "combinations", minimum=0)
    pick = itertools.combinations_with_replacement if _args.flag(with_replacement, "with_replacement",
                                                                 "combinations") else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if r == 0 or not rows:
        return zeros(0, dtype=input.dtype, device=input.device) if r == 0 else \
            zeros(0, r, dtype=input.dtype, device=input.device)
    index = tensor(np.array(rows, dtype=np.int64), device=input.device)
    return input.index_select(0, index.reshape(-1)).reshape(len(rows), r)


def vander(x: Tensor, N=None, increasing: bool = False) -> Tensor:
    """torch.vander: columns x ** (N - 1), ..., x ** 0 of a 1-d x (increasing: x ** 0 first);
    N defaults to len(x)."""
    if not isinstance(x, Tensor) or x.ndim != 1:
        raise _C.ShapeError(f"vander: x must be a one-dimensional tensor, got shape {list(getattr(x, 'shape', []))}"
                            f"\n  fix: x.flatten()")
    n = x.shape[0] if N is None else _args.integer(N, "N", "vander", minimum=0)
    powers = range(n) if _args.flag(increasing, "increasing", "vander") else range(n - 1, -1, -1)
    wide = x if x.dtype not in ("bool", "int8", "int16", "int32", "uint8") else x.long()
    if n == 0:
        return zeros(x.shape[0], 0, dtype=wide.dtype, device=x.device)
    return stack([wide.pow(p) if p else ones_like(wide) for p in powers], 1)


def _dims_pair(dims, a: Tensor, b: Tensor) -> Tuple[List[int], List[int]]:
    if isinstance(dims, (int, np.integer)) or (isinstance(dims, Tensor) and dims.ndim == 0):
        k = _args.integer(int(dims), "dims", "tensordot", minimum=0)
        if k > min(a.ndim, b.ndim):
            raise _C.ShapeError(f"tensordot: dims={k} contracts more axes than a {list(a.shape)} or "
                                f"b {list(b.shape)} has\n  fix: dims <= {min(a.ndim, b.ndim)}")
        return list(range(a.ndim - k, a.ndim)), list(range(k))
    first, second = dims
    for name, given in (("dims_self", first), ("dims_other", second)):
        if isinstance(given, (int, np.integer)):  # PyTorch's parser: each side is a list of axes
            raise _args.InvalidArgumentTypeError(
                f"tensordot(): argument '{name}' must be tuple of ints, not int\n  fix: dims=([{given}], [...]), "
                f"a list of axes for each tensor")
    first, second = list(first), list(second)
    if len(first) != len(second):
        raise _C.ShapeError(f"tensordot: both dimension lists should have the same length, got {first} and "
                            f"{second}\n  fix: name one axis of b for each axis of a")
    return [d % a.ndim for d in first], [d % b.ndim for d in second]


@_autocast.op("tensordot")
def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """torch.tensordot: sums a * b over dims (an int k: a's last k axes with b's first k; or two
    lists of axes); the result's axes are a's free axes then b's."""
    da, db = _dims_pair(dims, a, b)
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise _C.ShapeError(f"tensordot: contracted dimensions need to match, but first has size "
                                f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} in dim {y}\n"
                                f"  fix: pick axes of equal size")
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    left = a.permute(free_a + da).reshape(math.prod(a.shape[d] for d in free_a), k)
    right = b.permute(db + free_b).reshape(k, math.prod(b.shape[d] for d in free_b))
    return (left @ right).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


_CHAIN_MATMUL_WARNED = [False]


@_autocast.op("chain_matmul")
def chain_matmul(*matrices: Tensor) -> Tensor:
    """torch.chain_matmul (deprecated there for torch.linalg.multi_dot): the product of 2-d
    matrices, left to right."""
    if _runtime.warn_once(_CHAIN_MATMUL_WARNED):  # PyTorch's TORCH_WARN_ONCE
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                      "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                      "multiple parameters.", UserWarning, stacklevel=_trace.user_stacklevel())
    items = _tensors(matrices, "chain_matmul")
    if not items:
        raise _C.InvalidArgumentError("chain_matmul: expected one or more tensors\n  fix: chain_matmul(a, b)")
    for i, m in enumerate(items):
        if m.ndim != 2:
            raise _C.ShapeError(f"chain_matmul: tensor {i} must be 2-d, got shape {list(m.shape)}")
    return functools.reduce(lambda x, y: x @ y, items)


def _scatter_into(input: Tensor, src: Tensor, key: tuple, expected: Sequence[int], where: str) -> Tensor:
    if not isinstance(src, Tensor):
        _args.fail(where, "src", "a glassgrad.Tensor", src, type_error=True)
    if list(src.shape) != list(expected):
        raise _C.ShapeError(f"{where}: expected src to have a size equal to the slice of self: src size "
                            f"{list(src.shape)}, slice size {list(expected)}\n  fix: src of shape {list(expected)}")
    out = input.clone()
    out[key] = src
    return out


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """torch.select_scatter: a copy of input with input.select(dim, index) replaced by src."""
    if input.ndim == 0:
        raise _C.GlassgradIndexError("select() cannot be applied to a 0-dim tensor.\n  select_scatter: input is "
                                     "0-d, as PyTorch\n  fix: input.reshape(1)")
    d = _dim(dim, input.ndim, "select_scatter", input.shape)  # out of range: PyTorch's IndexError
    n = input.shape[d]
    i = _args.integer(index, "index", "select_scatter")
    if not -n <= i < n:
        raise _C.GlassgradIndexError(f"select_scatter: index {i} is out of bounds for dimension {dim} with size {n}")
    key = (slice(None),) * d + (i,)
    expected = list(input.shape[:d]) + list(input.shape[d + 1:])
    return _scatter_into(input, src, key, expected, "select_scatter")


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """torch.slice_scatter: a copy of input with input[..., start:end:step, ...] (along dim)
    replaced by src."""
    if input.ndim == 0:
        raise _C.GlassgradIndexError(f"slice() cannot be applied to a 0-dim tensor.\n  slice_scatter: input is 0-d "
                                     f"(src has shape {list(getattr(src, 'shape', []))}), as PyTorch\n  fix: "
                                     f"input.reshape(1)")
    d = _dim(dim, input.ndim, "slice_scatter", input.shape)
    part = slice(start, end, _args.integer(step, "step", "slice_scatter", minimum=1))
    key = (slice(None),) * d + (part,)
    expected = list(input.shape)
    expected[d] = len(range(*part.indices(input.shape[d])))
    return _scatter_into(input, src, key, expected, "slice_scatter")


def put_at_positions(input: Tensor, positions: np.ndarray, src: Tensor) -> Tensor:
    """A copy of input (contiguous) whose elements at the row-major positions (an array of
    src's shape) are src's: input's gradient is zero there, src's is the gradient read there."""
    out = input.clone().reshape(-1)
    if positions.size:
        out[tensor(positions.reshape(-1).astype(np.int64), device=input.device)] = src.reshape(-1).astype(input.dtype)
    return out.reshape(input.shape)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """torch.diagonal_scatter: a copy of input with input.diagonal(offset, dim1, dim2) replaced by src."""
    if not isinstance(src, Tensor):
        _args.fail("diagonal_scatter", "src", "a glassgrad.Tensor", src, type_error=True)
    d1, d2 = (_dim(d, input.ndim, "diagonal_scatter", input.shape) for d in (dim1, dim2))
    if d1 == d2:
        raise _C.InvalidArgumentError(f"diagonal_scatter: dim1 and dim2 are the same dim {d1}\n  fix: two dims")
    positions = np.arange(input.numel()).reshape(input.shape).diagonal(_args.integer(offset, "offset",
                                                                                     "diagonal_scatter"), d1, d2)
    if list(src.shape) != list(positions.shape):
        raise _C.ShapeError(f"diagonal_scatter: expected src to have a size equal to the slice of self: src size "
                            f"{list(src.shape)}, slice size {list(positions.shape)}\n  fix: src of shape "
                            f"{list(positions.shape)}")
    return put_at_positions(input, positions, src)


def _triangle_indices(row: int, col: int, offset: int, lower: bool, dtype, device, where: str) -> Tensor:
    row = _args.integer(row, "row", where, minimum=0)
    col = _args.integer(col, "col", where, minimum=0)
    offset = _args.integer(offset, "offset", where)
    if dtype is not None and _dtypes.plain(_dtypes.to_dtype(dtype)) not in ("int64", "int32"):  # PyTorch's kernel has these two
        raise UnsupportedDTypeError(f"\"{where}\" not implemented for '{_type_name(dtype)}'\n  {where}: dtype={dtype};"
                                    f" the indices are int64 or int32\n  fix: dtype=torch.long")
    pick = np.tril_indices if lower else np.triu_indices
    r, c = pick(row, offset, col)
    return tensor(np.stack([r, c]).astype(np.int64), dtype=dtype or "int64", device=device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory=False) -> Tensor:
    """torch.tril_indices: [2, N] row and column indices of the lower triangle of a row x col
    matrix (offset > 0 includes diagonals above the main one), in row-major order."""
    return _triangle_indices(row, col, offset, True, dtype, device, "tril_indices")


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory=False) -> Tensor:
    """torch.triu_indices: [2, N] indices of the upper triangle, as tril_indices."""
    return _triangle_indices(row, col, offset, False, dtype, device, "triu_indices")


def unravel_index(indices, shape) -> Tuple[Tensor, ...]:
    """torch.unravel_index: flat indices into a tensor of shape, as a tuple of int64 coordinate
    tensors of the indices' shape. Coordinate k is floor(index / stride_k) mod shape[k] (floored,
    as PyTorch's formula), so a negative index in [-prod(shape), 0) counts from the end; PyTorch
    documents other indices as invalid and the formula wraps them, as its does."""
    dims = [shape] if isinstance(shape, int) else list(shape)
    if not all(isinstance(n, int) for n in dims):
        bad = next(n for n in dims if not isinstance(n, int))
        raise _args.InvalidArgumentTypeError(f"expected 'shape' sequence to only contain ints, but got {type(bad)}\n"
                                             f"  unravel_index: shape {shape!r}\n  fix: a tuple of ints")
    if any(n < 0 for n in dims):
        raise _C.InvalidArgumentError(f"'shape' cannot have negative values, but got {tuple(dims)}\n"
                                      f"  unravel_index: fix: sizes >= 0")
    flat = indices if isinstance(indices, Tensor) else tensor(indices)
    if flat.dtype not in ("int64", "int32", "int16", "int8", "uint8"):
        raise _C.DTypeError(f"unravel_index: expected 'indices' to be integer dtype, but got {flat.dtype}\n"
                            f"  fix: indices.long()")
    values: np.ndarray = flat.numpy(force=True).astype(np.int64)
    if 0 in dims and values.size:
        raise _C.InvalidArgumentError(f"'shape' cannot have zero dimensions when 'indices' is non-empty, but got "
                                      f"{tuple(dims)}\n  unravel_index: fix: no index fits an empty shape")
    strides = [math.prod(dims[k + 1:]) for k in range(len(dims))]
    with np.errstate(divide="ignore"):  # a 0 size (empty indices only) divides nothing
        coords = [np.floor_divide(values, st) % n if n else values[:0] for st, n in zip(strides, dims)]
    return tuple(tensor(np.asarray(c, dtype=np.int64).reshape(values.shape), device=flat.device) for c in coords)


__all__ = ["permute", "transpose", "column_stack", "dstack", "block_diag", "cartesian_prod", "combinations",
           "vander", "tensordot", "chain_matmul", "diagonal_scatter", "select_scatter", "slice_scatter", "tril_indices",
           "triu_indices", "unravel_index"]
