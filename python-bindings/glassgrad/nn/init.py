"""Parameter initialization, with torch.nn.init's names, arguments and formulas.

Every function fills a tensor in place (the tensor keeps its identity, device and dtype, so an
optimizer built over it still updates it) with values drawn from glassgrad's generator
(glassgrad.manual_seed makes them repeatable), and returns it:

    glassgrad.nn.init.kaiming_normal_(conv.weight, mode="fan_out", nonlinearity="relu")
    glassgrad.nn.init.zeros_(conv.bias)

Fans (_calculate_fan_in_and_fan_out): a weight [out, in, *kernel] has fan_in = in * prod(kernel)
and fan_out = out * prod(kernel); a Linear weight [out, in] has fan_in = in, fan_out = out.

The default initialization of Conv2D and Linear is PyTorch's (reset_parameters):
kaiming_uniform_(weight, a=sqrt(5)), which is U(-1/sqrt(fan_in), 1/sqrt(fan_in)) since
gain = sqrt(2 / (1 + 5)) and bound = gain * sqrt(3 / fan_in); the bias is U(-1/sqrt(fan_in),
1/sqrt(fan_in)) too.
"""
from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable, Optional, Tuple, TypeVar, cast

import numpy as np

from .. import _C
from .._random import generator
from .._tensor import _UNINITIALIZED, Tensor, _refuse_uninitialized, tensor as make_tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "default_bound",
           "orthogonal_", "sparse_", "dirac_", "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform",
           "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]


def _rng(gen=None) -> np.random.Generator:
    """The NumPy generator to draw from: `gen` (a glassgrad.Generator, as PyTorch's generator=, or a
    NumPy Generator), else glassgrad's global one (glassgrad.manual_seed seeds it)."""
    if gen is None:
        return generator()
    if isinstance(gen, np.random.Generator):
        return gen
    numpy_rng = getattr(gen, "_numpy", None)
    if numpy_rng is None:
        raise _C.InvalidArgumentError(f"glassgrad.nn.init: generator must be a glassgrad.Generator, got "
                                      f"{type(gen).__name__}\n  fix: generator=glassgrad.Generator().manual_seed(0)")
    return numpy_rng


_Init = TypeVar("_Init", bound=Callable[..., Any])


def _refusing_uninitialized(fill: _Init) -> _Init:
    """fill, refusing an uninitialized lazy parameter or buffer (nn/lazy.py) with PyTorch's
    ValueError ('Attempted to use an uninitialized parameter in ...') before it reads a shape the
    tensor does not have yet: PyTorch's init functions hand it to the tensor's __torch_function__
    or call its dim() first (but kaiming_normal_, which reads its shape first: a RuntimeError)."""
    @functools.wraps(fill)
    def checked(tensor, *args, **kwargs):
        if _UNINITIALIZED:
            _refuse_uninitialized(f"nn.init.{fill.__name__}", [tensor])
        return fill(tensor, *args, **kwargs)
    return cast(_Init, checked)


class InitDTypeError(_C.DTypeError, NotImplementedError):
    """A random fill of an integer or bool tensor: PyTorch's kernels raise NotImplementedError."""


def _fill(tensor: Tensor, values: np.ndarray, any_dtype: bool = False) -> Tensor:
    """Replaces the tensor's data with `values` (converted to its dtype), keeping its identity.
    Random fills take floating tensors; constant ones (any_dtype) every dtype, as PyTorch's."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"glassgrad.nn.init expects a glassgrad.Tensor (e.g. layer.weight), got "
                        f"{type(tensor).__name__}")
    if not any_dtype and tensor.dtype not in ("float32", "float64", "float16", "bfloat16"):
        raise InitDTypeError(f"glassgrad.nn.init: a random fill is not implemented for {tensor.dtype} "
                             f"{list(tensor.shape)}\n  fix: fill a floating tensor (an integer one takes "
                             f"constant_, zeros_, ones_, eye_ or dirac_)")
    # An in-place write (PyTorch's init runs tensor.normal_() and such under no_grad): a view or
    # alias (weight.data, weight[0], weight.detach()) writes into the storage it shares, and
    # the tensor it came from sees the values (docs/inplace-and-views.md).
    from .._runtime import no_grad
    with no_grad():
        tensor.copy_(make_tensor(np.asarray(values).reshape(tensor.shape), dtype=tensor.dtype, device=tensor.device))
    return tensor


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """The recommended gain for a nonlinearity (torch.nn.init.calculate_gain's table)."""
    linear = {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "sigmoid"}
    if nonlinearity in linear:
        return 1  # an int, as PyTorch's
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}\n  fix: one of linear, conv2d, sigmoid, tanh, relu, "
                     f"leaky_relu, selu")


