"""torch.nn.functional.bilinear, channel_shuffle and gumbel_softmax, composed:

- bilinear: y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o], as one MatMul of x1 with
  W laid out [in1, out * in2], then a product with x2 summed over in2;
- channel_shuffle: (N, C, *) viewed as (N, g, C / g, *), the two channel axes swapped (ShuffleNet)."""
from __future__ import annotations

from typing import Optional

from . import _C, _args, _autocast
from ._tensor import Tensor
from ._torch_operands import named_node


@_autocast.op("bilinear")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """PyTorch's F.bilinear: input1 (..., in1), input2 (..., in2), weight (out, in1, in2), bias (out)."""
    if weight.ndim != 3:
        raise _C.ShapeError(f"bilinear: weight must be 3-d (out, in1, in2), got {list(weight.shape)}\n"
                            f"  fix: weight.reshape(out_features, in1_features, in2_features)")
    out, in1, in2 = weight.shape
    s1, s2 = tuple(input1.shape), tuple(input2.shape)
    # PyTorch's checks in its order, its sentence first
    sentence = ""
    if len(s1) != len(s2):
        sentence = f"input dimensions do not match: got {len(s1)} and {len(s2)}"
    elif s1[:-1] != s2[:-1]:
        d = next(i for i, (a, b) in enumerate(zip(s1, s2)) if a != b)
        sentence = f"input batch dimensions do not match at dim {d}: got {s1[d]} and {s2[d]}"
    elif s1[-1] != in1:
        sentence = f"input1 size does not match weight size: got {s1[-1]} but expected {in1}"
    elif s2[-1] != in2:
        sentence = f"input2 size does not match weight size: got {s2[-1]} but expected {in2}"
    elif bias is not None and tuple(bias.shape[:1]) != (out,):
        sentence = f"bias size does not match weight size: got {bias.shape[0] if bias.ndim else 1} but expected {out}"
    if sentence:
        raise _C.ShapeError(f"bilinear(): {sentence}\n  bilinear: input1 {list(s1)}, input2 {list(s2)}, weight "
                            f"{list(weight.shape)} (out, in1, in2)\n  fix: inputs (..., {in1}) and (..., {in2}) "
                            f"with the same leading dims" + (f", a bias of {out}" if bias is not None else ""))
    t = input1 @ weight.permute(1, 0, 2).reshape(in1, out * in2)               # (..., out * in2)
    y = (t.reshape(*input1.shape[:-1], out, in2) * input2.unsqueeze(-2)).sum(-1)
    y = named_node(y, "ViewBackward0")  # PyTorch's last node before the bias: the view of its trilinear product
    return y if bias is None else y + bias


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """PyTorch's F.channel_shuffle (nn.ChannelShuffle): channels (g, C / g) reordered as (C / g, g)."""
    groups = _args.integer(groups, "groups", "channel_shuffle", minimum=1, fix="channel_shuffle(x, 2)")
    if input.ndim < 3:
        raise _C.ShapeError(f"channel_shuffle: Expected input to have at least 3 dimensions, got "
                            f"{list(input.shape)}\n  fix: (N, C, ...) input")
    n, c = input.shape[:2]
    if c % groups:
        raise _C.ShapeError(f"channel_shuffle: Number of channels must be divisible by groups. Got {c} channels and "
                            f"{groups} groups.\n  fix: groups dividing {c}")
    rest = tuple(input.shape[2:])
    y = input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)
    return named_node(y, "ChannelShuffleBackward0", input)  # PyTorch's one node of the input


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """PyTorch's F.gumbel_softmax: softmax((logits + g) / tau) along dim with g = -log(E), E ~ Exp(1)
    drawn from glassgrad's generator; hard=True returns the one-hot of its argmax with the soft
    sample's gradient (y_hard - y_soft.detach() + y_soft)."""
    from ._factories import empty_like
    tau = _args.real(tau, "tau", "gumbel_softmax")
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not _args.flag(hard, "hard", "gumbel_softmax"):
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = (y_soft.detach() * 0.0).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
