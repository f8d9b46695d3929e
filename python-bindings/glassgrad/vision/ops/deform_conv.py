"""torchvision.ops.deform_conv2d and DeformConv2d (Dai et al. 2017, "Deformable Convolutional
Networks"; with a mask, Zhu et al. 2018, "Deformable ConvNets v2"), as a composite of existing ops
so every gradient (input, offset, weight, mask, bias) comes from them:

    out[n, o, y, x] = bias[o] + sum over the input channels c of o's group and kernel taps (i, j) of
        weight[o, c, i, j] * mask[n, g, i, j, y, x] * input[n, c] read bilinearly at
        (y * stride_h - pad_h + i * dil_h + offset[n, g, i, j, 0, y, x],
         x * stride_w - pad_w + j * dil_w + offset[n, g, i, j, 1, y, x])

g is c's offset group (the input channels split into offset.shape[1] // (2 * kh * kw) equal
groups), offsets are laid out (group, tap, (dy, dx)) along dim 1 as torchvision's, the mask
(group, tap), and a point reads 0 from outside the image: each of its four neighbours outside
counts 0, as torchvision's kernel reads them. The reads are F.grid_sample (bilinear, zeros,
align_corners=False) at the pixel coordinates normalized for it, one sampling grid per offset
group with the taps stacked along its height; the products with the weight are a grouped matmul."""
from __future__ import annotations

import math
from typing import Any, Optional, Tuple, Union

from ... import _C, nn
from ..._factories import arange, ones
from ..._grid_sample import grid_sample
from ..._shapes import matmul, stack
from ..._tensor import Tensor
from ...nn.modules.utils import _pair

__all__ = ["DeformConv2d", "deform_conv2d"]

_IntPair = Union[int, Tuple[int, int]]


def _check(input: Tensor, offset: Tensor, weight: Tensor, mask: Optional[Tensor], out_hw: Tuple[int, int],
           offset_groups: int) -> None:
    """torchvision's checks of the shapes (RuntimeError, as its kernel raises them)."""
    def fail(what: str, fix: str) -> None:
        raise _C.ShapeError(f"deform_conv2d: {what}\n  input {tuple(input.shape)}, offset {tuple(offset.shape)}, "
                            f"weight {tuple(weight.shape)}, mask {None if mask is None else tuple(mask.shape)}\n"
                            f"  fix: {fix}")
    if input.dim() != 4 or weight.dim() != 4 or offset.dim() != 4:
        fail("input, offset and weight must be 4-D", "input (N, C, H, W), offset (N, 2 * groups * kh * kw, "
             "H_out, W_out), weight (out_channels, C // groups, kh, kw)")
    kh, kw = weight.shape[-2:]
    if offset_groups == 0 or offset.shape[1] != offset_groups * 2 * kh * kw:
        fail("the shape of the offset tensor at dimension 1 is not valid. It should be a multiple of "
             f"2 * weight.size[2] * weight.size[3].\nGot offset.shape[1]={offset.shape[1]}, while "
             f"2 * weight.size[2] * weight.size[3]={2 * kh * kw}", "offset channels = 2 * offset_groups * kh * kw")
    if input.shape[1] % offset_groups or input.shape[1] % weight.shape[1]:
        fail(f"{input.shape[1]} input channels split into neither {offset_groups} offset groups nor groups of "
             f"{weight.shape[1]} (weight.shape[1])", "channels divisible by both")
    if offset.shape[0] != input.shape[0] or tuple(offset.shape[2:]) != out_hw:
        fail(f"offset must be ({input.shape[0]}, {offset.shape[1]}, {out_hw[0]}, {out_hw[1]}): the batch and the "
             f"output's height and width", "compute the offsets at the convolution's output size")
    if out_hw[0] <= 0 or out_hw[1] <= 0:
        fail(f"the output would be {out_hw[0]} x {out_hw[1]}", "a larger input, or more padding")
    if mask is not None and (mask.dim() != 4 or mask.shape[0] != input.shape[0] or tuple(mask.shape[2:]) != out_hw
                             or mask.shape[1] != offset_groups * kh * kw):
        fail(f"mask must be ({input.shape[0]}, {offset_groups * kh * kw}, {out_hw[0]}, {out_hw[1]})",
             "one mask value per offset group, tap and output pixel")


