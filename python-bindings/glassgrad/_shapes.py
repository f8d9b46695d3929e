"""PyTorch's shape functions (torch.stack, torch.chunk, torch.roll, torch.tril, torch.einsum,
torch.matmul, ...), each also the Tensor method of the same name where PyTorch has one.

All are compositions of the movement ops (Reshape, Permute, Slice, Expand: views where the layout
allows), Cat (_spatial.cat), Where and MatMul, so their gradients come from those ops'.
"""
from __future__ import annotations

import builtins
import math
import numbers
import warnings
from typing import Optional, Sequence

import numpy as np

from . import _C, _args, _autocast, _multi_views, _output_numbers, _product_shapes, _runtime, _trace, _view_strides
from ._dtypes import DTYPES, plain
from ._math import add, as_operand, constant, mul, torch_node
from ._torch_operands import named_node, node_attrs
from ._reductions import sum as _sum
from ._inplace import _type_name
from ._size import Size
from ._spatial import cat, join
from ._tensor import (_UNINITIALIZED, Tensor, _dim, _op, _refuse_uninitialized, _shape_args, host_values,
                      sizes_or_keyword, tensor)
from ._out import accepts_out, product_out
from ._numpy_names import accept_numpy_names


def _axis(dim, x: Tensor, where: str, extra: int = 0) -> int:
    return _dim(dim, builtins.max(x.ndim + extra, 1), where, x.shape)


def _take(x: Tensor, d: int, start: int, stop: int, step: int = 1, node: str = "", operand=None) -> Tensor:
    """x[..., start:stop:step, ...] along d (a view); recorded as PyTorch's node `node` (for
    Tensor.grad_fn) when given and x requires grad, of `operand` (found below x) when given."""
    named = bool(node) and x.requires_grad
    if (start, stop, step) == (0, x.shape[d], 1) and not named:
        return x
    attrs = {"dim": d, "start": start, "stop": builtins.max(stop, start), "step": step}
    if not named:
        return _op("Slice", [x], attrs)
    listed = node_attrs(node, [x], operand) if operand is not None else {}
    return _op("Slice", [x], {**attrs, "torch_node": node, **listed})


# ---- joining and splitting ----------------------------------------------------------------------
@accepts_out
@_autocast.op("stack")
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Joins tensors of one shape along a new dim (torch.stack)."""
    tensors = list(tensors)
    if not tensors:
        raise _C.InvalidArgumentError("stack: expected a non-empty list of tensors")
    if _UNINITIALIZED:  # PyTorch's ValueError, before any shape is read (a lazy layer's has none yet)
        _refuse_uninitialized("stack", tensors)
    first = tensors[0]
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(first.shape):
            raise _C.ShapeError(f"stack: tensor {i} has shape {list(t.shape)}, tensor 0 has {list(first.shape)}; "
                                f"stack needs one shape\n  fix: torch.cat joins along an existing dim instead")
    d = _axis(dim, first, "stack", extra=1)
    shape = list(first.shape[:d]) + [1] + list(first.shape[d:])  # each piece with the new dim (unsqueeze's node)
    return join([_op("Reshape", [t], {"shape": shape}) for t in tensors], d, "StackBackward0")


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Tensors joined along dim 1 (dim 0 for vectors) (torch.hstack)."""
    tensors = atleast_1d(*tensors) if len(tensors) > 1 else [atleast_1d(tensors[0])]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Tensors joined along dim 0, vectors as rows (torch.vstack, torch.row_stack)."""
    tensors = atleast_2d(*tensors) if len(tensors) > 1 else [atleast_2d(tensors[0])]
    return cat(tensors, 0)


row_stack = vstack


_REVERSING_T_WARNED, _ZERO_D_T_WARNED = [False], [False]


def warn_reversing_T(ndim: int) -> None:
    """PyTorch's TORCH_WARN_ONCE for x.T of a tensor with other than 2 dims (its numpy_T): the
    reversal is deprecated, and on 0-d tensors T is the identity."""
    if ndim != 0 and _runtime.warn_once(_REVERSING_T_WARNED):
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
                      "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices "
                      "or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
                      UserWarning, stacklevel=_trace.user_stacklevel())
    if ndim == 0 and _runtime.warn_once(_ZERO_D_T_WARNED):
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning, stacklevel=_trace.user_stacklevel())


def matrix_transpose(x: Tensor, name: str, zero_d_note: str) -> Tensor:
    """x.mT / x.mH: the last two dims swapped; a 0-d tensor itself with PyTorch's deprecation
    warning (`zero_d_note` ends it), a 1-d one refused with PyTorch's message."""
    if x.ndim == 0:
        warnings.warn(f"Tensor.{name} is deprecated on 0-D tensors. {zero_d_note}", UserWarning,
                      stacklevel=_trace.user_stacklevel())
        return x
    if x.ndim == 1:
        raise _C.ShapeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor.\n"
                            f"  fix: x.unsqueeze(0).{name} for a row, or x itself for a vector")
    return x.transpose(-2, -1)


def _at_least_1d(input: Tensor, message: str) -> None:
    """PyTorch's RuntimeError for splitting a 0-d tensor (chunk, split, narrow, tensor_split)."""
    if input.ndim == 0:
        raise _C.ShapeError(f"{message}\n  the tensor is 0-d (shape []): it has no dim to split\n"
                            f"  fix: x.reshape(1) for a 1-element vector")


def chunk(input: Tensor, chunks: int, dim: int = 0) -> Sequence[Tensor]:
    """Splits into `chunks` pieces of ceil(n / chunks) along dim, the last smaller (torch.chunk);
    views."""
    return _chunk(input, chunks, dim)


def _chunk(input: Tensor, chunks: int, dim: int = 0, unsafe: str = "") -> Sequence[Tensor]:
    """chunk; unsafe: "Unsafe" for unsafe_chunk's pieces (PyTorch's UnsafeSplitBackward0, unmarked)."""
    chunks = _args.integer(chunks, "chunks", "chunk", minimum=1)
    _at_least_1d(input, "chunk expects at least a 1-dimensional tensor")
    d = _axis(dim, input, "chunk")
    n = input.shape[d] if input.ndim else 1
    size = -(-n // chunks) if n else 0
    # an empty dim gives `chunks` empty pieces (PyTorch's split with split_size 0)
    if not size:
        return tuple([input] * (chunks if input.ndim else 1))
    pieces = _split_pieces(input, size, d, unsafe)[0]
    return _output_numbers.number(pieces) if unsafe else _multi_views.mark(pieces, "Split")


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0):
    """torch.unsafe_chunk: chunk's views, which may be modified in place (PyTorch's unsafe_ spelling
    skips its autograd's check of multiple-view outputs)."""
    return _chunk(input, chunks, dim, "Unsafe")


def unsafe_split(input: Tensor, split_size, dim: int = 0):
    """torch.unsafe_split: split's views, which may be modified in place."""
    return _output_numbers.number(_split_pieces(input, split_size, dim, "Unsafe")[0])  # unmarked: _multi_views


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> Sequence[Tensor]:
    """Splits along dim into pieces of split_size (the last smaller), or of the listed sizes
    (torch.split); views (modified in place under grad mode they raise PyTorch's error, _multi_views)."""
    pieces, node = _split_pieces(tensor, split_size_or_sections, dim)
    return _multi_views.mark(pieces, node[:-len("Backward0")])


