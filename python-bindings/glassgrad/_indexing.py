"""Indexing: PyTorch's gather/scatter family and Tensor.__getitem__, lowered to the engine's
indexing ops (autodiff-engine/src/ops/indexing.cpp: Gather, Scatter, IndexSelect, IndexAdd,
Index, IndexPut, SliceScatter) and views.

x[key] follows PyTorch: integers, slices, None and Ellipsis are applied first, as views (an
integer removes its axis); negative slice steps (NumPy's reversal, which PyTorch refuses) read
the same elements in ascending order and then reverse them, a copy; the remaining integer
tensors, arrays and lists index their axes together (NumPy's advanced indexing: their shapes
broadcast, and their axes replace the indexed ones when those are adjacent, or come first). A
boolean mask stands for the integer indices of its True elements, which needs its values: the
mask is computed first (a synchronization, as in PyTorch). A bool (True, False, a 0-d bool
tensor) is an index tensor ([0] or []) on a new axis; a 0-d integer tensor is read as PyTorch
reads it, a select: where it would change the layout of the other index tensors' axes, the
result is permuted to PyTorch's.
"""
from __future__ import annotations

import numbers
import warnings
from typing import List, NamedTuple, Optional, Sequence

import numpy as np

from . import _C, _args, _autocast, _runtime, _tensor, _trace, _view_strides
from ._dtypes import DTYPES
from ._inplace import _type_name
from ._numpy_names import accept_numpy_names
from ._tensor import Tensor, _dim, _op, _scalar_like, check_fits, tensor
from ._torch_operands import named_node


def _index_tensor(index, like: Tensor, where: str) -> Tensor:
    """An index on like's device from a tensor (int64 or int32, the types PyTorch takes for an
    index), an array, a list or an int (as int64)."""
    if isinstance(index, Tensor):
        if index._h.dtype not in ("int64", "int32") or index.device != like.device:
            raise _C.DTypeError(f"{where}: index must be an int64 or int32 tensor on {like.device}, got "
                                f"{index._h.dtype} on {index.device}\n  fix: index.long().to('{like.device}')")
        return index
    arr = np.asarray(index)
    if arr.dtype.kind not in "iu" and arr.size:
        raise _C.DTypeError(f"{where}: index must hold integers, got {arr.dtype}\n  fix: pass integer indices")
    return tensor(arr.astype(np.int64), device=like.device)


def _value_tensor(value, like: Tensor) -> Tensor:
    """A tensor value (its dtype converted to like's) or a scalar as a 0-d tensor of like's dtype."""
    if isinstance(value, Tensor):
        return value if value._h.dtype == like._h.dtype else value.astype(like._h.dtype)
    return _scalar_like(value, like)


def _size(input: Tensor, d: int) -> int:
    """The size of dim d (1 for a 0-d input, which the gather family reads as one element)."""
    return input.shape[d] if input.ndim else 1


def _long(t: Tensor) -> Tensor:
    """A bool tensor as int64, where an accumulation of bools (an or, an and) runs on 0/1 values."""
    return t.astype(DTYPES["int64"])


# ---- the functions (PyTorch's signatures; each also a Tensor method) ----
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """out[i][j][k] = input[index[i][j][k]][j][k] (for dim 0; likewise along any dim). index has
    input's number of dimensions and is no larger along the others (PyTorch's torch.gather)."""
    d = _dim(dim, max(input.ndim, 1), "gather", input.shape)
    index = _index_tensor(index, input, "gather")
    check_index_range(index, _size(input, d), d, f"gather (input {list(input.shape)})")
    return _op("Gather", [input, index], {"dim": d})


def _grad_name(node: str, *operands: Tensor) -> dict:
    """{'torch_node': node} when an operand requires grad (PyTorch's node of the op, Tensor.grad_fn;
    _node_inputs lists its operands), else no attribute."""
    return {"torch_node": node} if any(t._h.requires_grad for t in operands) else {}


def _scatter(input: Tensor, dim: int, index, src, reduce: str, where: str) -> Tensor:
    d = _dim(dim, max(input.ndim, 1), where, input.shape)
    index = _index_tensor(index, input, where)
    check_index_range(index, _size(input, d), d, f"{where} (input {list(input.shape)})")
    attrs = {"dim": d, "reduce": reduce}
    if not isinstance(src, Tensor):
        src = _scalar_like(src, input).expand(*index.shape) if index.ndim else _scalar_like(src, input)
        attrs.update(_grad_name("ScatterBackward1", input))  # PyTorch's overload with a number value
    elif src._h.dtype != input._h.dtype:
        raise _C.DTypeError(f"{where}: src is {src._h.dtype} but the input is {input._h.dtype}; scatter needs the "
                            f"same dtype\n  fix: src.to({input._h.dtype!r})")
    if reduce != "none" and input._h.dtype == "bool":  # add: or, multiply: and, of 0/1 values
        return _scatter(_long(input), d, index, _long(src), reduce, where).astype(input._h.dtype)
    if where == "scatter_add" and (input._h.requires_grad or src._h.requires_grad):
        attrs["torch_node"] = "ScatterAddBackward0"  # PyTorch's own op (Tensor.grad_fn)
    return _op("Scatter", [input, index, src], attrs)


_REDUCE = {None: "none", "add": "add", "multiply": "multiply"}


def scatter(input: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce: Optional[str] = None) -> Tensor:
    """A copy of input with the values of src (or the scalar value) written at the indices of
    index along dim: out[index[i][j]][j] = src[i][j] for dim 0 (PyTorch's torch.scatter; reduce
    'add' or 'multiply' combines with what is there)."""
    if reduce not in _REDUCE:
        raise _C.InvalidArgumentError(f"scatter: reduce must be None, 'add' or 'multiply', got {reduce!r}\n"
                                      f"  fix: reduce='add' to sum into the input")
    if src is None and value is None:
        raise TypeError("scatter() missing the values to write: pass src (a tensor) or value (a number)")
    return _scatter(input, dim, index, src if src is not None else value, _REDUCE[reduce], "scatter")


