"""The region arguments roi_pool and roi_align share."""
from __future__ import annotations

import math
from typing import List, Sequence, Union

from ... import _C
from ..._tensor import Tensor


def half_away(x: float) -> int:
    """C's round(): halves go away from zero (Python's round goes to even)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def regions(boxes: Union[Tensor, Sequence[Tensor]], what: str, batch: int) -> List[List[float]]:
    """(batch index, x1, y1, x2, y2) rows from a [K, 5] tensor or a list of [L, 4] tensors; each
    batch index names an image of the batch of `batch`."""
    rows = _rows(boxes, what)
    for r in rows:
        if not 0 <= int(r[0]) < batch:
            raise _C.GlassgradIndexError(f"{what}: a box names image {int(r[0])} of a batch of {batch}\n  fix: the "
                                         "first column of each row is an index into the batch")
    return rows


def _rows(boxes: Union[Tensor, Sequence[Tensor]], what: str) -> List[List[float]]:
    if isinstance(boxes, Tensor):
        if boxes.ndim != 2 or boxes.shape[1] != 5:
            raise _C.ShapeError(f"{what}: boxes as a tensor must be [K, 5] rows of (batch index, x1, y1, x2, y2), "
                                f"got {list(boxes.shape)}\n  fix: or pass a list of [L, 4] tensors, one per image")
        return boxes.detach().tolist()
    rows = []
    for b, per_image in enumerate(boxes):
        if per_image.ndim != 2 or per_image.shape[1] != 4:
            raise _C.ShapeError(f"{what}: boxes[{b}] must be [L, 4] rows of (x1, y1, x2, y2), got "
                                f"{list(per_image.shape)}")
        rows += [[float(b)] + r for r in per_image.detach().tolist()]
    return rows
