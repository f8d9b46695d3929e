"""Functions that move or resample elements, with torch.nn.functional's (and torch's) names and
semantics: cat, interpolate, adaptive_avg_pool2d, pixel_shuffle, pixel_unshuffle, one_hot and the
dropouts (pad: _padding.py).

All are composed from existing ops, so their gradients come from those ops' rules:

- cat is one Concat node for up to 256 pieces (its gradient: a Slice of the output's gradient
  per piece).
- adaptive_avg_pool2d is a mean (output 1x1), an AvgPool2D (sizes that divide), or in general
  PyTorch's bins [floor(i H / out), ceil((i + 1) H / out)) written as an averaging matrix A,
  y = A_h x A_w^T (two MatMuls).
- interpolate: _interpolate.py (separable resampling matrices, one per spatial axis).
"""
from __future__ import annotations

import warnings
from typing import Optional, Sequence, Tuple

import numpy as np

from . import _C, _args, _autocast, _dtypes, _trace
from ._adaptive_avg_empty import empty_pooled, nonempty_sizes, refuse_empty_backward
from ._interpolate import adaptive_matrix, interpolate, interpolate_arguments, resample_axes  # noqa: F401
from ._pooling import avg_pool2d
from ._random import dropout_seed
from ._tensor import _UNINITIALIZED, RefusedValueError, Tensor, _dim, _op, _refuse_uninitialized, tensor
from ._torch_operands import named_node
from ._out import accepts_out
from ._numpy_names import accept_numpy_names


# ---- cat ----------------------------------------------------------------------------------------
@accepts_out
@_autocast.op("cat")
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """torch.cat: joins tensors of one dtype and device along `dim` (sizes may differ along it only)."""
    return join(tensors, dim)


def join(tensors: Sequence[Tensor], dim: int = 0, node: Optional[str] = None) -> Tensor:
    """cat(tensors, dim), its last Concat named as PyTorch's node `node` (Tensor.grad_fn) when
    given: stack's is StackBackward0."""
    tensors = list(tensors)
    if not tensors:
        raise _C.InvalidArgumentError("cat: expected a non-empty list of tensors")
    if _UNINITIALIZED:  # PyTorch's ValueError, before any shape is read (a lazy layer's has none yet)
        _refuse_uninitialized("cat", tensors)
    kept = [t for t in tensors if tuple(t.shape) != (0,)]
    if kept and len(kept) < len(tensors):
        # PyTorch's documented exception: a 1-d empty tensor (shape (0,)) joins any other shape, as
        # nothing; its dtype still takes part in the result's
        joined = join(kept, dim, node)
        for t in tensors:
            joined = joined.astype(_dtypes.result_type(joined, t))
        return joined
    first = tensors[0]
    for i, t in enumerate(tensors):
        if t.ndim == 0:  # PyTorch's RuntimeError
            raise _C.ShapeError(f"cat: zero-dimensional tensor (at position {i}) cannot be concatenated\n"
                                f"  fix: stack() joins 0-d tensors along a new dim, or give each one a dim: t.reshape(1)")
    d = _dim(dim, first.ndim, "cat", first.shape)
    for i, t in enumerate(tensors):
        if t.ndim != first.ndim or any(a != b for k, (a, b) in enumerate(zip(t.shape, first.shape)) if k != d):
            raise _C.ShapeError(f"cat: tensor {i} has shape {list(t.shape)}, tensor 0 has {list(first.shape)}; they "
                                f"may differ along dim {dim} only\n  fix: make the other sizes equal (reshape/pad)")
    dtype = _dtypes.result_type(*tensors)
    tensors = [t for t in tensors if t.shape[d] > 0] or tensors[:1]
    devices = sorted({str(t.device) for t in tensors})
    if len(devices) > 1:
        raise _C.DeviceError(f"cat: expected all tensors on one device, found {' and '.join(devices)} "
                             f"(shapes {[list(t.shape) for t in tensors]})\n"
                             f"  fix: move the pieces to one device first: [t.to('{devices[0]}') for t in tensors]")
    # The pieces take the result's dtype (torch.cat promotes as a binary op does: float over int
    # over bool), then one Concat node (families/movement.def) joins up to 256 of them, each copied
    # once into its range; a longer list is joined in groups. One piece is copied too: cat always
    # returns a new tensor.
    pieces = [t if t.dtype == dtype else t.astype(dtype) for t in tensors]
    while True:
        last = len(pieces) <= 256
        pieces = [_op("Concat", pieces[k:k + 256], {"dim": d, "torch_node": node} if node and last else {"dim": d})
                  for k in range(0, len(pieces), 256)]
        if len(pieces) == 1:
            return pieces[0]


