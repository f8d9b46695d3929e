"""F.embedding and F.embedding_bag with PyTorch's arguments, defaults, values, gradients and
errors (torch.nn.functional.embedding / embedding_bag), as composites of the indexing ops
(autodiff-engine/src/ops/indexing.cpp): docs/embedding.md derives them.

- A lookup is IndexSelect(weight, 0, indices): its gradient is IndexAdd into zeros of the
  weight's shape, which adds the output gradients of repeated indices together (on CUDA too).
- padding_idx and scale_grad_by_freq change the weight's gradient only: each looked-up row's
  gradient is multiplied by s (0 for padding_idx, 1 / (occurrences of the index in the input)
  with scale_grad_by_freq), while the values stay the rows themselves (_scale_gradient).
- max_norm renormalizes, before the lookup and outside autograd, the rows the input names whose
  norm_type-norm exceeds max_norm: row *= max_norm / (norm + 1e-7), in place in the weight
  (PyTorch's embedding_renorm_).
- sparse=True is accepted; glassgrad's gradients are dense tensors (the same values).
- embedding_bag reduces each bag (a row of a 2-D input, or the slice between consecutive
  offsets of a 1-D input) by sum, mean or max, leaving padding_idx out; an empty bag gives zeros.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from . import _C, _args
from ._indexing import gather, index_add, index_select, known_index_values
from ._runtime import no_grad, realize
from ._factories import zeros
from ._tensor import Tensor, _op, tensor
from ._torch_operands import named_node, node_attrs
from .functional import where


class PaddingIdxError(_C.InvalidArgumentError, AssertionError):
    """padding_idx outside [-num_embeddings, num_embeddings): PyTorch raises AssertionError."""


def padding_index(padding_idx: Optional[int], num_embeddings: int, where_: str) -> Optional[int]:
    """padding_idx in [0, num_embeddings) (a negative one counts from the end), or None."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise PaddingIdxError(f"Padding_idx must be within num_embeddings\n  {where_}: padding_idx={padding_idx} "
                              f"but the table has {num_embeddings} rows (valid: {-num_embeddings} .. "
                              f"{num_embeddings - 1})\n  fix: padding_idx=0 (the first row), or -1 (the last)")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def _check_weight(weight, where_: str) -> None:
    if not isinstance(weight, Tensor):
        raise TypeError(f"{where_}: weight must be a glassgrad.Tensor [num_embeddings, embedding_dim], got "
                        f"{type(weight).__name__}\n  fix: weight = glassgrad.tensor(w)")
    if weight.ndim != 2:
        raise _C.ShapeError(f"{where_}: weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim} "
                            f"({list(weight.shape)})\n  fix: pass the table [num_embeddings, embedding_dim]")


def _indices(input, weight: Tensor, where_: str, op: str) -> Tensor:
    """The indices as int64 on the weight's device; int32 is converted, as PyTorch takes Int and Long."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{where_}: input must be a glassgrad.Tensor of indices, got {type(input).__name__}\n"
                        f"  fix: input = glassgrad.tensor(ids, dtype=glassgrad.long)")
    dt = input._h.dtype
    if dt not in ("int64", "int32"):
        name = {"float32": "Float", "float64": "Double", "bool": "Bool", "uint8": "Byte"}.get(dt, dt)
        raise _C.DTypeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                            f"Long, Int; but got {name}Tensor instead (while checking arguments for {op})\n"
                            f"  {where_}: input is {dt} {list(input.shape)}; the indices of rows must be integers\n"
                            f"  fix: input.long()")
    if input.device != weight.device:
        raise _C.DeviceError(f"{where_}: the indices are on {input.device} but the weight is on {weight.device}\n"
                             f"  fix: input.to('{weight.device}')")
    values = known_index_values(input)
    n = weight.shape[0]
    if values is not None and values.size and (values.min() < 0 or values.max() >= n):
        bad = int(values.min()) if values.min() < 0 else int(values.max())
        raise _C.GlassgradIndexError(f"index out of range in self\n  {where_}: index {bad} of a weight with {n} rows "
                                     f"{list(weight.shape)}; indices must be in [0, {n})\n  fix: num_embeddings "
                                     f"larger than the largest index ({bad} + 1), or check the vocabulary")
    return input if dt == "int64" else input.astype("int64")


def _scale_gradient(x: Tensor, s: Tensor) -> Tensor:
    """x's values, with the gradient that reaches x multiplied by s (broadcast over x): x's
    detached values plus (x - x.detach()) * s, a term that is zero in value and s in gradient."""
    held = x.detach()
    return held + (x - held) * s


def _keep_gradient(x: Tensor, keep: Tensor) -> Tensor:
    """x's values, with the gradient reaching x only where keep is True (broadcast over x)."""
    return where(keep, x, x.detach())