@_autocast.op("scatter_add")
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """input with every value of src added at its index along dim; repeated indices add up
    (PyTorch's torch.scatter_add)."""
    return _scatter(input, dim, index, src, "add", "scatter_add")


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of input along dim named by the 1-d index, in its order (PyTorch's
    torch.index_select)."""
    d = _dim(dim, max(input.ndim, 1), "index_select", input.shape)
    index = _index_tensor(index, input, "index_select")
    if index.ndim > 1:
        raise _C.GlassgradIndexError(f"index_select(): Index is supposed to be a vector\n  index_select: the index is "
                                     f"{list(index.shape)}\n  fix: index.reshape(-1)")
    check_index_range(index, _size(input, d), d, f"index_select (input {list(input.shape)})")
    return _op("IndexSelect", [input, index], {"dim": d})


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """input with alpha * source[..., j, ...] added to input[..., index[j], ...] (PyTorch's
    torch.index_add); repeated indices add up."""
    d = _dim(dim, max(input.ndim, 1), "index_add", input.shape)
    if alpha != 1:
        source = source * alpha
    if input._h.dtype == "bool":  # an or of 0/1 values
        return index_add(_long(input), d, index, _long(source)).astype(input._h.dtype)
    index = _index_tensor(index, input, "index_add")
    check_index_range(index, _size(input, d), d, f"index_add (input {list(input.shape)})")
    return _op("IndexAdd", [input, index, source], {"dim": d})


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """input with every element of the slices index (1-d) along dim set to value (PyTorch's
    Tensor.index_fill); negative indices count from the end."""
    d = _dim(dim, max(input.ndim, 1), "index_fill", input.shape)
    index = _index_tensor(index, input, "index_fill")
    check_index_range(index, _size(input, d), d, f"index_fill (input {list(input.shape)})", negative=True,
                      error=_C.GlassgradIndexError)
    if index.ndim > 1:
        raise _C.ShapeError(f"index_fill: index must be 1-d, got {list(index.shape)}\n  fix: index.reshape(-1)")
    if isinstance(value, Tensor) and value.ndim:
        raise _C.InvalidArgumentError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                                      f"{value.ndim} dimension(s).\n  index_fill: value {list(value.shape)}\n  fix: "
                                      f"value.item(), or index_copy for a tensor of values")
    if isinstance(value, Tensor) and value._h.dtype != input._h.dtype:
        check_fits(value.item(), input.dtype, "index_fill")  # PyTorch converts value.item() checked, as masked_fill's
    value = _value_tensor(value, input)
    # PyTorch's node (Tensor.grad_fn): IndexFillBackward0 for a number value, 1 for a tensor
    named = _grad_name(f"IndexFillBackward{int(value._h.requires_grad)}", input, value)
    if input.ndim == 0:
        return _op("IndexPut", [input.reshape(1), value, index.reshape(-1)], {"dims": [0], **named}).reshape(())
    return _op("IndexPut", [input, value, index.reshape(-1)], {"dims": [d], **named})


@_autocast.op("index_put")
def index_put(input: Tensor, indices: Sequence, values, accumulate: bool = False) -> Tensor:
    """A copy of input with input[indices] = values (+= with accumulate, repeated indices adding
    up): indices is a tuple of index tensors for the leading dims (boolean masks stand for their
    True positions), as PyTorch's torch.index_put."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put: indices must be a tuple of tensors, got {type(indices).__name__}\n"
                        f"  fix: x.index_put((idx,), values)")
    for k, index in enumerate(indices):
        if index is None:  # PyTorch's parser: a tuple of tensors (x[:, idx] = v is indexing's form)
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got NoneType\n  index_put: "
                            f"fix: x[:, idx] = values, or torch.arange(x.shape[{k}]) for the whole dim")
    plan = _advanced_plan(input, list(indices), "index_put")
    if isinstance(values, Tensor) and values._h.dtype != input._h.dtype:
        raise _C.DTypeError(f"Index put requires the source and destination dtypes match, got {input._h.dtype} for "
                            f"the destination and {values._h.dtype} for the source (index_put, input "
                            f"{list(input.shape)}, values {list(values.shape)})\n  fix: values.to(x.dtype)")
    if accumulate and input._h.dtype == "bool":  # an or of 0/1 values
        return _put(_long(input), plan, _long(_value_tensor(values, input)), True).astype(input._h.dtype)
    return _put(input, plan, _value_tensor(values, input), bool(accumulate))


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """input with value where the boolean mask (broadcast to input) is True (PyTorch's
    Tensor.masked_fill)."""
    if not isinstance(mask, Tensor) or mask._h.dtype != "bool":
        got = mask._h.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise _C.DTypeError(f"masked_fill: the mask must be a bool tensor, got {got}\n  fix: mask.bool()")
    if isinstance(value, Tensor) and value.ndim != 0:
        raise _C.ShapeError(f"masked_fill: value must be a number or a 0-d tensor, got shape {list(value.shape)}\n"
                            f"  fix: value.item(), or torch.where(mask, value, input) for a tensor of values")
    if isinstance(value, Tensor) and value._h.dtype != input._h.dtype:  # PyTorch converts value.item() checked
        check_fits(value.item(), input.dtype, "masked_fill")
    # PyTorch's node (Tensor.grad_fn): MaskedFillBackward0 for a number value, 1 for a tensor
    named = {"torch_node": f"MaskedFillBackward{int(isinstance(value, Tensor))}"} if input._h.requires_grad else {}
    return _op("Where", [mask, _value_tensor(value, input), input], named)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of input (broadcast with the mask) where the boolean mask is True, in row-major
    order, as a 1-d tensor (PyTorch's torch.masked_select; the mask is computed first)."""
    if not isinstance(mask, Tensor) or mask._h.dtype != "bool":
        raise _C.DTypeError("masked_select: the mask must be a bool tensor\n  fix: mask.bool()")
    try:
        shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    except ValueError:  # PyTorch's RuntimeError of broadcasting
        raise _C.ShapeError(f"masked_select: the input {list(input.shape)} and the mask {list(mask.shape)} do not "
                            f"broadcast\n  fix: a mask of the input's shape (or one that broadcasts to it)") from None
    x = input if tuple(input.shape) == shape else input.expand(*shape)
    m = mask if tuple(mask.shape) == shape else mask.expand(*shape)
    picked = _index(x.reshape(-1) if len(shape) else x.reshape(1), m.reshape(-1) if len(shape) else m.reshape(1))
    return named_node(picked, "MaskedSelectBackward0", input)


def take_along_dim(input: Tensor, indices: Tensor, dim: Optional[int] = None) -> Tensor:
    """input's values at indices along dim, input and indices broadcast along the other dims
    (PyTorch's torch.take_along_dim); without dim, over the flattened input."""
    if dim is None:
        return gather(input.reshape(-1), 0, _index_tensor(indices, input, "take_along_dim").reshape(-1))
    d = _dim(dim, max(input.ndim, 1), "take_along_dim", input.shape)
    if isinstance(indices, Tensor) and indices.dtype != "int64":  # PyTorch's RuntimeError (with a dim only)
        raise _C.DTypeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                            f"{_type_name(indices.dtype)}\n  take_along_dim: indices {list(indices.shape)} along dim "
                            f"{dim}\n  fix: indices.long()")
    indices = _index_tensor(indices, input, "take_along_dim")
    if indices.ndim != input.ndim:
        raise _C.ShapeError(f"take_along_dim: input and indices should have the same number of dimensions, but "
                            f"input has {input.ndim} and indices {indices.ndim} ({list(input.shape)} and "
                            f"{list(indices.shape)})\n  fix: indices.unsqueeze(...) to add the missing dims")
    xs, ix = list(input.shape), list(indices.shape)
    try:
        others = np.broadcast_shapes(tuple(xs[:d] + [1] + xs[d + 1:]), tuple(ix[:d] + [1] + ix[d + 1:]))
    except ValueError:  # PyTorch's RuntimeError of broadcasting
        raise _C.ShapeError(f"take_along_dim: input {xs} and indices {ix} must broadcast in every dim but dim {d}"
                            f"\n  fix: indices of size 1 or the input's size in the other dims") from None
    want_x = list(others[:d]) + [xs[d]] + list(others[d + 1:])
    want_i = list(others[:d]) + [ix[d]] + list(others[d + 1:])
    x = input if xs == want_x else input.expand(*want_x)
    i = indices if ix == want_i else indices.expand(*want_i)
    # PyTorch's take_along_dim counts a negative index along dim from the end (gather does not)
    if i.numel():
        i = _op("Where", [_op("Less", [i, _scalar_like(0, i)]), _op("Add", [i, _scalar_like(xs[d], i)]), i])
    return gather(x, d, i)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """input with the elements of source, read in row-major order, written where the boolean
    mask is True (PyTorch's Tensor.masked_scatter; input and mask broadcast together, as PyTorch's
    out-of-place form expands both): the k-th True position takes source.flatten()[k], found by a
    running count of the mask (no computation now)."""
    where = "masked_scatter"
    if not isinstance(mask, Tensor) or mask._h.dtype != "bool":
        got = mask._h.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise _C.DTypeError(f"masked_scatter_: expected BoolTensor for mask, got {got}\n  fix: mask.bool()")
    if not isinstance(source, Tensor) or source._h.dtype != input._h.dtype:
        got = source._h.dtype if isinstance(source, Tensor) else type(source).__name__
        raise _C.DTypeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                            f"{input._h.dtype} and {got}\n  fix: source.to({input._h.dtype!r})")
    try:
        shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    except ValueError:
        shape = None
    if shape is None:
        raise _C.ShapeError(f"{where}: the mask {list(mask.shape)} and the input {list(input.shape)} do not "
                            f"broadcast together\n  fix: a mask of the input's shape (or one that broadcasts to it)")
    if shape != tuple(input.shape):
        input = input.expand(*shape)
    if mask._h.realized and mask.device == "cpu":  # PyTorch's CPU check, where the mask is known now
        ones = int(np.broadcast_to(mask._h.data().numpy(), shape).sum())
        if ones > source.numel():
            raise _C.InvalidArgumentError(f"Number of elements of source < number of ones in mask\n  {where}: the "
                                          f"mask holds {ones} True values, source {source.numel()} elements\n  "
                                          f"fix: one source element per True value of the mask")
    from ._scans import cumsum
    m = (mask if tuple(mask.shape) == shape else mask.expand(*shape)).reshape(-1)
    position = cumsum(m, 0) - 1  # the k of each True element
    position = _op("Where", [m, position, _scalar_like(0, position)])
    flat_source = source.reshape(-1)
    if flat_source.shape[0] == 0:
        flat_source = _scalar_like(0, input).reshape(1)
    taken = gather(flat_source, 0, position)
    out = _op("Where", [m, taken, input.reshape(-1)]).reshape(*input.shape)
    return named_node(out, "MaskedScatterBackward0", input, source)