def _split_pieces(tensor: Tensor, split_size_or_sections, dim: int = 0, unsafe: str = "") -> tuple:
    """split's views and PyTorch's node of them (SplitBackward0 or SplitWithSizesBackward0; unsafe:
    "Unsafe" for the unsafe_ spellings' UnsafeSplitBackward0 and UnsafeSplitWithSizesBackward0)."""
    _at_least_1d(tensor, "split expects at least a 1-dimensional tensor")
    d = _axis(dim, tensor, "split")
    n = tensor.shape[d]
    held = _args.tensor_index(split_size_or_sections)  # a 0-d integer tensor is its int
    if held is None and isinstance(split_size_or_sections, Tensor) and split_size_or_sections.numel() == 1:
        # PyTorch's Tensor.split takes int(split_size) of any one-element tensor (tensor(2.5) splits by 2)
        held = int(split_size_or_sections)
    if held is not None or isinstance(split_size_or_sections, (numbers.Integral, np.integer)):
        size = int(split_size_or_sections) if held is None else held
        if size < 0 or (size == 0 and n):  # PyTorch's RuntimeErrors
            raise _C.InvalidArgumentError(
                (f"split expects split_size be non-negative, but got split_size={size}" if size < 0 else
                 f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
                + f"\n  split: dim {dim} of {list(tensor.shape)}\n  fix: a split_size of 1 or more")
        # an empty dim is one empty piece (PyTorch's split gives at least one)
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if size and n else [0]
        node = "SplitBackward0"
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n or builtins.min(sizes, default=0) < 0:
            raise _C.ShapeError(f"split: the sizes {sizes} must add up to the size {n} of dim {dim} of "
                                f"{list(tensor.shape)}\n  fix: sizes summing to {n}")
        node = "SplitWithSizesBackward0"
    out, start = [], 0
    node = unsafe + node
    for s in sizes:
        out.append(_take(tensor, d, start, start + s, node=node))
        start += s
    return tuple(out), node


def tensor_split(input: Tensor, indices_or_sections=None, dim: int = 0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """torch.tensor_split: n near-equal pieces (the first n % sections one larger), or pieces cut
    before the given indices; PyTorch's overloads name them sections=, indices= or
    tensor_indices_or_sections=."""
    named = [v for v in (sections, indices, tensor_indices_or_sections) if v is not None]
    if len(named) + (indices_or_sections is not None) != 1:
        raise TypeError("tensor_split() takes the sections or the indices once: tensor_split(x, 3), "
                        "tensor_split(x, sections=3) or tensor_split(x, indices=[1, 4])")
    if named:
        indices_or_sections = named[0]
    _at_least_1d(input, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _axis(dim, input, "tensor_split")
    n = input.shape[d]
    if isinstance(indices_or_sections, Tensor):  # a 0-d count of sections or a 1-d list of indices
        t = indices_or_sections
        if plain(t.dtype) != "int64":  # PyTorch's RuntimeErrors: the dtype checked first, then the dims
            from ._inplace import _type_name
            raise _C.DTypeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                                f"{_type_name(t.dtype)}\n  fix: x.tensor_split(t.long())")
        if t.ndim > 1:
            raise _C.ShapeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                                f"one-dimensional tensor, but got a tensor with {t.ndim} dims\n  fix: t.reshape(-1)")
        indices_or_sections = t.tolist()
    if not isinstance(indices_or_sections, (numbers.Integral, np.integer, list, tuple)):
        _args.fail("tensor_split", "indices_or_sections", "an int (sections) or a sequence of ints (indices)",
                   indices_or_sections, "x.tensor_split(3) or x.tensor_split([1, 4])", type_error=True)
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:  # PyTorch's RuntimeError
            raise _C.InvalidArgumentError(f"tensor_split: number of sections must be larger than 0, got {k}\n"
                                          f"  fix: sections >= 1, or a list of indices to cut before")
        bounds = [0] + [i * (n // k) + builtins.min(i, n % k) for i in range(1, k)] + [n]
    else:
        bounds = [0] + [builtins.min(builtins.max(int(i), 0), n) for i in indices_or_sections] + [n]
    return tuple(_take(input, d, a, builtins.max(a, b)) for a, b in zip(bounds[:-1], bounds[1:]))


def unbind(input: Tensor, dim: int = 0):
    """The slices along dim, each without that dim (torch.unbind)."""
    d = _axis(dim, input, "unbind")
    # select(input, d, i) for each i, its Slice and Reshape nodes recorded directly (the indices
    # are valid by construction): `for i in ix` over a tensor iterates through here.
    shape = list(input.shape)
    n = shape.pop(d)
    attrs = {"shape": shape, "torch_node": "UnbindBackward0"} if input.requires_grad else {"shape": shape}
    return _multi_views.mark(tuple(_op("Reshape", [_op("Slice", [input], {"dim": d, "start": i, "stop": i + 1,
                                                                      "step": 1})], attrs) for i in range(n)), "Unbind")


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """input[..., index, ...] along dim, without that dim (torch.select); a view."""
    d = _axis(dim, input, "select")
    n = input.shape[d]
    i = _args.integer(index, "index", "select")
    if not -n <= i < n:
        raise _C.GlassgradIndexError(f"select: index {i} is out of range for dim {dim} of size {n} "
                                     f"(shape {list(input.shape)})\n  fix: an index in [{-n}, {n - 1}]")
    i %= n
    return _reshape_as(_take(input, d, i, i + 1), [s for k, s in enumerate(input.shape) if k != d], "SelectBackward0",
                       _view_strides.kept(input.ndim, (d,)))


def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    """input[..., start:start + length, ...] along dim (torch.narrow); a view."""
    _at_least_1d(input, "narrow() cannot be applied to a 0-dim tensor.")
    d = _axis(dim, input, "narrow")
    n = input.shape[d]
    if isinstance(start, Tensor) and (start.dtype == "bool" or _args.tensor_index(start) is None):  # PyTorch's
        raise _C.InvalidArgumentError(f"start must be an 0-dim integral Tensor.\n  narrow: start is a {start.dtype} "
                                      f"tensor of shape {list(start.shape)}\n  fix: an int, or start.reshape(()).long()")
    s = int(start)
    s = s + n if s < 0 else s
    length = _args.integer(length, "length", "narrow", minimum=0)
    if not 0 <= s <= n:  # PyTorch: IndexError for the start, RuntimeError for the extent
        raise _C.GlassgradIndexError(f"narrow: start {start} is out of range for dim {dim} of size {n} (shape "
                                     f"{list(input.shape)})\n  fix: a start in [{-n}, {n}]")
    if s + length > n:
        raise _args.OutOfRangeError(f"narrow: start {start} and length {length} exceed dim {dim} of size {n}\n"
                                    f"  fix: start + length <= {n}")
    return _take(input, d, s, s + length)


# ---- repeating ----------------------------------------------------------------------------------
def repeat(input: Tensor, *sizes, repeats=None) -> Tensor:
    """Tensor.repeat: the tensor tiled sizes[i] times along each dim (leading new dims for extra
    sizes); the counts as arguments or as repeats=."""
    sizes = sizes_or_keyword(sizes, repeats, "repeat", "repeats")
    reps = list(_shape_args(sizes, "repeat"))
    if len(reps) < input.ndim:
        raise _C.InvalidArgumentError(f"repeat: {len(reps)} repeat counts for a {input.ndim}-d tensor; give at "
                                      f"least one per dim\n  fix: x.repeat({', '.join(['1'] * input.ndim)})")
    x = input.reshape([1] * (len(reps) - input.ndim) + list(input.shape))
    # [s0, s1] -> [r0, s0, r1, s1] (stretched) -> [r0 * s0, r1 * s1]
    inter = []
    for s in x.shape:
        inter += [1, s]
    expanded = [v for r, s in zip(reps, x.shape) for v in (r, s)]
    tiled, shape = x.reshape(inter).expand(expanded), [r * s for r, s in zip(reps, x.shape)]
    # PyTorch's repeat makes a new tensor: where the reshape is a view (of the input, or with the
    # stride-0 dims of the expand), copy, so writes into the result neither reach the input nor
    # land on one element through several positions.
    out = tiled.reshape(shape).clone() if tiled._h.reshape_is_view(shape) else tiled.reshape(shape)
    return named_node(out, "RepeatBackward0")


def tile(input: Tensor, dims) -> Tensor:
    """torch.tile: repeat, with ones prepended when dims is shorter than the tensor's rank."""
    dims = list(_shape_args((dims,), "tile"))
    return repeat(input, [1] * (input.ndim - len(dims)) + dims)


def _repeat_count_dtype(counts: Tensor) -> None:
    """PyTorch's NotImplementedError for repeat counts of a floating or bool dtype (its kernel's
    dispatch, checked before the counts' shape)."""
    if counts.dtype.is_floating_point or counts.dtype.is_complex or plain(counts.dtype) == "bool":
        from ._inplace import _type_name
        raise _args.UnsupportedDTypeError(f"\"repeat_interleave_cpu\" not implemented for '{_type_name(counts.dtype)}'"
                                          f"\n  repeat_interleave: repeats must be integers\n  fix: repeats.long()")


def _repeat_counts(counts: Tensor) -> np.ndarray:
    """A tensor of repeat counts as int64 host values, refused as PyTorch's kernel refuses it: a
    floating or bool dtype is its NotImplementedError, a negative count its RuntimeError."""
    _repeat_count_dtype(counts)
    values = np.asarray(counts.numpy(force=True), dtype=np.int64).reshape(-1)
    if (values < 0).any():
        raise _C.InvalidArgumentError(f"repeats can not be negative\n  repeat_interleave: got {values.tolist()}\n"
                                      f"  fix: counts >= 0")
    return values


def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element repeated `repeats` times along dim (flattened for None) (torch.repeat_interleave);
    repeats an int or a 0-d or 1-d integer tensor of counts per element (one count for all when it
    holds one; it reads the counts). With input alone, a 1-d integer tensor of counts: i repeated
    input[i] times, in the counts' dtype."""
    if repeats is None:
        if not isinstance(input, Tensor):
            _args.fail("repeat_interleave", "repeats", "a 1-d integer tensor of counts", input,
                       "torch.repeat_interleave(torch.tensor([2, 1]))", type_error=True)
        _repeat_count_dtype(input)
        if input.ndim != 1:
            raise _C.ShapeError(f"repeat_interleave only accept 1D vector as repeat\n  repeat_interleave: got shape "
                                f"{list(input.shape)}\n  fix: torch.repeat_interleave(counts.reshape(-1))")
        counts = _repeat_counts(input)
        return tensor(np.repeat(np.arange(counts.shape[0]), counts), dtype=input.dtype, device=input.device)
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _axis(dim, input, "repeat_interleave")
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise _C.ShapeError(f"repeats must be 0-dim or 1-dim tensor\n  repeat_interleave: got shape "
                                f"{list(repeats.shape)}\n  fix: repeats.reshape(-1)")
        if repeats.numel() != 1 and repeats.shape[0] != x.shape[d]:
            raise _C.ShapeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                                f"{repeats.shape[0]} and input.size({d}) = {x.shape[d]}\n  repeat_interleave: "
                                f"fix: one count per element of dim {d}, or one count for all")
        counts = _repeat_counts(repeats)
        if counts.shape[0] == 1:
            repeats = int(counts[0])
    if isinstance(repeats, (numbers.Integral, np.integer)):
        r = int(repeats)
        if r < 0:
            raise _C.InvalidArgumentError(f"Repeats must be non-negative\n  repeat_interleave: got {r}\n  fix: repeats >= 0")
        shape = list(x.shape)
        inter = shape[:d + 1] + [1] + shape[d + 1:]
        stretched = shape[:d + 1] + [r] + shape[d + 1:]
        return x.reshape(inter).expand(stretched).reshape(shape[:d] + [shape[d] * r] + shape[d + 1:])
    if not isinstance(repeats, Tensor):
        if isinstance(repeats, (numbers.Number, bool)):  # a float: PyTorch's parser's TypeError
            _args.fail("repeat_interleave", "repeats", "an int or a tensor of counts", repeats,
                       "repeat_interleave(x, 2)", type_error=True)
        counts = np.asarray(repeats, dtype=np.int64).reshape(-1)
        if counts.shape[0] != x.shape[d] or (counts < 0).any():
            raise _C.ShapeError(f"repeat_interleave: repeats must hold one count >= 0 per element of dim {d} "
                                f"({x.shape[d]}), got {counts.tolist()}")
    pieces = [_take(x, d, i, i + 1) for i in range(x.shape[d]) for _ in range(int(counts[i]))]
    if not pieces:
        shape = list(x.shape)
        shape[d] = 0
        return _take(x, d, 0, 0).reshape(shape)
    return cat(pieces, d)


def flip(input: Tensor, dims) -> Tensor:
    """The elements in reverse order along each of dims (torch.flip); a copy, one Flip a dim."""
    dims = [dims] if isinstance(dims, (numbers.Integral, np.integer)) else list(dims)
    axes = [_axis(d, input, "flip") for d in dims]
    if len(set(axes)) != len(axes):
        raise _C.InvalidArgumentError(f"flip: dims {tuple(dims)} name a dim twice\n  fix: name each dim once")
    out = input
    for d in axes:
        if input.ndim and input.shape[d] > 1:
            out = _op("Flip", [out], {"dim": d})
    return out


def fliplr(input: Tensor) -> Tensor:
    """Columns in reverse order: flip(input, 1) (torch.fliplr)."""
    if input.ndim < 2:
        raise _C.ShapeError(f"Input must be >= 2-d.\n  fliplr: the input is {list(input.shape)}\n  fix: "
                            f"flip(x, [0]) for a vector")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    """Rows in reverse order: flip(input, 0) (torch.flipud)."""
    if input.ndim < 1:
        raise _C.ShapeError("Input must be >= 1-d.\n  flipud: the input is 0-d\n  fix: x itself (nothing to flip)")
    return flip(input, 0)


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Elements shifted along dims, wrapping around (torch.roll); dims None rolls the flattened
    tensor. PyTorch's node: RollBackward0 of the input."""
    return named_node(_roll(input, shifts, dims), "RollBackward0", input)


def _roll(input: Tensor, shifts, dims) -> Tensor:
    if dims is None:
        return _roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    # an int, or a 0-d integer tensor (read as its int, as PyTorch's), is one shift or dim
    shifts = [shifts] if isinstance(shifts, (numbers.Integral, np.integer)) or _args.tensor_index(shifts) is not None \
        else list(shifts)
    dims = [dims] if isinstance(dims, (numbers.Integral, np.integer)) or _args.tensor_index(dims) is not None \
        else list(dims)
    if len(shifts) != len(dims):
        raise _C.InvalidArgumentError(f"roll: {len(shifts)} shifts for {len(dims)} dims\n  fix: one shift per dim")
    if not shifts:
        raise _C.InvalidArgumentError("roll: `shifts` required (got an empty sequence)\n  fix: roll(x, 1, 0)")
    out = input
    for s, dim in zip(shifts, dims):
        d = _axis(dim, out, "roll")
        n = out.shape[d]
        k = int(s) % n if n else 0
        if k:
            out = cat([_take(out, d, n - k, n), _take(out, d, 0, n - k)], d)
    return out


# ---- triangles and diagonals --------------------------------------------------------------------
def _triangle(input: Tensor, diagonal: int, lower: bool, where: str) -> Tensor:
    if input.ndim < 2:
        raise _C.ShapeError(f"{where}: needs a matrix (2 or more dims), got shape {list(input.shape)}")
    r, c = input.shape[-2], input.shape[-1]
    keep = np.tri(r, c, int(diagonal), dtype=bool) if lower else ~np.tri(r, c, int(diagonal) - 1, dtype=bool)
    mask = tensor(keep, device=input.device)
    # PyTorch's node saves no tensor (TrilBackward0): the mask, a constant, does not count as saved
    named = {"torch_node": f"{where.capitalize()}Backward0", "torch_saves": 0.0} if input.requires_grad else {}
    return _op("Where", [mask, input, constant(0, input.dtype, input.device)], named)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two dims, on and below `diagonal`; zeros above (torch.tril)."""
    return _triangle(input, diagonal, True, "tril")


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two dims, on and above `diagonal` (torch.triu)."""
    return _triangle(input, diagonal, False, "triu")


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of dims dim1 and dim2 as the last dim (torch.diagonal)."""
    return _diagonal(input, offset, dim1, dim2, "DiagonalBackward0")


def _diagonal(input: Tensor, offset: int, dim1: int, dim2: int, _node: str) -> Tensor:
    """diagonal, a view recorded as PyTorch's node _node of the input."""
    d1, d2 = _axis(dim1, input, "diagonal"), _axis(dim2, input, "diagonal")
    if d1 == d2:
        raise _C.InvalidArgumentError(f"diagonal: dim1 and dim2 are the same dim {d1}")
    rest = [i for i in range(input.ndim) if i not in (d1, d2)]
    x = input.permute(rest + [d1, d2])
    r, c = x.shape[-2], x.shape[-1]
    off = int(offset)
    # elements (i, i + off) of the flattened r x c matrix sit (c + 1) apart, from off (or -off * c)
    start = off if off >= 0 else -off * c
    length = builtins.max(0, builtins.min(r, c - off) if off >= 0 else builtins.min(r + off, c))
    flat = x.reshape(list(x.shape[:-2]) + [r * c])
    if not length:  # an offset past the matrix: an empty diagonal (the start may lie past the end)
        start = 0
    stop = start + (c + 1) * (length - 1) + 1 if length else start
    return _take(flat, flat.ndim - 1, start, stop, c + 1, _node, input)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """torch.diag: a vector's square matrix with it on `diagonal`, or a matrix's diagonal."""
    if input.ndim == 2:
        # PyTorch 2's diag of a matrix is its diagonal_copy op's node
        return _diagonal(input, diagonal, 0, 1, "DiagonalBackward0_copy")
    if input.ndim != 1:
        raise _C.ShapeError(f"diag: takes a vector or a matrix, got shape {list(input.shape)}")
    return diag_embed(input, diagonal)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices with the last dim of input on their `offset` diagonal (torch.diag_embed): rows
    along dim1 and columns along dim2 of the result (which has one dim more than input)."""
    d1, d2 = (_dim(d, input.ndim + 1, "diag_embed", input.shape) for d in (dim1, dim2))
    if d1 == d2:  # PyTorch's RuntimeError
        raise _C.InvalidArgumentError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}\n"
                                      f"  fix: two different dims of the result, e.g. dim1=-2, dim2=-1")
    if (d1, d2) != (input.ndim - 1, input.ndim):
        return movedim(diag_embed(input, offset), (-2, -1), (d1, d2))
    k = int(offset)
    m = input.shape[-1] + builtins.abs(k)
    # out[i, i + k] = x[i] (k >= 0: the value follows the row) or x[i + k] (k < 0: the column):
    # x, padded to m, stretched along the other axis and kept on the diagonal only
    padded = _pad_end(input, builtins.abs(k))
    along = padded.unsqueeze(-1) if k >= 0 else padded.unsqueeze(-2)
    mask = tensor(np.eye(m, m, k, dtype=bool), device=input.device)
    full = along.expand(list(input.shape[:-1]) + [m, m])
    # PyTorch's node saves no tensor (DiagEmbedBackward0): the mask, a constant, does not count as saved
    zero = constant(0, input.dtype, input.device)
    named = {"torch_saves": 0.0, **node_attrs("DiagEmbedBackward0", [mask, full, zero], input)} \
        if input.requires_grad else {}
    return _op("Where", [mask, full, zero], named)


def _pad_end(x: Tensor, amount: int) -> Tensor:
    """x with `amount` zeros appended along its last dim."""
    if not amount:
        return x
    shape = list(x.shape)
    shape[-1] = amount
    return cat([x, constant(0, x.dtype, x.device).expand(shape)], x.ndim - 1)


@_autocast.op("trace")
def trace(input: Tensor) -> Tensor:
    """The sum of a matrix's diagonal (torch.trace)."""
    if input.ndim != 2:
        raise _C.ShapeError(f"trace: needs a matrix, got shape {list(input.shape)}")
    if input.dtype == "bool":  # PyTorch's NotImplementedError
        raise _args.UnsupportedDTypeError("\"trace\" not implemented for 'Bool'\n  trace: a bool matrix\n  fix: "
                                          "input.long().trace()")
    if not input.requires_grad:
        return _sum(diagonal(input))
    return _op("Sum", [diagonal(input)], {"dims": [], "keepdim": False, "torch_node": "TraceBackward0"})


# ---- products -----------------------------------------------------------------------------------
def _sparse_product(op, input, other):
    """sparse @ dense goes to glassgrad.sparse.mm (docs/porting.md); dense @ sparse is
    (sparse^T @ dense^T)^T; sparse @ sparse is dense."""
    from . import sparse
    if getattr(other, "is_sparse", False):
        if getattr(input, "is_sparse", False):
            input = input.to_dense()
        return sparse.mm(other.t(), input.t()).t()
    return sparse.mm(input, other)


@product_out
@_autocast.op("matmul")
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """torch.matmul: a 1-d operand is a vector (a row on the left, a column on the right, its dim
    removed from the result); 2-d and batched operands broadcast their batch dims."""
    if getattr(input, "is_sparse", False) or getattr(other, "is_sparse", False):
        return _sparse_product("matmul", input, other)
    a, b = input, other if isinstance(other, Tensor) else as_operand(other, input.dtype, input.device)
    if a.ndim == 0 or b.ndim == 0:
        raise _C.ShapeError(f"matmul: both arguments need at least 1 dim, got shapes {list(a.shape)} and "
                            f"{list(b.shape)}\n  fix: multiply by a scalar with *")
    if _bool_pair(a, b):
        return bool_product(matmul, a, b, _bool_kernel(a, b), "matmul")
    if _integral_pair(a, b):
        return _integer_product(matmul, a, b)
    squeeze = []
    if a.ndim == 1:
        a = a.unsqueeze(0)
        squeeze.append(-2)
    if b.ndim == 1:
        b = b.unsqueeze(-1)
        squeeze.append(-1)
    out = _op("MatMul", [a, b])
    if squeeze == [-2, -1]:  # one reshape after the MatMul: Tensor.grad_fn names it DotBackward0
        return out.reshape([])
    for d in sorted(squeeze):  # plain reshapes (squeeze's would name SqueezeBackward1): Mv's view
        shape = list(out.shape)
        del shape[d]
        out = out.reshape(shape)
    return out


def _bool_kernel(a: Tensor, b: Tensor) -> str:
    """The CPU kernel PyTorch's matmul of these operands' shapes dispatches to (for its error)."""
    if a.ndim == 1 and b.ndim == 1:
        return "dot"
    if b.ndim == 1:
        return "addmv_impl_cpu"
    return "bmm" if a.ndim > 2 and b.ndim > 2 else "addmm_impl_cpu_"


def bool_product(product, a: Tensor, b: Tensor, kernel: str, where: str, sums: bool = True) -> Tensor:
    """product(a, b) of two bool tensors as PyTorch's: it has no bool kernel for products (its
    NotImplementedError) unless no sum of products is formed: an operand without elements (the
    empty result, or the all-False one of an empty contraction), or, for einsum, `sums` False
    (contracted size 1: a plain elementwise AND). "dot" refuses even empty vectors."""
    if sums and (kernel == "dot" or (a.numel() and b.numel())):
        raise _args.UnsupportedDTypeError(
            f"\"{kernel}\" not implemented for 'Bool'\n  {where}: products of two bool tensors (shapes {list(a.shape)} "
            f"and {list(b.shape)}) are refused, as PyTorch refuses them\n  fix: {where}(a.int(), b.int()) > 0 for "
            f"'any pair both True', or a.float() and b.float() for counts")
    int64 = DTYPES["int64"]
    return product(a.astype(int64), b.astype(int64)).astype(DTYPES["bool"])


def _bool_pair(a: Tensor, b: Tensor) -> bool:
    return a.dtype == "bool" and b.dtype == "bool"


def _integral_pair(a: Tensor, b: Tensor) -> bool:
    return a.dtype == b.dtype and a.dtype in ("int64", "int32", "uint8", "int8", "int16")


def sums_pass_float64(wide, terms: int) -> bool:
    """Whether integer products summed `terms` at a time may pass 2**53, where float64 (the MatMul
    kernels' type for integers) rounds them: the product of the float64 operands' largest
    magnitudes times `terms`. Reading it computes the operands (docs/porting.md, "Python numbers
    beside tensors")."""
    largest = wide[0].abs().amax()
    for w in wide[1:]:
        largest = largest * w.abs().amax()
    return largest.item() * terms > 2.0 ** 53


def int64_on_host(numpy_fn, operands, *leading) -> Tensor:
    """numpy_fn(*leading, *operands as NumPy int64 arrays), exact and wrapping as PyTorch's int64,
    back in the first operand's dtype and device."""
    exact = numpy_fn(*leading, *[t.numpy(force=True).astype(np.int64) for t in operands])
    return tensor(np.asarray(exact), device=operands[0].device).astype(operands[0].dtype)


def _integer_product(product, a: Tensor, b: Tensor) -> Tensor:
    """product(a, b) of two integer tensors in their dtype, as PyTorch multiplies them: the MatMul
    kernels take floats, float64 sums integer products exactly while every partial sum stays
    within 2**53, and the way back goes through int64 so that a narrower type wraps as PyTorch's
    does. Operands whose sums may pass 2**53 (int64 values near 2**62; sums_pass_float64, k the
    summed dim) are multiplied by NumPy's int64 matmul on the host instead."""
    float64, int64 = DTYPES["float64"], DTYPES["int64"]
    wide_a, wide_b = a.astype(float64), b.astype(float64)
    if a.numel() and b.numel() and sums_pass_float64([wide_a, wide_b], a.shape[-1]):
        return int64_on_host(np.matmul, [a, b])
    return product(wide_a, wide_b).astype(int64).astype(a.dtype)


@product_out
@_autocast.op("mm")
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The product of two matrices (torch.mm)."""
    if getattr(input, "is_sparse", False) or getattr(mat2, "is_sparse", False):
        return _sparse_product("mm", input, mat2)
    for name, t in (("input", input), ("mat2", mat2)):
        if t.ndim != 2:
            raise _C.ShapeError(f"mm: {name} must be a matrix, got shape {list(t.shape)}\n  fix: torch.matmul "
                                f"for vectors and batches")
    if _bool_pair(input, mat2):
        return bool_product(mm, input, mat2, "addmm_impl_cpu_", "mm")
    if _integral_pair(input, mat2):
        return _integer_product(mm, input, mat2)
    return _op("MatMul", [input, mat2])


@product_out
@_autocast.op("bmm")
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched products of [B, n, m] and [B, m, p] (torch.bmm)."""
    for name, t in (("input", input), ("mat2", mat2)):
        if t.ndim != 3:
            raise _C.ShapeError(f"bmm: {name} must be a batch of matrices [B, n, m], got shape {list(t.shape)}")
    if input.shape[0] != mat2.shape[0]:
        raise _C.ShapeError(f"bmm: batch sizes differ: {list(input.shape)} and {list(mat2.shape)}")
    if _bool_pair(input, mat2):
        return bool_product(bmm, input, mat2, "bmm", "bmm")
    if _integral_pair(input, mat2):
        return _integer_product(bmm, input, mat2)
    return _op("MatMul", [input, mat2], torch_node("BmmBackward0", input, mat2))


@_autocast.op("mv")
def mv(input: Tensor, vec: Tensor) -> Tensor:
    """The product of a matrix and a vector (torch.mv)."""
    if input.ndim == 0:
        # PyTorch reads the first dim of the matrix before checking shapes: a 0-d one raises IndexError
        # "Dimension specified as 0 but tensor has no dimensions"; the other wrong shapes RuntimeError
        raise _C.GlassgradIndexError(f"mv: Dimension specified as 0 but tensor has no dimensions: got shapes "
                                     f"{list(input.shape)} and {list(vec.shape)}, as PyTorch\n  fix: mv(matrix "
                                     f"[n, m], vector [m])")
    if input.ndim != 2 or vec.ndim != 1:
        raise _C.ShapeError(f"mv: needs a matrix and a vector, got {list(input.shape)} and {list(vec.shape)}")
    return matmul(input, vec)


@_autocast.op("dot")
def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The dot product of two vectors (torch.dot)."""
    if input.ndim != 1 or tensor.ndim != 1:
        raise _C.ShapeError(f"dot: needs two vectors, got {list(input.shape)} and {list(tensor.shape)}")
    return matmul(input, tensor)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """input[i] * vec2[j] (torch.outer), of two 1-d tensors."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise _C.ShapeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D (shape {list(t.shape)}), as "
                                f"PyTorch\n  fix: x.reshape(-1)")
    return mul(input.reshape(-1, 1), vec2.reshape(1, -1))


ger = outer


def _scaled(x: Tensor, k) -> Tensor:
    return x if k == 1 else mul(x, k)


def _integral_coefficients(where: str, operand: Tensor, beta, alpha, refuse: bool = False):
    """(beta, alpha) for a product of integer (or bool) operands, where PyTorch documents that they
    should be integers: a float one is truncated to an int (addmm, addmv, baddbmm, addbmm keep
    their integer dtype: addmm(ints, ints, ints, beta=0.5) is mat1 @ mat2), or with refuse=True
    (addr) PyTorch's RuntimeError."""
    if operand.dtype.is_floating_point or operand.dtype.is_complex:
        return beta, alpha
    out = []
    for name, k in (("beta", beta), ("alpha", alpha)):
        if isinstance(k, numbers.Real) and not isinstance(k, numbers.Integral):
            if refuse:
                raise _C.InvalidArgumentError(f"For integral input tensors, argument {name} must not be a floating point "
                                              f"number.\n  {where}: {name}={k!r}, the operands are {operand.dtype}\n"
                                              f"  fix: an int {name}, or float operands")
            k = math.trunc(k)
        out.append(k)
    return out[0], out[1]


@_autocast.op("addmm")
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2) (torch.addmm); beta=0 ignores input (NaN included)."""
    beta, alpha = _integral_coefficients("addmm", mat1, beta, alpha)
    prod = mm(mat1, mat2)
    _product_shapes.input_expands("addmm", input.shape, prod.shape)
    return _add_product(input, _scaled(prod, alpha), beta, "AddmmBackward0", mat1, mat2)


def _add_product(input: Tensor, prod: Tensor, beta, node: str, *operands) -> Tensor:
    """beta * input + prod (prod alone for beta=0), its result named as PyTorch's node `node`."""
    named = torch_node(node, input, *operands)
    if beta == 0:
        return prod if not named else _op("Reshape", [prod], {"shape": list(prod.shape), **named})
    scaled = _scaled(input, beta)
    if not named or scaled.dtype != prod.dtype:
        return add(scaled, prod)
    return _op("Add", [scaled, prod], named)


