"""Central finite differences, the one numeric gradient behind glassgrad.debug.gradcheck and
glassgrad.testing.check_gradient (the op table)."""
from __future__ import annotations

from typing import Callable, List, Sequence, Union

import numpy as np


def central_difference_rows(value: Callable[[List[np.ndarray]], Union[float, np.ndarray]], arrays: Sequence[np.ndarray], i: int,
                            eps: float) -> np.ndarray:
    """[elements of arrays[i], elements of value's result]: row j is
    (value(x + eps e_j) - value(x - eps e_j)) / (2 eps) for element j of arrays[i], in float64 (a
    numerical Jacobian, transposed). value gets copies of `arrays` with element j of arrays[i]
    moved by +-eps; the caller's arrays are left untouched."""
    base = [np.array(a, copy=True) for a in arrays]
    flat = base[i].reshape(-1)  # a view: np.array's copy is contiguous
    rows = []
    for j in range(flat.size):
        old = flat[j]
        flat[j] = old + eps
        up = np.asarray(value(base), dtype=np.float64).reshape(-1)
        flat[j] = old - eps
        down = np.asarray(value(base), dtype=np.float64).reshape(-1)
        flat[j] = old
        rows.append((up - down) / (2 * eps))
    if not rows:
        return np.zeros((0, np.asarray(value(base)).size))
    return np.stack(rows)


def central_differences(value: Callable[[List[np.ndarray]], float], arrays: Sequence[np.ndarray], i: int,
                        eps: float) -> np.ndarray:
    """(value(x + eps e_j) - value(x - eps e_j)) / (2 eps) for every element j of arrays[i] (a
    scalar value), shaped like arrays[i]."""
    return central_difference_rows(value, arrays, i, eps)[:, 0].reshape(np.shape(arrays[i]))