def _slice(x: Tensor, dim: int, start: int, stop: int) -> Tensor:
    return _op("Slice", [x], {"dim": dim, "start": start, "stop": stop, "step": 1})


# ---- adaptive average pooling ------------------------------------------------------------------
def _pair_size(size, name: str, where: str, keep: bool = False) -> Tuple[Optional[int], Optional[int]]:
    """An output size as PyTorch takes it: an int >= 1 (square) or a pair (H, W) of them; with
    keep=True (adaptive pooling) None in the pair keeps that input size, and 0 pools to an empty
    result. Anything else (None alone, floats, bools, strings, other lengths) raises
    InvalidArgumentError naming `name`."""
    least = 0 if keep else 1

    def valid(v) -> bool:
        return (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= least) or (keep and v is None)
    pair = tuple(size) if isinstance(size, (tuple, list)) else (size, size) if size is not None else ()
    # a one-element integer tensor in the pair is its int, as PyTorch's parser reads an int list's element
    pair = tuple(v if (held := _args.element_index(v)) is None else held for v in pair)
    if len(pair) != 2 or not all(valid(v) for v in pair):
        _args.fail(where, name, f"an int >= {least} or a pair (H, W) of them" + (" (None in the pair keeps that input "
                   "size)" if keep else ""), size, fix=f"{name}=7, or {name}=(7, 7)" + (
                   f", or {name}=(None, 7)" if keep else ""))
    return tuple(None if v is None else int(v) for v in pair)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """torch.nn.functional.adaptive_avg_pool2d: averages over PyTorch's bins to an output of
    output_size (an int, or (H, W) where None keeps that size), for (N, C, H, W) or (C, H, W)."""
    if input.ndim not in (3, 4):
        raise _C.ShapeError(f"adaptive_avg_pool2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got "
                            f"{list(input.shape)}")
    _args.floating_input(input, "adaptive_avg_pool2d")
    h, w = input.shape[-2:]
    oh, ow = _pair_size(output_size, "output_size", "adaptive_avg_pool2d", keep=True)
    oh, ow = h if oh is None else oh, w if ow is None else ow
    if (oh, ow) == (1, 1):
        return input.mean(dim=(-2, -1), keepdim=True)   # the ResNet head
    nonempty_sizes(input, "adaptive_avg_pool2d", (input.ndim - 2, input.ndim - 1))
    if 0 in (oh, ow):
        y = refuse_empty_backward(empty_pooled(input, (oh, ow)), input, "adaptive_avg_pool2d")
    elif input.ndim == 3:   # resample_axes pools the axes after (N, C): an unbatched input gets N = 1
        y = _adaptive_avg_pooled(input.reshape(1, *input.shape), oh, ow).reshape(input.shape[0], oh, ow)
    else:
        y = refuse_empty_backward(_adaptive_avg_pooled(input, oh, ow), input, "adaptive_avg_pool2d")
    return named_node(y, "AdaptiveAvgPool2DBackward0", input)  # PyTorch's one node of the input