@_refusing_uninitialized
def _calculate_fan_in_and_fan_out(tensor: Tensor) -> Tuple[int, int]:
    shape = tuple(tensor.shape)
    if len(shape) < 2:
        raise ValueError(f"Fan in and fan out can not be computed for tensor with fewer than 2 dimensions "
                         f"(shape {list(shape)})\n  fix: initialize biases with uniform_ / zeros_ instead")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of {['fan_in', 'fan_out']}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# PyTorch's private names that scripts import (torch.nn.init._calculate_correct_fan, ...).
_calculate_correct_fan = _fan


@_refusing_uninitialized
def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """U(a, b)."""
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}\n"
                           f"  fix: uniform_(tensor, a={b}, b={a})")
    return _fill(tensor, _rng(generator).uniform(a, b, tensor.shape))


@_refusing_uninitialized
def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """N(mean, std^2)."""
    _check_std("normal", std)
    return _fill(tensor, _rng(generator).normal(mean, std, tensor.shape))


def _check_std(kernel: str, std: float) -> None:
    """PyTorch's RuntimeError for a negative std (its normal_ kernel's check)."""
    if std < 0:
        raise RuntimeError(f"{kernel} expects std >= 0.0, but found std {std}\n  fix: a std of 0 or more")


# Below this chance of a draw landing in [a, b], trunc_normal_ inverts the normal CDF instead of
# redrawing (rejection would take 1 / chance draws per value).
_TRUNC_REJECTION_MIN = 1e-3


@_refusing_uninitialized
def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Normal(mean, std) restricted to [a, b] (rejection sampling: redraws what falls outside; where
    few draws land inside, PyTorch's method: the inverse normal CDF of U(cdf(a), cdf(b)), clamped to
    [a, b]). Warns, as PyTorch does, when mean is more than 2 std outside [a, b]."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=2)
    if a > b:  # PyTorch draws uniform_(cdf(a), cdf(b)) first, which refuses the reversed range
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}\n"
                           f"  trunc_normal_: the lower bound a is above the upper bound b\n"
                           f"  fix: trunc_normal_(tensor, mean, std, a={b}, b={a})")
    rng = _rng(generator)
    std = abs(std)  # the density PyTorch samples by reads std squared: a negative one is its magnitude
    lo, hi = (a - mean) / std, (b - mean) / std   # standardized bounds
    flip = lo > 0   # sample the mirror image in the lower tail, where erfc keeps its precision
    if flip:
        lo, hi = -hi, -lo
    low, high = (math.erfc(-z / math.sqrt(2.0)) / 2.0 for z in (lo, hi))
    if high - low < _TRUNC_REJECTION_MIN:
        from ..special import ndtri
        z = ndtri(make_tensor(rng.uniform(low, high, tensor.numel()), dtype="float64")).numpy()
        return _fill(tensor, np.clip(mean + std * (-z if flip else z), a, b))
    out = rng.normal(mean, std, tensor.numel())
    bad = (out < a) | (out > b)
    while bad.any():
        out[bad] = rng.normal(mean, std, int(bad.sum()))
        bad = (out < a) | (out > b)
    return _fill(tensor, out)


@_refusing_uninitialized
def constant_(tensor: Tensor, val: float) -> Tensor:
    return _fill(tensor, np.full(tensor.shape, val), any_dtype=True)