@_autocast.op("index_copy")
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """input with source[.., j, ..] copied to input[.., index[j], ..] along dim (PyTorch's
    torch.index_copy; with a repeated index one of the copies wins)."""
    where = "index_copy"
    d = _dim(dim, max(input.ndim, 1), where, input.shape)
    index = _index_tensor(index, input, where)
    check_index_range(index, _size(input, d), d, f"{where} (input {list(input.shape)})",
                      error=_C.GlassgradIndexError, prefix="index_copy_(): ")
    if index.ndim > 1:
        raise _C.ShapeError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})\n"
                            f"  fix: index.reshape(-1)")
    if not isinstance(source, Tensor):
        raise TypeError(f"{where}: source must be a tensor, got {type(source).__name__}")
    if source._h.dtype != input._h.dtype:
        raise _C.DTypeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                            f"{input._h.dtype} and (source) {source._h.dtype}\n  fix: source.to({input._h.dtype!r})")
    if input.ndim == 0:
        return index_copy(input.reshape(1), 0, index.reshape(-1), source.reshape(1)).reshape(())
    want = list(input.shape)
    want[d] = index.numel()
    if list(source.shape) != want and not (source.ndim == 0 and index.numel() == 1 and input.ndim == 1):
        raise _C.GlassgradIndexError(f"index_copy_(): Source/destination tensor must have same slice shapes; source "
                                     f"{list(source.shape)}, input {list(input.shape)}, {index.numel()} indices "
                                     f"along dim {dim}\n  fix: a source of shape {want}")
    source = source if list(source.shape) == want else source.reshape(want)
    return _op("IndexPut", [input, source, index.reshape(-1)],
               {"dims": [d], **_grad_name("IndexCopyBackward0", input, source)})


