"""Max pooling that knows where each maximum came from, and its inverse (PyTorch's
return_indices=True, dilation, adaptive max pooling, F.max_unpool1d/2d). docs/pooling.md,
"Indices and unpooling", gives the derivation; in short:

- Which input elements a window sees depends only on the geometry, so a window table [O, K]
  (O output positions, K slots) of flat positions h * W + w in one (H, W) plane is built once
  per geometry in NumPy. A slot outside the input (padding, or a short adaptive bin) repeats the
  window's first element: it never changes the maximum, and a tie it wins names that same element.
- The windows are gathered with one index_select, the winning slot is PyTorch's (the first
  maximum in scan order; where a window holds NaN, its last NaN), and the index is the table's
  entry for it. The values are gathered from the input at those indices, so the gradient flows
  to the winning element only, as PyTorch's max pooling backward sends it.
- Unpooling scatters each value to its index in a zero plane of the output size; its gradient
  gathers from the same indices.
"""
from __future__ import annotations

import functools
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import _C, _args
from ._factories import zeros
from ._tensor import Tensor, tensor
from ._torch_operands import named_node

Windows = Tuple[Tuple[int, ...], ...]


def pooled_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output size along one axis: the engine's pool geometry rule
    (families/pool.h) for the dilated window's extent d * (k - 1) + 1."""
    return _C.pooled_size(n, d * (k - 1) + 1, s, p, ceil_mode)