@_autocast.op("baddbmm")
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2) batch by batch (torch.baddbmm)."""
    beta, alpha = _integral_coefficients("baddbmm", batch1, beta, alpha)
    _product_shapes.batch_target("baddbmm", input, batch1, batch2, keep_batch=True)
    return _add_product(input, _scaled(bmm(batch1, batch2), alpha), beta, "BaddbmmBackward0", batch1, batch2)


@_autocast.op("addmv")
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat @ vec) (torch.addmv)."""
    beta, alpha = _integral_coefficients("addmv", mat, beta, alpha)
    _product_shapes.addmv_operands(input, mat, vec)
    prod = _scaled(mv(mat, vec), alpha)
    return prod if beta == 0 else add(_scaled(input, beta), prod)


@_autocast.op("addbmm")
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * the sum over the batch of batch1[b] @ batch2[b] (torch.addbmm)."""
    beta, alpha = _integral_coefficients("addbmm", batch1, beta, alpha)
    _product_shapes.batch_target("addbmm", input, batch1, batch2, keep_batch=False)
    prod = _scaled(_sum(bmm(batch1, batch2), 0), alpha)
    return prod if beta == 0 else add(_scaled(input, beta), prod)


# ---- dims ---------------------------------------------------------------------------------------
def _movedim_dims(dims, source, destination):
    """movedim's source or destination with a 0-d integer tensor read as its int; PyTorch's
    TypeError for any other tensor (movedim(tensor([0]), 1))."""
    if not isinstance(dims, Tensor):
        return dims
    index = _args.tensor_index(dims)
    if index is None:
        kinds = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in (source, destination))
        raise _args.InvalidArgumentTypeError(
            f"movedim() received an invalid combination of arguments - got ({kinds}), but expected one of:\n"
            f" * (Tensor input, tuple of ints source, tuple of ints destination)\n"
            f" * (Tensor input, int source, int destination)\n"
            f"  movedim: a dim given as a tensor must be a 0-d integer tensor, got {dims.dtype} of shape "
            f"{list(dims.shape)}\n  fix: an int or a tuple of ints: x.movedim(0, 1)")
    return index


def movedim(input: Tensor, source, destination) -> Tensor:
    """The dims `source` moved to positions `destination`, the others in order (torch.movedim)."""
    # a 0-d integer tensor is an int, as PyTorch's argument parser reads it; another tensor is refused
    source, destination = (_movedim_dims(v, source, destination) for v in (source, destination))
    src = [source] if isinstance(source, (numbers.Integral, np.integer)) else list(source)
    dst = [destination] if isinstance(destination, (numbers.Integral, np.integer)) else list(destination)
    if len(src) != len(dst):
        raise _C.InvalidArgumentError(f"movedim: {len(src)} source dims but {len(dst)} destinations")
    src = [_axis(s, input, "movedim") for s in src]
    dst = [_axis(d, input, "movedim") for d in dst]
    for name, dims, given in (("source", src, source), ("destination", dst, destination)):
        if len(set(dims)) != len(dims):  # PyTorch's RuntimeError
            raise _C.InvalidArgumentError(f"movedim: repeated dim in `{name}` ({list(given)}; dims {dims} of a "
                                          f"{input.ndim}-d input)\n  fix: name each dim once")
    if input.ndim == 0:  # dims 0 and -1 name the scalar itself
        return input
    order = [None] * input.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(input.ndim) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return input.permute(order)


moveaxis = movedim


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """Dims axis0 and axis1 swapped (torch.swapaxes); a view."""
    return input.transpose(axis0, axis1)


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Dims dim0 and dim1 swapped (torch.swapdims); a view."""
    return input.transpose(dim0, dim1)


