"""torch.nn.functional.local_response_norm, composed: each element divided by
(k + alpha / size * sum of squares over `size` neighbouring channels) ** beta, the window
[c - size // 2, c + (size - 1) // 2] with zeros past the edges (PyTorch's zero pad and average
pool over channels)."""
from __future__ import annotations

from . import _C, _args
from ._padding import pad
from ._tensor import Tensor


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """PyTorch's F.local_response_norm over the channels (dim 1) of a 3-d or higher input."""
    where = "local_response_norm"
    size = _args.integer(size, "size", where, minimum=1, fix="size=5")
    alpha, beta, k = (_args.real(v, name, where) for v, name in ((alpha, "alpha"), (beta, "beta"), (k, "k")))
    if input.ndim < 3:
        raise _C.ShapeError(f"{where}: Expected 3D or higher dimensionality input (got {input.ndim} dimensions, shape "
                            f"{list(input.shape)})\n  fix: (N, C, L) or (N, C, H, W)")
    if input.numel() == 0:
        return input
    n, c = input.shape[:2]
    squares = (input * input).reshape(n, c, -1).transpose(1, 2)          # (N, rest, C)
    padded = pad(squares, (size // 2, (size - 1) // 2))
    window = padded[..., 0:c]
    for s in range(1, size):
        window = window + padded[..., s:s + c]
    div = (window.transpose(1, 2).reshape(input.shape) * (alpha / size) + k) ** beta
    return input / div
