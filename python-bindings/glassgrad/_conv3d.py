"""torch.nn.functional.conv3d, composed of 2-d convolutions: for kernel depth offset k, the input
planes k * dilation_d, + stride_d, ... (one per output depth) are folded into the batch and
convolved with the kernel's slice k by the Conv2D op (stride, dilation and groups in H and W);
the output is the sum over k, plus the bias. So it runs wherever Conv2D does, and its gradients
are Conv2D's, Slice's and Add's. Padding (ints, 'same', 'valid') is a zero pad first."""
from __future__ import annotations

from typing import Optional, Tuple, Union

import numpy as np

from . import _C, _autocast
from ._conv_rank import check_input_rank, check_layout
from ._conv_transpose import check_kernel, int_tuple
from ._padding import pad
from ._shapes import squeeze, unsqueeze
from ._tensor import Tensor, _op, tensor
from ._torch_operands import named_node, node_attrs

IntTuple = Union[int, Tuple[int, ...]]


def same_padding(kernel, dilation) -> Tuple[int, ...]:
    """F.pad amounts (last axis first) for padding='same': dilation (k - 1) in all, the extra one
    on the right (PyTorch's split)."""
    amounts: Tuple[int, ...] = ()
    for k, d in zip(reversed(kernel), reversed(dilation)):
        total = d * (k - 1)
        amounts += (total // 2, total - total // 2)
    return amounts


@_autocast.op("conv3d")
def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntTuple = 1,
           padding: Union[IntTuple, str] = 0, dilation: IntTuple = 1, groups: int = 1) -> Tensor:
    """PyTorch's F.conv3d: input (N, C_in, D, H, W) or (C_in, D, H, W), weight
    [C_out, C_in / groups, kd, kh, kw]; padding an int, a triple, 'same' (stride 1) or 'valid'."""
    from .functional import conv2d
    where = "conv3d"
    check_input_rank(input.shape, 3, where)
    check_layout(where, 3, input, weight, stride=stride, padding=padding, dilation=dilation)
    if weight.ndim != 5:
        raise _C.ShapeError(f"{where}: weight must be 5-d [C_out, C_in / groups, kd, kh, kw], got "
                            f"{list(weight.shape)}\n  fix: weight.reshape(C_out, C_in // groups, kd, kh, kw)")
    x = unpadded = input if input.ndim == 5 else unsqueeze(input, 0)
    s = int_tuple(stride, 3, "stride", where, minimum=1)
    d = int_tuple(dilation, 3, "dilation", where, minimum=1)
    k = tuple(weight.shape[2:])
    check_kernel(where, k)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise _C.InvalidArgumentError(f"{where}: Invalid padding string '{padding}'\n  fix: 'same' or 'valid'")
        if padding == "same" and s != (1, 1, 1):
            raise _C.InvalidArgumentError(f"{where}: padding='same' is not supported for strided convolutions "
                                          f"(stride {s})\n  fix: stride=1, or an explicit padding")
        amounts = same_padding(k, d) if padding == "same" else (0,) * 6
    else:
        p = int_tuple(padding, 3, "padding", where, minimum=0)
        amounts = (p[2], p[2], p[1], p[1], p[0], p[0])
    if any(amounts):
        x = pad(x, amounts)
    n, c, depth, h, w = x.shape
    if c != weight.shape[1] * groups:
        raise _C.ShapeError(f"{where}: Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                            f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got {c} channels "
                            f"instead\n  fix: in_channels = weight.shape[1] * groups")
    out_d = (depth - d[0] * (k[0] - 1) - 1) // s[0] + 1
    if out_d < 1:
        raise _C.ShapeError(f"{where}: the kernel depth {k[0]} (dilation {d[0]}) is larger than the padded input "
                            f"depth {depth}\n  fix: more padding, or a smaller kernel")
    parts = []
    for i in range(k[0]):
        start = i * d[0]
        planes = x[:, :, start:start + s[0] * (out_d - 1) + 1:s[0]]            # (N, C, out_d, H, W)
        folded = planes.transpose(1, 2).reshape(n * out_d, c, h, w)
        parts.append(conv2d(folded, weight[:, :, i], None, s[1:], 0, d[1:], groups))   # (N out_d, C_out, OH, OW)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    oh, ow = total.shape[-2:]
    unbatched = input.ndim == 4
    y = total.reshape(n, out_d, weight.shape[0], oh, ow)
    # the last op is PyTorch's one node ConvolutionBackward0 of (input, weight, bias)
    if bias is not None:
        y = y + bias.reshape(1, 1, -1, 1, 1)
    y = _op("Permute", [y], {"dims": [0, 2, 1, 3, 4], **node_attrs("ConvolutionBackward0", [y], unpadded, weight,
                                                                                         bias)})
    return squeeze(y, 0) if unbatched else y