def t(input: Tensor) -> Tensor:
    """The transpose of a matrix (torch.t); vectors and scalars unchanged."""
    if input.ndim > 2:
        raise _C.ShapeError(f"t: expects a tensor of at most 2 dims, got shape {list(input.shape)}\n"
                            f"  fix: x.transpose(-2, -1) or x.mT for a batch of matrices")
    if input.ndim < 2:  # unchanged; a view (TBackward0) where it tracks a gradient, as PyTorch's
        return _reshape_as(input, list(input.shape), "TBackward0")
    return _op("Permute", [input], {"dims": [1, 0], "torch_node": "TBackward0"})


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (torch.adjoint): the transpose, glassgrad's
    dtypes being real; a view."""
    if input.ndim == 0:  # PyTorch returns it, with its deprecation warning
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", UserWarning,
                      stacklevel=_trace.user_stacklevel())
        return input
    if input.ndim < 2:
        raise _C.ShapeError(f"adjoint() is only supported on matrices or batches of matrices. Got {input.ndim}-D "
                            f"tensor.\n  fix: x.unsqueeze(0) for a 1-row matrix")
    return input.transpose(-2, -1)


def squeeze(input: Tensor, dim=_args.ABSENT) -> Tensor:
    """input without its size-1 dims, or without those of dim (an int or a tuple) (torch.squeeze);
    dim=None is PyTorch's TypeError (leave dim out for every size-1 dim)."""
    if dim is None:
        raise _args.InvalidArgumentTypeError("squeeze(): argument 'dim' must be int or tuple of ints, not NoneType\n"
                                             "  fix: x.squeeze() for every size-1 dim, or x.squeeze(dim)")
    if dim is _args.ABSENT:
        return _reshape_as(input, [s for s in input.shape if s != 1], "SqueezeBackward0",
                           _view_strides.kept(input.ndim, {i for i, s in enumerate(input.shape) if s == 1}))
    dims = [dim] if isinstance(dim, (numbers.Integral, np.integer)) else list(dim)
    axes = [_axis(d, input, "squeeze") for d in dims]
    if len(set(axes)) != len(axes):
        raise _C.InvalidArgumentError(f"squeeze: dim {axes[0] if len(set(axes)) == 1 else tuple(dims)} appears "
                                      f"multiple times in the list of dims\n  fix: name each dim once")
    gone = {i for i in axes if i < input.ndim and input.shape[i] == 1}  # a 0-d input has no dim to drop
    return _reshape_as(input, [s for i, s in enumerate(input.shape) if i not in gone],
                       "SqueezeBackward1" if isinstance(dim, (numbers.Integral, np.integer)) else "SqueezeBackward2",
                       _view_strides.kept(input.ndim, gone))


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """input with a new size-1 dim at dim (torch.unsqueeze); a view."""
    d = _axis(dim, input, "unsqueeze", extra=1)
    return _reshape_as(input, list(input.shape[:d]) + [1] + list(input.shape[d:]), "UnsqueezeBackward0",
                       _view_strides.unsqueezed(input.shape, d))


