"""LinearTransformation's arguments and work (torchvision's v1 and v2): a tensor image of
C * H * W = D values flattened, minus mean_vector [D], times transformation_matrix [D, D]."""
from __future__ import annotations

from ..._tensor import Tensor

__all__ = ["check_linear", "linear_transform"]


def check_linear(matrix, mean):
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"transformation_matrix should be square. Got {tuple(matrix.shape)} rectangular matrix.")
    if mean.shape[0] != matrix.shape[0]:
        raise ValueError(f"mean_vector should have the same length {mean.shape[0]} as any one of the dimensions of "
                         f"the transformation_matrix [{tuple(matrix.shape)}]")
    if str(matrix.device) != str(mean.device):
        raise ValueError(f"Input tensors should be on the same device. Got {matrix.device} and {mean.device}")
    if matrix.dtype != mean.dtype:
        raise ValueError(f"Input tensors should have the same dtype. Got {matrix.dtype} and {mean.dtype}")
    return matrix, mean


def linear_transform(inpt, matrix, mean):
    import glassgrad as gg
    if not isinstance(inpt, Tensor):
        raise TypeError(f"LinearTransformation does not work on {type(inpt).__name__}\n  fix: a tensor image "
                        "(ToImage / ToTensor first)")
    shape = inpt.shape
    n = shape[-3] * shape[-2] * shape[-1]
    if n != matrix.shape[0]:
        raise ValueError("Input tensor and transformation matrix have incompatible shape."
                         f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != {matrix.shape[0]}")
    if str(inpt.device) != str(mean.device):
        raise ValueError(f"Input tensor should be on the same device as transformation matrix and mean vector. Got "
                         f"{inpt.device} vs {mean.device}")
    flat = inpt.reshape(-1, n) - mean
    return gg.mm(flat, matrix.to(flat.dtype)).reshape(shape)
