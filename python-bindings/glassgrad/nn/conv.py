"""ConvTranspose2d, Conv1d, Conv3d, ConvTranspose1d and ConvTranspose3d, with PyTorch's arguments, positional order,
weight layouts, initialization and printing (Conv2d is in layers.py).

- ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
  groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None): weight
  [in_channels, out_channels / groups, kh, kw]; forward(input, output_size=None) picks the
  output_padding that gives output_size. Runs as F.conv_transpose2d (glassgrad/_conv_transpose.py):
  the convolution's input gradient.
- Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
  bias=True, padding_mode='zeros', ...): weight [out_channels, in_channels / groups, k].
- Conv3d: as Conv1d over (N, C, D, H, W); weight [out_channels, in_channels / groups, kd, kh, kw].
- ConvTranspose1d: as ConvTranspose2d over (N, C, L).

Initialization is PyTorch's reset_parameters: weight and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))
with fan_in = weight.shape[1] * kernel elements, which for a transposed convolution is
out_channels / groups * kh * kw.
"""
from __future__ import annotations

from typing import Optional

from .. import _C, _args
from .._conv3d import conv3d, conv_transpose3d, same_padding
from .._conv_transpose import conv1d, conv_transpose1d, conv_transpose2d, layer_tuple, output_padding_for
from .._padding import pad
from .layers import (_check_tensor, _default_uniform, _parameter, as_bfloat16, conv_extra_repr, optional_parameter,
                     parameter_dtype, reset_conv_parameters)
from .module import Module