@_refusing_uninitialized
def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


@_refusing_uninitialized
def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


@_refusing_uninitialized
def eye_(tensor: Tensor) -> Tensor:
    if tensor.ndim != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported, got {list(tensor.shape)}")
    return _fill(tensor, np.eye(*tensor.shape), any_dtype=True)


@_refusing_uninitialized
def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix times gain (Saxe et al. 2013, PyTorch's init.orthogonal_): the tensor
    seen as [size(0), numel / size(0)]; Q of the QR decomposition of a standard normal matrix of that
    shape (transposed when it is wide), each column's sign taken from R's diagonal so that Q is
    uniformly distributed over the orthogonal matrices."""
    if tensor.ndim < 2:
        raise _C.ShapeError(f"Only tensors with 2 or more dimensions are supported (init.orthogonal_ got "
                            f"{list(tensor.shape)})\n  fix: pass a weight matrix (e.g. linear.weight)")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _rng(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q)


@_refusing_uninitialized
def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Normal(0, std) values with ceil(sparsity * rows) zeros in each column, at random rows (Martens
    2010, PyTorch's init.sparse_); 2-D tensors only."""
    if tensor.ndim != 2:
        raise _C.ShapeError(f"Only tensors with 2 dimensions are supported (init.sparse_ got {list(tensor.shape)})"
                            f"\n  fix: pass a Linear weight [out_features, in_features]")
    rng = _rng(generator)
    rows, cols = tensor.shape
    values = rng.normal(0.0, std, (rows, cols))
    zeros = int(math.ceil(sparsity * rows))
    for c in range(cols):
        values[rng.permutation(rows)[:zeros], c] = 0.0
    return _fill(tensor, values)


@_refusing_uninitialized
def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a convolution (PyTorch's init.dirac_): 1 at the kernel's centre where output
    channel d of each group meets input channel d, 0 elsewhere; 3-, 4- and 5-d weights."""
    if tensor.ndim not in (3, 4, 5):
        raise _C.ShapeError(f"Only tensors with 3, 4, or 5 dimensions are supported (init.dirac_ got "
                            f"{list(tensor.shape)})\n  fix: pass a Conv1d/Conv2d/Conv3d weight")
    if tensor.shape[0] % groups != 0:
        raise _C.InvalidArgumentError(f"init.dirac_: dim 0 ({tensor.shape[0]}) must be divisible by groups "
                                      f"({groups})\n  fix: groups that divide the output channels")
    per_group = tensor.shape[0] // groups
    values = np.zeros(tensor.shape)
    centre = tuple(k // 2 for k in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(per_group, tensor.shape[1])):
            values[(g * per_group + d, d) + centre] = 1.0
    return _fill(tensor, values, any_dtype=True)


@_refusing_uninitialized
def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


@_refusing_uninitialized
def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot & Bengio 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _zero_elements(tensor: Tensor) -> Tensor:
    """kaiming_*_ of a tensor with no elements: PyTorch's warning, before any fan check."""
    warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
    return tensor


@_refusing_uninitialized
def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al. 2015)."""
    if 0 in tuple(tensor.shape):
        return _zero_elements(tensor)
    fan = _fan(tensor, mode)
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """N(0, std^2) with std = gain / sqrt(fan) (He et al. 2015)."""
    if 0 in tuple(tensor.shape):
        return _zero_elements(tensor)
    fan = _fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


def default_bound(fan_in: int) -> float:
    """1/sqrt(fan_in): the bound of PyTorch's default Conv and Linear weights and biases."""
    return 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0


def _deprecated(fill: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """PyTorch's old spelling without the underscore (nn.init.uniform, ...): the same fill, with its
    FutureWarning."""
    new_name = fill.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs) -> Tensor:
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return fill(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"{old_name}(...): deprecated (PyTorch's too), calls {new_name}."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
_no_grad_uniform_ = uniform_
_no_grad_normal_ = normal_
_no_grad_trunc_normal_ = trunc_normal_
_no_grad_fill_ = constant_
_no_grad_zero_ = zeros_
