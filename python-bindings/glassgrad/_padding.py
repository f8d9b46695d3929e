"""torch.nn.functional.pad (and so the padding layers, and Conv2d's padding_mode).

    pad(x, (left_last, right_last, left_before_last, right_before_last, ...), mode, value)

pads (or, with a negative amount, crops) the last len(pad) / 2 dims, PyTorch's way:

- 'constant': the value outside; any number of dims (at most all of them).
- 'reflect':   x[k], ..., x[1] | x | x[n-2], ..., x[n-1-k]   (the edge itself is not repeated)
- 'replicate': x[0], ..., x[0] | x | x[n-1], ..., x[n-1]
- 'circular':  x[n-k], ..., x[n-1] | x | x[0], ..., x[k-1]    (the input wraps around)

Every mode maps each output index to one input index along each dim independently, so padding
dim after dim gives the same result as padding them together. The three non-constant modes pad
1, 2 or 3 trailing dims of an input with one or two more dims (a batch and/or a channel axis),
as PyTorch does. Negative amounts: 'constant', 'reflect' and 'replicate' pad the positive sides
first and then crop (so a reflection mirrors about the original edge); 'circular' crops first
and wraps what is left (PyTorch's order for each).

Composed from Slice, SliceBackward (its adjoint: a placement into zeros), Expand and Add (cat),
so the gradient of every mode comes from those ops' rules: each input element receives the sum
of the output gradients at the positions that copied it.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np

from . import _C, _args, _autocast
from ._torch_operands import named_node
from ._spatial import _slice, cat
from ._tensor import RefusedValueError, Tensor, _op, tensor

PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _place(x: Tensor, dim: int, left: int, right: int, value: float) -> Tensor:
    """x inside `value` along dim, left and right >= 0."""
    n = x.shape[dim]
    shape = list(x.shape)
    shape[dim] = n + left + right
    placed = _op("SliceBackward", [x], {"dim": dim, "start": left, "stop": left + n, "step": 1, "shape": shape})
    if not value:
        return placed
    border = np.full(shape, value, dtype=x.dtype)  # the value outside, exactly 0 where x goes
    border[(slice(None),) * dim + (slice(left, left + n),)] = 0
    return placed + tensor(border, device=x.device)


def _extend(x: Tensor, dim: int, left: int, right: int, mode: str) -> Tensor:
    """x padded by left, right >= 0 along dim in a non-constant mode (the sizes are checked)."""
    n = x.shape[dim]

    def edge(i: int, k: int) -> Tensor:
        shape = list(x.shape)
        shape[dim] = k
        return _slice(x, dim, i, i + 1).expand(*shape)

    if mode == "replicate":
        pieces = ([edge(0, left)] if left else []) + [x] + ([edge(n - 1, right)] if right else [])
    elif mode == "circular":
        pieces = ([_slice(x, dim, n - left, n)] if left else []) + [x] + ([_slice(x, dim, 0, right)] if right else [])
    else:  # reflect
        pieces = [_slice(x, dim, i, i + 1) for i in range(left, 0, -1)] + [x]
        pieces += [_slice(x, dim, i, i + 1) for i in range(n - 2, n - 2 - right, -1)]
    if not x.requires_grad or len(pieces) > 256:
        return cat(pieces, dim)
    # PyTorch's padding node saves its input (a second backward without retain_graph raises, as
    # there); the slices here save nothing (attribute torch_saves: core-runtime/src/lazy/backward.cpp)
    return _op("Concat", pieces, {"dim": dim % x.ndim, "torch_saves": 1.0})


def _pad_dim(x: Tensor, dim: int, left: int, right: int, mode: str, value: float) -> Tensor:
    n = x.shape[dim]
    if mode == "circular":  # crop first, then wrap
        x = _slice(x, dim, max(-left, 0), n - max(-right, 0))
        left, right = max(left, 0), max(right, 0)
        return _extend(x, dim, left, right, mode) if left or right else x
    grown = left > 0 or right > 0
    if grown:
        lo, hi = max(left, 0), max(right, 0)
        x = _place(x, dim, lo, hi, value) if mode == "constant" else _extend(x, dim, lo, hi, mode)
    if left < 0 or right < 0:  # then crop
        m = x.shape[dim]
        x = _slice(x, dim, max(-left, 0), m - max(-right, 0))
    return x


def _check_sizes(input: Tensor, amounts: List[int], mode: str) -> None:
    """Each dim's output size >= 0; reflect amounts below the dim's size, circular ones at most
    its size (after any crop), as PyTorch requires."""
    outputs = [input.shape[input.ndim - 1 - k] + amounts[2 * k] + amounts[2 * k + 1] for k in range(len(amounts) // 2)]
    # PyTorch's reflection_pad1d/2d need an output element in some padded dim (3d checks none)
    if mode == "reflect" and len(amounts) <= 4 and max(outputs) < 1:
        raise _C.InvalidArgumentError(
            f"input {list(input.shape)} is too small. Calculated output sizes of the padded dims: "
            f"{outputs[::-1]}\n  pad: reflect padding {tuple(amounts)} must leave at least one element\n"
            f"  fix: crop fewer elements")
    for k in range(len(amounts) // 2):
        dim = input.ndim - 1 - k
        n, left, right = input.shape[dim], amounts[2 * k], amounts[2 * k + 1]
        if mode == "constant" and n + min(left, 0) + min(right, 0) < 0:  # PyTorch crops first, then pads
            raise _C.InvalidArgumentError(
                f"narrow(): length must be non-negative.\n  pad: padding ({left}, {right}) crops "
                f"{-min(left, 0) - min(right, 0)} elements of dim {dim}, which has {n}\n  fix: crop at most {n} "
                f"elements of that dim in all")
        if mode == "replicate" and n + left + right < 1:
            raise _C.InvalidArgumentError(
                f"input (size {n} of dim {dim}) is too small. Calculated output size: {n + left + right}\n  pad: "
                f"{mode} padding ({left}, {right}) must leave at least one element\n  fix: crop fewer elements")
        if n + left + right < 0:
            raise _C.InvalidArgumentError(
                f"pad: padding ({left}, {right}) of dim {dim} (size {n}) leaves {n + left + right} elements\n"
                f"  fix: crop at most {n} elements of that dim in all")
        if mode == "reflect" and (left >= n or right >= n):
            raise _C.InvalidArgumentError(  # PyTorch's sentence first (each refusal of pad)
                f"pad: Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({left}, {right}) at dimension {dim} of input {list(input.shape)}\n"
                f"  cause: a reflection repeats no edge, so dim {dim} has {n - 1} elements to mirror on each side\n"
                f"  fix: pad by at most {n - 1}, or mode='replicate'")
        if mode == "circular":
            kept = n - max(-left, 0) - max(-right, 0)
            if kept < 0:
                raise _C.InvalidArgumentError(
                    f"pad: padding ({left}, {right}) crops {n - kept} elements of dim {dim}, which has {n}\n"
                    f"  fix: crop at most {n} elements of that dim in all")
            if left > kept or right > kept:
                raise _C.InvalidArgumentError(
                    f"pad: Padding value causes wrapping around more than once.\n  cause: padding ({left}, {right}) "
                    f"of dim {dim} (size {kept}) would wrap around more than once\n"
                    f"  fix: pad by at most {kept} on each side")


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: Optional[float] = None) -> Tensor:
    """torch.nn.functional.pad: `pad` lists (left, right) amounts from the last dim backwards,
    e.g. (1, 1, 2, 0) pads the last dim by 1 on each side and the one before by 2 at its start.
    mode: 'constant' (value, default 0), 'reflect', 'replicate' or 'circular'; negative amounts
    crop. See the module doc for the rules of each mode."""
    if not isinstance(input, Tensor):
        _args.fail("pad", "input", "a glassgrad.Tensor", input, fix="pad(glassgrad.tensor(x), (1, 1))",
                   type_error=True)
    if not isinstance(pad, (tuple, list)):
        _args.fail("pad", "pad", "a tuple of ints (left, right, ...)", pad, fix="pad(x, (1, 1))", type_error=True)
    amounts = [_args.integer(p, f"pad[{i}]", "pad", fix="pad(x, (1, 1))", symint=True) for i, p in enumerate(pad)]
    if len(amounts) % 2:
        raise _C.InvalidArgumentError(f"pad: Padding length must be divisible by 2\n  cause: got {tuple(amounts)}\n"
                                      f"  fix: one (left, right) pair per padded dim, from the last dim backwards")
    if len(amounts) // 2 > input.ndim:
        raise _C.InvalidArgumentError(
            f"pad: Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(amounts)} and input of dimension {input.ndim}\n  fix: at most {input.ndim} pairs")
    if not isinstance(mode, str) or mode not in PAD_MODES:
        raise _C.UnsupportedError(f"pad: Unrecognised padding mode {mode}\n  cause: mode={mode!r}\n"
                                  f"  fix: mode='constant', 'reflect', "
                                  f"'replicate' or 'circular'")
    if mode != "constant":
        if value:
            raise RefusedValueError(f"pad: Padding mode \"{mode}\" doesn't take in value argument\n  cause: got "
                                    f"value={value}\n  fix: drop value=..., or mode='constant'")
        dims = len(amounts) // 2
        if dims not in (1, 2, 3) or input.ndim not in (dims + 1, dims + 2):
            ranks = " or ".join(f"{r}D" for r in (dims + 1, dims + 2)) if dims in (1, 2, 3) else "no"
            raise _C.UnsupportedError(
                f"pad: Padding size {len(amounts)} is not supported for {input.ndim}D input tensor.\n  cause: "
                f"mode '{mode}' pads the last 1, 2 or 3 dims of an input with a batch and/or channel "
                f"axis in front ({ranks} input for {len(amounts)} amounts)\n"
                f"  fix: reshape the input, e.g. x.unsqueeze(0), or give one pair per padded trailing dim")
    fill = 0.0 if value is None else _args.real(value, "value", "pad", as_float=True)
    _check_sizes(input, amounts, mode)
    if input.dtype == "bool" and mode in _BOOL_REFUSED:  # (PyTorch checks the sizes first)
        raise _args.UnsupportedDTypeError(f'"{_BOOL_REFUSED[mode]}{len(amounts) // 2}d" not implemented for \'Bool\'\n'
                                          f"  pad: mode '{mode}' has no bool kernel in PyTorch\n"
                                          f"  fix: pad(x.to(torch.uint8), ...).bool()")
    # PyTorch's reflection_pad1d/2d and replication_pad1d/2d/3d, which its CPU autocast runs in float32
    key = {"reflect": "reflection_pad" if len(amounts) <= 4 else None, "replicate": "replication_pad"}.get(mode)
    if key is not None:
        return _autocast.call(key, _padded, input, amounts, mode, fill)
    return _padded(input, amounts, mode, fill)


def _padded(input: Tensor, amounts: List[int], mode: str, fill: float) -> Tensor:
    out = input
    for k in range(len(amounts) // 2):
        out = _pad_dim(out, input.ndim - 1 - k, amounts[2 * k], amounts[2 * k + 1], mode, fill)
    node = _NODES.get(mode, "").format(len(amounts) // 2)
    return named_node(out, node, input) if node and input.requires_grad else out


# PyTorch's kernels of the modes that refuse bool input (constant and circular pads are copies)
_BOOL_REFUSED = {"reflect": "reflection_pad", "replicate": "replication_pad"}


# PyTorch's node of each mode's pad ({} the number of padded dims); a circular pad is written
# there as slices copied into a new tensor, its last write a CopySlices
_NODES = {"constant": "ConstantPadNdBackward0", "reflect": "ReflectionPad{}DBackward0",
          "replicate": "ReplicationPad{}DBackward0", "circular": "CopySlices"}