def _reshape_as(input: Tensor, shape: list, node: str, sources=None) -> Tensor:
    """input.reshape(shape) (of as many elements), recorded as PyTorch's node `node` for
    Tensor.grad_fn; `sources`: PyTorch's strides of its axes (_view_strides.py) where the view
    only inserts or drops size-1 axes."""
    if shape == list(input.shape) and not input.requires_grad:
        return input  # a tensor tracking a gradient gets its view, whose grad_fn is `node` as in PyTorch
    if sources:
        return _op("Reshape", [input], {"shape": shape, "torch_node": node, "view_strides": _view_strides.spec(sources)})
    return _op("Reshape", [input], {"shape": shape, "torch_node": node})


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """dim split into the given sizes (torch.unflatten; at most one -1, inferred); a view. Sizes
    that cannot split dim raise PyTorch's RuntimeError sentences first ('unflatten: sizes must be
    non-empty', "unflatten: Provided sizes [3, -1] don't multiply up to the size of dim 1 (8) in
    the input tensor"), then the shapes and the fix."""
    d = _axis(dim, input, "unflatten")
    sizes = [int(s) for s in _shape_args((sizes,), "unflatten")]
    n = input.shape[d]
    if not sizes:
        raise _C.ShapeError(f"unflatten: sizes must be non-empty\n  cause: dim {dim} of input {list(input.shape)} "
                            f"split into no sizes\n  fix: sizes with a product of {n}, e.g. ({n},)")
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) <= 1 and (n != known if -1 not in sizes else known == 0 or n % known):
        raise _C.ShapeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {d} ({n}) in "
                            f"the input tensor\n  cause: input {list(input.shape)}\n  fix: sizes whose product is "
                            f"{n}, or one -1 for the size to infer")
    return input.reshape(list(input.shape[:d]) + sizes + list(input.shape[d + 1:]))


