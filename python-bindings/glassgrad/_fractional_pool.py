"""F.fractional_max_pool2d / fractional_max_pool3d (Graham 2014, "Fractional Max-Pooling"),
PyTorch's semantics: each (sample, channel) plane has its own random offsets u in [0, 1), one
per spatial axis (_random_samples of shape (N, C, 2) or (N, C, 3), drawn from glassgrad's
generator when not given); along an axis of input size L, output size O and window k the
windows start at

    start[i] = int((i + u) * alpha) - int(u * alpha),  alpha = (L - k) / (O - 1),  i < O - 1
    start[O - 1] = L - k

computed in the input's floating dtype, as PyTorch's kernels compute it, so that the same
_random_samples give PyTorch's windows exactly. Each output is the maximum of its k-window
(first maximum on a tie, the last NaN where there is one, PyTorch's rule); indices are flat
positions in the input plane (h * W + w, or (t * H + h) * W + w), PyTorch's, ready for
max_unpool2d/3d. The samples' order is PyTorch's: (w, h) in 2-D, (t, h, w) in 3-D.

A composite: the windows' flat positions are computed from the samples with elementwise ops (no
read of the samples on the host, so a compiled step draws new offsets at each replay), the
winners found with argmax over the gathered windows and the values gathered at the winners, so
the gradient goes to each winner alone and the function runs on any device."""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import _C, _args, _autocast
from ._dtypes import plain
from ._pool_indices import winning_slot
from ._tensor import Tensor, tensor

_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _starts(u: Tensor, size: int, out: int, k: int, dt: str) -> Tensor:
    """Window starts along one axis, (P, out) int64, from each plane's offset u (P,), with
    PyTorch's formula and rounding: (i + u) * alpha in dtype dt, truncated (u >= 0, so the
    truncation is the floor; docs/pooling.md)."""
    from ._factories import arange, full
    from ._shapes import cat
    planes = u.shape[0]
    if out == 0:
        return full((planes, 0), 0, dtype="int64", device=u.device)
    last = full((planes, 1), size - k, dtype="int64", device=u.device)
    if out == 1:
        return last
    # alpha = scalar_t(L - k) / scalar_t(O - 1), a quotient rounded to dt, as PyTorch's
    alpha = full((), size - k, dtype=dt, device=u.device) / full((), out - 1, dtype=dt, device=u.device)
    i = arange(out - 1, dtype=dt, device=u.device).reshape(1, out - 1)
    u = u.reshape(planes, 1)
    starts = ((i + u) * alpha).astype("int64") - (u * alpha).astype("int64")
    return cat([starts, last], 1)


def _tuple(value, n: int, name: str, where: str) -> Tuple:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{where} requires {name} to either be a single Int or tuple of Ints.")
        return tuple(value)
    return (value,) * n


def _output_size(input: Tensor, n: int, output_size, output_ratio, where: str) -> List[int]:
    if output_size is None and output_ratio is None:
        raise ValueError(f"{where} requires specifying either an output_size or an output_ratio\n  fix: "
                         f"{where}(x, kernel_size, output_size=...) or output_ratio=0.5")
    if output_size is not None:
        return [_args.integer(v, "output_size", where, minimum=0) for v in _tuple(output_size, n, "output_size", where)]
    ratio = _tuple(output_ratio, n, "output_ratio", where)
    return [int(input.shape[-n + i] * r) for i, r in enumerate(ratio)]


