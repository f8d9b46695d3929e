"""Layers: Conv2D, Linear, LayerNorm, Dropout, pooling, activations, Flatten,
Sequential.

Initialization is PyTorch's (reset_parameters of nn.Conv2d and nn.Linear): weights
kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)), biases U(-1/sqrt(fan_in),
1/sqrt(fan_in)), drawn in that order from glassgrad's generator (glassgrad.manual_seed). BatchNorm
starts with weight 1, bias 0, running_mean 0 and running_var 1 (never 0: 1/sqrt(0 + eps) explodes).
glassgrad.nn.init re-initializes any parameter (e.g. kaiming_normal_(w, mode="fan_out")).
"""
from __future__ import annotations

import math
import operator
import warnings
from collections import OrderedDict

from typing import Optional, Tuple, Union

import numpy as np

from .. import _C, _args, _dtypes
from .. import functional as F
from .._autocast import _ACTIVE as _AUTOCAST_ON
from .._autocast import unwrapped
from .._conv_transpose import layer_tuple
from .._random import generator
from .._runtime import no_grad
from .._padding import pad
from .._shapes import unflatten
from .._spatial import _pair_size, dropout_probability
from .._tensor import Tensor, _dim
from .init import _fill, default_bound
from .module import Module, Parameter, layer_name


def _default_uniform(shape, fan_in: int) -> np.ndarray:
    """U(-1/sqrt(fan_in), 1/sqrt(fan_in)): PyTorch's default for Conv and Linear weights
    (kaiming_uniform with a=sqrt(5)) and biases."""
    bound = default_bound(fan_in)
    return generator().uniform(-bound, bound, shape).astype(np.float32)


def reset_conv_parameters(layer: Module) -> None:
    """PyTorch's _ConvNd.reset_parameters (every convolution layer's): weight and bias drawn again
    from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = weight.shape[1] * kernel elements (the
    transposed layers' weight is [in, out / groups, *k]), in place: the same Parameter objects."""
    fan_in = int(np.prod(layer.weight.shape[1:]))
    _fill(layer.weight, _default_uniform(tuple(layer.weight.shape), fan_in))
    if layer.bias is not None:
        _fill(layer.bias, _default_uniform(tuple(layer.bias.shape), fan_in))


def optional_parameter(layer: Module, name: str, param: Optional[Parameter]) -> None:
    """layer.<name> = param, or, param None (bias=False, affine=False), the name declared as a
    parameter holding None, as PyTorch's layers call register_parameter(name, None): _parameters
    lists it, parameters() and state_dict() leave it out, and only a Parameter (or None) may be
    assigned to it later."""
    if param is None:
        layer.register_parameter(name, None)
    else:
        setattr(layer, name, param)


def parameter_dtype(dtype, where: str) -> np.dtype:
    """The NumPy type of a layer's parameters for its dtype= argument (None: the default floating
    type, float32 unless set_default_dtype changed it): a floating type, as PyTorch's layers require.
    bfloat16, which NumPy lacks: float32, the layer converting its tensors after (as_bfloat16)."""
    if dtype is None:
        dtype = _dtypes.DEFAULT_FLOAT
    dt = _dtypes.to_dtype(dtype, where)
    if not dt.is_floating_point:
        raise _C.DTypeError(f"{where}: dtype={dt} is not a floating type: a layer's parameters are floats\n"
                            f"  fix: dtype=glassgrad.float32 or dtype=glassgrad.float64")
    return np.dtype("float32" if _dtypes.plain(dt) == "bfloat16" else _dtypes.plain(dt))


def as_bfloat16(layer: Module, dtype) -> None:
    """A layer built with dtype=bfloat16 (or that default dtype): its floating parameters and
    buffers, made in float32 by parameter_dtype, converted in place."""
    dt = _dtypes.to_dtype(_dtypes.DEFAULT_FLOAT if dtype is None else dtype)
    if _dtypes.plain(dt) == "bfloat16":
        layer.to(dtype=dt)


def _parameter(values: np.ndarray, device, dtype: np.dtype) -> Parameter:
    return Parameter(values.astype(dtype, copy=False), device=device)


