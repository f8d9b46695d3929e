"""PyTorch's rules for empty sizes in adaptive pooling (its kernels' checks; an average whose
output size is 1 everywhere is a mean and is not checked):

- adaptive_avg_pool2d (and 1d, which is it on (N, C, 1, L)): the input's last two sizes must be
  nonzero (forward); a batched input of 0 channels pools (its output is empty) but its backward
  refuses: the backward kernel wants every size of grad_output after the first nonzero;
- adaptive_avg_pool3d and adaptive_max_pool1d/2d/3d: every input size after the first must be
  nonzero (an unbatched input may have 0 channels)."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

from . import _C
from ._tensor import Tensor


def nonempty_sizes(input: Tensor, where: str, dims: Iterable[int]) -> None:
    shape = list(input.shape)
    for d in dims:
        if shape[d] == 0:
            raise _C.ShapeError(f"{where}(): Expected input to have non-zero size for non-batch dimensions, but input "
                                f"has sizes {shape} with dimension {d} being empty\n  fix: give the input nonempty "
                                f"sizes after the batch (only N of (N, C, ...) may be 0)")


def refuse_empty_backward(output: Tensor, input: Tensor, kernel: str) -> Tensor:
    """output itself, or (an output empty after its first axis, of an input that needs a gradient:
    a batched input of 0 channels, an output size of 0) output through a node whose backward raises
    PyTorch's error: its backward kernel (`kernel`_backward) wants every size of grad_output after
    the first nonzero, though its forward pools to the empty result."""
    shape = list(output.shape)
    empty = [d for d in range(1, len(shape)) if shape[d] == 0]
    if not empty or not (input.requires_grad and _C.grad_enabled()):
        return output
    from .autograd.function import delayed_error
    return delayed_error(output, _C.ShapeError(
        f"{kernel}_backward(): Expected grad_output to have non-zero size for non-batch dimensions, but "
        f"grad_output has sizes {shape} with dimension {empty[0]} being empty\n  fix: give the input at least one "
        f"channel and the output nonzero sizes (the forward of an empty result runs, its backward cannot)"))


def empty_pooled(input: Tensor, outs: Sequence[int]) -> Tensor:
    """input pooled to trailing sizes `outs`, one of them 0: the empty result, connected to input
    (the caller routes its backward through refuse_empty_backward, as PyTorch's kernel refuses it)."""
    lead = list(input.shape[:input.ndim - len(outs)])
    flat = input.reshape(*lead, math.prod(input.shape[len(lead):]))
    return flat[..., :0].reshape(*lead, *outs)