def ravel(input: Tensor) -> Tensor:
    """The elements as one dim (torch.ravel)."""
    return input.reshape(-1)


def broadcast_shapes(*shapes) -> Size:
    """The shape the given shapes broadcast to (torch.broadcast_shapes). Each shape is an int (a
    1-d shape) or a tuple or list of ints; anything else (a tensor, a float) is PyTorch's
    RuntimeError, a negative length its ValueError."""
    as_tuples = []
    for s in shapes:
        if isinstance(s, (tuple, list)):
            if not all(isinstance(n, int) for n in s):  # torch.Size(s)'s TypeError in PyTorch
                raise _args.InvalidArgumentTypeError(f"broadcast_shapes: a shape takes ints, got {s!r}\n"
                                                     f"  fix: broadcast_shapes((2, 3), (3,))")
            as_tuples.append(tuple(int(n) for n in s))
        elif isinstance(s, int):
            as_tuples.append((int(s),))
        else:
            raise _C.InvalidArgumentError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got "
                                          f"{s!r}\n  broadcast_shapes: fix: pass shapes, e.g. x.shape, not tensors")
    if any(n < 0 for t in as_tuples for n in t):
        raise _C.ShapeError(f"Attempting to broadcast a dimension with negative length!\n  broadcast_shapes: shapes "
                            f"{[list(t) for t in as_tuples]}\n  fix: every length must be >= 0")
    try:
        return Size(np.broadcast_shapes(*as_tuples))
    except ValueError:
        raise _C.ShapeError(f"broadcast_shapes: shapes {[list(s) for s in shapes]} cannot be broadcast together\n"
                            f"  fix: dims must be equal or 1, counted from the last") from None


def broadcast_to(input: Tensor, size) -> Tensor:
    """input stretched to `size` along its size-1 and new leading dims (torch.broadcast_to); a view."""
    return input.expand(*_shape_args((size,), "broadcast_to"))


def broadcast_tensors(*tensors):
    """The tensors stretched to their common broadcast shape (torch.broadcast_tensors); views."""
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t.expand(shape) for t in tensors)


_MESHGRID_WARNED = [False]