def deform_conv2d(input: Tensor, offset: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                  stride: _IntPair = (1, 1), padding: _IntPair = (0, 0), dilation: _IntPair = (1, 1),
                  mask: Optional[Tensor] = None) -> Tensor:
    """torchvision.ops.deform_conv2d: input (N, C, H, W), offset (N, 2 * G * kh * kw, H_out, W_out),
    weight (O, C // groups, kh, kw), mask (N, G * kh * kw, H_out, W_out) or None -> (N, O, H_out, W_out)."""
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    n, c, h, w = input.shape
    o, c_per_group, kh, kw = weight.shape
    taps = kh * kw
    offset_groups = offset.shape[1] // (2 * taps) if offset.dim() == 4 else 0
    out_hw = ((h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1)
    _check(input, offset, weight, mask, out_hw, offset_groups)
    ho, wo = out_hw
    g = offset_groups
    kw_dtype = {"dtype": input.dtype, "device": input.device}
    # each tap's sampling point before the offset, in pixels: (taps, H_out, 1) rows and (taps, 1, W_out) columns
    tap = arange(taps, **kw_dtype)
    rows = (arange(ho, **kw_dtype) * sh - ph).reshape(1, ho, 1) + ((tap // kw) * dh).reshape(taps, 1, 1)
    cols = (arange(wo, **kw_dtype) * sw - pw).reshape(1, 1, wo) + ((tap % kw) * dw).reshape(taps, 1, 1)
    moved = offset.reshape(n, g, taps, 2, ho, wo)
    y = moved[:, :, :, 0] + rows  # (N, G, taps, H_out, W_out)
    x = moved[:, :, :, 1] + cols
    # (x, y, sampled, out: Any where Tensor's operators, attached at import, meet mypy)
    # grid_sample's coordinates (align_corners=False): pixel p of a side of length L is (2p + 1) / L - 1
    grid = _grid(x, y, h, w).reshape(n * g, taps * ho, wo, 2)
    sampled: Any = grid_sample(input.reshape(n * g, c // g, h, w), grid, mode="bilinear", padding_mode="zeros",
                          align_corners=False).reshape(n, g, c // g, taps, ho, wo)
    if mask is not None:
        sampled = sampled * mask.reshape(n, g, 1, taps, ho, wo)
    groups = c // c_per_group
    columns = sampled.reshape(n, groups, c_per_group * taps, ho * wo)
    out: Any = matmul(weight.reshape(1, groups, o // groups, c_per_group * taps), columns).reshape(n, o, ho, wo)
    return out if bias is None else out + bias.reshape(1, o, 1, 1)


def _grid(x: Any, y: Any, h: int, w: int) -> Tensor:
    """(..., 2) of grid_sample's (x, y) for pixel coordinates x, y of an h x w image (align_corners=False)."""
    return stack([(2 * x + 1) / w - 1, (2 * y + 1) / h - 1], dim=-1)


class DeformConv2d(nn.Module):
    """torchvision.ops.DeformConv2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    dilation=1, groups=1, bias=True): forward(input, offset, mask=None). weight and bias start as
    nn.Conv2d's (kaiming_uniform_(a=sqrt(5)), bias uniform in +-1/sqrt(fan_in))."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _IntPair, stride: _IntPair = 1,
                 padding: _IntPair = 0, dilation: _IntPair = 1, groups: int = 1, bias: bool = True) -> None:
        super().__init__()
        if in_channels % groups != 0:
            raise _C.InvalidArgumentError(f"in_channels must be divisible by groups\n  DeformConv2d: in_channels="
                                          f"{in_channels}, groups={groups}\n  fix: a groups that divides both")
        if out_channels % groups != 0:
            raise _C.InvalidArgumentError(f"out_channels must be divisible by groups\n  DeformConv2d: out_channels="
                                          f"{out_channels}, groups={groups}\n  fix: a groups that divides both")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _pair(kernel_size), _pair(stride)
        self.padding, self.dilation = _pair(padding), _pair(dilation)
        self.groups = groups
        self.weight = nn.Parameter(ones(out_channels, in_channels // groups, *self.kernel_size))
        if bias:
            self.bias: Optional[nn.Parameter] = nn.Parameter(ones(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * self.weight.shape[2] * self.weight.shape[3]
            bound = 1 / math.sqrt(fan_in)
            nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor, offset: Tensor, mask: Optional[Tensor] = None) -> Tensor:
        return deform_conv2d(input, offset, self.weight, self.bias, stride=self.stride, padding=self.padding,
                             dilation=self.dilation, mask=mask)

    def __repr__(self) -> str:
        s = f"{type(self).__name__}({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, " \
            f"stride={self.stride}"
        s += f", padding={self.padding}" if self.padding != (0, 0) else ""
        s += f", dilation={self.dilation}" if self.dilation != (1, 1) else ""
        s += f", groups={self.groups}" if self.groups != 1 else ""
        s += ", bias=False" if self.bias is None else ""
        return s + ")"
