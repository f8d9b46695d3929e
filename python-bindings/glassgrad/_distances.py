"""Distances and normalization with torch.nn.functional's names, arguments and defaults:
cosine_similarity, pairwise_distance, normalize (composites of elementwise ops and norms)."""
from __future__ import annotations

from . import _C, _args, _autocast, _dtypes
from ._inplace import _type_name
from ._out import write_out
from ._shapes import broadcast_tensors
from ._tensor import Tensor, _op
from ._torch_operands import named_node


@_autocast.op("cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """PyTorch's F.cosine_similarity: x1 . x2 / (max(||x1||, eps) max(||x2||, eps)) along dim of the
    broadcast shape; dim is removed. The inputs convert to their common dtype, which must be
    floating (PyTorch's check): promote_types of the two dtypes, a 0-d input's included (PyTorch's
    cosine_similarity of float16 x1 and a 0-d float32 x2 is float32)."""
    common = _dtypes.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise _C.DTypeError(f"expected common dtype to be floating point, yet common dtype is "
                            f"{_type_name(common)}\n  cosine_similarity: x1 is {x1.dtype}, x2 {x2.dtype}\n"
                            f"  fix: x1.float(), x2.float()")
    x1, x2 = (x if x.dtype == common else x.to(common) for x in (x1, x2))
    if x1.shape != x2.shape:  # PyTorch's norms are over dim of the broadcast shape: a 0-d or row x2 too
        x1, x2 = broadcast_tensors(x1, x2)
    n1 = x1.norm(2, dim=dim, keepdim=True).clamp(min=eps)
    n2 = x2.norm(2, dim=dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """PyTorch's F.pairwise_distance: ||x1 - x2 + eps||_p over the last dimension."""
    _args.python_bool(keepdim, "keepdim", "pairwise_distance", "keepdim=True or keepdim=False")
    d = x1 - x2
    if d.requires_grad:  # PyTorch's graph: NormBackward1 of AddBackward1 (a tensor and a number) of the difference
        d = _op("AddScalar", [d], {"value": float(eps), "torch_node": "AddBackward1", "torch_operands": [0]})
    else:
        d = d + eps
    return named_node(d.norm(p, dim=-1, keepdim=keepdim), "NormBackward1", d)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """PyTorch's F.normalize: input / max(||input||_p, eps) along dim."""
    y = input / input.norm(p, dim=dim, keepdim=True).clamp(min=eps).expand_as(input)
    return y if out is None else write_out(out, y, "normalize")