def _flat_index(index, input: Tensor, where: str) -> Tensor:
    """index into input.flatten(), negative values counting from the end (take and put)."""
    index = _index_tensor(index, input, where)
    n = input.numel()
    values = known_index_values(index)
    if values is not None and values.size and (values.min() < -n or values.max() >= n):
        bad = int(values.min()) if values.min() < -n else int(values.max())
        raise _C.GlassgradIndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.\n"
                                     f"  {where}: input {list(input.shape)} read as 1-d\n  fix: keep indices in "
                                     f"[{-n}, {n}) (negative ones count from the end)")
    return _op("Where", [index < 0, index + n, index])


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of input, read as a 1-d tensor, at index, in index's shape (PyTorch's
    torch.take; negative indices count from the end)."""
    if isinstance(index, Tensor) and index.dtype != "int64":  # PyTorch's RuntimeError
        raise _C.DTypeError(f"take(): Expected a long tensor for index, but got {_type_name(index.dtype)}\n  take: "
                            f"index {list(index.shape)} is {index.dtype}\n  fix: index.long()")
    flat_index = _flat_index(index, input, "take")
    return named_node(gather(input.reshape(-1), 0, flat_index.reshape(-1)).reshape(*flat_index.shape), "TakeBackward0",
                      input)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """input, read as a 1-d tensor, with source's elements written (added, with accumulate) at
    index (PyTorch's Tensor.put); the result has input's shape."""
    flat_index = _flat_index(index, input, "put").reshape(-1)
    if not isinstance(source, Tensor) or source.numel() != flat_index.numel():
        got = list(source.shape) if isinstance(source, Tensor) else type(source).__name__
        raise _C.GlassgradIndexError(f"put_(): Expected source and index to have the same number of elements, but "
                                     f"got source {got} and index {list(index.shape)}\n  fix: one source element per "
                                     f"index")
    values = _value_tensor(source, input).reshape(-1)
    if accumulate and input._h.dtype == "bool":  # an or of 0/1 values
        return put(_long(input), index, _long(values), True).astype(input._h.dtype)
    flat = input.reshape(-1)
    out = _op("IndexPut", [flat, values, flat_index], {"dims": [0], "accumulate": bool(accumulate)})
    return named_node(out.reshape(*input.shape), "PutBackward0", input, source)


def fill_diagonal(input: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """input with its main diagonal (every index equal) set to fill_value; for a tall matrix with
    wrap=True the diagonal starts again every N + 1 rows (NumPy's fill_diagonal, which PyTorch's
    Tensor.fill_diagonal_ follows). All dims must be equal beyond 2-d."""
    if input.ndim < 2:
        raise _C.ShapeError(f"fill_diagonal_: dimensions must larger than 1, got a {input.ndim}-d tensor "
                            f"{list(input.shape)}\n  fix: a matrix, e.g. x.reshape(n, -1)")
    if input.ndim > 2 and len(set(input.shape)) != 1:
        raise _C.ShapeError(f"fill_diagonal_: all dimensions of input must be of equal length, got "
                            f"{list(input.shape)}\n  fix: a square (or cubic, ...) tensor")
    mask = np.zeros(tuple(input.shape), dtype=bool)
    np.fill_diagonal(mask, True, wrap=bool(wrap))
    return _op("Where", [tensor(mask, device=input.device), _value_tensor(fill_value, input), input])


# ---- x[key] ----
class _Plan(NamedTuple):
    """A key split into what views do (`basic`: per axis of the input, in order: None for a new
    axis, an int, or a slice with step >= 1) and the advanced part applied to that view: index
    tensors at the ascending axes `dims` of the view, and the axes of the result to reverse
    (negative steps). `perm`: the permutation taking the Index op's result (NumPy's layout) to
    PyTorch's, which differs only when a 0-d integer index tensor joins other index tensors (see
    _block_position); None when they agree. `selects_only`: every index tensor is 0-d integer,
    so PyTorch writes through a view (converting the value's dtype). `lone_mask`: the dtype of the
    key's mask when it is the key's only index tensor (x[mask, 0] = v: PyTorch's masked_fill_)."""
    basic: List
    dims: List[int]
    indices: List[Tensor]
    flips: List[int]
    perm: Optional[List[int]] = None
    selects_only: bool = False
    lone_mask: Optional[str] = None


def _is_mask(k) -> bool:
    if isinstance(k, Tensor):
        return k._h.dtype in ("bool", "uint8")
    if isinstance(k, np.ndarray):
        return k.dtype == np.bool_
    if isinstance(k, (list, tuple)) and k:
        flat = np.asarray(k, dtype=object).reshape(-1)
        return all(isinstance(v, (bool, np.bool_)) for v in flat)
    return False


def _ndim(k) -> int:
    return k.ndim if isinstance(k, Tensor) else np.ndim(k)


def _is_advanced(k) -> bool:
    # A range indexes as the list of its integers, as PyTorch's (x[range(n), y]).
    return isinstance(k, (Tensor, np.ndarray, list, tuple, range))


def _mask_indices(mask, shape, axis: int, where: str) -> List[np.ndarray]:
    """The integer indices of the True elements of a mask covering `shape` from `axis` on."""
    m = mask.numpy(force=True) if isinstance(mask, Tensor) else np.asarray(mask)
    m = m.astype(bool)
    covered = list(shape[axis:axis + m.ndim])
    if list(m.shape) != covered:
        raise _C.GlassgradIndexError(f"{where}: the shape of the mask {list(m.shape)} at index {axis} does not match "
                                     f"the shape of the indexed tensor {list(shape)} at index {axis}\n"
                                     f"  fix: give the mask the shape of the axes it selects")
    return list(np.nonzero(m))


def known_index_values(k) -> Optional[np.ndarray]:
    """The values of an index when they are known without computing anything: a list, an array,
    or a computed CPU int64/int32 tensor. None for an index still pending or on a GPU (its kernel
    checks it when it runs): a bounds check never adds a synchronization."""
    if isinstance(k, Tensor):
        if k.device != "cpu" or not k._h.realized or k._h.dtype not in ("int64", "int32"):
            return None
        return k._h.data().numpy()
    values = np.asarray(k)
    return values if values.dtype.kind in "iu" else None


def check_index_range(index, size: int, dim: int, where: str, *, negative: bool = False,
                      error=_args.OutOfRangeError, prefix: str = "") -> None:
    """Raises `error` now, as PyTorch's CPU kernels do at the call, when the known values of
    `index` (known_index_values) leave [0, size) ([-size, size) with `negative`) along dim;
    `prefix` starts the headline as PyTorch's does ("index_copy_(): ")."""
    values = known_index_values(index)
    if values is None or not values.size:
        return
    lo = -size if negative else 0
    low, high = int(values.min()), int(values.max())
    if low < lo or high >= size:
        bad = low if low < lo else high
        raise error(f"{prefix}index {bad} is out of bounds for dimension {dim} with size {size}\n"
                    f"  {where}: an index along dim {dim} must be in [{lo}, {size})"
                    + (" (negative ones count from the end)" if negative else "") +
                    f"\n  fix: index.clamp({lo}, {size - 1}), or find where the index was computed")


def _check_bounds(k, t: Tensor, axis: int, where: str) -> None:
    """Raises now, as PyTorch does on the CPU, for an index list, array or computed CPU tensor
    holding a position outside axis; an index still pending (or on a GPU) is checked by the kernel
    that reads it, when it runs."""
    values = known_index_values(k)
    size = t.shape[axis]
    if values is not None and values.size and (values.min() < -size or values.max() >= size):
        bad = int(values.min()) if values.min() < -size else int(values.max())
        # the first line is PyTorch's words (scripts match on them); the op follows
        raise _C.GlassgradIndexError(f"index {bad} is out of bounds for dimension {axis} with size {size} "
                                     f"(shape {list(t.shape)})\n  {where}: an index list or tensor\n  fix: keep "
                                     f"indices in [{-size}, {size}) (negative ones count from the end)")


def _checked_indices(t: Tensor, bounds, indices: List[Tensor], view_shape, dims, where: str) -> List[Tensor]:
    """The index tensors after PyTorch's bounds checks, which its kernel makes as it reads them,
    so only for a result with elements: x3x0[[5]] and x0x3[[5], []] are empty tensors there (the
    indices become zeros of their shapes, which select the same nothing), x0x3[[5]] raises."""
    broadcast = np.broadcast_shapes(*[tuple(i.shape) for i in indices]) if indices else ()
    kept = [n for a, n in enumerate(view_shape) if a not in dims]
    if int(np.prod(kept + list(broadcast), dtype=np.int64)):
        for k, axis in bounds:
            _check_bounds(k, t, axis, where)
        return indices
    if not int(np.prod(broadcast, dtype=np.int64)):  # every index as the empty broadcast shape
        return [tensor(np.zeros(broadcast, np.int64), device=i.device) for i in indices]
    return [tensor(np.zeros(tuple(i.shape), np.int64), device=i.device) for i in indices]


def _check_not_zero_dim(t: Tensor, key, where: str) -> None:
    """PyTorch's IndexError for an int or a slice indexing a 0-d tensor (`loss.data[0]`, the
    PyTorch 0.3 idiom for reading a loss), with the number read the way it is now."""
    if t.ndim or isinstance(key, (tuple, bool, np.bool_)):
        return
    fix = "  fix: x.item() for its number (x.data[0] on a 0-d loss is x.item() since PyTorch 0.4)"
    if isinstance(key, (numbers.Integral, np.integer)):
        headline = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
                    "to convert a 0-dim tensor to a number") if int(key) == 0 else \
            f"index {int(key)} is out of bounds for dimension 0 with size 0"
        raise _C.GlassgradIndexError(f"{headline}\n  {where}: this tensor is 0-d (shape []): it has no dim to "
                                     f"index\n{fix}")
    if isinstance(key, slice):
        raise _C.GlassgradIndexError(f"slice() cannot be applied to a 0-dim tensor.\n  {where}: this tensor is 0-d "
                                     f"(shape []): it has no dim to slice\n{fix}")


def _sequence_as_tuple(key) -> bool:
    """PyTorch's reading (NumPy's older one) of a list key: one holding a sequence, a tensor, a
    slice, None or Ellipsis is the tuple of its items (x[[rows, cols]] is x[rows, cols], with
    PyTorch's deprecation warning); a list of numbers, or of 32 items or more, is one index."""
    if not isinstance(key, list) or len(key) >= 32:
        return False
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, (Tensor, slice, list, tuple, range, np.ndarray)):
            warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated (as in PyTorch, "
                          "which reads it as this tuple for now); use x[tuple(seq)] instead of x[seq]", UserWarning,
                          stacklevel=_trace.user_stacklevel())
            return True
    return False