def _grid_windows(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> Windows:
    """Per output position along one axis, the input positions its window sees (-1: padding)."""
    out = pooled_size(n, k, s, p, d, ceil_mode)
    return tuple(tuple(i * s - p + j * d if 0 <= i * s - p + j * d < n else -1 for j in range(k))
                 for i in range(out))


def _bin_windows(n: int, out: int) -> Windows:
    """PyTorch's adaptive bins: bin i of out over n spans floor(i n / out) to ceil((i + 1) n / out)."""
    bins = [range((i * n) // out, -(-(i + 1) * n // out)) for i in range(out)]
    longest = max(len(b) for b in bins)
    return tuple(tuple(b) + (-1,) * (longest - len(b)) for b in bins)


@functools.lru_cache(maxsize=256)
def _table(rows: Windows, cols: Windows, width: int) -> Tuple[np.ndarray, np.ndarray]:
    """The window table [O, K] of flat positions in an (H, width) plane, for windows that are the
    product of row windows and column windows, and the mask of slots inside the input."""
    r = np.array(rows, dtype=np.int64)[:, None, :, None]      # [OH, 1, KH, 1]
    c = np.array(cols, dtype=np.int64)[None, :, None, :]      # [1, OW, 1, KW]
    inside = (r >= 0) & (c >= 0)
    flat = np.where(inside, r * width + c, -1).reshape(len(rows) * len(cols), -1)
    inside = inside.reshape(flat.shape)
    first = flat[np.arange(len(flat)), inside.argmax(axis=1)]
    return np.where(inside, flat, first[:, None]), inside


def winning_slot(seen: Tensor, valid: Optional[Tensor] = None) -> Tensor:
    """PyTorch's max-pooling winner along the last axis of `seen` (the window's slots in scan
    order): the first maximum, or the last NaN where the window holds one (its kernels replace
    the running maximum at each NaN). `valid` (bool, broadcast to seen) masks padding slots out
    of the NaN test."""
    slot = seen.argmax(-1)
    nan = seen.isnan() if valid is None else seen.isnan() & valid
    last_nan = seen.shape[-1] - 1 - nan.flip(-1).int().argmax(-1)
    return slot + nan.any(-1).long() * (last_nan - slot)


def _window_max(x: Tensor, rows: Windows, cols: Windows) -> Tuple[Tensor, Tensor]:
    """(values, indices), each [N, C, len(rows), len(cols)], of the windows over x [N, C, H, W]."""
    n, c, _, w = x.shape
    flat_table, inside = _table(rows, cols, w)
    positions = tensor(flat_table, device=x.device)
    planes = x.reshape(n, c, x.shape[2] * w)  # (an empty batch has no -1 size)
    seen = planes.detach().index_select(2, positions.reshape(-1)).reshape(n, c, *flat_table.shape)
    slot = winning_slot(seen, tensor(inside, device=x.device))
    indices = positions.expand(n, c, *flat_table.shape).gather(3, slot.unsqueeze(-1)).squeeze(-1)
    values = planes.gather(2, indices)
    shape = (n, c, len(rows), len(cols))
    return values.reshape(shape), indices.reshape(shape)


def _batched(input: Tensor, dims: int, where_: str) -> Tuple[Tensor, bool]:
    """input as [N, C, *spatial] with `dims` spatial axes, and whether it came batched."""
    if not isinstance(input, Tensor):
        _args.fail(where_, "input", "a glassgrad.Tensor", input, type_error=True)
    if input.ndim not in (dims + 1, dims + 2):
        names = ("L",) if dims == 1 else ("H", "W")
        raise _C.ShapeError(f"{where_}: expected a {dims + 1}-d (C, {', '.join(names)}) or {dims + 2}-d "
                            f"(N, C, {', '.join(names)}) input, got {list(input.shape)}\n"
                            f"  fix: x.reshape(n, c, {', '.join(n.lower() for n in names)})")
    batched = input.ndim == dims + 2
    return (input if batched else input.unsqueeze(0)), batched


def window_max_pool2d(input: Tensor, kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                            dilation: Sequence[int], ceil_mode: bool) -> Tuple[Tensor, Tensor]:
    """Checked pairs in, (values, int64 indices into each input plane) out; [C, H, W] or [N, C, H, W]."""
    x, batched = _batched(input, 2, "max_pool2d")
    h, w = x.shape[-2:]
    rows = _grid_windows(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    cols = _grid_windows(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    if not rows or not cols:
        raise _C.ShapeError(f"max_pool2d: input {list(input.shape)} is too small for kernel {tuple(kernel)} with "
                            f"dilation {tuple(dilation)} and padding {tuple(padding)}: the output would be empty\n"
                            f"  fix: a smaller kernel or dilation, or more padding")
    values, indices = _window_max(x, rows, cols)
    return (values, indices) if batched else (values.squeeze(0), indices.squeeze(0))


def window_adaptive_max_pool2d(input: Tensor, out_h: int, out_w: int) -> Tuple[Tensor, Tensor]:
    """Maxima over PyTorch's adaptive bins and their indices; [C, H, W] or [N, C, H, W]."""
    x, batched = _batched(input, 2, "adaptive_max_pool2d")
    h, w = x.shape[-2:]
    if h == 0 or w == 0:
        raise _C.ShapeError(f"adaptive_max_pool2d: input {list(input.shape)} has an empty spatial axis\n"
                            f"  fix: pool an input with H, W >= 1")
    values, indices = _window_max(x, _bin_windows(h, out_h), _bin_windows(w, out_w))
    return (values, indices) if batched else (values.squeeze(0), indices.squeeze(0))


def _unpool_sizes(where_: str, shape: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                  padding: Sequence[int], output_size) -> List[int]:
    """The spatial output size: PyTorch's default (in - 1) * stride - 2 * padding + kernel, or
    output_size (its last len(kernel) entries), which must lie strictly within a stride of it."""
    default = [(n - 1) * s - 2 * p + k for n, k, s, p in zip(shape, kernel, stride, padding)]
    if output_size is None:
        return default
    sizes = [_args.integer(v, "output_size", where_, minimum=0) for v in output_size]
    if len(sizes) == len(default) + 2:
        sizes = sizes[2:]
    if len(sizes) != len(default):
        raise _C.InvalidArgumentError(f"{where_}: output_size should be a sequence of {len(default)} or "
                                      f"{len(default) + 2} ints, got {tuple(output_size)}\n"
                                      f"  fix: output_size={tuple(default)}")
    for d, (size, base, s) in enumerate(zip(sizes, default, stride)):
        if not base - s < size < base + s:
            raise _C.InvalidArgumentError(
                f"{where_}: invalid output_size {tuple(output_size)} (dim {d} must be between {base - s} and "
                f"{base + s}, exclusive)\n  fix: output_size={tuple(default)}, or the size of the tensor that "
                f"was pooled")
    return sizes


class UnpoolIndexError(_C.GlassgradIndexError, RuntimeError):
    """max_unpool's index outside the output planes: PyTorch raises a RuntimeError ("Found an
    invalid max index"), glassgrad's index errors are IndexErrors; this is both."""


def max_unpool(where_: str, input: Tensor, indices: Tensor, kernel: Sequence[int], stride: Sequence[int],
               padding: Sequence[int], output_size) -> Tensor:
    """Scatters input's values to their indices in zero planes of the output size
    ([C, *spatial] or [N, C, *spatial], len(kernel) spatial axes)."""
    dims = len(kernel)
    x, batched = _batched(input, dims, where_)
    if not isinstance(indices, Tensor):
        _args.fail(where_, "indices", "the glassgrad.Tensor of indices max pooling returned", indices,
                   type_error=True)
    if indices.dtype != "int64":
        raise _C.DTypeError(f"{where_}: indices must be int64, got {indices.dtype}\n"
                            f"  fix: pass the indices from max_pool(..., return_indices=True), or indices.long()")
    idx = indices if batched else indices.unsqueeze(0)
    if list(idx.shape) != list(x.shape):
        raise _C.ShapeError(f"{where_}: indices must have the input's shape {list(input.shape)}, got "
                            f"{list(indices.shape)}\n  fix: pass the values and indices of the same pooling call")
    sizes = _unpool_sizes(where_, x.shape[2:], kernel, stride, padding, output_size)
    volume = int(np.prod(sizes))
    if idx.numel():
        low, high = int(idx.min().item()), int(idx.max().item())
        if low < 0 or high >= volume:
            bad = low if low < 0 else high
            raise UnpoolIndexError(f"{where_}: found an invalid max index {bad} (output planes are of size "
                                   f"{'x'.join(map(str, sizes))})\n  fix: unpool with the kernel, stride and "
                                   f"padding of the pooling, or pass output_size=<the pooled input's size>")
    n, c = x.shape[:2]
    planes = zeros(n, c, volume, dtype=x.dtype, device=x.device)
    pooled = int(np.prod(x.shape[2:]))  # explicit, no -1: a batch of 0 has 0 elements
    out = planes.scatter(2, idx.reshape(n, c, pooled), x.reshape(n, c, pooled)).reshape(n, c, *sizes)
    # PyTorch's node of the input (max_unpool1d's: the squeeze of its 2-d unpool)
    return named_node(out if batched else out.squeeze(0), _UNPOOL_NODES[where_], input)


_UNPOOL_NODES = {"max_unpool1d": "SqueezeBackward1", "max_unpool2d": "MaxUnpool2DBackward0",
                 "max_unpool3d": "MaxUnpool3DBackward0"}