def meshgrid(*tensors, indexing: Optional[str] = None):
    """Coordinate grids of 1-d tensors (torch.meshgrid; indexing 'ij' or 'xy', None is 'ij')."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None and _runtime.warn_once(_MESHGRID_WARNED):  # PyTorch's TORCH_WARN_ONCE
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=_trace.user_stacklevel())
    indexing = "ij" if indexing is None else indexing
    _args.choice(indexing, "indexing", "meshgrid", ("ij", "xy"))
    ts = list(tensors)
    if not ts:
        raise _C.InvalidArgumentError("meshgrid expects a non-empty TensorList\n  fix: meshgrid(x, y, indexing='ij')")
    for t in ts:
        if t.ndim > 1:
            raise _C.ShapeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                                f"shape {list(t.shape)}\n  fix: t.flatten()")
    if len({plain(t.dtype) for t in ts}) > 1:
        raise _C.DTypeError(f"meshgrid expects all tensors to have the same dtype, got "
                            f"{', '.join(plain(t.dtype) for t in ts)} (as PyTorch)\n  fix: convert them first: b.to(a.dtype)")
    # 'xy' is 'ij' of the first two swapped, its first two grids swapped back
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    grids = [t.reshape([-1 if j == i else 1 for j in range(len(ts))]).expand(shape) for i, t in enumerate(ts)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (torch.atleast_1d)."""
    out = [t.reshape(1) if t.ndim == 0 else t for t in _flat(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims, new ones in front (torch.atleast_2d)."""
    out = [t.reshape([1] * (2 - t.ndim) + list(t.shape)) if t.ndim < 2 else t for t in _flat(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims (torch.atleast_3d: a vector [n] becomes [1, n, 1], a matrix [m, n] [m, n, 1])."""
    def up(t):
        return t.reshape(1, 1, 1) if t.ndim == 0 else t.reshape(1, -1, 1) if t.ndim == 1 else \
            t.unsqueeze(-1) if t.ndim == 2 else t
    out = [up(t) for t in _flat(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def _flat(tensors):
    return list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else list(tensors)


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """The indices of the nonzero elements (torch.nonzero): an int64 [count, ndim] tensor, or with
    as_tuple=True one int64 tensor per dim. The count depends on the data, so this computes
    pending work first (as PyTorch synchronizes with the GPU here)."""
    values = np.asarray(host_values(input)).reshape(input.shape)
    if values.ndim == 0:  # a scalar: as_tuple reads it as 1-d, the matrix form has no columns (PyTorch's)
        hit = int(values != 0)
        if as_tuple:
            return (tensor(np.zeros(hit, np.int64), device=input.device),)
        return tensor(np.zeros((hit, 0), np.int64), device=input.device)
    where = np.nonzero(values)
    if as_tuple:
        return tuple(tensor(w.astype(np.int64), device=input.device) for w in where)
    coords = np.stack(where, axis=1).astype(np.int64) if where else np.zeros((0, 0), np.int64)
    return tensor(coords.reshape(-1, input.ndim), device=input.device)


def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements as an int64 [count, ndim] tensor (torch.argwhere)."""
    return nonzero(input)


# ---- differences, windows, products of vectors -------------------------------------------------
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """The n-th forward difference along dim, out[i] = x[i + 1] - x[i] applied n times, after
    joining prepend and append to input along dim (torch.diff); bool gives logical xor."""
    if input.ndim == 0:
        raise _C.ShapeError("diff expects input to be at least one-dimensional\n  fix: x.reshape(-1)")
    d = _axis(dim, input, "diff")
    n = _args.integer(n, "n", "diff", minimum=0)
    parts = [p for p in (prepend, input, append) if p is not None]
    if len(parts) > 1:
        parts = [p if isinstance(p, Tensor) else as_operand(p, input.dtype, input.device) for p in parts]
        for p in parts:  # PyTorch's checks: the same dims, the same sizes off dim
            if p.ndim != input.ndim:
                raise _C.ShapeError(f"diff expects prepend or append to be the same dimension as input\n  diff: "
                                    f"input {list(input.shape)}, prepend/append {list(p.shape)}\n  fix: "
                                    f"prepend=t.reshape(...) with {input.ndim} dims")
            for a in range(input.ndim):
                if a != d and p.shape[a] != input.shape[a]:
                    raise _C.ShapeError(f"diff expects the shape of tensor to prepend or append to match that of "
                                        f"input except along the differencing dimension; input.size({a}) = "
                                        f"{input.shape[a]}, but got tensor.size({a}) = {p.shape[a]}\n  fix: "
                                        f"t.expand(...) to the input's sizes off dim {d}")
        x = cat(parts, d)
    else:
        x = input
    for _ in range(n):
        if x.shape[d] == 0:
            break
        later, earlier = _take(x, d, 1, x.shape[d]), _take(x, d, 0, x.shape[d] - 1)
        if x.dtype == "bool":
            from ._math import logical_xor
            x = logical_xor(later, earlier)
        else:
            x = later - earlier
    return x


@_autocast.op("cross")
def cross(input: Tensor, other: Tensor, dim=None) -> Tensor:
    """The cross product of 3-vectors along dim, input and other broadcast (torch.cross); without
    dim, the first dim of size 3, as PyTorch's (deprecated) default."""
    if input.ndim != other.ndim:
        raise _C.ShapeError(f"linalg.cross: inputs must have the same number of dimensions.\n  cross: "
                            f"{list(input.shape)} and {list(other.shape)}\n  fix: other.reshape(...) or "
                            f"other.unsqueeze(0) to give both the same number of dims")
    shape = tuple(broadcast_shapes(input.shape, other.shape))
    if dim is None:
        sizes3 = [a for a, n in enumerate(shape) if n == 3]
        if not sizes3:
            raise _C.ShapeError(f"no dimension of size 3 in input: cross needs 3-vectors, got {list(input.shape)} and "
                                f"{list(other.shape)}\n  fix: torch.cross(a, b, dim=...) along a dim of size 3")
        d = sizes3[0]
    else:
        d = _dim(dim, builtins.max(len(shape), 1), "cross", shape)
    if shape[d] != 3:
        raise _C.ShapeError(f"linalg.cross: inputs dimension {d} must have length 3. Got {input.shape[d]} and "
                            f"{other.shape[d] if other.ndim > d else 1}\n  fix: dim=... naming a dim of size 3")
    a = input if tuple(input.shape) == shape else input.expand(*shape)
    b = other if tuple(other.shape) == shape else other.expand(*shape)
    from ._math import result_type_operands
    a, b = result_type_operands(a, b)

    def comp(x, i):
        return _take(x, d, i, i + 1)

    a0, a1, a2 = comp(a, 0), comp(a, 1), comp(a, 2)
    b0, b1, b2 = comp(b, 0), comp(b, 1), comp(b, 2)
    return cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """narrow(input, dim, start, length) as a new tensor of its own (torch.narrow_copy)."""
    return narrow(input, dim, start, length).clone()


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of `size` elements along dimension, `step` apart, as a new last dim
    (Tensor.unfold): shape [..., (n - size) // step + 1, ..., size]. Windows that do not overlap
    (step >= size) are a view of this tensor; overlapping ones are a copy built from `size`
    strided views, so writes into them do not reach this tensor."""
    if self.ndim == 0:  # a scalar's one window (size 1) or none (size 0), as PyTorch's
        return unfold(self.reshape(1), dimension, size, step).reshape(-1)
    x = self
    d = _axis(dimension, x, "unfold")
    n = x.shape[d]
    size = _args.integer(size, "size", "unfold", minimum=0)
    step = _args.integer(step, "step", "unfold", minimum=1)
    if size > n:
        raise _C.ShapeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}\n  unfold: "
                            f"windows of {size} along dim {dimension} of {list(self.shape)}\n  fix: size <= {n}")
    w = (n - size) // step + 1
    if step >= size and size > 0 and w * step <= n:
        cut = _take(x, d, 0, w * step)
        split_shape = list(x.shape[:d]) + [w, step] + list(x.shape[d + 1:])
        windows = _take(cut.reshape(split_shape), d + 1, 0, size)
        return named_node(movedim(windows, d + 1, -1), "UnfoldBackward0", self)
    pieces = [_take(x, d, j, j + (w - 1) * step + 1, step) for j in range(size)]
    if not pieces:
        shape = list(x.shape)
        shape[d] = w
        return constant(0, x.dtype, x.device).expand(*shape, 0) if shape else x
    return named_node(stack(pieces, x.ndim), "UnfoldBackward0", self)


def sum_to_size(self: Tensor, *size) -> Tensor:
    """This tensor summed down to `size`, which it must broadcast to (Tensor.sum_to_size): the
    leading dims it lacks and its dims of size 1 are summed over, keeping their place."""
    want = tuple(_shape_args(size, "sum_to_size"))
    have = tuple(self.shape)
    try:
        ok = tuple(np.broadcast_shapes(want, have)) == have and len(want) <= len(have)
    except ValueError:
        ok = False
    if not ok:
        raise _C.ShapeError(f"size {{{', '.join(map(str, want))}}} is not expandable to size "
                            f"{{{', '.join(map(str, have))}}}.\n  sum_to_size: the tensor {list(have)} must be a "
                            f"broadcast of {list(want)}\n  fix: a size this tensor's shape broadcasts from")
    lead = len(have) - len(want)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(want) if s == 1 and have[lead + i] != 1]
    if not dims:
        return self
    out = _sum(self, dims, keepdim=True)
    return out.reshape(list(want)) if lead else out


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


@_autocast.op("cdist")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each row of x1 [.., P, M] and each row of x2 [.., R, M]
    (torch.cdist), a [.., P, R] tensor, batch dims broadcast. Computed from the differences
    (so exact for every p, the gradient 0 where two rows are equal, as PyTorch's)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise _C.ShapeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D, X2 got: {x2.ndim}D\n"
                            f"  fix: x.unsqueeze(0) for a single row")
    if x1.shape[-1] != x2.shape[-1]:
        raise _C.ShapeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                            f"{x2.shape[-1]}\n  cdist: {list(x1.shape)} and {list(x2.shape)}\n  fix: rows of equal "
                            f"length")
    if not (x1.dtype.is_floating_point and x2.dtype.is_floating_point):
        raise _C.DTypeError(f"cdist only supports floating-point dtypes, X1 got: {x1.dtype}, X2 got: {x2.dtype}\n"
                            f"  fix: x.float()")
    for t in (x1, x2):
        if t.dtype in ("float16", "bfloat16"):  # PyTorch's CPU kernel: NotImplementedError
            raise _args.UnsupportedDTypeError(f"\"cdist\" not implemented for '{_type_name(t.dtype)}'\n  cdist: "
                                              f"{list(x1.shape)} {x1.dtype} and {list(x2.shape)} {x2.dtype}\n  "
                                              f"fix: x.float()")
    if x1.dtype != x2.dtype:
        raise _C.DTypeError(f"expected scalar type {_type_name(x1.dtype)} but found "
                            f"{_type_name(x2.dtype)}\n  cdist: X1 is {x1.dtype}, X2 is {x2.dtype}\n  fix: "
                            f"x2.to(x1.dtype)")
    if p < 0:
        raise _C.InvalidArgumentError(f"cdist only supports non-negative p values, got {p}\n  fix: p=2.0")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode\n  cdist: compute_mode is one of "
                         f"{', '.join(_CDIST_MODES)}")
    from ._reductions import distance_norm
    return named_node(distance_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, -1), "CdistBackward0", x1, x2)


def is_complex(input: Tensor) -> bool:
    """False: glassgrad holds no complex dtypes (torch.is_complex)."""
    return False


# ---- products and splits of NumPy's and PyTorch's linear-algebra surface ------------------------
def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product (torch.kron): out[i * m + k, ...] = input[i, ...] * other[k, ...], the
    shorter shape padded with leading 1s."""
    n = builtins.max(input.ndim, other.ndim)
    a_shape = [1] * (n - input.ndim) + list(input.shape)
    b_shape = [1] * (n - other.ndim) + list(other.shape)
    a = input.reshape([d for s in a_shape for d in (s, 1)])
    b = other.reshape([d for s in b_shape for d in (1, s)])
    return mul(a, b).reshape([x * y for x, y in zip(a_shape, b_shape)])


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The sum over the last dims of input and other (torch.inner), shape input.shape[:-1] +
    other.shape[:-1]; a 0-d operand multiplies."""
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise _C.ShapeError(f"inner() the last dimension must match on both input tensors but got shapes "
                            f"{list(input.shape)} and {list(other.shape)}\n  fix: tensors whose last dims agree")
    n = input.shape[-1]
    out = matmul(input.reshape(-1, n), other.reshape(-1, n).transpose(0, 1))
    shape = list(input.shape[:-1]) + list(other.shape[:-1])
    if not out.requires_grad:
        return out.reshape(shape)
    return _op("Reshape", [out], {"shape": shape, "torch_node": "ViewBackward0"})  # PyTorch's view of its product


@_autocast.op("vdot")
def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-d tensors (torch.vdot; real dtypes, so no conjugation)."""
    if input.ndim != 1 or other.ndim != 1:
        raise _C.ShapeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors\n  vdot: "
                            f"{list(input.shape)} and {list(other.shape)}\n  fix: x.reshape(-1)")
    return dot(input, other)


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """input rotated by 90 degrees k times in the plane of dims, from the first toward the second
    (torch.rot90)."""
    dims = list(dims)
    if len(dims) != 2:
        raise _C.InvalidArgumentError(f"expected total rotation dims == 2, but got dims = {len(dims)}\n  fix: "
                                      f"dims=(0, 1)")
    if input.ndim < 2:
        raise _C.ShapeError(f"expected total dims >= 2, but got total dims = {input.ndim}\n  fix: a matrix")
    d0, d1 = _axis(dims[0], input, "rot90"), _axis(dims[1], input, "rot90")
    if d0 == d1:
        raise _C.InvalidArgumentError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
                                      f"\n  fix: two different dims")
    k = _args.integer(k, "k", "rot90") % 4
    if k == 1:
        return flip(input, [d1]).transpose(d0, d1)
    if k == 2:
        return flip(input, [d0, d1])
    if k == 3:
        return flip(input, [d0]).transpose(d0, d1)
    return input.clone()


def _split_along(input: Tensor, indices_or_sections, dim: int, where: str):
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)) and not isinstance(indices_or_sections, bool):
        n = int(indices_or_sections)
        if n <= 0 or input.shape[dim] % n:
            raise _C.InvalidArgumentError(f"torch.{where} attempted to split along dimension {dim}, but the size of "
                                          f"the dimension {input.shape[dim]} is not divisible by the split_size {n}!"
                                          f"\n  fix: a number of sections that divides {input.shape[dim]}, or a list "
                                          f"of indices")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections):
    """tensor_split along dim 1 (dim 0 for a 1-d tensor) (torch.hsplit); a number of sections must
    divide the dim."""
    if input.ndim == 0:
        raise _C.ShapeError("torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 "
                            "dimensions!\n  fix: x.reshape(-1)")
    return _split_along(input, indices_or_sections, 1 if input.ndim > 1 else 0, "hsplit")