def _check_ellipsis_reach(t: Tensor, items: list, skipped: int, where: str) -> None:
    """PyTorch takes any number of ellipses (NumPy only one; pytorch/pytorch#59787 keeps them for
    now): each skips the `skipped` dims that the other items leave unnamed, so x[..., 1, ...] is
    x[..., 1] and x[1, ..., ...] is x[1]. What an ellipsis skips past the last dim is dropped; an
    item after it that would index beyond the last dim is an IndexError."""
    if sum(1 for k in items if k is Ellipsis) < 2:
        return
    axis = reach = 0
    for k in items:
        if k is Ellipsis:
            axis += skipped
        elif not (k is None or isinstance(k, (bool, np.bool_)) or (_is_mask(k) and _ndim(k) == 0)):
            axis += _ndim(k) if _is_mask(k) else 1
            reach = axis
    if reach > t.ndim:
        raise _C.GlassgradIndexError(
            f"{where}: with {sum(1 for k in items if k is Ellipsis)} ellipses each standing for {skipped} dims, "
            f"the index reaches dimension {reach - 1} of a tensor of dimension {t.ndim} (shape {list(t.shape)})\n"
            f"  fix: use a single '...' (as NumPy requires)")


def _plan(t: Tensor, key, where: str = "indexing", zero_d_selects: bool = True) -> _Plan:
    if _sequence_as_tuple(key):
        key = tuple(key)
    _check_not_zero_dim(t, key, where)
    items = list(key) if isinstance(key, tuple) else [key]
    consumed = 0
    for k in items:
        if k is None or k is Ellipsis or isinstance(k, (bool, np.bool_)) or (_is_mask(k) and _ndim(k) == 0):
            continue
        consumed += _ndim(k) if _is_mask(k) else 1
    if consumed > t.ndim:
        raise _C.GlassgradIndexError(f"too many indices for tensor of dimension {t.ndim} (shape {list(t.shape)}): "
                                     f"the index uses {consumed} dimensions\n  fix: index at most {t.ndim} dimensions")
    _check_ellipsis_reach(t, items, t.ndim - consumed, where)
    basic, adv, flips_at = [], [], []   # adv: (axis of the view, index); flips_at: axes of the view
    bounds = []     # (index, axis of the input) to check once the result's size is known
    axis = 0        # axis of the input the next item indexes
    view_axis = 0   # the same axis in the view the basic items make
    view_shape = []
    for k in items:
        if k is Ellipsis:  # each one skips the dims no item names, up to the last (_check_ellipsis_reach)
            n = min(t.ndim - consumed, t.ndim - axis)
            for _ in range(n):
                basic.append(slice(None))
                view_shape.append(t.shape[axis])
                axis += 1
                view_axis += 1
            continue
        if _is_mask(k) and _ndim(k) == 0:  # a 0-d mask acts as a Python bool
            k = bool(k.item() if isinstance(k, Tensor) else np.asarray(k))
        if k is None or isinstance(k, (bool, np.bool_)):
            basic.append(None)
            view_shape.append(1)
            if isinstance(k, (bool, np.bool_)):
                # a bool is an index tensor on its new axis, [0] for True and [] for False (x[False]:
                # a new axis of size 0), as PyTorch's and NumPy's: with others they broadcast and
                # place the result's axes as any advanced index (x[True, ..., True] has one new axis)
                adv.append((view_axis, np.zeros(1 if k else 0, np.int64)))
            view_axis += 1
            continue
        if isinstance(k, (numbers.Integral, np.integer)):
            size = t.shape[axis]
            i = int(k)
            if not -size <= i < size:
                raise _C.GlassgradIndexError(f"index {i} is out of bounds for dimension {axis} with size {size} "
                                             f"(shape {list(t.shape)})\n  fix: use an index in [{-size}, {size - 1}]")
            basic.append(i % size)
            axis += 1
            continue
        if isinstance(k, slice):
            size = t.shape[axis]
            start, stop, step = k.indices(size)
            n = len(range(start, stop, step))
            if step < 0:  # the same elements in ascending order, reversed afterwards
                start, stop, step = (start + (n - 1) * step, start + 1, -step) if n else (0, 0, 1)
                flips_at.append(view_axis)
            basic.append(slice(start, max(stop, start), step))
            view_shape.append(n)
            axis += 1
            view_axis += 1
            continue
        if _is_mask(k):
            for q, idx in enumerate(_mask_indices(k, t.shape, axis, where)):
                adv.append((view_axis + q, idx))
            for _ in range(_ndim(k)):
                basic.append(slice(None))
                view_shape.append(t.shape[axis])
                axis += 1
                view_axis += 1
            continue
        if _is_advanced(k):
            if isinstance(k, Tensor) and k._h.dtype not in ("int64", "int32"):
                raise _C.GlassgradIndexError(
                    f"tensors used as indices must be long, int, byte or bool tensors\n  {where}: got a "
                    f"{k._h.dtype} index tensor of shape {list(k.shape)} (as PyTorch refuses it)\n  fix: "
                    f"index.long() for positions, or a comparison (x > 0) for a mask")
            bounds.append((k, axis))
            adv.append((view_axis, k))
            basic.append(slice(None))
            view_shape.append(t.shape[axis])
            axis += 1
            view_axis += 1
            continue
        raise _C.GlassgradIndexError(
            f"{where}: an index must be an int, a slice, None, Ellipsis, a tensor, an array or a list, got "
            f"{type(k).__name__}\n  fix: x[0], x[1:3], x[idx] with idx an integer tensor, x[mask] with a bool tensor")
    while axis < t.ndim:
        basic.append(slice(None))
        view_shape.append(t.shape[axis])
        axis += 1
    indices = [_index_tensor(i, t, where) for _, i in adv]
    dims = [a for a, _ in adv]
    _check_broadcast(indices, where)
    indices = _checked_indices(t, bounds, indices, view_shape, [a for a, _ in adv], where)
    selects = [a for a, i in adv if zero_d_selects and _is_zero_d_integer(i)]
    pos, torch_pos = _block_position(dims, []), _block_position(dims, selects)
    b = len(np.broadcast_shapes(*[tuple(i.shape) for i in indices])) if indices else 0
    perm = None
    if pos != torch_pos and b:
        n = len(view_shape) - len(dims)  # axes the index tensors leave as they are
        ours = [("n", i) for i in range(pos)] + [("b", j) for j in range(b)] + [("n", i) for i in range(pos, n)]
        theirs = [("n", i) for i in range(torch_pos)] + [("b", j) for j in range(b)] + \
                 [("n", i) for i in range(torch_pos, n)]
        perm = [ours.index(label) for label in theirs]
    masks = [k for k in items if _is_mask(k) and _ndim(k) > 0]
    others = [k for k in items if isinstance(k, (bool, np.bool_)) or (_is_advanced(k) and not _is_mask(k)
                                                                         and not (zero_d_selects and _is_zero_d_integer(k)))]
    lone = None
    if len(masks) == 1 and not others:
        lone = masks[0]._h.dtype if isinstance(masks[0], Tensor) else "bool"
    return _Plan(basic, dims, indices, _result_axes(dims, b, torch_pos, flips_at), perm,
                 bool(indices) and len(selects) == len(dims), lone)


