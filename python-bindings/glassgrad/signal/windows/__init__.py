"""torch.signal.windows: M-point windows, symmetric unless sym=False (then the window of a
length-M period: M + 1 points, the last dropped), float32 or float64 (the default floating type
unless dtype says), with PyTorch's ValueErrors for a negative M and bad parameters. The formulas
are SciPy's (scipy.signal.windows), which PyTorch's follow."""
from __future__ import annotations

import math
from typing import Iterable, Optional

import numpy as np

from ..._windows import BLACKMAN, NUTTALL, bartlett_formula, cosine_sum, kaiser_formula, signal_window
from ..._tensor import Tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def general_cosine(M, *, a: Iterable[float], sym: bool = True, dtype=None, layout=None, device=None,
                   requires_grad: bool = False) -> Tensor:
    """sum_j (-1)^j a[j] cos(2 pi j k / (M - 1))."""
    if not isinstance(a, Iterable):
        raise TypeError(f"Coefficients must be a list/tuple, got {type(a).__name__}\n  fix: a=[0.5, 0.5]")
    coefficients = [float(v) for v in a]
    if not coefficients:
        raise ValueError("Coefficients cannot be empty\n  fix: a=[0.5, 0.5] is the Hann window")
    return signal_window(M, sym, cosine_sum(coefficients), dtype, device, requires_grad)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """alpha - (1 - alpha) cos(2 pi k / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """0.5 - 0.5 cos(2 pi k / (M - 1))."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
            requires_grad: bool = False) -> Tensor:
    """0.54 - 0.46 cos(2 pi k / (M - 1))."""
    return general_hamming(M, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """0.42 - 0.5 cos(2 pi k / (M - 1)) + 0.08 cos(4 pi k / (M - 1))."""
    return general_cosine(M, a=BLACKMAN, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
            requires_grad: bool = False) -> Tensor:
    """The four-term minimum Nuttall (Blackman-Harris) cosine sum."""
    return general_cosine(M, a=NUTTALL, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """The triangle 1 - |2 k / (M - 1) - 1|."""
    return signal_window(M, sym, bartlett_formula, dtype, device, requires_grad, "bartlett")


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """I0(beta sqrt(1 - (2 k / (M - 1) - 1)^2)) / I0(beta), beta >= 0."""
    if not float(beta) >= 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.\n  fix: beta=12.0")
    return signal_window(M, sym, kaiser_formula(float(beta)), dtype, device, requires_grad, "kaiser")


def cosine(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """sin(pi (k + 0.5) / M), the sine window."""
    def formula(k: np.ndarray, total: int) -> np.ndarray:
        return np.sin(math.pi * (k + 0.5) / total)
    return signal_window(M, sym, formula, dtype, device, requires_grad, "cosine")


def exponential(M: int, *, center: Optional[float] = None, tau: float = 1.0, sym: bool = True, dtype=None,
                layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """exp(-|k - center| / tau), center (M - 1) / 2 unless given (only with sym=False)."""
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows\n  fix: sym=False with center=, or no center")
    if not float(tau) > 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.\n  fix: tau=1.0")

    def formula(k: np.ndarray, total: int) -> np.ndarray:
        mid = (total - 1) / 2 if center is None else float(center)
        return np.exp(-np.abs(k - mid) / float(tau))
    if M == 1 and center is not None:  # one point away from a given center is not 1 (PyTorch's)
        return signal_window(2, True, formula, dtype, device, requires_grad, "exponential")[:1].detach() \
            .requires_grad_(bool(requires_grad))
    return signal_window(M, sym, formula, dtype, device, requires_grad, "exponential")


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """exp(-(k - (M - 1) / 2)^2 / (2 std^2)), std > 0."""
    if not float(std) > 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.\n  fix: std=1.0")

    def formula(k: np.ndarray, total: int) -> np.ndarray:
        return np.exp(-((k - (total - 1) / 2) ** 2) / (2 * float(std) ** 2))
    return signal_window(M, sym, formula, dtype, device, requires_grad, "gaussian")