def _fractional_max_pool(input: Tensor, n: int, kernel_size, output_size, output_ratio, return_indices: bool,
                         _random_samples: Optional[Tensor]):
    where = f"fractional_max_pool{n}d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{where}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (n + 1, n + 2):
        raise _C.ShapeError(f"{where}(): expected {n + 1}D or {n + 2}D input (the unbatched (C, *) or batched "
                            f"(N, C, *) planes), got {input.ndim}D input {list(input.shape)}\n  fix: "
                            f"x.reshape(N, C, {', '.join('L' + str(i) for i in range(n))})")
    kernel = [_args.integer(v, "kernel_size", where, minimum=1) for v in _tuple(kernel_size, n, "kernel_size", where)]
    out = _output_size(input, n, output_size, output_ratio, where)
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)
    shape = tuple(x.shape)
    batch, channels, spatial = shape[0], shape[1], shape[2:]
    for d, size in enumerate(spatial):
        if size == 0:
            raise _C.ShapeError(f"{where}(): Expected input to have non-zero size for non-batch dimensions, but "
                                f"got{list(input.shape)} with dimension {d + 2 - (not batched)} being empty.\n  "
                                "fix: feed planes of at least the kernel's size")
    # PyTorch's bounds: output + kernel - 1 <= input in 2-D, < input in 3-D (its 3-D kernel's check).
    for axis, size, k, o in zip(_AXES[n], spatial, kernel, out):
        if o + k - 1 > size or (n == 3 and o + k - 1 == size):
            caller = "fractional_max_pool2d()" if n == 2 else "fractional_max_pool3d_out()"
            raise _C.ShapeError(f"{caller}: pool {axis} {k} too large relative to input {axis} {size}\n  cause: "
                                f"output {axis} {o} + kernel {k} - 1 {'>' if n == 2 else '>='} {size}; fix: a "
                                "smaller kernel_size or output_size (output_ratio)")
    if x.dtype not in ("float32", "float64", "float16", "bfloat16"):
        raise TypeError(f"{where}(): expected a floating input, got {x.dtype} {list(input.shape)}\n  fix: "
                        "x.float()")
    # The formula's dtype: the input's (PyTorch's scalar_t; each step of it rounded to a 16-bit
    # float as PyTorch's Half and BFloat16 arithmetic rounds).
    dt = plain(x.dtype)
    if _random_samples is None:  # a random leaf: a compiled step draws new offsets at every replay
        from ._factories import rand
        samples = rand(batch, channels, n, dtype=dt, device=x.device)
    else:
        samples = _random_samples if isinstance(_random_samples, Tensor) else Tensor(np.asarray(_random_samples))
        if samples.ndim != 3 or samples.shape[2] != n:
            raise _C.ShapeError(f"Expect _random_samples.size(2) equals to {n}; got "
                                f"{samples.shape[2] if samples.ndim == 3 else list(samples.shape)}.\n  "
                                f"{where}(): fix: _random_samples of shape (N, C, {n}), values in [0, 1)")
        if samples.shape[0] < batch:
            raise _C.ShapeError(f"Expect _random_samples.size(0) no less then input batch size.\n  {where}(): "
                                f"_random_samples {list(samples.shape)}, input {list(input.shape)}")
        if samples.shape[1] != channels:
            raise _C.ShapeError(f"Expect _random_samples.size(1) equals to input channel size.\n  {where}(): "
                                f"_random_samples {list(samples.shape)}, input {list(input.shape)}")
        samples = samples.detach()[:batch]
        samples = samples.astype(dt) if samples.dtype != dt else samples
    planes = batch * channels
    flat_samples = samples.reshape(planes, n)
    # PyTorch's sample order: 2-D (w, h), 3-D (t, h, w).
    order = (1, 0) if n == 2 else (0, 1, 2)
    strides = [int(math.prod(spatial[a + 1:])) for a in range(n)]
    # positions[p, o_0, ..., o_{n-1}, k_0 ... k_{n-1}] = the flat plane position of each window element
    terms = []
    for a in range(n):
        start = _starts(flat_samples[:, order[a]], spatial[a], out[a], kernel[a], dt)
        start = start.reshape((planes,) + tuple(out[a] if b == a else 1 for b in range(n)) + (1,) * n)
        offset = np.arange(kernel[a]).reshape((1,) + (1,) * n + tuple(kernel[a] if b == a else 1 for b in range(n)))
        terms.append((start + tensor(offset, device=x.device)) * strides[a])
    positions = terms[0]
    for term in terms[1:]:
        positions = positions + term
    window = int(math.prod(kernel))
    count = int(math.prod(out))
    values_flat = x.reshape(batch, channels, int(math.prod(spatial)))
    pos = positions.expand((planes,) + tuple(out) + tuple(kernel)).reshape(batch, channels, count * window)
    gathered = values_flat.detach().gather(2, pos).reshape(batch, channels, count, window)
    winner = winning_slot(gathered)
    index = pos.reshape(batch, channels, count, window).gather(3, winner.unsqueeze(3)).reshape(batch, channels, count)
    result = values_flat.gather(2, index).reshape((batch, channels) + tuple(out))
    indices = index.reshape((batch, channels) + tuple(out))
    if not batched:
        result, indices = result.squeeze(0), indices.squeeze(0)
    return (result, indices) if return_indices else result


@_autocast.op("fractional_max_pool2d")
def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """2-D fractional max pooling (torch.nn.functional.fractional_max_pool2d): input (N, C, H, W)
    or (C, H, W); exactly one of output_size and output_ratio; _random_samples (N, C, 2)."""
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, return_indices, _random_samples)


@_autocast.op("fractional_max_pool3d")
def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """3-D fractional max pooling (torch.nn.functional.fractional_max_pool3d): input (N, C, T, H, W)
    or (C, T, H, W); exactly one of output_size and output_ratio; _random_samples (N, C, 3)."""
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    """fractional_max_pool2d's (output, indices), whatever return_indices says (PyTorch's)."""
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    """fractional_max_pool3d's (output, indices), whatever return_indices says (PyTorch's)."""
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, True, _random_samples)


__all__: Sequence[str] = ["fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
                          "fractional_max_pool3d_with_indices"]