def _is_zero_d_integer(k) -> bool:
    """A 0-d integer (not bool or uint8) index tensor or array: PyTorch's x[t] reads it as the
    integer it holds (a select), not as an index tensor."""
    if isinstance(k, Tensor):
        return k.ndim == 0 and k._h.dtype in ("int8", "int16", "int32", "int64")
    return isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu" and k.dtype != np.uint8


def _block_position(dims: List[int], selects: List[int]) -> int:
    """Where the index tensors' broadcast axes go among the axes left (NumPy's rule, PyTorch's):
    in place of the indexed axes when those are adjacent, else first. The axes in `selects` are
    taken by 0-d integer tensors, which PyTorch applies first as selects: they neither join nor
    separate the others (x[t0, :, [0, 2]] keeps the list's axis last)."""
    rest = [d for d in dims if d not in selects]
    if not rest:
        return 0
    adjacent = all(a in dims for a in range(rest[0], rest[-1] + 1))
    return sum(1 for a in range(rest[0]) if a not in dims) if adjacent else 0


def _check_broadcast(indices, where: str) -> None:
    """Index tensors broadcast together, or indexing raises IndexError as PyTorch's does."""
    shapes = [tuple(i.shape) for i in indices]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        listed = ", ".join(str(list(sh)) for sh in shapes)
        raise _C.GlassgradIndexError(
            f"{where}: shape mismatch: indexing tensors could not be broadcast together with shapes {listed}\n"
            "  cause: x[a, b] picks the elements (a[k], b[k]), so the index tensors must have one shape "
            "(or broadcast to one)\n"
            "  fix: index with tensors of the same length, e.g. x[torch.arange(len(b)), b]") from None