def vsplit(input: Tensor, indices_or_sections):
    """tensor_split along dim 0 of a tensor of 2 or more dims (torch.vsplit)."""
    if input.ndim < 2:
        raise _C.ShapeError(f"torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with "
                            f"{input.ndim} dimensions!\n  fix: x.reshape(1, -1)")
    return _split_along(input, indices_or_sections, 0, "vsplit")


def dsplit(input: Tensor, indices_or_sections):
    """tensor_split along dim 2 of a tensor of 3 or more dims (torch.dsplit)."""
    if input.ndim < 3:
        raise _C.ShapeError(f"torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with "
                            f"{input.ndim} dimensions!\n  fix: x.unsqueeze(-1)")
    return _split_along(input, indices_or_sections, 2, "dsplit")


def split_with_sizes(self: Tensor, split_sizes, dim: int = 0):
    """The pieces of the given sizes along dim (Tensor.split_with_sizes), which must add up to it."""
    return split(self, list(split_sizes), dim)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A matrix with input's elements (flattened) on diagonal `offset` (torch.diagflat)."""
    return diag(input.reshape(-1), offset)


@_autocast.op("addr")
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2) (torch.addr); beta=0 ignores input's values."""
    beta, alpha = _integral_coefficients("addr", vec1, beta, alpha, refuse=True)
    prod = outer(vec1, vec2)
    _product_shapes.input_expands("addr", input.shape, prod.shape)
    prod = _scaled(prod, alpha)
    return prod if beta == 0 else add(_scaled(input, beta), prod)


# ---- resizing (Tensor.resize, resize_, resize_as_) ---------------------------------------------
def resize(self: Tensor, *sizes) -> Tensor:
    """The same elements in shape `sizes`, with gradients (Tensor.resize: PyTorch's deprecated
    out-of-place resize, which keeps the number of elements, with its warning)."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=_trace.user_stacklevel())
    return _resized(self, sizes)


def resize_as(self: Tensor, tensor: Tensor, *, memory_format=None) -> Tensor:
    """self in tensor's shape, with gradients (Tensor.resize_as: PyTorch's deprecated
    out-of-place resize_as, which keeps the number of elements, with its warning)."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=_trace.user_stacklevel())
    return _resized(self, tuple(tensor.shape))


def _resized(self: Tensor, sizes) -> Tensor:
    want = list(_shape_args(sizes))
    n = int(np.prod(want)) if want else 1
    if n != self.numel():
        raise _C.ShapeError(f"requested resize to {'x'.join(map(str, want))} ({n} elements in total), but the given "
                            f"tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                            f"autograd's resize can only change the shape of a given tensor, while preserving the "
                            f"number of elements.\n  fix: x.reshape(...) with {self.numel()} elements, or "
                            f"x.resize_(...) to change the number of elements")
    return self.reshape(want)


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """torch.nonzero_static: nonzero(input) cut or padded to `size` rows (padding rows hold
    fill_value), a shape known before the data is read."""
    size = _args.integer(size, "size", "nonzero_static", minimum=0)
    found = nonzero(input)
    n = found.shape[0]
    if n >= size:
        return found[:size]
    pad = tensor(np.full((size - n, input.ndim), int(fill_value), dtype=np.int64), device=input.device)
    return cat([found, pad], 0)


def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0):
    """torch.unsafe_split_with_sizes (and the method): split_with_sizes (PyTorch's unsafe_
    spellings skip its autograd's check of multiple-view outputs)."""
    return unsafe_split(input, list(split_sizes), dim)


def resize_(self: Tensor, *sizes, size=None, memory_format=None) -> Tensor:
    """This tensor given shape `sizes` (or size=) in place (Tensor.resize_): with as many elements, its
    elements in row-major order; with fewer, the first ones; with more, the old ones followed by
    zeros (PyTorch leaves those uninitialized). Its other aliases keep their shapes."""
    sizes = sizes_or_keyword(sizes, size, "resize_", "size")
    want = list(_shape_args(sizes, "resize_"))
    if self.requires_grad:
        raise _C.TensorStateError(f"cannot resize variables that require grad\n  resize_: a tensor "
                                  f"{list(self.shape)} that requires gradients\n  fix: x.detach().resize_(...), or "
                                  f"x.reshape(...) for a new shape with gradients")
    n = int(np.prod(want)) if want else 1
    if n == self.numel():
        if not self.is_contiguous():
            raise _C.UnsupportedError(f"resize_: glassgrad resizes contiguous tensors, this one {list(self.shape)} "
                                      f"has strides {list(self.stride())}\n  fix: x = x.contiguous() first")
        self._h = self.reshape(want)._h
        return self
    flat = host_values(self).reshape(-1)  # bfloat16 through float32, which holds its values exactly
    values = np.zeros(n, dtype=flat.dtype)
    values[:min(n, flat.size)] = flat[:n]
    self._h = tensor(values.reshape(want), dtype=self.dtype, device=self.device)._h
    return self


def resize_as_(self: Tensor, the_template: Tensor, memory_format=None) -> Tensor:
    """resize_ to the_template's shape (Tensor.resize_as_)."""
    return resize_(self, *the_template.shape)


# ---- the *_as methods ---------------------------------------------------------------------------
def view_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor with other's shape (Tensor.view_as)."""
    return self.view(other.shape)


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor in other's shape (Tensor.reshape_as)."""
    return self.reshape(other.shape)


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor stretched to other's shape (Tensor.expand_as); a view."""
    return self.expand(other.shape)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor converted to other's dtype (Tensor.type_as)."""
    return self.astype(other.dtype)


__all__ = ["stack", "hstack", "vstack", "row_stack", "chunk", "split", "tensor_split", "unbind", "select", "narrow",
           "tile", "repeat_interleave", "flip", "fliplr", "flipud", "roll", "tril", "triu", "diagonal", "diag", "diag_embed", "trace", "matmul",
           "mm", "bmm", "mv", "dot", "outer", "ger", "addmm", "baddbmm", "addmv", "addbmm", "movedim", "moveaxis",
           "swapaxes", "swapdims", "t", "squeeze", "unsqueeze", "unflatten", "ravel", "broadcast_shapes",
           "broadcast_to", "broadcast_tensors", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d", "nonzero",
           "argwhere", "diff", "cross", "narrow_copy", "cdist", "is_complex", "kron", "inner", "vdot", "rot90", "hsplit",
           "vsplit", "dsplit", "diagflat", "addr", "adjoint"]


# axis= and keepdims= as PyTorch accepts them (_numpy_names.py)
accept_numpy_names(globals(), __all__)