def renorm_(weight: Tensor, flat: Tensor, max_norm: float, norm_type: float) -> None:
    """PyTorch's embedding_renorm_: each row of weight that flat names, whose norm_type-norm
    exceeds max_norm, times max_norm / (norm + 1e-7), in place and outside autograd."""
    with no_grad():
        rows = index_select(weight.detach(), 0, flat)
        a = rows.abs()
        p = float(norm_type)
        if math.isinf(p):
            norms = a.amax(1, keepdim=True) if p > 0 else (-a).amax(1, keepdim=True) * -1.0
        elif p == 1.0:
            norms = a.sum(1, keepdim=True)
        elif p == 2.0:
            norms = (a * a).sum(1, keepdim=True).sqrt()
        else:
            norms = (a ** p).sum(1, keepdim=True) ** (1.0 / p)
        scale = where(norms > float(max_norm), float(max_norm) / (norms + 1e-7), 1.0)
        weight[flat] = rows * scale
    # The renormalized table is computed now, so the weight is a stored tensor again: the
    # optimizers' in-place updates take stored tensors only (not a pending in-place result).
    realize(weight)


def _row_scale(flat: Tensor, num: int, padding_idx: Optional[int], by_freq: bool, dtype: str) -> Optional[Tensor]:
    """The gradient factor of each looked-up row [N, 1]: 1 / count(index) with by_freq (counts
    over the whole input, on its device), 0 at padding_idx; None when every factor is 1."""
    if not by_freq:
        return None
    n = flat.shape[0]
    ones = tensor(np.ones(n, dtype=dtype), device=flat.device)
    counts = index_add(zeros(num, dtype=dtype, device=flat.device), 0, flat, ones)
    return (1.0 / index_select(counts, 0, flat)).reshape(n, 1)


def lookup(flat: Tensor, weight: Tensor, padding_idx: Optional[int], scale_grad_by_freq: bool) -> Tensor:
    """weight's rows named by the 1-d int64 flat [N] -> [N, D], with padding_idx's and
    scale_grad_by_freq's gradients."""
    rows = index_select(weight, 0, flat)
    if not weight.requires_grad:
        return rows
    s = _row_scale(flat, weight.shape[0], padding_idx, scale_grad_by_freq, weight._h.dtype)
    if s is not None:
        rows = _scale_gradient(rows, s)
    if padding_idx is not None:
        rows = _keep_gradient(rows, (flat != padding_idx).reshape(flat.shape[0], 1))
    return rows


def _flags(where_: str, **given) -> None:
    """PyTorch's embedding ops take these switches as Python bools only: anything else (1, None,
    a NumPy bool) is its argument parser's TypeError, '<op>(): argument 'sparse' (position 5) must
    be bool, not int'. The layers keep them as given, so their call raises it (docs/porting.md)."""
    for name, (value, position) in given.items():
        _args.python_bool(value, name, where_, f"{name}=True or {name}=False", position)


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None,
              max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """The rows of weight [num_embeddings, embedding_dim] named by input (any shape, int64 or
    int32): output [*input.shape, embedding_dim] (PyTorch's F.embedding)."""
    where_ = "embedding"
    _check_weight(weight, where_)
    pad = padding_index(padding_idx, weight.shape[0], where_)
    idx = _indices(input, weight, where_, "embedding")
    flat = idx.reshape(-1)
    _flags(where_, scale_grad_by_freq=(scale_grad_by_freq, 4), sparse=(sparse, 5))
    if max_norm is not None:
        renorm_(weight, flat, max_norm, norm_type)
    rows = lookup(flat, weight, pad, scale_grad_by_freq)
    shape = [*idx.shape, weight.shape[1]]
    if not rows.requires_grad:
        return rows.reshape(*shape)
    # PyTorch's node, which lists the weight alone (Tensor.grad_fn)
    return _op("Reshape", [rows], {"shape": shape, **node_attrs("EmbeddingBackward0", [rows], weight)})