def _result_axes(dims, b: int, pos: int, view_axes) -> List[int]:
    """Where axes of the view end up in the result of indexing it at `dims`, the index tensors'
    b broadcast axes placed at `pos` among the axes left."""
    out = []
    for a in view_axes:
        before = sum(1 for x in range(a) if x not in dims)
        out.append(before + (b if dims and before >= pos else 0))
    return out


def _basic_view(t: Tensor, basic) -> Tensor:
    """The view the basic items make: slices and selections per axis, then new axes."""
    out = t
    axis = 0
    shape = []
    slices = 0
    steps = [1] * t.ndim
    views = []  # PyTorch's view ops of the key in order (Select, Slice, Unsqueeze): Tensor.grad_fn's nodes
    for k in basic:
        if k is None:
            shape.append(1)
            views.append("UnsqueezeBackward0")
            continue
        size = out.shape[axis]
        if isinstance(k, int):
            out = _op("Slice", [out], {"dim": axis, "start": k, "stop": k + 1, "step": 1})
            slices += 1
            views.append("SelectBackward0")
        else:
            start, stop, step = k.indices(size)
            if (start, stop, step) != (0, size, 1):
                out = _op("Slice", [out], {"dim": axis, "start": start, "stop": max(stop, start), "step": step})
                slices += 1
                steps[axis] = step
                views.append("SliceBackward0")
            shape.append(out.shape[axis])
        axis += 1
    # PyTorch's strides of the result where None and integers are in the key (_view_strides.py);
    # a Reshape carries them even where the shape stays
    units = _view_strides.spec(_view_strides.indexed(t.shape, basic, steps)) if set(views) - {"SliceBackward0"} else []
    named = bool(views) and t._h.requires_grad  # only a tensor with a grad_fn shows the nodes
    if named and (list(out.shape) != shape or set(views) != {"SliceBackward0"}):
        # one Reshape stands for PyTorch's chain of views: named as the last, the others below it
        # (_GradFn.next_functions), down to t (torch_operands: _torch_operands' paths)
        attrs = {"shape": shape, "torch_node": views[-1], "torch_operands": [0] * (slices + 1)}
        if len(views) > 1:
            attrs["torch_inner"] = " ".join(reversed(views[:-1]))
        if units:
            attrs["view_strides"] = units
        return _op("Reshape", [out], attrs)
    if list(out.shape) != shape or units:
        out = _op("Reshape", [out], {"shape": shape, "view_strides": units} if units else {"shape": shape})
    return out


