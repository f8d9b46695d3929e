"""PyTorch's rules for empty sizes in adaptive pooling (its kernels' checks; an average whose
output size is 1 everywhere is a mean and is not checked):

- adaptive_avg_pool2d (and 1d, which is it on (N, C, 1, L)): the input's last two sizes must be
  nonzero (forward); a batched input of 0 channels pools (its output is empty) but its backward
  refuses: the backward kernel wants every size of grad_output after the first nonzero;
- adaptive_avg_pool3d and adaptive_max_pool1d/2d/3d: every input size after the first must be
  nonzero (an unbatched input may have 0 channels)."""
from __future__ import annotations

from typing import Iterable

from . import _C
from ._tensor import Tensor


def nonempty_sizes(input: Tensor, where: str, dims: Iterable[int]) -> None:
    shape = list(input.shape)
    for d in dims:
        if shape[d] == 0:
            raise _C.ShapeError(f"{where}(): Expected input to have non-zero size for non-batch dimensions, but input "
                                f"has sizes {shape} with dimension {d} being empty\n  fix: give the input nonempty "
                                f"sizes after the batch (only N of (N, C, ...) may be 0)")


def refuse_channelless_backward(output: Tensor, input: Tensor) -> Tensor:
    """output itself, or (a batched input of 0 channels that needs a gradient) output through a
    node whose backward raises PyTorch's error."""
    if input.ndim != 4 or input.shape[1] != 0 or not (input.requires_grad and _C.grad_enabled()):
        return output
    from .autograd.function import delayed_error
    shape = list(output.shape)
    return delayed_error(output, _C.ShapeError(
        "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for non-batch dimensions, but "
        f"grad_output has sizes {shape} with dimension 1 being empty\n  fix: give the input at least one channel "
        "(its forward of 0 channels runs, its backward cannot)"))
