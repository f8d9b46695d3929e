"""Activations composed from kernel-backed ops, with torch.nn.functional's names, arguments,
defaults and gradients (at the kinks too): logsigmoid, softsign, selu, celu, glu, prelu, rrelu,
softmin, threshold, tanhshrink, softshrink, hardshrink (and the in-place selu_, celu_,
threshold_, rrelu_). inplace=True writes the result into the input and returns it."""
from __future__ import annotations

from typing import Optional

from . import _C, _args, _autocast, _inplace, _math
from ._tensor import Tensor, _dim, _op, check_fits
from ._torch_operands import named_node
from .functional import elu, where

# SELU's constants (Klambauer et al. 2017, the fixed point of mean 0 and variance 1).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def logsigmoid(input: Tensor) -> Tensor:
    """log(1 / (1 + exp(-x))) = min(x, 0) - log(1 + exp(-|x|)), with min(x, 0) written (x - |x|) / 2
    so the gradient at 0 is sigmoid(0) = 0.5, PyTorch's."""
    _args.floating_input(input, "log_sigmoid_cpu")
    # min(x, 0) is 0 for x > 0 written out, so +inf gives 0 (PyTorch's), not (inf - inf) / 2
    low = where(_math.gt(input, 0), 0.0, _math.mul(_math.sub(input, _math.abs(input)), 0.5))
    return _math.binary("Sub", low, (-input.abs()).exp().log1p(), None,
                        _math.torch_node("LogSigmoidBackward0", input))


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (input.abs() + 1.0)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with SELU's alpha and scale."""
    # PyTorch's selu is one elu node (EluBackward0 of the input)
    return _inplace.activation(input, inplace, "selu_", lambda: named_node(elu(input, _SELU_ALPHA) * _SELU_SCALE,
                                                                           "EluBackward0", input), node="EluBackward1")


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1)) = alpha elu(x / alpha)."""
    _args.floating_input(input, "elu_cpu")
    a = _args.real(alpha, "alpha", "celu", as_float=True)
    if a == 0:
        raise _C.InvalidArgumentError("celu: alpha must not be 0 (celu divides by it)\n  fix: celu(x, alpha=1.0)")
    return _inplace.activation(input, inplace, "celu_", lambda: named_node(elu(input * (1.0 / a), 1.0) * a,
                                                                           "CeluBackward0", input), node="CeluBackward1")


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), a and b the two halves of input along dim."""
    _args.floating_input(input, "glu_cpu")
    if input.ndim == 0:
        raise _C.ShapeError("glu does not support scalars because halving size must be even\n"
                            "  fix: pass a tensor with an even-sized dimension")
    d = _dim(dim, input.ndim, "glu", input.shape)  # out of range: PyTorch's IndexError, not wrapped
    n = input.shape[d]
    if n % 2:
        raise _C.ShapeError(f"glu: Halving dimension must be even, but dimension {d} is size {n}\n"
                            f"  fix: give dimension {d} an even size (the first half gates by the second)")
    # narrow, not split: split gives one piece of an empty dim (mypy does not see Tensor.narrow)
    a, b = input.narrow(d, 0, n // 2), input.narrow(d, n // 2, n // 2)  # type: ignore[attr-defined]
    return _math.binary("Mul", a, b.sigmoid(), None, _math.torch_node("GluBackward0", input))


@_autocast.op("prelu")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else weight * x; weight has 1 element or one per channel (dimension 1), of the
    input's dtype (PyTorch promotes neither; under autocast the product's rule applies)."""
    if input.dtype != weight.dtype and not any(_autocast.state.enabled.values()):
        raise _C.DTypeError(f"prelu: Type promoting not supported. Got {input.dtype} and {weight.dtype}\n"
                            f"  input: {list(input.shape)} {input.dtype}, weight: {list(weight.shape)} {weight.dtype}\n"
                            f"  fix: x.to({weight.dtype}), or convert the layer: prelu.to({input.dtype})")
    _args.floating_input(input, "prelu_cpu")  # PyTorch's kernel is float-only
    k = weight.numel()
    if k != 1:
        channels = input.shape[1] if input.ndim >= 2 else None
        if channels != k:
            raise _C.ShapeError(f"prelu: mismatch of parameter numbers and input channel size: weight has {k} "
                                f"elements, input {list(input.shape)} has {channels} channels (dimension 1)\n"
                                f"  fix: nn.PReLU(num_parameters={channels}) or num_parameters=1")
        w = weight.reshape([1, k] + [1] * (input.ndim - 2))
    else:
        w = weight.reshape([1] * input.ndim) if input.ndim else weight.reshape(())
    # PyTorch's node lists the input and the weight, viewed to the input's rank when that is 2 or more
    return named_node(where(input > 0, input, w * input), "PreluKernelBackward0", input, w if input.ndim >= 2 else weight)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """x where x > 0, else a * x: a drawn uniformly from [lower, upper] for every element in
    training (glassgrad's generator), (lower + upper) / 2 otherwise."""
    _args.floating_input(input, "leaky_relu_cpu")
    lo, hi = _args.real(lower, "lower", "rrelu"), _args.real(upper, "upper", "rrelu")

    def compute():  # PyTorch's one node of the input, RreluWithNoiseBackward0 (1 in place)
        if not training:
            return named_node(where(input > 0, input, input * ((lo + hi) / 2)), "RreluWithNoiseBackward0", input)
        slope = input.detach().new_empty(tuple(input.shape)).uniform_(lo, hi)
        return named_node(where(input > 0, input, input * slope), "RreluWithNoiseBackward0", input)
    return _inplace.activation(input, inplace, "rrelu_", compute, node="RreluWithNoiseBackward1")


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(-x) along dim (dim=None picks as F.softmax does)."""
    from .nn.functional import softmax
    from .nn.layers import _softmax_dim
    return softmax(-input, _softmax_dim(input, dim, "softmin", _stacklevel), _stacklevel, dtype)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value where x <= threshold, else x (PyTorch's test, so NaN stays NaN)."""
    th = _args.real(threshold, "threshold", "threshold", as_float=True)
    v = _args.real(value, "value", "threshold", as_float=True)
    if isinstance(input, Tensor):
        check_fits(v, input.dtype, "threshold's value")  # converted checked, as PyTorch's: int8's 300 is refused

    def compute():
        if isinstance(input, Tensor) and not input.dtype.is_floating_point:
            # PyTorch casts both scalars to the integer dtype (truncating), and the result keeps it
            return where(_math.le(input, int(th)), _math.constant(int(v), input.dtype, input.device), input)
        if not input.requires_grad:
            return where(_math.le(input, th), v, input)
        value_ = _math.constant(v, input.dtype, input.device)
        return _op("Where", [_math.le(input, th), value_, input], {"torch_node": f"ThresholdBackward{int(bool(inplace))}"})
    return _inplace.activation(input, inplace, "threshold_", compute)


_threshold = threshold  # threshold_'s own argument is named threshold


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


def _lambd(lambd, where_: str) -> float:
    value = _args.real(lambd, "lambd", where_, as_float=True)
    if value < 0:
        raise _C.InvalidArgumentError(f"{where_}: lambda must be greater or equal to 0, but found to be {value}\n"
                                      f"  fix: {where_}(x, lambd=0.5)")
    return value


def _dead_zone(input: Tensor, lam: float) -> Tensor:
    """-lam <= x <= lam: PyTorch's shrink kernels' test, false for NaN."""
    return _math.bitwise_and(_math.ge(input, -lam), _math.le(input, lam))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x * 0 where -lambd <= x <= lambd (-0.5 gives -0.0), else x - lambd above and x + lambd
    below; NaN stays NaN with gradient 1, as PyTorch's test of the dead zone gives."""
    _args.floating_input(input, "softshrink_cpu")
    lam = _lambd(lambd, "softshrink")
    y = where(_dead_zone(input, lam), _math.mul(input, 0.0),
              where(_math.gt(input, lam), _math.sub(input, lam), _math.add(input, lam)))
    return named_node(y, "SoftshrinkBackward0", input) if input.requires_grad else y


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 where -lambd <= x <= lambd, else x (PyTorch's test, so NaN stays NaN)."""
    _args.floating_input(input, "hardshrink_cpu")
    lam = _args.real(lambd, "lambd", "hardshrink", as_float=True)
    y = where(_dead_zone(input, lam), 0.0, input)
    return named_node(y, "HardshrinkBackward0", input) if input.requires_grad else y


def selu_(input: Tensor) -> Tensor:
    """F.selu written into x."""
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """F.celu written into x."""
    return celu(input, alpha, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """F.threshold written into x."""
    return _threshold(input, threshold, value, inplace=True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """F.rrelu written into x."""
    return rrelu(input, lower, upper, training, inplace=True)
