"""PyTorch's strides for the views that insert or drop size-1 axes (unsqueeze, select, squeeze,
indexing with None and integers): the `view_strides` attribute of their Reshape
(autodiff-engine views.h, set_view_strides; docs/inplace-and-views.md, "Strides").

A Reshape's strides are PyTorch's view() strides, but these views keep the strides of the axes
they leave, and PyTorch's unsqueeze(d) gives the new axis size(d) * stride(d) of the tensor it
is applied to (1 at the end): a size-1 axis addresses one element whatever its stride, so this
is a convention, which x.stride() shows. A source (axis, num, den) reads "stride(axis) * num /
den" of the Reshape's input (num itself for axis -1)."""
from __future__ import annotations

from typing import List, Sequence, Tuple

Source = Tuple[int, int, int]


def spec(sources: Sequence[Source]) -> List[int]:
    """The attribute for a Reshape whose axis k has the stride sources[k] gives."""
    return [n for src in sources for n in src]


def unsqueezed(in_shape: Sequence[int], d: int) -> List[Source]:
    """The sources of in_shape with a new axis at d (Tensor.unsqueeze(d))."""
    kept = [(j, 1, 1) for j in range(len(in_shape))]
    new = (d, in_shape[d], 1) if d < len(in_shape) else (-1, 1, 1)
    return kept[:d] + [new] + kept[d:]


def kept(in_rank: int, dropped) -> List[Source]:
    """The sources of the axes left when the axes `dropped` go (select, squeeze)."""
    return [(j, 1, 1) for j in range(in_rank) if j not in dropped]


def indexed(in_shape: Sequence[int], basic, steps: Sequence[int]) -> List[Source]:
    """The sources of t[basic] (_indexing._Plan.basic: per axis of t, in order, None for a new
    axis, an int or a slice) over the Reshape's input, t sliced (axis j with steps[j], an int's
    axis cut to one element): PyTorch applies the items left to right, so a None takes the
    size and stride the next axis has before an int or slice of it applies."""
    # the tensor PyTorch has after each item: per axis (source, size); an axis not yet reached is
    # t's, whose stride is the sliced one / its step
    now = [((j, 1, step), size) for j, (size, step) in enumerate(zip(in_shape, steps))]
    pos = axis = 0
    for k in basic:
        if k is None:
            if pos < len(now):
                (j, num, den), size = now[pos]
                now.insert(pos, ((j, num * size, den), 1))
            else:
                now.insert(pos, ((-1, 1, 1), 1))
            pos += 1
        elif isinstance(k, int):
            del now[pos]
            axis += 1
        else:
            now[pos] = ((axis, 1, 1), 0)  # sized as the slice: only the sources are read
            pos += 1
            axis += 1
    return [src for src, _ in now]
