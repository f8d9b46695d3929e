"""Functions that move or resample elements, with torch.nn.functional's (and torch's) names and
semantics: cat, interpolate, adaptive_avg_pool2d, pixel_shuffle, pixel_unshuffle, one_hot and the
dropouts (pad: _padding.py).

All are composed from existing ops, so their gradients come from those ops' rules:

- cat places each piece into zeros of the output's shape (SliceBackward, the adjoint of Slice)
  and adds the placements.
- adaptive_avg_pool2d is a mean (output 1x1), an AvgPool2D (sizes that divide), or in general
  PyTorch's bins [floor(i H / out), ceil((i + 1) H / out)) written as an averaging matrix A,
  y = A_h x A_w^T (two MatMuls).
- interpolate's nearest mode by an integer factor repeats elements (Expand); otherwise nearest and
  bilinear resampling are separable linear maps, y = A_h x A_w^T, with PyTorch's source-index
  rules (align_corners, scale_factor). A matrix row has one (nearest) or two (bilinear) nonzero
  weights, so the result equals PyTorch's up to rounding -- except that an inf or NaN in the input
  reaches its whole output row and column (0 * inf = NaN) instead of its neighbourhood only.
"""
from __future__ import annotations

import math
import warnings
from functools import lru_cache
from typing import Optional, Sequence, Tuple

import numpy as np

from . import _C, _args
from ._pooling import avg_pool2d
from ._random import dropout_seed
from ._tensor import Tensor, _dim, _op, tensor
from ._out import accepts_out
from ._numpy_names import accept_numpy_names


# ---- cat ----------------------------------------------------------------------------------------
@accepts_out
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """torch.cat: joins tensors of one dtype and device along `dim` (sizes may differ along it only)."""
    tensors = list(tensors)
    if not tensors:
        raise _C.InvalidArgumentError("cat: expected a non-empty list of tensors")
    first = tensors[0]
    d = _dim(dim, first.ndim, "cat", first.shape)
    for i, t in enumerate(tensors):
        if t.ndim != first.ndim or any(a != b for k, (a, b) in enumerate(zip(t.shape, first.shape)) if k != d):
            raise _C.ShapeError(f"cat: tensor {i} has shape {list(t.shape)}, tensor 0 has {list(first.shape)}; they "
                                f"may differ along dim {dim} only\n  fix: make the other sizes equal (reshape/pad)")
    tensors = [t for t in tensors if t.shape[d] > 0] or tensors[:1]
    if len(tensors) == 1:
        return tensors[0]
    total = sum(t.shape[d] for t in tensors)
    shape = list(first.shape)
    shape[d] = total
    out, start = None, 0
    for t in tensors:
        n = t.shape[d]
        placed = _op("SliceBackward", [t], {"dim": d, "start": start, "stop": start + n, "step": 1, "shape": shape})
        out = placed if out is None else out + placed
        start += n
    return out


def _slice(x: Tensor, dim: int, start: int, stop: int) -> Tensor:
    return _op("Slice", [x], {"dim": dim, "start": start, "stop": stop, "step": 1})


# ---- resampling matrices ------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _adaptive_matrix(n: int, out: int) -> np.ndarray:
    """Row i averages input positions [floor(i n / out), ceil((i + 1) n / out))."""
    a = np.zeros((out, n))
    for i in range(out):
        s, e = (i * n) // out, -((-(i + 1) * n) // out)
        a[i, s:e] = 1.0 / (e - s)
    return a