@_autocast.op("conv_transpose3d")
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntTuple = 1,
                     padding: IntTuple = 0, output_padding: IntTuple = 0, groups: int = 1,
                     dilation: IntTuple = 1) -> Tensor:
    """PyTorch's F.conv_transpose3d: input (N, C_in, D, H, W) or (C_in, D, H, W), weight
    [C_in, C_out / groups, kd, kh, kw]. For each kernel depth offset, the input's depth planes
    (folded into the batch) go through conv_transpose2d with the kernel's slice, and land at output
    depths i * stride + offset * dilation (index_add); the padding is cropped after."""
    from ._conv_transpose import check_output_padding, conv_transpose2d
    from ._factories import zeros
    from ._indexing import index_add
    where = "conv_transpose3d"
    check_input_rank(input.shape, 3, where)
    check_layout(where, 3, input, weight, stride=stride, padding=padding, output_padding=output_padding,
                 dilation=dilation)
    if weight.ndim != 5:
        raise _C.ShapeError(f"{where}: weight must be 5-d [C_in, C_out / groups, kd, kh, kw], got "
                            f"{list(weight.shape)}\n  fix: weight.reshape(C_in, C_out // groups, kd, kh, kw)")
    x = input if input.ndim == 5 else input.reshape(1, *input.shape)
    s = int_tuple(stride, 3, "stride", where, minimum=1)
    p = int_tuple(padding, 3, "padding", where, minimum=0)
    op = int_tuple(output_padding, 3, "output_padding", where, minimum=0)
    d = int_tuple(dilation, 3, "dilation", where, minimum=1)
    check_kernel(where, tuple(weight.shape[2:]))
    check_output_padding(where, op, s, d)
    n, c, depth, h, w = x.shape
    if c != weight.shape[0]:
        raise _C.ShapeError(f"{where}: input has {c} channels, weight {list(weight.shape)} expects {weight.shape[0]}\n"
                            f"  fix: in_channels = weight.shape[0]")
    kd = weight.shape[2]
    out_d = (depth - 1) * s[0] - 2 * p[0] + d[0] * (kd - 1) + op[0] + 1
    full = (depth - 1) * s[0] + d[0] * (kd - 1) + 1 + op[0]        # before the padding is cropped
    folded = x.transpose(1, 2).reshape(n * depth, c, h, w)
    planes = [conv_transpose2d(folded, weight[:, :, i], None, s[1:], p[1:], op[1:], groups, d[1:]) for i in range(kd)]
    oc, oh, ow = planes[0].shape[1:]
    total = zeros(n, oc, full, oh, ow, dtype=x.dtype, device=x.device)
    for i, plane in enumerate(planes):
        moved = plane.reshape(n, depth, oc, oh, ow).transpose(1, 2)   # (N, C_out, D, OH, OW)
        where_to = tensor(np.arange(depth, dtype=np.int64) * s[0] + i * d[0], device=x.device)
        total = index_add(total, 2, where_to, moved)
    y = total[:, :, p[0]:p[0] + out_d]
    if bias is not None:
        y = y + bias.reshape(1, -1, 1, 1, 1)
    y = named_node(y, "ConvolutionBackward0", x, weight, bias)  # PyTorch's one node of (input, weight, bias)
    return y if input.ndim == 5 else squeeze(y, 0)