# ---- embedding_bag ------------------------------------------------------------------------------
def _bags(idx: Tensor, offsets, include_last_offset: bool, where_: str):
    """(flat indices [N], bag of each position as an int64 array [N], number of bags): a 2-D
    input is one bag per row; a 1-D input is cut at offsets (PyTorch's checks)."""
    if idx.ndim == 2:
        if offsets is not None:
            raise _C.InvalidArgumentError(
                f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type {type(offsets)}\n  {where_}: input "
                f"{list(idx.shape)} is already {idx.shape[0]} bags of {idx.shape[1]}\n  fix: drop offsets, or pass "
                f"input.reshape(-1) with them")
        b, length = idx.shape
        return idx.reshape(-1), np.repeat(np.arange(b, dtype=np.int64), length), b
    if idx.ndim != 1:
        raise _C.InvalidArgumentError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {idx.ndim}\n"
                                      f"  {where_}: input {list(idx.shape)}\n  fix: input.reshape(-1) with offsets "
                                      f"marking where each bag starts")
    if offsets is None:
        raise _C.InvalidArgumentError(f"offsets has to be a 1D Tensor but got None\n  {where_}: a 1-D input is "
                                      f"bags one after another; offsets say where each starts\n"
                                      f"  fix: offsets=glassgrad.tensor([0, 4]) (two bags, from positions 0 and 4)")
    off = np.asarray(offsets.numpy(force=True) if isinstance(offsets, Tensor) else offsets)
    if off.ndim != 1:
        raise _C.InvalidArgumentError(f"offsets has to be a 1D Tensor\n  {where_}: offsets has shape "
                                      f"{list(off.shape)}\n  fix: offsets.reshape(-1)")
    if off.dtype.kind not in "iu":
        raise _C.DTypeError(f"{where_}: offsets must hold integers, got {off.dtype}\n  fix: offsets.long()")
    n = idx.shape[0]
    if off.size and off[0] != 0:
        raise _C.InvalidArgumentError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                                      f"start from position 0. However, got {int(off[0])}\n  fix: start offsets with 0")
    if off.size and off[-1] > n:
        raise _C.InvalidArgumentError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] "
                                      f"of {int(off[-1])}\n  fix: offsets are start positions within the input")
    if np.any(np.diff(off) < 0):
        raise _C.InvalidArgumentError(f"{where_}: offsets must not decrease (a bag is the slice from its offset to "
                                      f"the next), got {off.tolist()}\n  fix: sort the bags' start positions")
    starts = off[:-1] if include_last_offset else off
    ends = np.append(starts[1:], off[-1] if include_last_offset else n) if starts.size else starts
    bag = np.full(n, -1, dtype=np.int64)
    for b, (s, e) in enumerate(zip(starts, ends)):
        bag[s:e] = b
    return idx, bag, len(starts)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Optional[Tensor] = None,
                  max_norm: Optional[float] = None, norm_type: float = 2, scale_grad_by_freq: bool = False,
                  mode: str = "mean", sparse: bool = False, per_sample_weights: Optional[Tensor] = None,
                  include_last_offset: bool = False, padding_idx: Optional[int] = None) -> Tensor:
    """Each bag's rows of weight reduced by mode ('sum', 'mean', 'max') -> [bags, embedding_dim]
    (PyTorch's F.embedding_bag); per_sample_weights scale the rows (mode='sum' only)."""
    where_ = "embedding_bag"
    _check_weight(weight, where_)
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise _C.InvalidArgumentError(f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}) is not "
                                      f"None, then it must have the same shape as the input ({list(input.shape)})\n"
                                      f"  fix: one weight per index")
    if mode not in ("sum", "mean", "max"):
        raise _C.InvalidArgumentError(f"mode has to be one of sum, mean or max\n  {where_}: got mode={mode!r}\n"
                                      f"  fix: mode='mean' (the default)")
    if mode == "max" and scale_grad_by_freq:
        raise _C.InvalidArgumentError("max mode does not support scaling the gradient by the frequency\n"
                                      "  fix: scale_grad_by_freq=False, or mode='sum'/'mean'")
    if mode == "max" and sparse:
        raise _C.InvalidArgumentError("max mode does not support sparse weights\n  fix: sparse=False")
    pad = padding_index(padding_idx, weight.shape[0], where_)
    idx = _indices(input, weight, where_, "embedding_bag")
    # a 2-D input is bags of its rows: PyTorch sets include_last_offset False for it, unread
    last = {"include_last_offset": (include_last_offset, 8)} if idx.ndim != 2 else {}
    _flags(where_, scale_grad_by_freq=(scale_grad_by_freq, 4), sparse=(sparse, 6), **last)
    flat, bag, nbags = _bags(idx, offsets, include_last_offset, where_)
    if max_norm is not None:
        renorm_(weight, flat, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise _C.UnsupportedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}').\n  fix: mode='sum'")
    n, d = flat.shape[0], weight.shape[1]
    dev, dt = weight.device, weight._h.dtype
    in_bag = bag >= 0  # positions past the last bag (include_last_offset) belong to none
    rows = lookup(flat, weight, None, scale_grad_by_freq)
    if mode == "max":
        keep = in_bag & (flat.numpy(force=True) != pad) if pad is not None else in_bag  # the layout needs the values
        return named_node(_bag_max(rows, bag, keep, nbags, d), _BAG_NODE, weight, per_sample_weights)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(n, 1).astype(dt)
    weight_of = None  # each position's share in its bag: 1, or 0 for padding_idx and positions in no bag
    if pad is not None:
        weight_of = (flat != pad).astype(dt)
    if not in_bag.all():
        host = tensor(in_bag.astype(dt), device=dev)
        weight_of = host if weight_of is None else weight_of * host
    if weight_of is not None:
        rows = rows * weight_of.reshape(n, 1)
    target = tensor(np.where(in_bag, bag, 0), device=dev)
    out = index_add(zeros(nbags, d, dtype=dt, device=dev), 0, target, rows)
    if mode == "mean":
        if weight_of is None:
            count = tensor(np.bincount(bag, minlength=nbags), device=dev).to(weight.dtype)  # bfloat16 too
        else:
            count = index_add(zeros(nbags, dtype=dt, device=dev), 0, target, weight_of)
        out = out / count.clamp(1.0, None).reshape(nbags, 1)
    return named_node(out, _BAG_NODE, weight, per_sample_weights)