def _check_tensor(layer: Module, x) -> None:
    """A layer takes a glassgrad.Tensor. Everything else about the input (device and dtype against
    the parameters, shape) is checked by the shape rule of the op the layer records, which names
    the layer (NodeMeta.layer) and words the check for it."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{layer_name(layer)} expects a glassgrad.Tensor, got {type(x).__name__}\n"
                        f"  fix: x = glassgrad.tensor(x)")


_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
# The autocast wrappers (_autocast.op) of the layers' functions, and what they call outside every
# autocast region: Conv2d and Linear call that directly while F's name still holds the wrapper.
_CONV2D_OP, _LINEAR_OP = F.conv2d, F.linear
_CONV2D, _LINEAR = unwrapped(F.conv2d), unwrapped(F.linear)


class Conv2d(Module):
    """2-D convolution over NCHW input, PyTorch's nn.Conv2d(in_channels, out_channels,
    kernel_size, stride=1, padding=0 | int | (ph, pw) | 'same' | 'valid', dilation=1, groups=1,
    bias=True, padding_mode='zeros', device=None, dtype=None). The weight is
    [out_channels, in_channels / groups, kh, kw]; groups=in_channels makes it depthwise.
    padding_mode 'reflect', 'replicate' or 'circular' pads with F.pad first. Grouped and dilated
    convolutions run on the CPU (the CUDA kernels refuse them for now)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        where = _args.call("Conv2d", in_channels, out_channels, kernel_size)
        k = layer_tuple(kernel_size, 2, "kernel_size", where)  # 0 builds an empty weight, as PyTorch's
        in_channels = _args.integer(in_channels, "in_channels", where)  # 0 allowed, as PyTorch's (an empty weight)
        out_channels = _args.integer(out_channels, "out_channels", where)
        groups = _args.integer_as_pytorch(groups, "groups", where, 1, "groups must be a positive integer")
        bias = _args.switch(bias)
        self.padding_mode = _args.choice(padding_mode, "padding_mode", where, _PADDING_MODES,
                                         fix="padding_mode='zeros' (PyTorch's default)")
        self.padding: Union[str, Tuple[int, ...]]
        if isinstance(padding, str):
            with _args.pytorch_says(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}"):
                _args.choice(padding, "padding", where, ("same", "valid"), fix="padding='same' keeps H and W (stride 1)")
            self.padding = padding
        else:  # kept as PyTorch's _pair makes it, as stride and dilation: the call checks them (docs/porting.md)
            self.padding = _args.as_tuple(padding, 2)
        for what, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if int(v) % groups != 0:
                raise _C.InvalidArgumentError(
                    f"Conv2d({in_channels}, {out_channels}, {kernel_size}, groups={groups}): {what} must be divisible "
                    f"by groups\n  cause: {what}={v} is not divisible by groups={groups}; a grouped convolution "
                    f"splits the input and output "
                    f"channels into `groups` equal slices\n  fix: choose groups dividing both {in_channels} and "
                    f"{out_channels} (groups={in_channels} with out_channels a multiple of it: depthwise)")
        self.in_channels, self.out_channels, self.kernel_size = int(in_channels), int(out_channels), k
        self.stride = _args.as_tuple(stride, 2)
        _args.no_strided_same(where, self.padding, self.stride)
        self.dilation = _args.as_tuple(dilation, 2)
        self.groups = groups
        self.transposed, self.output_padding = False, (0, 0)
        dt = parameter_dtype(dtype, where)
        _args.weight_sizes(where, (self.out_channels, self.in_channels // groups) + k, in_channels=self.in_channels,
                           out_channels=self.out_channels, kernel_size=min(k))
        fan_in = self.in_channels // groups * math.prod(k)
        self.weight = _parameter(_default_uniform((self.out_channels, self.in_channels // groups) + k, fan_in),
                                 device, dt)
        optional_parameter(self, "bias", _parameter(_default_uniform(self.out_channels, fan_in), device, dt)
                           if bias else None)
        as_bfloat16(self, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if not isinstance(input, Tensor):
            _check_tensor(self, input)
        if self.padding_mode == "zeros":
            conv = _CONV2D if F.conv2d is _CONV2D_OP and not _AUTOCAST_ON[0] else F.conv2d
            return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
        # PyTorch pads the input with the mode, then convolves without padding.
        hw = tuple(input.shape[-2:]) if input.ndim >= 2 else (0, 0)
        extent = tuple(d * (kk - 1) + 1 for d, kk in zip(self.dilation, self.kernel_size))
        top, bottom, left, right = F.conv_padding(self.padding, extent, self.stride, hw)
        mode = {"reflect": "reflect", "replicate": "replicate", "circular": "circular"}[self.padding_mode]
        input = pad(input, (left, right, top, bottom), mode=mode)
        return F.conv2d(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    reset_parameters = reset_conv_parameters

    def extra_repr(self) -> str:
        return conv_extra_repr(self)


def conv_extra_repr(layer: Module) -> str:
    """PyTorch's _ConvNd.extra_repr (every convolution layer's): the arguments that differ from
    their defaults (padding=same unquoted), each default of the argument's own length."""
    s = f"{layer.in_channels}, {layer.out_channels}, kernel_size={layer.kernel_size}, stride={layer.stride}"
    if layer.padding != (0,) * len(layer.padding):
        s += f", padding={layer.padding}"
    if layer.dilation != (1,) * len(layer.dilation):
        s += f", dilation={layer.dilation}"
    if layer.output_padding != (0,) * len(layer.output_padding):
        s += f", output_padding={layer.output_padding}"
    if layer.groups != 1:
        s += f", groups={layer.groups}"
    if layer.bias is None:
        s += ", bias=False"
    if layer.padding_mode != "zeros":
        s += f", padding_mode={layer.padding_mode}"
    return s


class Linear(Module):
    """y = x @ W.T + b with W [out_features, in_features] (PyTorch's nn.Linear(in_features,
    out_features, bias=True, device=None, dtype=None))."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        where = _args.call("Linear", in_features, out_features)
        # 0 is allowed, as PyTorch allows it (an empty weight; a Linear(0, n) gives its bias)
        self.in_features = _args.integer(in_features, "in_features", where)
        self.out_features = _args.integer(out_features, "out_features", where)
        _args.weight_sizes(where, (self.out_features, self.in_features), in_features=self.in_features,
                           out_features=self.out_features)
        bias = _args.switch(bias)
        dt = parameter_dtype(dtype, where)
        self.weight = _parameter(_default_uniform((self.out_features, self.in_features), self.in_features), device, dt)
        optional_parameter(self, "bias", _parameter(_default_uniform(self.out_features, self.in_features), device, dt)
                           if bias else None)
        as_bfloat16(self, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if not isinstance(input, Tensor):
            _check_tensor(self, input)
        linear = _LINEAR if F.linear is _LINEAR_OP and not _AUTOCAST_ON[0] else F.linear
        return linear(input, self.weight, self.bias)

    def reset_parameters(self) -> None:
        """weight and bias drawn again, U(-1/sqrt(in_features), 1/sqrt(in_features)), in place
        (PyTorch's reset_parameters: the same Parameter objects)."""
        from .init import _fill
        _fill(self.weight, _default_uniform(tuple(self.weight.shape), self.in_features))
        if self.bias is not None:
            _fill(self.bias, _default_uniform(self.out_features, self.in_features))

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class LayerNorm(Module):
    """Layer normalization over the trailing dims normalized_shape (Ba et al. 2016; PyTorch's
    nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
    dtype=None)):

        y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias      mean, var over the last dims

    with the biased variance (divide by the number of normalized elements). One LayerNorm op
    (F.layer_norm) with its own CPU and CUDA kernels, forward and backward."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None):
        super().__init__()
        where = _args.call("LayerNorm", normalized_shape)
        sizes = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else (normalized_shape,)
        if not sizes:
            _args.fail(where, "normalized_shape", "an int or a non-empty tuple of ints >= 1", normalized_shape,
                       fix="LayerNorm(512): the size of the last dim")
        # 0 allowed, as PyTorch's (an empty weight; the output is as empty as the input)
        self.normalized_shape = tuple(_args.integer(d, "normalized_shape", where) for d in sizes)
        _args.weight_sizes(where, self.normalized_shape, normalized_shape=min(self.normalized_shape))
        self.eps = _args.shown(eps, _args.real(eps, "eps", where, minimum=0.0))
        self.elementwise_affine = elementwise_affine  # as given, as PyTorch keeps it (its repr), read by its truth
        bias = _args.switch(bias)
        dt = parameter_dtype(dtype, where)
        ones, zeros = np.ones(self.normalized_shape, dt), np.zeros(self.normalized_shape, dt)
        optional_parameter(self, "weight", Parameter(ones, device=device) if self.elementwise_affine else None)
        optional_parameter(self, "bias", Parameter(zeros, device=device) if self.elementwise_affine and bias else None)
        as_bfloat16(self, dtype)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def reset_parameters(self) -> None:
        """weight to ones and bias to zeros, in place (PyTorch's; nothing without elementwise_affine)."""
        with no_grad():
            if self.weight is not None:
                self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.zero_()

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class Dropout(Module):
    """During training, zeroes each element with probability p and scales the rest by 1 / (1 - p)
    (inverted dropout, so evaluation needs no rescaling); the identity in eval mode.

    The mask is drawn in NumPy from glassgrad's generator (glassgrad.manual_seed makes it
    repeatable) and enters the graph as an input tensor: a new mask every step changes data, not
    the plan, so the step's compiled plan is reused."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        self.p = _args.shown(p, dropout_probability(p, _args.call("Dropout", p), "Dropout(0.1) drops 10% of the activations",
                                                    layer=True))
        self.inplace = inplace  # as given, as PyTorch keeps it (its repr), read by its truth

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class ReLU(Module):
    """max(x, 0) (PyTorch's nn.ReLU). inplace=True writes the result into the input and returns it
    (as SiLU, ELU, LeakyReLU and Dropout do; docs/inplace-and-views.md)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = _args.switch(inplace)

    def forward(self, input):
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """x where x > 0, else negative_slope * x (PyTorch's nn.LeakyReLU)."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        where = _args.call("LeakyReLU", negative_slope)
        self.negative_slope = _args.shown(negative_slope, _args.real(negative_slope, "negative_slope", where, as_float=True))
        self.inplace = _args.switch(inplace)  # as ReLU's

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """x * Phi(x) (PyTorch's nn.GELU); approximate='tanh' for the tanh formula."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate  # as given: the forward refuses another, as PyTorch's does

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """x * sigmoid(x) (PyTorch's nn.SiLU)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = _args.switch(inplace)

    def forward(self, input):
        return F.silu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """x where x > 0, else alpha * (exp(x) - 1) (PyTorch's nn.ELU)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        where = _args.call("ELU", alpha)
        self.alpha, self.inplace = _args.shown(alpha, _args.real(alpha, "alpha", where, as_float=True)), _args.switch(inplace)

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above threshold (PyTorch's nn.Softplus)."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        F.softplus_arguments(_args.call("Softplus", beta, threshold), beta, threshold)
        self.beta, self.threshold = beta, threshold  # as given: print(model) shows `beta=2` as PyTorch

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    """softmax along dim (PyTorch's nn.Softmax)."""

    def __init__(self, dim: Optional[int] = None):
        super().__init__()
        self.dim = None if dim is None else _args.integer(
            dim, "dim", _args.call(type(self).__name__, dim), fix=f"{type(self).__name__}(dim=1) for (N, classes)")

    def forward(self, input):
        return input.softmax(_softmax_dim(input, self.dim))

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """log_softmax along dim (PyTorch's nn.LogSoftmax)."""

    def forward(self, input):
        return input.log_softmax(_softmax_dim(input, self.dim, "log_softmax"))


def _softmax_dim(x, dim, name: str = "softmax", stacklevel: int = 3):
    """PyTorch's choice when dim is None: 0 for 0-, 1- and 3-d input, else 1, with its
    deprecation warning (stacklevel 3: the caller of the function that asks)."""
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  f"as an argument.", stacklevel=stacklevel)
    return 0 if x.ndim in (0, 1, 3) else 1


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size (PyTorch's nn.AdaptiveAvgPool2d); output_size 1 is
    the global average of a ResNet head."""

    def __init__(self, output_size):
        super().__init__()
        _pair_size(output_size, "output_size", "AdaptiveAvgPool2d", keep=True)  # refused here, not at the first call
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class Upsample(Module):
    """F.interpolate as a layer (PyTorch's nn.Upsample): size or scale_factor, mode 'nearest'
    (default), 'nearest-exact', 'linear', 'bilinear', 'bicubic', 'trilinear' or 'area'. The arguments
    are kept as given and checked by interpolate at the call, as PyTorch's (docs/porting.md)."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        # PyTorch keeps a scale factor as floats (printed 2.0), a tuple's each; 0 or None is None
        if isinstance(scale_factor, tuple):
            scale_factor = tuple(float(f) for f in scale_factor)
        else:
            scale_factor = float(scale_factor) if scale_factor else None
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)

    def extra_repr(self) -> str:
        what = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{what}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """PyTorch's nn.UpsamplingNearest2d: Upsample(size, scale_factor, mode='nearest')."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """PyTorch's nn.UpsamplingBilinear2d: Upsample(size, scale_factor, mode='bilinear',
    align_corners=True)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class Unflatten(Module):
    """Splits dim into unflattened_size (PyTorch's nn.Unflatten)."""

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        where = _args.call("Unflatten", dim, unflattened_size)
        self.dim = _args.integer(dim, "dim", where)
        want, fix = "a tuple of sizes (ints >= 0, at most one -1)", "Unflatten(1, (3, 32, 32))"
        if isinstance(unflattened_size, (str, bytes)) or not hasattr(unflattened_size, "__iter__"):
            _args.fail(where, "unflattened_size", want, unflattened_size, fix=fix, type_error=True)
        sizes = tuple(_args.integer(v, f"unflattened_size[{i}]", where, minimum=-1, fix=fix)
                      for i, v in enumerate(unflattened_size))
        if not sizes or sizes.count(-1) > 1:  # 0 is a size, as PyTorch's (a dim of 0 elements splits into it)
            _args.fail(where, "unflattened_size", want, unflattened_size, fix=fix)
        # kept as given (a list prints as a list, as PyTorch's); the checked sizes are the same values
        self.unflattened_size = unflattened_size if isinstance(unflattened_size, (list, tuple)) else sizes

    def forward(self, input):
        _dim(self.dim, input.ndim, "Unflatten", input.shape)
        return unflatten(input, self.dim, self.unflattened_size)  # sizes that do not split dim: PyTorch's error

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Sigmoid(Module):
    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


class MaxPool2d(Module):
    """PyTorch's nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False); with return_indices, forward returns (values, indices) for MaxUnpool2d."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        # kept as given: the forward checks them, as PyTorch's does (docs/porting.md)
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """PyTorch's nn.AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        # kept as given: the forward checks them, as PyTorch's does (docs/porting.md)
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        where = _args.call("Flatten", start_dim, end_dim)
        self.start_dim = _args.integer(start_dim, "start_dim", where)
        self.end_dim = _args.integer(end_dim, "end_dim", where)

    def forward(self, input):
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    """Returns its input (PyTorch's nn.Identity, which takes and ignores any arguments, so that it
    can stand in for a layer built with some)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Sequential(Module):
    """Calls its layers in order; they are named "0", "1", ... (as in PyTorch), or by the keys of
    one OrderedDict given instead. Anything but a Module is refused when the Sequential is built
    (setting it as an attribute would leave it out of the model silently)."""

    def __init__(self, *args: Module):
        super().__init__()
        named = list(args[0].items()) if len(args) == 1 and isinstance(args[0], dict) else \
            [(str(i), layer) for i, layer in enumerate(args)]
        for name, layer in named:
            if not isinstance(layer, Module):
                if isinstance(layer, type) and issubclass(layer, Module):
                    fix = f"{layer.__name__}(...): build the layer (the class itself is not one)"
                elif callable(layer):
                    fix = "a layer in place of a function, e.g. nn.ReLU() for F.relu"
                else:
                    fix = "nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))"
                _args.fail("Sequential", f"layer '{name}'", "a glassgrad.nn.Module (a layer object)", layer, fix=fix,
                           type_error=True)
            setattr(self, name, layer)

    # PyTorch's list behaviour: a slice is a Sequential that keeps the layers' names; deleting
    # renumbers the layers "0", "1", ...; append, insert, extend, pop, +, +=, * and *= as PyTorch's.
    def _key(self, idx: int) -> str:
        keys = list(self._modules)
        if not -len(keys) <= idx < len(keys):
            raise IndexError(f"index {idx} is out of range")
        return keys[idx]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key(operator.index(idx))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(operator.index(idx)), module)

    def _renumber(self, layers) -> None:
        self._modules.clear()
        for i, layer in enumerate(layers):
            self.add_module(str(i), layer)

    def __delitem__(self, idx) -> None:
        items = list(self._modules.items())
        if isinstance(idx, slice):
            del items[idx]
        else:
            key = self._key(operator.index(idx))
            items = [(k, m) for k, m in items if k != key]
        self._renumber([m for _, m in items])

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        layers = list(self._modules.values())
        layers.insert(index if index >= 0 else index + n, module)
        self._renumber(layers)
        return self

    def extend(self, sequential) -> "Sequential":
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def __add__(self, other) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return self.extend(list(other))

    def __mul__(self, other: int) -> "Sequential":
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return Sequential().extend(list(self) * other)

    __rmul__ = __mul__

    def __imul__(self, other: int) -> "Sequential":
        combined = self * other
        self._renumber(list(combined))
        return self

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    __dir__ = Module._dir_without_positions

    def forward(self, input):
        for layer in self._modules.values():
            input = layer(input)
        return input


# The seed's spellings of PyTorch's classes (the same classes).
Conv2D = Conv2d
AdaptiveAvgPool2D = AdaptiveAvgPool2d
MaxPool2D = MaxPool2d
AvgPool2D = AvgPool2d
