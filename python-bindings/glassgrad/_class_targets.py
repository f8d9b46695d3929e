"""The shape checks PyTorch's nll_loss (and so cross_entropy, which calls it on log_softmax) makes
of class-index targets before anything is computed, with PyTorch's messages first (a script's
`except ValueError` and a reader comparing the two runs see the same text), then glassgrad's
shapes and fix.

In PyTorch's order: a batched input (N, C, ...) and a target of another first size is a
ValueError ('Expected input batch_size (N) to match target batch_size (M).'; a 0-d target counts
as size 0, as PyTorch reports it); a 1-d input (C,) takes a 0-d target or one of size 1; (N, C)
takes a 1-d target ('0D or 1D target tensor expected, multi-target not supported'); (N, C, H, W)
takes (N, H, W); other (N, C, d1, ...) take (N, d1, ...) ('Expected target size ...')."""
from __future__ import annotations

from typing import List, Sequence

from . import _C


def _fail(error, first: str, where: str, input_shape: Sequence[int], target_shape: Sequence[int], fix: str):
    raise error(f"{first}\n  {where}: input {list(input_shape)}, target {list(target_shape)} (class indices)\n"
                f"  fix: {fix}")


def check_class_targets(input_shape: Sequence[int], target_shape: Sequence[int], where: str) -> None:
    """Raises as PyTorch's nll_loss does when class-index targets of target_shape do not fit scores
    of input_shape (classes on dim 1, or dim 0 when unbatched)."""
    n, t = len(input_shape), len(target_shape)
    if n == 0:
        _fail(_C.ShapeError, f"Expected 1 or more dimensions (got {n})", where, input_shape, target_shape,
              "give the scores of each class: shape (C,) or (N, C)")
    if n == 1:
        if t > 1 or (t == 1 and target_shape[0] != 1):
            _fail(_C.ShapeError, f"For 1D input, 1D target must have size 1, but got target size: "
                  f"{target_shape[0] if t else 0}", where, input_shape, target_shape,
                  "one class index for the one sample: a 0-d target, torch.tensor(k)")
        return
    batch = target_shape[0] if t else 0
    if input_shape[0] != batch:
        _fail(_C.ShapeError, f"Expected input batch_size ({input_shape[0]}) to match target batch_size ({batch}).",
              where, input_shape, target_shape,
              "one target per row of the input: a 0-d target y of one sample is y.view(1) (or y.unsqueeze(0)); "
              "batches sliced alike, x[i:i+B], y[i:i+B]")
    want: List[int] = [input_shape[0]] + list(input_shape[2:])
    if n == 2 and t != 1:
        column = t == 2 and target_shape[1] == 1
        _fail(_C.ShapeError, "0D or 1D target tensor expected, multi-target not supported", where, input_shape,
              target_shape, "y.view(-1): one class index per row" if column else
              f"one class index per row, shape {want} (class probabilities are floating point, of the input's shape)")
    if n == 4 and t != 3:
        _fail(_C.ShapeError, f"only batches of spatial targets supported (3D tensors) but got targets of "
              f"dimension: {t}", where, input_shape, target_shape, f"one class index per pixel, shape {want}")
    if n == 4 and list(target_shape) != want:
        _fail(_C.ShapeError, f"size mismatch (got input: {list(input_shape)} , target: {list(target_shape)}",
              where, input_shape, target_shape, f"one class index per pixel, shape {want}")
    if n > 2 and list(target_shape) != want:
        _fail(_C.ShapeError, f"Expected target size {want}, got {list(target_shape)}", where, input_shape,
              target_shape, f"one class index per position, shape {want}")