# PyTorch's one node of every mode, of the weight and per_sample_weights (Tensor.grad_fn)
_BAG_NODE = "EmbeddingBagBackward0"


def _bag_max(rows: Tensor, bag: np.ndarray, keep: np.ndarray, nbags: int, d: int) -> Tensor:
    """The elementwise max of each bag's kept rows (zeros for a bag without any): the rows laid
    out [bags, longest, D] (short bags repeat their first row, which leaves the max unchanged),
    and the argmax's element taken by gather, so the gradient reaches one row per element."""
    members = [np.flatnonzero(keep & (bag == b)) for b in range(nbags)]
    longest = max((len(m) for m in members), default=0)
    if nbags == 0 or longest == 0:
        return zeros(nbags, d, dtype=rows._h.dtype, device=rows.device)
    table = np.zeros((nbags, longest), dtype=np.int64)
    for b, m in enumerate(members):
        table[b] = np.concatenate([m, np.full(longest - len(m), m[0] if len(m) else 0)])
    laid = index_select(rows, 0, tensor(table.reshape(-1), device=rows.device)).reshape(nbags, longest, d)
    arg = laid.detach().argmax(1, keepdim=True)
    out = gather(laid, 1, arg).reshape(nbags, d)
    empty = np.array([len(m) == 0 for m in members])
    if empty.any():
        out = where(tensor(~empty.reshape(nbags, 1), device=rows.device), out, 0.0)
    return out