def _adaptive_avg_pooled(input: Tensor, oh: int, ow: int) -> Tensor:
    h, w = input.shape[-2:]
    if h % oh == 0 and w % ow == 0 and input.shape[1]:  # (avg_pool2d refuses 0 channels; this takes them)
        return avg_pool2d(input, (h // oh, w // ow))
    return resample_axes(input, [adaptive_matrix(h, oh), adaptive_matrix(w, ow)])


# ---- one_hot, dropout ----------------------------------------------------------------------------
def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """torch.nn.functional.one_hot: int64 class indices (...) -> int64 (..., num_classes);
    num_classes=-1 takes max + 1 (which reads the data)."""
    t = input if isinstance(input, Tensor) else tensor(np.asarray(input))
    if t.dtype != "int64":
        raise _C.DTypeError(f"one_hot is only applicable to index tensors (int64), got {t.dtype}\n"
                            f"  fix: x.long()")
    want, fix = "an int >= 0, or -1 (max + 1)", "one_hot(y, num_classes=10), or num_classes=-1 to take max(y) + 1"
    num_classes = _args.integer(num_classes, "num_classes", "one_hot", fix=fix)
    if num_classes < -1:
        _args.fail("one_hot", "num_classes", want, num_classes, fix)
    if num_classes == -1 or t._h.realized:   # computed indices are checked at once, as PyTorch does
        values = t.numpy(force=True)
        if values.size and values.min() < 0:
            raise RefusedValueError(f"one_hot: class values must be non-negative, got {int(values.min())}\n"
                                    f"  fix: shift the labels to start at 0")
        if num_classes == -1:
            if not values.size:
                raise RefusedValueError(f"one_hot: Can not infer total number of classes from empty tensor "
                                        f"(shape {list(t.shape)})\n  fix: one_hot(y, num_classes=10)")
            num_classes = int(values.max()) + 1
        elif values.size and values.max() >= num_classes:
            raise RefusedValueError(
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


def dropout_probability(p, where: str, fix: str, layer: bool = False) -> float:
    """A dropout probability in [0, 1] (a bool as 0 or 1), refused in PyTorch's words, 'dropout
    probability has to be between 0 and 1, but got ...'. layer=True: a Dropout layer's constructor,
    which compares p < 0 or p > 1 as PyTorch's and so keeps nan, refused by the forward's F.dropout."""
    v = _args.real(p, "p", where, as_float=True, fix=fix)
    if not 0.0 <= v <= 1.0 and not (layer and v != v):
        raise _C.InvalidArgumentError(f"{where}: dropout probability has to be between 0 and 1, but got {p}\n"
                                      f"  fix: {fix}")
    return v


def _dropout_p(where: str, p, training, inplace) -> Tuple[float, bool]:
    p = dropout_probability(p, where, "dropout(x, 0.1) drops 10% of the elements")
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
                      f"{unbatched}D or {batched}D inputs).", stacklevel=_trace.user_stacklevel())
    if name == "dropout2d" and input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=_trace.user_stacklevel())
    elif input.ndim == unbatched:  # (C, *spatial): each channel is one feature
        if inplace and (not training or p == 0.0):
            return input  # PyTorch's unsqueeze_, feature_dropout_ and squeeze_ of it: the input itself
        return _maybe_in_place(input, inplace, name + "_", lambda: _feature_dropout(
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
def shuffle_factor(kernel: str, factor, name: str, where: str = "") -> int:
    """pixel_shuffle's upscale_factor / pixel_unshuffle's downscale_factor (`where`: the call,
    default the function `kernel`): an int >= 1; below it PyTorch's RuntimeError sentence first
    ('pixel_shuffle expects a positive upscale_factor, but got 0'), glassgrad's cause and fix after."""
    where = where or kernel
    return _args.integer_as_pytorch(factor, name, where, 1, f"{kernel} expects a positive {name}, but got {factor}",
                                    f"{kernel}(): argument '{name}' (position 2) must be int, not "
                                    f"{type(factor).__name__}",
                                    fix=f"{where}(x, 2)" if where == kernel else f"{where.split('(')[0]}(2)")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """torch.nn.functional.pixel_shuffle: (*, C r^2, H, W) -> (*, C, H r, W r) with
    out[..., c, h r + i, w r + j] = in[..., c r^2 + i r + j, h, w] (r = upscale_factor): a
    reshape, a permute and a reshape, so its gradient is the inverse permutation."""
    r = shuffle_factor("pixel_shuffle", upscale_factor, "upscale_factor")
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
    return named_node(x.reshape(*batch, c // (r * r), h * r, w * r), "PixelShuffleBackward0", input)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """torch.nn.functional.pixel_unshuffle, the inverse of pixel_shuffle: (*, C, H r, W r) ->
    (*, C r^2, H, W) with out[..., c r^2 + i r + j, h, w] = in[..., c, h r + i, w r + j]."""
    r = shuffle_factor("pixel_unshuffle", downscale_factor, "downscale_factor")
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
    return named_node(x.reshape(*batch, c * r * r, h // r, w // r), "PixelUnshuffleBackward0", input)


# axis= as PyTorch accepts it (_numpy_names.py)
accept_numpy_names(globals(), ["cat"])