class _ConvNd(Module):
    """What PyTorch's _ConvNd holds: the checked arguments, weight and bias, and the repr."""

    _DIMS = 2
    _TRANSPOSED = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                 output_padding, device, dtype):
        super().__init__()
        name, n = type(self).__name__, self._DIMS
        where = _args.call(name, in_channels, out_channels, kernel_size)
        self.in_channels = _args.integer(in_channels, "in_channels", where)  # 0 allowed, as PyTorch's (an empty weight)
        self.out_channels = _args.integer(out_channels, "out_channels", where)
        # the kernel sizes make the weight (0 builds an empty one, a negative one is refused there, as
        # PyTorch's); stride, padding, dilation and output_padding are kept as PyTorch's _ntuple makes
        # them, and the call refuses a bad one (F.conv*d; docs/porting.md)
        self.kernel_size = layer_tuple(kernel_size, n, "kernel_size", where)
        self.stride, self.dilation = _args.as_tuple(stride, n), _args.as_tuple(dilation, n)
        self.groups = _args.integer_as_pytorch(groups, "groups", where, 1, "groups must be a positive integer")
        self.padding_mode = _args.choice(padding_mode, "padding_mode", where, ("zeros", "reflect", "replicate",
                                                                               "circular"),
                                         fix="padding_mode='zeros' (PyTorch's default)")
        if self._TRANSPOSED and self.padding_mode != "zeros":
            raise _C.InvalidArgumentError(f'{where}: Only "zeros" padding mode is supported for {name}\n'
                                          f'  fix: padding_mode="zeros"')
        if isinstance(padding, str) and not self._TRANSPOSED:
            with _args.pytorch_says(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}"):
                self.padding = _args.choice(padding, "padding", where, ("same", "valid"),
                                            fix="padding='same' keeps the length (stride 1)")
            _args.no_strided_same(where, self.padding, self.stride)
        else:
            self.padding = _args.as_tuple(padding, n)
        self.transposed = self._TRANSPOSED
        self.output_padding = _args.as_tuple(output_padding, n)
        for what, v in (("in_channels", self.in_channels), ("out_channels", self.out_channels)):
            if v % self.groups:
                raise _C.InvalidArgumentError(
                    f"{where}: {what} must be divisible by groups ({what}={v}, groups={self.groups})\n  cause: a "
                    f"grouped convolution splits the input and output channels into `groups` equal slices\n"
                    f"  fix: choose groups dividing both {self.in_channels} and {self.out_channels}")
        first, second = (self.in_channels, self.out_channels) if self._TRANSPOSED else \
            (self.out_channels, self.in_channels)
        shape = (first, second // self.groups) + self.kernel_size
        _args.weight_sizes(where, shape, in_channels=self.in_channels, out_channels=self.out_channels,
                           kernel_size=min(self.kernel_size))
        fan_in = shape[1]
        for k in self.kernel_size:
            fan_in *= k
        dt = parameter_dtype(dtype, where)
        self.weight = _parameter(_default_uniform(shape, fan_in), device, dt)
        optional_parameter(self, "bias", _parameter(_default_uniform(self.out_channels, fan_in), device, dt)
                           if _args.switch(bias) else None)
        as_bfloat16(self, dtype)

    reset_parameters = reset_conv_parameters

    def extra_repr(self) -> str:
        return conv_extra_repr(self)


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d / 2d: PyTorch's arguments (the same for both), and forward(input,
    output_size=None), which picks the output_padding that gives output_size."""

    _TRANSPOSED = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         output_padding, device, dtype)

    def forward(self, input, output_size: Optional[list] = None):
        _check_tensor(self, input)
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = output_padding_for(f"{type(self).__name__}.forward", output_size,
                                                tuple(input.shape[-self._DIMS:]), self.stride, self.padding,
                                                self.kernel_size, self.dilation, input.ndim == self._DIMS + 2)
        fn = {1: conv_transpose1d, 2: conv_transpose2d, 3: conv_transpose3d}[self._DIMS]
        return fn(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution (PyTorch's nn.ConvTranspose2d), DCGAN's upsampling layer: the
    adjoint of Conv2d(out_channels, in_channels, kernel_size, stride, padding, dilation, groups),
    mapping (N, C_in, H, W) to (N, C_out, (H - 1) stride - 2 padding + dilation (k - 1) +
    output_padding + 1, ...)."""

    _DIMS = 2


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution (PyTorch's nn.ConvTranspose1d) over (N, C_in, L) or (C_in, L)."""

    _DIMS = 1


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution (PyTorch's nn.ConvTranspose3d) over (N, C_in, D, H, W) or
    (C_in, D, H, W): F.conv_transpose3d (glassgrad/_conv3d.py: 2-d transposed convolutions placed
    at their output depths)."""

    _DIMS = 3


class _PlainConvNd(_ConvNd):
    """Conv1d / Conv3d: PyTorch's arguments, and a forward that runs the class's function, after
    F.pad with padding_mode when it is not 'zeros' (padding='same' splits dilation (k - 1) with
    the extra one on the right, as PyTorch)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         0, device, dtype)

    def _conv(self, input, padding):
        fn = conv1d if self._DIMS == 1 else conv3d
        return fn(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)

    def forward(self, input):
        _check_tensor(self, input)
        if self.padding_mode == "zeros":
            return self._conv(input, self.padding)
        if isinstance(self.padding, str):  # 'same' at stride 1 ('valid' pads nothing)
            amounts = same_padding(self.kernel_size, self.dilation) if self.padding == "same" else (0,) * 2 * self._DIMS
        else:
            amounts = tuple(v for p in reversed(self.padding) for v in (p, p))
        return self._conv(pad(input, amounts, self.padding_mode), 0)


class Conv1d(_PlainConvNd):
    """1-d convolution over (N, C_in, L) or (C_in, L) input (PyTorch's nn.Conv1d): weight
    [out_channels, in_channels / groups, k]; padding an int, (p,), 'same' or 'valid';
    padding_mode 'reflect', 'replicate' or 'circular' pads with F.pad first."""

    _DIMS = 1


class Conv3d(_PlainConvNd):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W) input (PyTorch's nn.Conv3d):
    weight [out_channels, in_channels / groups, kd, kh, kw]; padding an int, a triple, 'same' or
    'valid'; padding_mode 'reflect', 'replicate' or 'circular' pads with F.pad first. Runs as
    F.conv3d (glassgrad/_conv3d.py: 2-d convolutions summed over the kernel's depth)."""

    _DIMS = 3