def _source_scale(n: int, out: int, align_corners: bool, scale_factor: Optional[float]) -> float:
    """PyTorch's area_pixel_compute_scale: the input step per output step."""
    if align_corners:
        return (n - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale_factor if scale_factor else n / out


@lru_cache(maxsize=256)
def _interp_matrix(n: int, out: int, mode: str, align_corners: bool, scale_factor: Optional[float]) -> np.ndarray:
    scale = _source_scale(n, out, align_corners, scale_factor)
    a = np.zeros((out, n))
    for i in range(out):
        if mode == "nearest":
            a[i, min(int(math.floor(i * scale)), n - 1)] = 1.0
        elif mode == "nearest-exact":
            a[i, min(int(math.floor((i + 0.5) * scale)), n - 1)] = 1.0
        else:  # linear
            src = i * scale if align_corners else max(scale * (i + 0.5) - 0.5, 0.0)
            i0 = min(int(math.floor(src)), n - 1)
            i1 = min(i0 + 1, n - 1)
            lam = src - i0
            a[i, i0] += 1.0 - lam
            a[i, i1] += lam
    return a


def _separable(x: Tensor, a_h: np.ndarray, a_w: np.ndarray) -> Tensor:
    """y = A_h x A_w^T over the last two dims (the identity is skipped)."""
    if a_w.shape[0] != a_w.shape[1] or not np.array_equal(a_w, np.eye(a_w.shape[0])):
        x = x @ tensor(np.ascontiguousarray(a_w.T), dtype=x.dtype, device=x.device)
    if a_h.shape[0] != a_h.shape[1] or not np.array_equal(a_h, np.eye(a_h.shape[0])):
        x = tensor(a_h, dtype=x.dtype, device=x.device) @ x
    return x


def _pair_size(size, name: str, where: str, keep: bool = False) -> Tuple[Optional[int], Optional[int]]:
    """An output size as PyTorch takes it: an int >= 1 (square) or a pair (H, W) of them; with
    keep=True (adaptive pooling) None in the pair keeps that input size. Anything else (None
    alone, floats, bools, strings, other lengths) raises InvalidArgumentError naming `name`."""
    def valid(v) -> bool:
        return (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1) or (keep and v is None)
    pair = tuple(size) if isinstance(size, (tuple, list)) else (size, size) if size is not None else ()
    if len(pair) != 2 or not all(valid(v) for v in pair):
        _args.fail(where, name, "an int >= 1 or a pair (H, W) of them" + (" (None in the pair keeps that input "
                   "size)" if keep else ""), size, fix=f"{name}=7, or {name}=(7, 7)" + (
                   f", or {name}=(None, 7)" if keep else ""))
    return tuple(None if v is None else int(v) for v in pair)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """torch.nn.functional.adaptive_avg_pool2d: averages over PyTorch's bins to an output of
    output_size (an int, or (H, W) where None keeps that size), for (N, C, H, W) or (C, H, W)."""
    if input.ndim not in (3, 4):
        raise _C.ShapeError(f"adaptive_avg_pool2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got "
                            f"{list(input.shape)}")
    h, w = input.shape[-2:]
    oh, ow = _pair_size(output_size, "output_size", "adaptive_avg_pool2d", keep=True)
    oh, ow = h if oh is None else oh, w if ow is None else ow
    if (oh, ow) == (1, 1):
        return input.mean(dim=(-2, -1), keepdim=True)   # the ResNet head
    if h % oh == 0 and w % ow == 0 and input.ndim == 4:
        return avg_pool2d(input, (h // oh, w // ow))
    return _separable(input, _adaptive_matrix(h, oh), _adaptive_matrix(w, ow))


INTERPOLATE_MODES = ("nearest", "nearest-exact", "linear", "bilinear")


def interpolate_arguments(where: str, size=None, scale_factor=None, mode="nearest", align_corners=None,
                          recompute_scale_factor=None, antialias=False
                          ) -> Tuple[Optional[Tuple[int, int]], Optional[Tuple[float, float]], bool, bool]:
    """Checks interpolate's (and nn.Upsample's) arguments, everything that does not depend on the
    input, as PyTorch documents them: exactly one of size (an int >= 1 or a pair) and scale_factor
    (a finite number > 0 or a pair); mode one of INTERPOLATE_MODES; align_corners None, or a bool
    with 'bilinear' only; recompute_scale_factor None or a bool, not with size; antialias False.
    Returns (size pair or None, scale pair or None, align_corners, recompute_scale_factor)."""
    if not isinstance(mode, str):
        _args.fail(where, "mode", "one of " + ", ".join(repr(m) for m in INTERPOLATE_MODES), mode, type_error=True)
    if mode not in INTERPOLATE_MODES:
        raise _C.UnsupportedError(f"{where}: mode '{mode}' is not supported\n"
                                  f"  fix: mode='nearest', 'nearest-exact', 'linear' (3-d input) or 'bilinear' (4-d)")
    if _args.flag(antialias, "antialias", where):
        raise _C.UnsupportedError(f"{where}: antialias=True is not supported\n  fix: antialias=False")
    if align_corners is not None:
        _args.flag(align_corners, "align_corners", where)
        if mode not in ("linear", "bilinear"):
            raise _C.InvalidArgumentError(
                f"{where}: align_corners option can only be set with the interpolating modes: linear | bilinear | "
                f"bicubic | trilinear (mode is '{mode}')\n  fix: leave align_corners=None for mode='{mode}', or "
                f"mode='linear' (3-d input) / 'bilinear' (4-d)")
    if (size is None) == (scale_factor is None):
        raise _C.InvalidArgumentError(f"{where}: only one of size or scale_factor should be defined, got size={size!r} "
                                      f"and scale_factor={scale_factor!r}\n  fix: size=(64, 64) for a fixed output "
                                      f"size, or scale_factor=2")
    if recompute_scale_factor is not None:
        _args.flag(recompute_scale_factor, "recompute_scale_factor", where)
        if recompute_scale_factor and size is not None:
            _args.fail(where, "recompute_scale_factor", "None or False with an explicit size (it is not "
                       "meaningful with one)", recompute_scale_factor, fix="drop recompute_scale_factor")
    if size is not None:
        return _pair_size(size, "size", where), None, bool(align_corners), bool(recompute_scale_factor)
    fix = "scale_factor=2, or scale_factor=(2, 1.5) for (H, W)"
    if isinstance(scale_factor, (tuple, list)):
        if len(scale_factor) != 2:
            _args.fail(where, "scale_factor", "a number or a pair (H, W) of them", scale_factor, fix=fix)
        pair = tuple(scale_factor)
    else:
        pair = (scale_factor, scale_factor)
    scales = tuple(_args.real(v, "scale_factor", where, minimum=0.0, above=True, fix=fix) for v in pair)
    return None, scales, bool(align_corners), bool(recompute_scale_factor)


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    """torch.nn.functional.interpolate for (N, C, H, W) input: mode 'nearest', 'nearest-exact' or
    'bilinear' (align_corners False by default, as PyTorch), to `size` or by `scale_factor`; and
    for (N, C, L) input: 'nearest', 'nearest-exact' or 'linear', resampled as an (N, C, 1, L)
    image whose height stays 1 (each output row reads row 0 exactly)."""
    if isinstance(input, Tensor) and input.ndim == 3:
        return _interpolate_1d(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    size, scales, ac, recompute = interpolate_arguments("interpolate", size, scale_factor, mode, align_corners,
                                                        recompute_scale_factor, antialias)
    if input.ndim != 4:
        raise _C.UnsupportedError(f"interpolate: glassgrad resamples 3-d (N, C, L) and 4-d (N, C, H, W) input, "
                                  f"got {list(input.shape)}\n  fix: reshape to (N, C, H, W), e.g. x.unsqueeze(-1)")
    if mode == "linear":
        raise _C.InvalidArgumentError(f"interpolate: got 4D input {list(input.shape)}, but linear mode needs 3D input"
                                      f"\n  fix: mode='bilinear' for (N, C, H, W)")
    h, w = input.shape[-2:]
    if size is not None:
        (oh, ow), sh, sw = size, None, None
    else:
        sh, sw = scales
        oh, ow = int(math.floor(h * sh)), int(math.floor(w * sw))
        if recompute:
            sh = sw = None
    if min(h, w, oh, ow) <= 0:
        raise _C.InvalidArgumentError(f"interpolate: input and output sizes should be greater than 0, got input "
                                      f"{list(input.shape)} and output (H, W) = {(oh, ow)}"
                                      + (f" (scale_factor={scale_factor})" if size is None else "")
                                      + "\n  fix: a larger scale_factor, or size=(H, W)")
    if mode == "nearest" and oh % h == 0 and ow % w == 0 and (sh is None or sh == oh // h) \
            and (sw is None or sw == ow // w):
        kh, kw = oh // h, ow // w   # an integer factor: repeat each element (Expand), exact
        n, c = input.shape[:2]
        return input.reshape(n, c, h, 1, w, 1).expand(n, c, h, kh, w, kw).reshape(n, c, oh, ow)
    kind = "linear" if mode == "bilinear" else mode
    return _separable(input, _interp_matrix(h, oh, kind, ac, sh), _interp_matrix(w, ow, kind, ac, sw))


def _interpolate_1d(input: Tensor, size, scale_factor, mode, align_corners, recompute_scale_factor,
                    antialias) -> Tensor:
    """interpolate for (N, C, L): the 2-d resampling of (N, C, 1, L) with the height kept."""
    if mode == "bilinear":
        raise _C.InvalidArgumentError(f"interpolate: got 3D input {list(input.shape)}, but bilinear mode needs 4D "
                                      f"input\n  fix: mode='linear' for (N, C, L)")
    def single(value):  # L, or (L,): one value for the one resampled axis
        if isinstance(value, (tuple, list)):
            if len(value) != 1:
                raise _C.InvalidArgumentError(f"interpolate: a 3-d input takes one size or scale_factor, got "
                                              f"{value!r}\n  fix: size=L or scale_factor=s")
            return value[0]
        return value
    size2 = None if size is None else (1, single(size))
    scale2 = None if scale_factor is None else (1.0, single(scale_factor))
    mode2 = "bilinear" if mode == "linear" else mode
    return interpolate(input.unsqueeze(2), size2, scale2, mode2, align_corners, recompute_scale_factor,
                       antialias).squeeze(2)


# ---- one_hot, dropout ----------------------------------------------------------------------------
def one_hot(tensor_: Tensor, num_classes: int = -1) -> Tensor:
    """torch.nn.functional.one_hot: int64 class indices (...) -> int64 (..., num_classes);
    num_classes=-1 takes max + 1 (which reads the data)."""
    t = tensor_ if isinstance(tensor_, Tensor) else tensor(np.asarray(tensor_))
    if t.dtype != "int64":
        raise _C.DTypeError(f"one_hot is only applicable to index tensors (int64), got {t.dtype}\n"
                            f"  fix: x.long()")
    want, fix = "an int >= 0, or -1 (max + 1)", "one_hot(y, num_classes=10), or num_classes=-1 to take max(y) + 1"
    num_classes = _args.integer(num_classes, "num_classes", "one_hot", fix=fix)
    if num_classes < -1:
        _args.fail("one_hot", "num_classes", want, num_classes, fix)
    if num_classes == -1 or t._h.realized:   # computed indices are checked at once, as PyTorch does
        values = t.numpy()
        if values.size and values.min() < 0:
            raise _C.InvalidArgumentError(f"one_hot: class values must be non-negative, got {int(values.min())}\n"
                                          f"  fix: shift the labels to start at 0")
        if num_classes == -1:
            num_classes = int(values.max()) + 1 if values.size else 0
        elif values.size and values.max() >= num_classes:
            raise _C.InvalidArgumentError(
                f"one_hot: class values must be smaller than num_classes ({num_classes}), got {int(values.max())}\n"
                f"  fix: one_hot(y, num_classes={int(values.max()) + 1}), or num_classes=-1")
    classes = tensor(np.arange(num_classes, dtype=np.int64), device=t.device)
    return (t.unsqueeze(-1) == classes).astype("int64")


def _masked(input: Tensor, p: float, mask_shape: Tuple[int, ...]) -> Tensor:
    """input with a fraction p of its elements (mask_shape is input's shape) or of its channels
    (mask_shape [N, C, 1, ...]) zeroed and the rest scaled by 1 / (1 - p) (dropped values become
    x * 0, as PyTorch's x * mask). One Dropout op whose kernel draws the mask from a counter-based
    generator (Philox) under a seed that glassgrad's generator draws each call (glassgrad.manual_seed
    makes it repeatable; a compiled step draws a new one each replay): an element's mask is never a
    tensor, and the backward regenerates it. A channel mask is the op applied to ones of
    mask_shape, broadcast against the input."""
    seed = dropout_seed(input.device, "dropout seed")
    if tuple(mask_shape) == tuple(input.shape):
        return _op("Dropout", [input, seed], {"p": p})
    ones = tensor(np.ones(mask_shape, dtype=input.dtype), device=input.device)
    return input * _op("Dropout", [ones, seed], {"p": p})


def _dropout_p(where: str, p, training, inplace) -> Tuple[float, bool]:
    p = _args.real(p, "p", where, minimum=0.0, maximum=1.0, fix="dropout(x, 0.1) drops 10% of the elements")
    _args.flag(inplace, "inplace", where)
    return p, _args.flag(training, "training", where)


def _maybe_in_place(input: Tensor, inplace: bool, op: str, compute) -> Tensor:
    """compute(), written into input when inplace (PyTorch's dropout(x, inplace=True) returns x)."""
    from . import _inplace
    return _inplace.activation(input, inplace, op, compute)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """torch.nn.functional.dropout: in training, zeroes each element with probability p and
    scales the others by 1 / (1 - p); the identity otherwise (the mask: _masked)."""
    p, training = _dropout_p(_args.call("dropout", p=p), p, training, inplace)
    if not training or p == 0.0:
        return input
    return _maybe_in_place(input, inplace, "dropout_", lambda: _masked(input, p, tuple(input.shape)))


def _feature_dropout(name: str, input: Tensor, p, training, inplace, spatial: int) -> Tensor:
    """Channel dropout (PyTorch's dropout1d/2d/3d): in training, each channel of each sample,
    input[n, c], is zeroed whole with probability p and the others are scaled by 1 / (1 - p).
    The input is (N, C, *spatial) or, unbatched, (C, *spatial) with `spatial` trailing axes;
    PyTorch's rules for other ranks (dropout1d refuses them, dropout2d and dropout3d warn, and
    dropout2d reads 3-d input as (N, C, L))."""
    where = _args.call(name, p=p)
    p, training = _dropout_p(where, p, training, inplace)
    if not isinstance(input, Tensor):
        _args.fail(where, "input", "a glassgrad.Tensor", input, type_error=True)
    batched, unbatched = spatial + 2, spatial + 1
    if input.ndim not in (batched, unbatched):
        if name == "dropout1d":
            raise _C.ShapeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input "
                                f"{list(input.shape)}. Note that dropout1d exists to provide channel-wise dropout "
                                f"on inputs with 1 spatial dimension, a channel dimension, and an optional batch "
                                f"dimension (i.e. 2D or 3D inputs).\n  fix: F.dropout for element-wise dropout")
        warnings.warn(f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and will result in "
                      f"an error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead. Note that {name} exists to provide channel-wise dropout on inputs with "
                      f"{spatial} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      f"{unbatched}D or {batched}D inputs).", stacklevel=3)
    if name == "dropout2d" and input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=3)
    elif input.ndim == unbatched:  # (C, *spatial): each channel is one feature
        return _maybe_in_place(input, inplace and training and p != 0.0, name + "_", lambda: _feature_dropout(
            name, input.unsqueeze(0), p, training, False, spatial).squeeze(0))
    if input.ndim < 2:
        raise _C.ShapeError(f"{name}: feature dropout requires at least 2 dimensions in the input, got "
                            f"{list(input.shape)}\n  fix: F.dropout for element-wise dropout")
    if not training or p == 0.0:
        return input
    return _maybe_in_place(input, inplace, name + "_", lambda: _masked(
        input, p, tuple(input.shape[:2]) + (1,) * (input.ndim - 2)))


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """torch.nn.functional.dropout1d: channel dropout of (N, C, L) or (C, L) input."""
    return _feature_dropout("dropout1d", input, p, training, inplace, 1)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """torch.nn.functional.dropout2d: channel dropout of (N, C, H, W) input (3-d input is read
    as (N, C, L), with PyTorch's warning)."""
    return _feature_dropout("dropout2d", input, p, training, inplace, 2)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """torch.nn.functional.dropout3d: channel dropout of (N, C, D, H, W) or (C, D, H, W) input."""
    return _feature_dropout("dropout3d", input, p, training, inplace, 3)


# ---- pixel shuffle -------------------------------------------------------------------------------
def _shuffle_factor(where: str, factor, name: str) -> int:
    return _args.integer(factor, name, where, minimum=1, fix=f"{where}(x, 2)")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """torch.nn.functional.pixel_shuffle: (*, C r^2, H, W) -> (*, C, H r, W r) with
    out[..., c, h r + i, w r + j] = in[..., c r^2 + i r + j, h, w] (r = upscale_factor): a
    reshape, a permute and a reshape, so its gradient is the inverse permutation."""
    r = _shuffle_factor("pixel_shuffle", upscale_factor, "upscale_factor")
    if input.ndim < 3:
        raise _C.ShapeError(f"pixel_shuffle expects its input to have at least 3 dimensions, but got input with "
                            f"{input.ndim} dimension(s): {list(input.shape)}\n  fix: (N, C, H, W) or (C, H, W) input")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise _C.ShapeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                            f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r} (input "
                            f"{list(input.shape)}, upscale_factor={r})\n  fix: give the layer before it a multiple of "
                            f"{r * r} output channels, e.g. {max(r * r, c - c % (r * r))}")
    b = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(b), b, b + 3, b + 1, b + 4, b + 2)  # (*, C, H, r, W, r)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """torch.nn.functional.pixel_unshuffle, the inverse of pixel_shuffle: (*, C, H r, W r) ->
    (*, C r^2, H, W) with out[..., c r^2 + i r + j, h, w] = in[..., c, h r + i, w r + j]."""
    r = _shuffle_factor("pixel_unshuffle", downscale_factor, "downscale_factor")
    if input.ndim < 3:
        raise _C.ShapeError(f"pixel_unshuffle expects its input to have at least 3 dimensions, but got input with "
                            f"{input.ndim} dimension(s): {list(input.shape)}\n  fix: (N, C, H, W) or (C, H, W) input")
    *batch, c, h, w = input.shape
    if h % r or w % r:
        axis, size = ("height", h) if h % r else ("width", w)
        raise _C.ShapeError(f"pixel_unshuffle expects {axis} to be divisible by downscale_factor, but input.size("
                            f"{-2 if h % r else -1})={size} is not divisible by {r} (input {list(input.shape)})\n"
                            f"  fix: crop or pad the images to a multiple of {r}, e.g. F.pad")
    b = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(b), b, b + 2, b + 4, b + 1, b + 3)  # (*, C, r, r, H, W)
    return x.reshape(*batch, c * r * r, h // r, w // r)


# axis= as PyTorch accepts it (_numpy_names.py)
accept_numpy_names(globals(), ["cat"])
