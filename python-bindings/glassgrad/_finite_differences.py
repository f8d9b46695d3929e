"""Central finite differences, the one numeric gradient behind glassgrad.debug.gradcheck and
glassgrad.testing.check_gradient (the op table)."""
from __future__ import annotations

from typing import Callable, List, Sequence

import numpy as np


def central_differences(value: Callable[[List[np.ndarray]], float], arrays: Sequence[np.ndarray], i: int,
                        eps: float) -> np.ndarray:
    """(value(x + eps e_j) - value(x - eps e_j)) / (2 eps) for every element j of arrays[i], in
    float64. value gets copies of `arrays` with element j of arrays[i] moved by +-eps; the
    caller's arrays are left untouched."""
    base = [np.array(a, copy=True) for a in arrays]
    flat = base[i].reshape(-1)  # a view: np.array's copy is contiguous
    grad = np.zeros(base[i].shape, dtype=np.float64)
    gflat = grad.reshape(-1)
    for j in range(flat.size):
        old = flat[j]
        flat[j] = old + eps
        up = value(base)
        flat[j] = old - eps
        down = value(base)
        flat[j] = old
        gflat[j] = (up - down) / (2 * eps)
    return grad
