"""glassgrad.Size: a tensor's shape, a tuple of ints as PyTorch's torch.Size is (x.shape,
x.size()): it compares equal to the plain tuple, unpacks, slices to a Size and adds to one."""
from __future__ import annotations

import math
import numbers
import operator

from ._args import tensor_index


class Size(tuple):
    """A shape: a tuple of non-negative ints (PyTorch's torch.Size)."""

    __slots__ = ()
    __module__ = "glassgrad"  # type() shows its public name, as torch.Size / torch.dtype do

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        # Plain ints (every runtime shape) need no check or conversion: the common case, taken
        # without the numbers.Integral ABC check per dim.
        if all(type(s) is int for s in sizes):
            return super().__new__(cls, sizes)
        for s in sizes:
            # an int, or a 0-d integer tensor (PyTorch's Size reads its __index__)
            if isinstance(s, bool) or not (isinstance(s, numbers.Integral) or tensor_index(s) is not None):
                raise TypeError(f"glassgrad.Size() takes an iterable of ints, got {type(s).__name__} {s!r}")
        return super().__new__(cls, (operator.index(s) for s in sizes))

    def __getitem__(self, index):
        got = tuple.__getitem__(self, index)
        # A slice holds this Size's ints, checked when it was made (__new__): no second check.
        return tuple.__new__(Size, got) if type(index) is slice else got

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def numel(self) -> int:
        """The number of elements of a tensor of this shape (1 for the 0-d shape)."""
        return math.prod(self)

    def __repr__(self) -> str:
        return f"glassgrad.Size({list(self)})"

    def __reduce__(self):
        return (Size, (tuple(self),))