def _flip(x: Tensor, axes) -> Tensor:
    for a in axes:
        n = x.shape[a]
        if n > 1:
            x = _op("IndexSelect", [x, tensor(np.arange(n - 1, -1, -1, dtype=np.int64), device=x.device)], {"dim": a})
    return x


def int_key(t: Tensor, key) -> Optional[List[int]]:
    """The key as in-range positions (negative ones wrapped) when it is one Python int or a
    non-empty tuple of them, no more than t has dims (x[i], x[i, j]: the keys of per-element
    loops); None for any other key, which _plan reads (and raises for)."""
    if type(key) is int:
        keys: tuple = (key,)
    elif type(key) is tuple and key:
        keys = key
    else:
        return None
    shape = t._h.shape
    if len(keys) > len(shape):
        return None
    out = []
    for k, n in zip(keys, shape):
        if type(k) is not int or not -n <= k < n:
            return None
        out.append(k % n)
    return out


def int_view(t: Tensor, ints: List[int]) -> Tensor:
    """t[i, j, ...] for in-range positions (int_key): the nodes _basic_view makes for that key
    (a Slice per position, then the Reshape dropping their axes), without planning the key, in
    one call into the runtime unless inference tensors need _op's bookkeeping."""
    if not _tensor._INFERENCE_TENSORS and not _runtime._inference_blocks:
        out = Tensor.__new__(Tensor)
        out._h = _C.lazy_select_positions(t._h, ints, _trace._local, _trace._PACKAGE_DIR)
        return out
    out = t
    for axis, i in enumerate(ints):
        out = _op("Slice", [out], {"dim": axis, "start": i, "stop": i + 1, "step": 1})
    shape = list(t._h.shape[len(ints):])
    if t._h.requires_grad:  # only a tensor with a grad_fn shows PyTorch's node name
        return _op("Reshape", [out], {"shape": shape, "torch_node": "SelectBackward0"})
    return _op("Reshape", [out], {"shape": shape})


def leading_slice(t: Tensor, key: slice) -> Optional[Tensor]:
    """t[a:b] or t[a:b:c] with int or None bounds and c > 0 on a tensor of one dim or more (a batch
    cut from a resident dataset, every step of a training loop): the Slice node that _plan and
    _basic_view make for that key (or t itself for the whole dim, as there), without planning the
    key; None for any other slice, which _plan reads (and raises for)."""
    start, stop, step = key.start, key.stop, key.step
    if not ((start is None or type(start) is int) and (stop is None or type(stop) is int)
            and (step is None or (type(step) is int and step > 0))):
        return None
    shape = t._h.shape
    if not shape:
        return None
    size = shape[0]
    start, stop, step = key.indices(size)
    stop = max(stop, start)
    if start == 0 and stop == size and step == 1:
        return t
    return _op("Slice", [t], {"dim": 0, "start": start, "stop": stop, "step": step})


def _index(t: Tensor, key) -> Tensor:
    """t[key] (see the module doc)."""
    if type(key) is slice:
        out = leading_slice(t, key)
        if out is not None:
            return out
    ints = int_key(t, key)
    if ints is not None:
        return int_view(t, ints)
    plan = _plan(t, _selects_as_ints(key))
    out = _basic_view(t, plan.basic)
    if plan.indices:
        out = _op("Index", [out] + plan.indices, {"dims": plan.dims})
        if plan.perm is not None:
            out = out.permute(plan.perm)  # type: ignore[attr-defined]
    return _flip(out, plan.flips)


def _selects_as_ints(key):
    """key with its 0-d integer index tensors read as the ints they hold when nothing else in it
    is an index tensor, array, list or bool: PyTorch's x[i] for a 0-d i (an element of a loop over
    a tensor) is then x[int(i)], a view that writes through (x[i].fill_(0) changes x)."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(_is_zero_d_integer(k) for k in items):
        return key
    if any(isinstance(k, (bool, np.bool_)) or (_is_advanced(k) and not _is_zero_d_integer(k)) for k in items):
        return key  # the 0-d tensors join the others' index (_block_position places their axes)
    ints = tuple(int(k.item()) if _is_zero_d_integer(k) else k for k in items)
    return ints if isinstance(key, tuple) else ints[0]


def _advanced_plan(t: Tensor, indices: list, where: str) -> _Plan:
    """index_put's indices (tensors for the leading dims; None for a whole dim) as a plan."""
    key = tuple(slice(None) if i is None else i for i in indices)
    return _plan(t, key, where, zero_d_selects=False)  # index_put's 0-d tensors index as tensors


def _put(t: Tensor, plan: _Plan, values: Tensor, accumulate: bool) -> Tensor:
    """t with t[plan] = values (+= with accumulate), out of place, when the plan has no basic part."""
    if not plan.indices:
        return t + values if accumulate else values.expand(*t.shape).contiguous()
    return _op("IndexPut", [t, values] + plan.indices, {"dims": plan.dims, "accumulate": accumulate})


accept_numpy_names(globals(), ["gather", "index_select", "take_along_dim"])  # axis= for dim=, as PyTorch's
